#!/usr/bin/env bash
# Installs the dependencies (Debian bookworm packages) and builds everything into build/ (or $BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DD4R_BUILD_TESTS=ON -DD4R_BUILD_BENCH=ON
ninja -C "$build_dir" -j"$jobs"
