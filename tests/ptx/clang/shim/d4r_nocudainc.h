// The prelude of the -nocudainc -nocudalib builds (tests/ptx/regenerate_clang.sh; our own code):
// no CUDA header and no libdevice, only clang's own __clang_cuda_builtin_vars.h (threadIdx,
// blockIdx, blockDim, gridDim) and the CUDA attributes spelled out, as a front-end that emits
// NVPTX through clang without NVIDIA's SDK would. Enough for the sources that use nothing else
// (sr_module.cu, rr_module.cu); the math they call maps to LLVM builtins, so their PTX shows
// LLVM's lowering of llvm.round / llvm.minnum instead of libdevice's.
#pragma once

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))

#include <__clang_cuda_builtin_vars.h>

// __syncthreads is a clang builtin (bar.sync 0); these are not, without libdevice.
__device__ __forceinline__ float roundf(float x)
{
    return __builtin_roundf(x);
}

__device__ __forceinline__ float fminf(float a, float b)
{
    return __builtin_fminf(a, b);
}

__device__ __forceinline__ float fmaxf(float a, float b)
{
    return __builtin_fmaxf(a, b);
}
