// Shared by the corpus sources in this folder (our own code, no NVIDIA sources). The intrinsics
// sit behind small macros so that the arithmetic could also be built as HIP by clang; where a
// kernel needs an exact PTX idiom (formatted surface stores, mma.sync) it uses inline PTX under
// D4R_CORPUS_PTX and a plain C++ fallback otherwise.
#pragma once

#if defined(__CUDACC__) && !defined(__HIP__)
#define D4R_CORPUS_PTX 1
#define D4R_SHFL_XOR(value, mask) __shfl_xor_sync(0xffffffffu, (value), (mask))
#define D4R_SHFL_DOWN(value, delta) __shfl_down_sync(0xffffffffu, (value), (delta))
#define D4R_BALLOT(pred) __ballot_sync(0xffffffffu, (pred))
#else
#define D4R_CORPUS_PTX 0
#define D4R_SHFL_XOR(value, mask) __shfl_xor((value), (mask))
#define D4R_SHFL_DOWN(value, delta) __shfl_down((value), (delta))
#define D4R_BALLOT(pred) __ballot(pred)
#endif

#define D4R_BARRIER() __syncthreads()
#define D4R_TILE 16

// Texel coordinates of this thread inside a 16x16 block of a 2D image.
struct Texel {
    int x;
    int y;
};

__device__ inline Texel texel_of_thread()
{
    Texel t;
    t.x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    t.y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    return t;
}

// Sum over the 32 lanes of a warp, the butterfly every texture kernel uses for its statistics.
__device__ inline float warp_sum(float value)
{
    for (int mask = 16; mask > 0; mask >>= 1) {
        value += D4R_SHFL_XOR(value, mask);
    }
    return value;
}

__device__ inline float clamp01(float value)
{
    return fminf(fmaxf(value, 0.0f), 1.0f);
}
