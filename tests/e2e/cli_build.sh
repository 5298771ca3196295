#!/usr/bin/env bash
# cli_build.sh BUILD_DIR SOURCE_DIR: `d4r-kernel build` against the real daemon with the shipped
# recipes: the object comes back for gfx1201 with the hardware FP8 conversion in it, `status`
# counts one finished build, and a second build of the same kernel is a cache hit.
set -u
build=$1
source=$2
work=$(mktemp -d) || exit 1
cleanup() {
  kill "$daemon" 2>/dev/null
  wait "$daemon" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

socket=$work/socket
"$build/daemon/d4r-kerneld" --foreground --socket "$socket" --cache-dir "$work/cache" \
  --recipes-dir "$source/kernels/recipes" --gpu-arch gfx1201 --log-level warn 2>"$work/daemon.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
cli() { "$build/cli/d4r-kernel" --socket "$socket" "$@"; }

cli build --kernel d4r_example_fp8 --out "$work/fp8.hsaco" >"$work/build.out" 2>&1 ||
  fail "build exited $?: $(cat "$work/build.out")"
/usr/lib/llvm-19/bin/llvm-objdump -d --mcpu=gfx1201 "$work/fp8.hsaco" 2>/dev/null |
  grep -q v_cvt_pk_f32_fp8 || fail "the gfx1201 object has no v_cvt_pk_f32_fp8"
cli --json status >"$work/status.json" || fail "status exited $?"
python3 - "$work/status.json" <<'PY' || fail "status: $(cat "$work/status.json")"
import json, sys
builds = json.load(open(sys.argv[1]))["builds"]
assert builds["done"] == 1 and builds["failed"] == 0, builds
assert "d4r_example_fp8" in builds["recipes"], builds["recipes"]
assert builds["recent"][0]["state"] == "done" and builds["recent"][0]["target"] == "gfx1201", builds
PY
cli build --kernel d4r_example_fp8 >/dev/null 2>&1 || fail "the second build exited $?"
[ "$(cli --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["builds"]["done"])')" = 1 ] ||
  fail "the second build was not a cache hit"
cli build --kernel no_such_kernel >"$work/none.out" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "a kernel without recipe exited $status, expected 1 (NOT_FOUND)"
grep -q "no recipe" "$work/none.out" || fail "no reason given: $(cat "$work/none.out")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli build: ok"
