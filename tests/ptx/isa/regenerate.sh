#!/usr/bin/env bash
# Compiles the ISA test kernels in this folder (our own CUDA) to the PTX checked in beside them.
# Each source names its outputs on lines `// d4r-isa-ptx: OUT.ptx NVCC-FLAGS...`, so one source can
# become several files (with and without -ftz, for sm_89 and sm_90). Needs nvcc (CUDA 13;
# NVCC=/path/to/nvcc to choose one). The golden vectors in tests/golden/expected were recorded from
# these exact files: after a change, record them again (tools/golden/record.sh).
set -euo pipefail
cd "$(dirname "$0")"
nvcc="${NVCC:-nvcc}"
if ! command -v "$nvcc" >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi
for src in *.cu; do
  while read -r out flags; do
    # shellcheck disable=SC2086 # the flags are words
    "$nvcc" -ptx $flags -o "$out" "$src"
  done < <(sed -n 's|^// d4r-isa-ptx: *||p' "$src")
done
