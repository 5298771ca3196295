// d4r-isa-ptx: tex_extras.sm_90.ptx -arch=sm_90 -O3
// Texture forms beyond stage 4's tex.2d.v4.f32.f32:
// - tex_layered: tex.a2d.v4.f32.f32 (tex2DLayered), the layer index an integer that the cases
//   push past both ends, over point- and linear-filtered layered textures.
// - tex_integer: tex.2d.v4.u32.f32 (tex2D<uint4>) over textures read as integers: u8 texels with
//   cudaReadModeElementType, and u32 texels (always integers), point-sampled.
#include "isa_common.cuh"

extern "C" __global__ void tex_layered(cudaTextureObject_t t, const float* xs, const float* ys, const int* layers,
                                       float scale, float bias, float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    out[i] = tex2DLayered<float4>(t, xs[i] * scale + bias, ys[i] * scale + bias, layers[i]);
}

extern "C" __global__ void tex_integer(cudaTextureObject_t t, const float* xs, const float* ys, float scale,
                                       float bias, uint4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    out[i] = tex2D<uint4>(t, xs[i] * scale + bias, ys[i] * scale + bias);
}
