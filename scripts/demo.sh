#!/usr/bin/env bash
# The main job, end to end: builds d4r-kerneld, starts it on a private socket serving the release
# fixture (real code objects clang-19 built from kernels/testdata) and the recipes of
# kernels/recipes, and answers real requests the way ZLUDA's override hook would ask them: through
# the C client, then through the CLI, then one that is compiled on demand in a worker process.
# Pass a release directory to serve your own:  scripts/demo.sh /path/to/d4r/kernels [gfx1101]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
build=${BUILD_DIR:-build}
release=${1:-$build/fixtures/release}
arch=${2:-gfx1101}
work=$(mktemp -d)
trap 'kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

socket=$work/run/d4r-kerneld/socket
"$build/daemon/d4r-kerneld" --foreground --socket "$socket" --cache-dir "$work/cache" \
  --native-dir "$release" --recipes-dir kernels/recipes --gpu-arch "$arch" &
daemon_pid=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done

ptx=tests/ptx/sr_module.ptx
echo
echo "== the hook's view: prepare $ptx, then resolve d4r_test_layer through libd4r_kernel_client.so"
"$build/tests/d4r-test-resolve" "$socket" "$ptx" d4r_test_layer 2000 || true
echo
echo "== the same request through the CLI"
"$build/cli/d4r-kernel" --socket "$socket" resolve --module-hash 8baeb925f177af87 \
  --kernel d4r_test_layer --target "$arch" --out "$work/d4r_test_layer.hsaco" || true
echo
echo "== a module hash the manifest does not list: ZLUDA compiles that kernel itself"
"$build/cli/d4r-kernel" --socket "$socket" resolve --module-hash 0123456789abcdef \
  --kernel d4r_test_layer --target "$arch" || true
echo
echo "== a kernel the release does not have, built on demand from its recipe (kernels/recipes)"
"$build/cli/d4r-kernel" --socket "$socket" resolve --module-hash 8baeb925f177af87 \
  --kernel d4r_example_fp8 --target gfx1201 --wait-ms 60000 | head -8 || true
echo
"$build/cli/d4r-kernel" --socket "$socket" status
