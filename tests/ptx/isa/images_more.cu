// d4r-isa-ptx: images_geometry.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_GEOMETRY=1
// d4r-isa-ptx: images_cube.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_CUBE=1
// d4r-isa-ptx: images_fetch.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_FETCH=1
// d4r-isa-ptx: images_int_coords.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_INT_COORDS=1
// d4r-isa-ptx: images_level_grad.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_LEVEL_GRAD=1
// d4r-isa-ptx: images_offset.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_OFFSET=1
// d4r-isa-ptx: images_f16.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_F16=1
// d4r-isa-ptx: images_tld4.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_TLD4=1
// d4r-isa-ptx: images_sured_2d.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_SURED_2D=1
// d4r-isa-ptx: images_sured_1d_3d.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_SURED_1D_3D=1
// d4r-isa-ptx: images_surf.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_SURF=1
// d4r-isa-ptx: images_txq_width.sm_90.ptx -arch=sm_90 -O3 -DD4R_TXQ_ONE=width
// d4r-isa-ptx: images_txq_height.sm_90.ptx -arch=sm_90 -O3 -DD4R_TXQ_ONE=height
// d4r-isa-ptx: images_txq_depth.sm_90.ptx -arch=sm_90 -O3 -DD4R_TXQ_ONE=depth
// d4r-isa-ptx: images_suq_width.sm_90.ptx -arch=sm_90 -O3 -DD4R_SUQ_ONE=width
// d4r-isa-ptx: images_suq_height.sm_90.ptx -arch=sm_90 -O3 -DD4R_SUQ_ONE=height
// d4r-isa-ptx: images_suq_depth.sm_90.ptx -arch=sm_90 -O3 -DD4R_SUQ_ONE=depth
// Texture and surface forms beyond tex.{2d,a2d} and suld/sust.2d (images.cu, tex_extras.cu,
// surface_modes.cu): other geometries (1d, a1d, 3d, cube, acube), integer coordinates, explicit
// levels and gradients, texel offsets, f16x2 results, tld4 gathers, txq / suq queries, sured
// reductions and suld/sust on 1d, 3d, a1d and a2d surfaces. Forms CUDA C++ has no function for
// are written as inline PTX. Each kernel reads its coordinates from buffers (the cases push them
// past every edge) and writes what it read, so the H200 fixes the semantics. Each group of kernels
// becomes its own PTX file (D4R_PART_*), so that a form the driver refuses costs only its cases;
// each txq and suq query has a module of its own too (D4R_TXQ_ONE, D4R_SUQ_ONE): the H200 driver
// refused the module of all the suq queries (CUDA_ERROR_NOT_SUPPORTED) and dropped txq_all. Only
// .width, .height and .depth load there (the others: suq .array_size/.memory_layout refused, txq's
// sampler, array-size, level and sample queries dropped), so only they have PTX files here; the
// D4R_PART_TXQ/SUQ kernels (all queries) are kept for the record.
#include "isa_common.cuh"

#include <cstdint>

#if D4R_PART_GEOMETRY
extern "C" __global__ void tex_1d(cudaTextureObject_t t, const float* xs, float scale, float bias, float4* out,
                                  int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = tex1D<float4>(t, xs[i] * scale + bias);
    }
}
#endif

#if D4R_PART_GEOMETRY
extern "C" __global__ void tex_a1d(cudaTextureObject_t t, const float* xs, const int* layers, float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = tex1DLayered<float4>(t, xs[i], layers[i]);
    }
}
#endif

#if D4R_PART_GEOMETRY
extern "C" __global__ void tex_3d(cudaTextureObject_t t, const float* xs, const float* ys, const float* zs,
                                  float scale, float bias, float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = tex3D<float4>(t, xs[i] * scale + bias, ys[i] * scale + bias, zs[i] * scale + bias);
    }
}
#endif

#if D4R_PART_CUBE
extern "C" __global__ void tex_cube(cudaTextureObject_t t, const float* xs, const float* ys, const float* zs,
                                    float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = texCubemap<float4>(t, xs[i], ys[i], zs[i]);
    }
}
#endif

#if D4R_PART_CUBE
extern "C" __global__ void tex_acube(cudaTextureObject_t t, const float* xs, const float* ys, const float* zs,
                                     const int* layers, float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = texCubemapLayered<float4>(t, xs[i], ys[i], zs[i], layers[i]);
    }
}
#endif

// tex.1d.v4.f32.s32 on a linear-memory texture (tex1Dfetch), and its integer-result twin.
#if D4R_PART_FETCH
extern "C" __global__ void tex_fetch(cudaTextureObject_t t, const int* is, float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = tex1Dfetch<float4>(t, is[i]);
    }
}
#endif

#if D4R_PART_FETCH
extern "C" __global__ void tex_fetch_int(cudaTextureObject_t t, const int* is, uint4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = tex1Dfetch<uint4>(t, is[i]);
    }
}
#endif

// Integer coordinates on array textures: tex.1d / tex.2d / tex.3d .v4.f32.s32.
#if D4R_PART_INT_COORDS
extern "C" __global__ void tex_int_coords(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                          const int* is, const int* js, float4* out1, float4* out2, float4* out3,
                                          int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    float4 a;
    float4 b;
    float4 c;
    asm volatile("tex.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
                 : "=f"(a.x), "=f"(a.y), "=f"(a.z), "=f"(a.w)
                 : "l"(t1), "r"(is[i]));
    asm volatile("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=f"(b.x), "=f"(b.y), "=f"(b.z), "=f"(b.w)
                 : "l"(t2), "r"(is[i]), "r"(js[i]));
    asm volatile("tex.3d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(c.x), "=f"(c.y), "=f"(c.z), "=f"(c.w)
                 : "l"(t3), "r"(is[i]), "r"(js[i]), "r"(js[i] ^ is[i]));
    out1[i] = a;
    out2[i] = b;
    out3[i] = c;
}
#endif

// tex.level.2d (tex2DLod) and tex.grad.2d (tex2DGrad) on a texture without mip levels.
#if D4R_PART_LEVEL_GRAD
extern "C" __global__ void tex_level_grad(cudaTextureObject_t t, const float* xs, const float* ys, const float* lods,
                                          float4* out_level, float4* out_grad, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        const float l = lods[i];
        out_level[i] = tex2DLod<float4>(t, xs[i], ys[i], l);
        out_grad[i] = tex2DGrad<float4>(t, xs[i], ys[i], make_float2(l, -l), make_float2(l * 0.5f, l));
    }
}
#endif

// tex.2d with texel offsets {dx, dy}.
#if D4R_PART_OFFSET
extern "C" __global__ void tex_offset(cudaTextureObject_t t, const float* xs, const float* ys, const int* dxs,
                                      const int* dys, float4* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    float4 r;
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]), "r"(dxs[i]), "r"(dys[i]));
    out[i] = r;
}
#endif

// tex.2d.v2.f16x2.f32: four channels as halves, two to a register.
#if D4R_PART_F16
extern "C" __global__ void tex_f16(cudaTextureObject_t t, const float* xs, const float* ys, uint2* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    unsigned lo;
    unsigned hi;
    asm volatile("tex.2d.v2.f16x2.f32 {%0, %1}, [%2, {%3, %4}];"
                 : "=r"(lo), "=r"(hi)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]));
    out[i] = make_uint2(lo, hi);
}
#endif

// tld4.{r,g,b,a}.2d.v4.f32.f32 (tex2Dgather), one output per channel.
#if D4R_PART_TLD4
extern "C" __global__ void tld4_2d(cudaTextureObject_t t, const float* xs, const float* ys, float4* out_r,
                                   float4* out_g, float4* out_b, float4* out_a, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out_r[i] = tex2Dgather<float4>(t, xs[i], ys[i], 0);
        out_g[i] = tex2Dgather<float4>(t, xs[i], ys[i], 1);
        out_b[i] = tex2Dgather<float4>(t, xs[i], ys[i], 2);
        out_a[i] = tex2Dgather<float4>(t, xs[i], ys[i], 3);
    }
}
#endif

#define D4R_TXQ(query, dst, t) asm volatile("txq." query ".b32 %0, [%1];" : "=r"(dst) : "l"(t))
#define D4R_SUQ(query, dst, s) asm volatile("suq." query ".b32 %0, [%1];" : "=r"(dst) : "l"(s))

#if D4R_PART_TXQ
__device__ void texture_queries(cudaTextureObject_t t, unsigned* out)
{
    D4R_TXQ("width", out[0], t);
    D4R_TXQ("height", out[1], t);
    D4R_TXQ("depth", out[2], t);
    D4R_TXQ("normalized_coords", out[5], t);
    D4R_TXQ("filter_mode", out[6], t);
    D4R_TXQ("addr_mode_0", out[7], t);
    D4R_TXQ("addr_mode_1", out[8], t);
    D4R_TXQ("addr_mode_2", out[9], t);
    D4R_TXQ("array_size", out[10], t);
    D4R_TXQ("num_mipmap_levels", out[11], t);
    D4R_TXQ("num_samples", out[12], t);
}
#endif

// txq of four textures, 11 queries each (out[16 * k + q]; words 3, 4 and 13-15 of each row stay
// 0xCD: .channel_data_type and .channel_order are not translated, see lower_image.cpp).
#if D4R_PART_TXQ
extern "C" __global__ void txq_all(cudaTextureObject_t t0, cudaTextureObject_t t1, cudaTextureObject_t t2,
                                   cudaTextureObject_t t3, unsigned* out)
{
    texture_queries(t0, out);
    texture_queries(t1, out + 16);
    texture_queries(t2, out + 32);
    texture_queries(t3, out + 48);
}
#endif

#if D4R_PART_SUQ
__device__ void surface_queries(cudaSurfaceObject_t s, unsigned* out)
{
    D4R_SUQ("width", out[0], s);
    D4R_SUQ("height", out[1], s);
    D4R_SUQ("depth", out[2], s);
    D4R_SUQ("array_size", out[5], s);
    D4R_SUQ("memory_layout", out[6], s);
}
#endif

// suq of four surfaces, 5 queries each (out[8 * k + q]; words 3, 4 and 7 of each row stay 0xCD).
#if D4R_PART_SUQ
extern "C" __global__ void suq_all(cudaSurfaceObject_t s0, cudaSurfaceObject_t s1, cudaSurfaceObject_t s2,
                                   cudaSurfaceObject_t s3, unsigned* out)
{
    surface_queries(s0, out);
    surface_queries(s1, out + 8);
    surface_queries(s2, out + 16);
    surface_queries(s3, out + 24);
}
#endif

// sured on 2D surfaces: every thread reduces its value into the texel (xs[i], ys[i]) of each
// surface, so many threads meet at one texel (the results do not depend on their order). x is in
// bytes for .b and in samples for .p; coordinates past the edges test .zero and .clamp.
#if D4R_PART_SURED_2D
extern "C" __global__ void sured_2d(cudaSurfaceObject_t s_add, cudaSurfaceObject_t s_min, cudaSurfaceObject_t s_max,
                                    cudaSurfaceObject_t s_and, cudaSurfaceObject_t s_or, cudaSurfaceObject_t s_add64,
                                    cudaSurfaceObject_t s_min64, cudaSurfaceObject_t s_p, const int* xs,
                                    const int* ys, const unsigned* values, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = xs[i];
    const int y = ys[i];
    const unsigned v = values[i];
    const unsigned long long w = (static_cast<unsigned long long>(v) << 29) ^ v;
    asm volatile("sured.b.add.2d.u32.zero [%0, {%1, %2}], %3;" ::"l"(s_add), "r"(x * 4), "r"(y), "r"(v));
    asm volatile("sured.b.min.2d.s32.clamp [%0, {%1, %2}], %3;" ::"l"(s_min), "r"(x * 4), "r"(y), "r"(v));
    asm volatile("sured.b.max.2d.u32.zero [%0, {%1, %2}], %3;" ::"l"(s_max), "r"(x * 4), "r"(y), "r"(v));
    asm volatile("sured.b.and.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s_and), "r"(x * 4), "r"(y), "r"(v | 0x0f0f0f0fu));
    asm volatile("sured.b.or.2d.b32.clamp [%0, {%1, %2}], %3;" ::"l"(s_or), "r"(x * 4), "r"(y), "r"(v & 0x11111111u));
    asm volatile("sured.b.add.2d.u64.zero [%0, {%1, %2}], %3;" ::"l"(s_add64), "r"(x * 8), "r"(y), "l"(w));
    asm volatile("sured.b.min.2d.s64.zero [%0, {%1, %2}], %3;" ::"l"(s_min64), "r"(x * 8), "r"(y), "l"(w));
    asm volatile("sured.p.add.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s_p), "r"(x), "r"(y), "r"(v));
}
#endif

// sured on 1D and 3D surfaces (u32 texels).
#if D4R_PART_SURED_1D_3D
extern "C" __global__ void sured_1d_3d(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, const int* xs, const int* ys,
                                       const unsigned* values, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = xs[i];
    const int y = ys[i];
    asm volatile("sured.b.add.1d.u32.zero [%0, {%1}], %2;" ::"l"(s1), "r"(x * 4), "r"(values[i]));
    asm volatile("sured.b.max.3d.u32.clamp [%0, {%1, %2, %3, %3}], %4;" ::"l"(s3), "r"(x * 4), "r"(y), "r"(x ^ y),
                 "r"(values[i]));
}
#endif

// suld/sust on 1d, a1d, 3d and a2d surfaces: each thread loads the texel at its coordinates from
// the input (.zero past the edge: zeros), changes it and stores it at the same coordinates of the
// output (.zero: dropped past the edge). Threads that meet at a texel store the same value.
#if D4R_PART_SURF
extern "C" __global__ void surf_geometries(cudaSurfaceObject_t in1, cudaSurfaceObject_t out1,
                                           cudaSurfaceObject_t in_a1, cudaSurfaceObject_t out_a1,
                                           cudaSurfaceObject_t in3, cudaSurfaceObject_t out3,
                                           cudaSurfaceObject_t in_a2, cudaSurfaceObject_t out_a2, const int* xs,
                                           const int* ys, const int* zs, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = xs[i];
    const int y = ys[i];
    const int z = zs[i];
    const uint4 a = surf1Dread<uint4>(in1, x * 16, cudaBoundaryModeZero);
    surf1Dwrite(make_uint4(a.x ^ 1u, a.y + 3u, a.z, ~a.w), out1, x * 16, cudaBoundaryModeZero);
    const unsigned b = surf1DLayeredread<unsigned>(in_a1, x * 4, z, cudaBoundaryModeZero);
    surf1DLayeredwrite(b + 0x10001u, out_a1, x * 4, z, cudaBoundaryModeZero);
    const uint2 c = surf3Dread<uint2>(in3, x * 8, y, z, cudaBoundaryModeZero);
    surf3Dwrite(make_uint2(c.y, c.x ^ 0x5555u), out3, x * 8, y, z, cudaBoundaryModeZero);
    const unsigned short d = surf2DLayeredread<unsigned short>(in_a2, x * 2, y, z, cudaBoundaryModeZero);
    surf2DLayeredwrite(static_cast<unsigned short>(d ^ 0x8001u), out_a2, x * 2, y, z, cudaBoundaryModeZero);
}
#endif

#define D4R_STRING_OF(x) #x
#define D4R_STRING(x) D4R_STRING_OF(x)

#ifdef D4R_TXQ_ONE
// One txq query of four textures: out[k] for texture k.
extern "C" __global__ void txq_one(cudaTextureObject_t t0, cudaTextureObject_t t1, cudaTextureObject_t t2,
                                   cudaTextureObject_t t3, unsigned* out)
{
    D4R_TXQ(D4R_STRING(D4R_TXQ_ONE), out[0], t0);
    D4R_TXQ(D4R_STRING(D4R_TXQ_ONE), out[1], t1);
    D4R_TXQ(D4R_STRING(D4R_TXQ_ONE), out[2], t2);
    D4R_TXQ(D4R_STRING(D4R_TXQ_ONE), out[3], t3);
}
#endif

#ifdef D4R_SUQ_ONE
// One suq query of four surfaces: out[k] for surface k.
extern "C" __global__ void suq_one(cudaSurfaceObject_t s0, cudaSurfaceObject_t s1, cudaSurfaceObject_t s2,
                                   cudaSurfaceObject_t s3, unsigned* out)
{
    D4R_SUQ(D4R_STRING(D4R_SUQ_ONE), out[0], s0);
    D4R_SUQ(D4R_STRING(D4R_SUQ_ONE), out[1], s1);
    D4R_SUQ(D4R_STRING(D4R_SUQ_ONE), out[2], s2);
    D4R_SUQ(D4R_STRING(D4R_SUQ_ONE), out[3], s3);
}
#endif
