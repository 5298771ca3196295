#!/usr/bin/env bash
# Compiles our own CUDA sources (this folder and isa/) with clang 19's NVPTX backend instead of nvcc,
# into clang/ (corpus sources) and clang/isa/ (ISA test kernels): a second real PTX producer, which
# writes PTX the way LLVM front-ends (Triton, ...) do. Needs clang++-19 and llc-19 (CLANG=, LLC= to
# choose others) and CUDA 13's headers (CUDA_PATH, default /usr/local/cuda); the tests only read the
# .ptx files. The golden cases tests/golden/cases/clang_*.case were recorded from these exact files:
# after a change, record them again (tools/golden/record.sh).
#
# Flags, and why:
# - `-x cuda --cuda-device-only --cuda-gpu-arch=sm_XX -S`: clang's CUDA mode, device side only, PTX
#   text out (clang runs the NVPTX backend itself; no ptxas).
# - `--cuda-path=$CUDA_PATH -Wno-unknown-cuda-version`: CUDA 13's headers, which clang 19 (it knows
#   CUDA up to 12.5) accepts with a warning.
# - `-isystem clang/shim`: clang's CUDA wrapper includes texture_fetch_functions.h, which CUDA 13
#   removed; clang/shim has an empty one.
# - `-include d4r_clang_surface.h`: surf2Dwrite / surf2Dread on surface objects, which CUDA 13
#   implements with an nvcc-only builtin and clang's wrapper lacks (clang/shim/d4r_clang_surface.h,
#   inline sust.b / suld.b with CUDA's semantics).
# - `-O3`, as nvcc's corpus, and otherwise clang's own defaults, which are what this producer writes:
#   IEEE division and mul+add contracted into fma as nvcc does, but sqrtf as sqrt.approx.f32 (nvcc:
#   sqrt.rn.f32; clang's libdevice reflection has __CUDA_PREC_SQRT = 0), which the golden cases
#   clang_float_arith_* compare within 1 ulp.
# - the `-D` flags of an isa output's d4r-isa-ptx line (one source, several parts: images_more.cu,
#   control_more.cu), so that each clang file is the same part as its nvcc twin;
# - `-fgpu-flush-denormals-to-zero` where the nvcc build has -ftz=true: every corpus source
#   (regenerate.sh builds the corpus with -ftz=true; sr_module.cu and rr_module.cu too here, although
#   nvcc's pinned NAME.ptx have no ftz: clang/nocudainc/ has them without) and the isa outputs whose
#   d4r-isa-ptx line says -ftz=true (alu_float_ftz, cvt_ftz).
#
# Targets: sm_80 and sm_90, and every other target the nvcc build has (sm_86, sm_89), so that each
# nvcc file has a clang twin. A source that nvcc builds only for sm_89 and later (FP8: fp8_decode,
# isa/fp8) is not built for sm_80: its inline FP8 conversions do not exist there. sr_module.cu and
# rr_module.cu (nvcc: NAME.ptx, sm_86) become NAME.sm_80/86/90.ptx.
#
# Two more producers, to get spellings that neither nvcc nor clang's CUDA mode with CUDA's headers
# writes:
# - clang/nocudainc/: sr_module.cu and rr_module.cu with `-nocudainc -nocudalib` (no CUDA header, no
#   libdevice) and clang/shim/d4r_nocudainc.h, which spells out the CUDA attributes and includes
#   only clang's __clang_cuda_builtin_vars.h (the form issue 11 names);
# - clang/llc/: llc-19 -march=nvptx64 from LLVM IR: clang/ir/*.ll (ours, written in the shape
#   Triton's lowering produces) and clang's -emit-llvm output of mma_tile.cu, at -O3; llc picks its
#   own (lowest) PTX ISA version for the target.
set -euo pipefail
cd "$(dirname "$0")"
clang="${CLANG:-clang++-19}"
llc="${LLC:-llc-19}"
cuda="${CUDA_PATH:-/usr/local/cuda}"
cuda_flags=(-x cuda --cuda-device-only --cuda-path="$cuda" -Wno-unknown-cuda-version
            -isystem clang/shim -include d4r_clang_surface.h -O3 -S)

# The targets of a source: sm_80, sm_90 and the nvcc build's ("$@"); no sm_80 if nvcc's lowest is sm_89.
targets()
{
  local lowest
  lowest="$(printf '%s\n' "$@" | sort | head -1)"
  { if [ "$lowest" != sm_89 ]; then echo sm_80; fi; echo sm_90; printf '%s\n' "$@"; } | sort -u
}

# ptxas (when there is one) must accept every file for its target. Two kinds of refusal are known:
# - "requires PTX ISA .version N": clang 19 writes at most PTX ISA 8.5, and an inline-asm instruction
#   of a newer ISA (mma.sync with e4m3 in mma_tile, 8.7) keeps its .version 8.5. The file is kept: it
#   is what this producer writes, and the translator reads it (the driver's JIT refuses it, so the
#   golden cases use the sm_80 build of mma_tile);
# - anything else (sync_extras for sm_80: CUDA 13's 16-bit atomicCAS becomes a call of the extern
#   __usAtomicCAS that only nvcc resolves): not a module a GPU can load, so it is removed.
ptxas="${PTXAS:-$cuda/bin/ptxas}"
check()
{
  local file="$1" arch error
  arch="${file##*.sm_}"
  arch="sm_${arch%.ptx}"
  [ -x "$ptxas" ] || return 0
  if error="$("$ptxas" -arch="$arch" -o /dev/null "$file" 2>&1)"; then
    return 0
  fi
  error="$(printf '%s\n' "$error" | grep -m1 -i 'error\|fatal' || true)"
  if printf '%s' "$error" | grep -q 'requires PTX ISA .version'; then
    echo "regenerate_clang.sh: kept $file, which ptxas refuses: $error" >&2
  else
    echo "regenerate_clang.sh: removed $file, which ptxas refuses: $error" >&2
    rm -f "$file"
  fi
}

rm -f clang/*.ptx clang/isa/*.ptx clang/nocudainc/*.ptx clang/llc/*.ptx
mkdir -p clang/isa clang/nocudainc clang/llc
for src in *.cu; do
  name="${src%.cu}"
  archs="$(sed -n 's|^// d4r-corpus-archs:||p' "$src")"
  [ -n "$archs" ] || archs=sm_86 # sr_module.cu, rr_module.cu: regenerate.sh builds them for sm_86
  # shellcheck disable=SC2086 # the archs are words
  for arch in $(targets $archs); do
    "$clang" "${cuda_flags[@]}" --cuda-gpu-arch="$arch" -fgpu-flush-denormals-to-zero -o "clang/$name.$arch.ptx" "$src"
  done
done

# ISA outputs clang 19 cannot build as nvcc does (tests/unit/test_ptx_corpus_clang.cpp lists them
# too): cluster_hints (clang ignores __cluster_dims__ and __grid_constant__: other kernels),
# tensor_copies (clang refuses `__shared__ alignas(N)`), prefetch_tensor (tensor-map parameters:
# __grid_constant__), st_async (clang ignores __cluster_dims__).
without_clang=" cluster_hints tensor_copies prefetch_tensor st_async "
for src in isa/*.cu; do
  # Each `// d4r-isa-ptx: OUT.sm_XX.ptx FLAGS` line names one nvcc output; group them by OUT.
  while read -r base; do
    if [[ "$without_clang" == *" $base "* ]]; then
      continue
    fi
    nvcc_archs="$(sed -n "s|^// d4r-isa-ptx: *$base\.\(sm_[0-9]*\)\.ptx.*|\1|p" "$src")"
    ftz=()
    if sed -n "s|^// d4r-isa-ptx: *$base\.sm_[0-9]*\.ptx||p" "$src" | grep -q -- '-ftz=true'; then
      ftz=(-fgpu-flush-denormals-to-zero)
    fi
    # The part of the source the output is (-DD4R_PART_...=1, -DD4R_TXQ_ONE=width): its -D flags.
    defines=()
    for define in $(sed -n "s|^// d4r-isa-ptx: *$base\.sm_[0-9]*\.ptx||p" "$src" | head -1 |
                    grep -o -- '-D[^ ]*' || true); do
      defines+=("$define")
    done
    # shellcheck disable=SC2086 # the archs are words
    for arch in $(targets $nvcc_archs); do
      "$clang" "${cuda_flags[@]}" --cuda-gpu-arch="$arch" "${ftz[@]}" "${defines[@]}" \
        -o "clang/isa/$base.$arch.ptx" "$src"
    done
  done < <(sed -n 's|^// d4r-isa-ptx: *\([a-z0-9_]*\)\.sm_[0-9]*\.ptx.*|\1|p' "$src" | sort -u)
done

for name in sr_module rr_module; do
  for arch in sm_80 sm_90; do
    "$clang" -x cuda --cuda-device-only --cuda-gpu-arch="$arch" -nocudainc -nocudalib -Wno-unknown-cuda-version \
      -include clang/shim/d4r_nocudainc.h -O3 -S -o "clang/nocudainc/$name.$arch.ptx" "$name.cu"
  done
done

ir="$(mktemp -d)"
trap 'rm -rf "$ir"' EXIT
for arch in sm_80 sm_90; do
  for ll in clang/ir/*.ll; do
    "$llc" -march=nvptx64 -mcpu="$arch" -O3 -o "clang/llc/$(basename "${ll%.ll}").$arch.ptx" "$ll"
  done
  # clang's IR names its target in function attributes, so it is emitted once per target.
  "$clang" "${cuda_flags[@]}" --cuda-gpu-arch="$arch" -fgpu-flush-denormals-to-zero -emit-llvm -o "$ir/mma_tile.ll" mma_tile.cu
  "$llc" -march=nvptx64 -mcpu="$arch" -O3 -o "clang/llc/mma_tile.$arch.ptx" "$ir/mma_tile.ll"
done

for file in clang/*.ptx clang/isa/*.ptx clang/nocudainc/*.ptx clang/llc/*.ptx; do
  check "$file"
done
