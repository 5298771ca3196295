#!/usr/bin/env bash
# Compiles our own CUDA sources in this folder to the PTX fixtures checked in beside them.
# Needs nvcc (CUDA 13); the tests only read the .ptx files, so they run where there is no nvcc.
set -euo pipefail
cd "$(dirname "$0")"
for src in *.cu; do
  nvcc -ptx -arch=sm_86 -O3 -o "${src%.cu}.ptx" "$src"
done
