#!/usr/bin/env bash
# Compiles our own CUDA sources in this folder to the PTX fixtures checked in beside them.
# Needs nvcc (CUDA 13; NVCC=/path/to/nvcc to choose one); the tests only read the .ptx files, so they
# run where there is no nvcc.
#
# Two kinds of source:
# - corpus sources name their targets on a line `// d4r-corpus-archs: sm_80 sm_86 ...` and become
#   NAME.sm_XX.ptx, built with -O3 -ftz=true (flush-to-zero, as DLSS texture kernels are built,
#   which is what makes roundf come out as add.rz.ftz.f32 + cvt.rzi.f32.f32);
# - the two older fixtures (sr_module.cu, rr_module.cu) have no such line and become NAME.ptx with
#   exactly the flags they always had (-arch=sm_86 -O3). Tests and fixture manifests depend on their
#   hashes, so the script checks that they come out byte-identical and fails if they do not.
# After a run, update the table in README.md (the Python loop there prints the hashes).
set -euo pipefail
cd "$(dirname "$0")"
nvcc="${NVCC:-nvcc}"
if ! command -v "$nvcc" >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi

for src in *.cu; do
  name="${src%.cu}"
  archs="$(sed -n 's|^// d4r-corpus-archs:||p' "$src")"
  if [ -z "$archs" ]; then
    tmp="$(mktemp)"
    "$nvcc" -ptx -arch=sm_86 -O3 -o "$tmp" "$src"
    if [ ! -f "$name.ptx" ]; then
      cp "$tmp" "$name.ptx"
    elif ! cmp -s "$tmp" "$name.ptx"; then
      rm -f "$tmp"
      echo "regenerate.sh: $name.ptx would change; its hash is pinned by tests, keeping the old file" >&2
      exit 1
    fi
    rm -f "$tmp"
    continue
  fi
  for arch in $archs; do
    "$nvcc" -ptx -arch="$arch" -O3 -ftz=true -o "$name.$arch.ptx" "$src"
  done
done
