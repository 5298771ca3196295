// d4r-corpus-archs: sm_80 sm_86 sm_89 sm_90
// The four surface-store kinds of DLSS texture kernels, one kernel each, so that every kind of the
// surface-store rewrite has a small input: sust.b.2d.v4.b16.zero (an RGBA16F texel),
// sust.b.2d.v2.b16.zero (two halves), sust.p.2d.v4.b32.zero (a formatted store of four floats,
// written as inline PTX because CUDA has no intrinsic for it) and sust.b.2d.b32.zero.
// Our own code; regenerate with regenerate.sh.
#include <cuda_fp16.h>
#include "corpus_common.cuh"

__device__ inline unsigned short half_bits(float value)
{
    return __half_as_ushort(__float2half_rn(value));
}

extern "C" __global__ void store_rgba16f(cudaSurfaceObject_t out, const float4* in, int width, int height)
{
    const Texel t = texel_of_thread();
    if (t.x >= width || t.y >= height) {
        return;
    }
    const float4 c = in[t.y * width + t.x];
    const ushort4 texel = make_ushort4(half_bits(c.x), half_bits(c.y), half_bits(c.z), half_bits(c.w));
    surf2Dwrite(texel, out, t.x * 8, t.y, cudaBoundaryModeZero);
}

extern "C" __global__ void store_rg16f(cudaSurfaceObject_t out, const float2* in, int width, int height)
{
    const Texel t = texel_of_thread();
    if (t.x >= width || t.y >= height) {
        return;
    }
    const float2 c = in[t.y * width + t.x];
    surf2Dwrite(make_ushort2(half_bits(c.x), half_bits(c.y)), out, t.x * 4, t.y, cudaBoundaryModeZero);
}

__device__ inline void store_formatted(cudaSurfaceObject_t out, int x, int y, float4 c)
{
#if D4R_CORPUS_PTX
    asm volatile("sust.p.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};"
                 :
                 : "l"(out), "r"(x * 16), "r"(y), "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w)
                 : "memory");
#else
    surf2Dwrite(c, out, x * 16, y, cudaBoundaryModeZero);
#endif
}

extern "C" __global__ void store_rgba32f_formatted(cudaSurfaceObject_t out, const float4* in, float scale,
                                                   int width, int height)
{
    const Texel t = texel_of_thread();
    if (t.x >= width || t.y >= height) {
        return;
    }
    float4 c = in[t.y * width + t.x];
    c.x *= scale;
    c.y *= scale;
    c.z *= scale;
    store_formatted(out, t.x, t.y, c);
}

extern "C" __global__ void store_r32_packed(cudaSurfaceObject_t out, const uint4* in, int width, int height)
{
    const Texel t = texel_of_thread();
    if (t.x >= width || t.y >= height) {
        return;
    }
    const uint4 q = in[t.y * width + t.x];
    const unsigned packed = (q.x & 0xffu) | ((q.y & 0xffu) << 8) | ((q.z & 0xffu) << 16) | (q.w << 24);
    surf2Dwrite(packed, out, t.x * 4, t.y, cudaBoundaryModeZero);
}
