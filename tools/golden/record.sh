#!/usr/bin/env bash
# Records the golden vectors on a machine with an NVIDIA GPU (CUDA driver + headers):
#   tools/golden/record.sh [--bin PATH] OUTDIR [CASE.case...]
# Builds tools/golden/d4r-golden.cpp (unless --bin names a prebuilt one), then runs every case of
# tests/golden/cases (or the ones named), each in its own process with a time limit, so that a
# kernel that faults or hangs costs only its own case. Writes OUTDIR/<case>.outN.bin and prints one
# line per case; exits non-zero if any case failed. Copy OUTDIR's files to tests/golden/expected/.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin=""
if [ "${1:-}" = "--bin" ]; then
  bin="$2"
  shift 2
fi
out="${1:?usage: record.sh [--bin PATH] OUTDIR [CASE...]}"
shift
mkdir -p "$out"
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ -z "$bin" ]; then
  bin="$(mktemp -d)/d4r-golden"
  cxx="${CXX:-g++}"
  "$cxx" -std=c++2b -O2 -I"$root" -I"$cuda/include" "$root/tools/golden/d4r-golden.cpp" \
    "$root/compiler/cpu/launch_case.cpp" "$root/compiler/cpu/launch_image.cpp" "$root/util/error.cpp" -L"$cuda/lib64/stubs" -lcuda -o "$bin" || exit 1
fi
if [ "$#" -eq 0 ]; then
  set -- "$root"/tests/golden/cases/*.case
fi
failed=0
for case_file in "$@"; do
  timeout 120 "$bin" "$case_file" --root "$root" --out "$out" --repeat 2
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAILED ($status): $case_file"
    failed=$((failed + 1))
  fi
done
echo "record.sh: $# cases, $failed failed"
[ "$failed" -eq 0 ]
