// d4r-isa-ptx: images_forms_tld4_cube.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_TLD4_CUBE=1
// d4r-isa-ptx: images_forms_depth.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_DEPTH=1
// d4r-isa-ptx: images_forms_resident.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_RESIDENT=1
// d4r-isa-ptx: images_forms_grad_cube.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_GRAD_CUBE=1
// d4r-isa-ptx: images_forms_sust_p.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_SUST_P=1
// d4r-isa-ptx: images_forms_sured_p.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_SURED_P=1
// d4r-isa-ptx: images_forms_istypep.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_ISTYPEP=1
// d4r-isa-ptx: images_forms_sust_p4.sm_90.ptx -arch=sm_90 -O3 -DD4R_FORMS_SUST_P4=1
// Texture and surface forms the translator rejected until the H200 showed what they do (images.cu
// and images_more.cu hold the rest): tld4 on cube maps, a depth compare operand on tex and tld4
// (CUDA's texture descriptor sets no compare function), the residency predicate d|p (CUDA arrays
// are always resident), .grad on cube maps, sust.p with one or two components, sured.p min/max
// (.b32 and .b64, PTX 8.1) on unsigned and float surfaces, istypep on texture and surface objects,
// and the txq/suq channel queries. All written as inline PTX (CUDA C++ has no function for them);
// each group is its own module (D4R_FORMS_*), so that a form the driver refuses costs only its
// cases. ptxas refuses suld/sust .v4.b64 ("vector type too large, exceeds 128 bit limit") and
// sured.p.add.b64, so they have no kernel. The H200's driver (CUDA 13) refused the channel
// queries (02:40 UTC): a module with suq .channel_order or .channel_data_type alone fails to load
// (CUDA_ERROR_NOT_SUPPORTED) and one with txq's loses its kernel (CUDA_ERROR_NOT_FOUND), so
// D4R_FORMS_TXQ/SUQ have no PTX file here (kept for the record).
#include "isa_common.cuh"

#include <cstdint>

#define D4R_STRING_(x) #x
#define D4R_STRING(x) D4R_STRING_(x)

#if D4R_FORMS_TLD4_CUBE
// tld4.r and tld4.a on a cube map, tld4.g on a cube-map array (direction vectors over every face).
extern "C" __global__ void tld4_cube(cudaTextureObject_t cube, cudaTextureObject_t cubes, const float* xs,
                                     const float* ys, const float* zs, const int* layers, float4* out_r,
                                     float4* out_a, float4* out_g, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    float4 r, a, g;
    asm volatile("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                 : "l"(cube), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]));
    asm volatile("tld4.a.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(a.x), "=f"(a.y), "=f"(a.z), "=f"(a.w)
                 : "l"(cube), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]));
    asm volatile("tld4.g.acube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}];"
                 : "=f"(g.x), "=f"(g.y), "=f"(g.z), "=f"(g.w)
                 : "l"(cubes), "r"(layers[i]), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]));
    out_r[i] = r;
    out_a[i] = a;
    out_g[i] = g;
}
#endif

#if D4R_FORMS_DEPTH
// tex.2d and tld4.r.2d with a depth compare value, beside the same reads without one.
extern "C" __global__ void tex_depth(cudaTextureObject_t t, const float* xs, const float* ys, const float* refs,
                                     float4* out_plain, float4* out_compare, float4* out_gather, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    float4 p, c, g;
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=f"(p.x), "=f"(p.y), "=f"(p.z), "=f"(p.w)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]));
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
                 : "=f"(c.x), "=f"(c.y), "=f"(c.z), "=f"(c.w)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]), "f"(refs[i]));
    asm volatile("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
                 : "=f"(g.x), "=f"(g.y), "=f"(g.z), "=f"(g.w)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]), "f"(refs[i]));
    out_plain[i] = p;
    out_compare[i] = c;
    out_gather[i] = g;
}
#endif

#if D4R_FORMS_RESIDENT
// tex.2d and tld4.r.2d with the residency predicate d|p: the values and the predicate (1 or 0).
extern "C" __global__ void tex_resident(cudaTextureObject_t t, const float* xs, const float* ys, float4* out_tex,
                                        float4* out_gather, unsigned* out_resident, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    float4 v, g;
    unsigned rv, rg;
    asm volatile("{ .reg .pred p; tex.2d.v4.f32.f32 {%0, %1, %2, %3}|p, [%5, {%6, %7}]; selp.u32 %4, 1, 0, p; }"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w), "=r"(rv)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]));
    asm volatile("{ .reg .pred p; tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}|p, [%5, {%6, %7}]; selp.u32 %4, 1, 0, p; }"
                 : "=f"(g.x), "=f"(g.y), "=f"(g.z), "=f"(g.w), "=r"(rg)
                 : "l"(t), "f"(xs[i]), "f"(ys[i]));
    out_tex[i] = v;
    out_gather[i] = g;
    out_resident[2 * i] = rv;
    out_resident[2 * i + 1] = rg;
}
#endif

#if D4R_FORMS_GRAD_CUBE
// tex.grad.cube and tex.grad.acube with random gradients (CUDA arrays have one level), beside
// tex.cube / tex.acube of the same directions.
extern "C" __global__ void tex_grad_cube(cudaTextureObject_t cube, cudaTextureObject_t cubes, const float* xs,
                                         const float* ys, const float* zs, const int* layers, const float* grads,
                                         float4* out_grad, float4* out_plain, float4* out_agrad, float4* out_aplain,
                                         int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const float* d = grads + 6 * i;
    float4 g, p, ag, ap;
    asm volatile("tex.grad.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], {%8, %9, %10, %10}, "
                 "{%11, %12, %13, %13};"
                 : "=f"(g.x), "=f"(g.y), "=f"(g.z), "=f"(g.w)
                 : "l"(cube), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]), "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]),
                   "f"(d[4]), "f"(d[5]));
    asm volatile("tex.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(p.x), "=f"(p.y), "=f"(p.z), "=f"(p.w)
                 : "l"(cube), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]));
    asm volatile("tex.grad.acube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}], {%9, %10, %11, %11}, "
                 "{%12, %13, %14, %14};"
                 : "=f"(ag.x), "=f"(ag.y), "=f"(ag.z), "=f"(ag.w)
                 : "l"(cubes), "r"(layers[i]), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]), "f"(d[0]), "f"(d[1]),
                   "f"(d[2]), "f"(d[3]), "f"(d[4]), "f"(d[5]));
    asm volatile("tex.acube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}];"
                 : "=f"(ap.x), "=f"(ap.y), "=f"(ap.z), "=f"(ap.w)
                 : "l"(cubes), "r"(layers[i]), "f"(xs[i]), "f"(ys[i]), "f"(zs[i]));
    out_grad[i] = g;
    out_plain[i] = p;
    out_agrad[i] = ag;
    out_aplain[i] = ap;
}
#endif

#if D4R_FORMS_SUST_P
// sust.p.2d.b32 (one component) into s1 and s3, sust.p.2d.v2.b32 into s2 and s4: thread i
// stores at texel (i mod width, i / width) of each (the widths are the case's), values[2i],
// values[2i + 1] as the components.
extern "C" __global__ void sust_p_shapes(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3,
                                         cudaSurfaceObject_t s4, const unsigned* values, int width, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = static_cast<int>(i) % width;
    const int y = static_cast<int>(i) / width;
    const unsigned a = values[2 * i];
    const unsigned b = values[2 * i + 1];
    asm volatile("sust.p.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s1), "r"(x), "r"(y), "r"(a) : "memory");
    asm volatile("sust.p.2d.v2.b32.zero [%0, {%1, %2}], {%3, %4};" ::"l"(s2), "r"(x), "r"(y), "r"(a), "r"(b)
                 : "memory");
    asm volatile("sust.p.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s3), "r"(x), "r"(y), "r"(a) : "memory");
    asm volatile("sust.p.2d.v2.b32.zero [%0, {%1, %2}], {%3, %4};" ::"l"(s4), "r"(x), "r"(y), "r"(a), "r"(b)
                 : "memory");
}
#endif

#if D4R_FORMS_SUST_P4
// sust.p.2d.v4.b32 into an f16x4 surface: thread i at texel (i mod width, i / width), values[4i..].
extern "C" __global__ void sust_p_v4(cudaSurfaceObject_t s, const unsigned* values, int width, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = static_cast<int>(i) % width;
    const int y = static_cast<int>(i) / width;
    const unsigned* v = values + 4 * i;
    asm volatile("sust.p.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};" ::"l"(s), "r"(x), "r"(y), "r"(v[0]),
                 "r"(v[1]), "r"(v[2]), "r"(v[3])
                 : "memory");
}
#endif

#if D4R_FORMS_SURED_P
// sured.p.min/max.2d.b32 into a u32 surface (s_min, s_max) and an f32 surface (f_min, f_max), and
// sured.p.min/max.2d.b64 into u32x2 surfaces: every thread reduces its value into texel
// (xs[i], ys[i]) (x in texels), so threads meet at texels; the result does not depend on order.
extern "C" __global__ void sured_p_minmax(cudaSurfaceObject_t s_min, cudaSurfaceObject_t s_max,
                                          cudaSurfaceObject_t f_min, cudaSurfaceObject_t f_max,
                                          cudaSurfaceObject_t w_min, cudaSurfaceObject_t w_max, const int* xs,
                                          const int* ys, const unsigned* values, const unsigned long long* wides,
                                          int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = xs[i];
    const int y = ys[i];
    asm volatile("sured.p.min.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s_min), "r"(x), "r"(y), "r"(values[i])
                 : "memory");
    asm volatile("sured.p.max.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s_max), "r"(x), "r"(y), "r"(values[i])
                 : "memory");
    asm volatile("sured.p.min.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(f_min), "r"(x), "r"(y), "r"(values[i])
                 : "memory");
    asm volatile("sured.p.max.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(f_max), "r"(x), "r"(y), "r"(values[i])
                 : "memory");
    asm volatile("sured.p.min.2d.b64.zero [%0, {%1, %2}], %3;" ::"l"(w_min), "r"(x), "r"(y), "l"(wides[i])
                 : "memory");
    asm volatile("sured.p.max.2d.b64.zero [%0, {%1, %2}], %3;" ::"l"(w_max), "r"(x), "r"(y), "l"(wides[i])
                 : "memory");
}
#endif

#if D4R_FORMS_ISTYPEP
// istypep .texref, .samplerref and .surfref of a texture object and of a surface object:
// out[0..2] for t, out[3..5] for s (1 true, 0 false).
#define D4R_ISTYPEP(kind, dst, h)                                                                                  \
    asm volatile("{ .reg .pred p; istypep." kind " p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(dst) : "l"(h))
extern "C" __global__ void istypep_objects(cudaTextureObject_t t, cudaSurfaceObject_t s, unsigned* out)
{
    D4R_ISTYPEP("texref", out[0], t);
    D4R_ISTYPEP("samplerref", out[1], t);
    D4R_ISTYPEP("surfref", out[2], t);
    D4R_ISTYPEP("texref", out[3], s);
    D4R_ISTYPEP("samplerref", out[4], s);
    D4R_ISTYPEP("surfref", out[5], s);
}
#endif

#ifdef D4R_FORMS_TXQ
// One txq channel query of four textures: out[k] for texture k.
extern "C" __global__ void txq_channel(cudaTextureObject_t t0, cudaTextureObject_t t1, cudaTextureObject_t t2,
                                       cudaTextureObject_t t3, unsigned* out)
{
    asm volatile("txq." D4R_STRING(D4R_FORMS_TXQ) ".b32 %0, [%1];" : "=r"(out[0]) : "l"(t0));
    asm volatile("txq." D4R_STRING(D4R_FORMS_TXQ) ".b32 %0, [%1];" : "=r"(out[1]) : "l"(t1));
    asm volatile("txq." D4R_STRING(D4R_FORMS_TXQ) ".b32 %0, [%1];" : "=r"(out[2]) : "l"(t2));
    asm volatile("txq." D4R_STRING(D4R_FORMS_TXQ) ".b32 %0, [%1];" : "=r"(out[3]) : "l"(t3));
}
#endif

#ifdef D4R_FORMS_SUQ
// One suq channel query of four surfaces: out[k] for surface k.
extern "C" __global__ void suq_channel(cudaSurfaceObject_t s0, cudaSurfaceObject_t s1, cudaSurfaceObject_t s2,
                                       cudaSurfaceObject_t s3, unsigned* out)
{
    asm volatile("suq." D4R_STRING(D4R_FORMS_SUQ) ".b32 %0, [%1];" : "=r"(out[0]) : "l"(s0));
    asm volatile("suq." D4R_STRING(D4R_FORMS_SUQ) ".b32 %0, [%1];" : "=r"(out[1]) : "l"(s1));
    asm volatile("suq." D4R_STRING(D4R_FORMS_SUQ) ".b32 %0, [%1];" : "=r"(out[2]) : "l"(s2));
    asm volatile("suq." D4R_STRING(D4R_FORMS_SUQ) ".b32 %0, [%1];" : "=r"(out[3]) : "l"(s3));
}
#endif
