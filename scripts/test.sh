#!/usr/bin/env bash
# The test command: installs what it needs, builds, and runs every test (unit and integration).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
build_dir=${BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j"${JOBS:-$(nproc)}" --timeout 300
