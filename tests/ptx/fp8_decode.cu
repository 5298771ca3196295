// d4r-corpus-archs: sm_89 sm_90
// FP8 weights decoded the way a DLSS texture kernel does it on Ada and later: pairs of e4m3 values
// converted by cvt.rn.f16x2.e4m3x2 (the hardware conversion, sm_89+), accumulated in shared memory
// across a block with a barrier, and stored as two halves (sust.b.2d.v2.b16.zero).
// Our own code; regenerate with regenerate.sh.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include "corpus_common.cuh"

__device__ inline __half2 decode_e4m3x2(unsigned short pair)
{
    const __half2_raw raw = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(pair), __NV_E4M3);
    return __half2(raw);
}

extern "C" __global__ void dec0_fp8_weights(const unsigned short* weights, const __half2* bias,
                                             cudaSurfaceObject_t out, int pairs_per_row, int width, int height)
{
    __shared__ __half2 partial[256];
    const Texel t = texel_of_thread();
    const int lane = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    __half2 acc = bias[lane & 63];
    // The unrolling nvcc picks for this loop, named so that clang's native build of this file
    // (the code-quality benchmark's baseline) unrolls it the same way.
#pragma unroll 4
    for (int i = lane; i < pairs_per_row; i += 256) {
        acc = __hfma2(decode_e4m3x2(weights[i]), decode_e4m3x2(weights[i + pairs_per_row]), acc);
    }
    partial[lane] = acc;
    D4R_BARRIER();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (lane < stride) {
            partial[lane] = __hadd2(partial[lane], partial[lane + stride]);
        }
        D4R_BARRIER();
    }
    if (t.x >= width || t.y >= height) {
        return;
    }
    const __half2 total = __hadd2(partial[0], acc);
    const ushort2 texel = make_ushort2(__half_as_ushort(__low2half(total)), __half_as_ushort(__high2half(total)));
    surf2Dwrite(texel, out, t.x * 4, t.y, cudaBoundaryModeZero);
}
