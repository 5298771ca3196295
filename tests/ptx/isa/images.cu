// d4r-isa-ptx: images.sm_90.ptx -arch=sm_90 -O3
// Stage 4: surface stores (sust.b v4.b16 / v2.b16 / b32 with .zero, x in bytes, coordinates past
// every edge, negative too) and formatted stores (sust.p v4.b32 to RGBA8 and RGBA32F surfaces; x in
// samples, not bytes), and
// tex.2d.v4.f32.f32 with point and linear filtering (fractional coordinates show NVIDIA's 1/256
// weight quantisation), over whichever texture the case binds (format, address mode, normalisation).
#include <cuda_fp16.h>
#include "isa_common.cuh"

// One thread per texel of a window from (ox, oy) of size blockDim * gridDim, so every coordinate is
// written by one thread only; the window is larger than the surfaces on every side.
extern "C" __global__ void sust_b_kinds(cudaSurfaceObject_t rgba16, cudaSurfaceObject_t rg16, cudaSurfaceObject_t r32,
                                        const unsigned* data, int ox, int oy)
{
    const int tx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int ty = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int t = ty * static_cast<int>(gridDim.x * blockDim.x) + tx;
    const int x = tx + ox;
    const int y = ty + oy;
    const unsigned a = data[t * 2];
    const unsigned b = data[t * 2 + 1];
    surf2Dwrite(make_ushort4(a & 0xffff, a >> 16, b & 0xffff, b >> 16), rgba16, x * 8, y, cudaBoundaryModeZero);
    surf2Dwrite(make_ushort2(b & 0xffff, a >> 16), rg16, x * 4, y, cudaBoundaryModeZero);
    surf2Dwrite(a ^ b, r32, x * 4, y, cudaBoundaryModeZero);
}

extern "C" __global__ void sust_p_formatted(cudaSurfaceObject_t rgba8, cudaSurfaceObject_t rgba32f, const float4* data,
                                            int ox, int oy)
{
    const int tx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int ty = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int t = ty * static_cast<int>(gridDim.x * blockDim.x) + tx;
    const int x = tx + ox;
    const int y = ty + oy;
    const float4 c = data[t];
    asm volatile("sust.p.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};"
                 :
                 : "l"(rgba8), "r"(x), "r"(y), "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w)
                 : "memory");
    asm volatile("sust.p.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};"
                 :
                 : "l"(rgba32f), "r"(x), "r"(y), "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w)
                 : "memory");
}

// out[i] = tex2D(t, xs[i] * scale + bias, ys[i] * scale + bias)
extern "C" __global__ void tex_fetch(cudaTextureObject_t t, const float* xs, const float* ys, float scale, float bias,
                                     float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    out[i] = tex2D<float4>(t, xs[i] * scale + bias, ys[i] * scale + bias);
}
