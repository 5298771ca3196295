// surf2Dwrite / surf2Dread on surface objects for clang's CUDA mode (our own code, force-included by
// tests/ptx/regenerate_clang.sh). CUDA 13 implements them through __nv_tex_surf_handler, which only
// nvcc understands, and clang's CUDA wrapper has no surface functions, so corpus sources that store
// to surfaces do not build with clang without this header.
//
// Same semantics as CUDA's overloads (surface_indirect_functions.h): the x coordinate is in bytes,
// the access is a raw (.b) one whose width and vector shape follow the data type (uchar -> .b8,
// ushort2 -> .v2.b16, ushort4 -> .v4.b16, unsigned/int/float -> .b32, float4 -> .v4.b32, ...), and
// the boundary mode (default cudaBoundaryModeTrap) selects .zero, .clamp or .trap. The mode is an
// ordinary argument as in CUDA; every caller passes a constant, so -O3 keeps one of the three asm
// statements.
#pragma once

#if defined(__CUDA__) && defined(__CUDA_ARCH__)

namespace d4r_clang_surface {

// Lanes and element width of each type CUDA's __nv_isurf_trait accepts.
template <class T> struct shape;
#define D4R_SURF_SHAPE(type, lane_count, element_bits)                                                     \
    template <> struct shape<type> {                                                                     \
        static constexpr int lanes = lane_count;                                                         \
        static constexpr int bits = element_bits;                                                        \
    };
D4R_SURF_SHAPE(char, 1, 8)
D4R_SURF_SHAPE(signed char, 1, 8)
D4R_SURF_SHAPE(unsigned char, 1, 8)
D4R_SURF_SHAPE(char1, 1, 8)
D4R_SURF_SHAPE(uchar1, 1, 8)
D4R_SURF_SHAPE(short, 1, 16)
D4R_SURF_SHAPE(unsigned short, 1, 16)
D4R_SURF_SHAPE(short1, 1, 16)
D4R_SURF_SHAPE(ushort1, 1, 16)
D4R_SURF_SHAPE(int, 1, 32)
D4R_SURF_SHAPE(unsigned int, 1, 32)
D4R_SURF_SHAPE(int1, 1, 32)
D4R_SURF_SHAPE(uint1, 1, 32)
D4R_SURF_SHAPE(float, 1, 32)
D4R_SURF_SHAPE(float1, 1, 32)
D4R_SURF_SHAPE(long long, 1, 64)
D4R_SURF_SHAPE(unsigned long long, 1, 64)
D4R_SURF_SHAPE(longlong1, 1, 64)
D4R_SURF_SHAPE(ulonglong1, 1, 64)
D4R_SURF_SHAPE(char2, 2, 8)
D4R_SURF_SHAPE(uchar2, 2, 8)
D4R_SURF_SHAPE(short2, 2, 16)
D4R_SURF_SHAPE(ushort2, 2, 16)
D4R_SURF_SHAPE(int2, 2, 32)
D4R_SURF_SHAPE(uint2, 2, 32)
D4R_SURF_SHAPE(float2, 2, 32)
D4R_SURF_SHAPE(longlong2, 2, 64)
D4R_SURF_SHAPE(ulonglong2, 2, 64)
D4R_SURF_SHAPE(char4, 4, 8)
D4R_SURF_SHAPE(uchar4, 4, 8)
D4R_SURF_SHAPE(short4, 4, 16)
D4R_SURF_SHAPE(ushort4, 4, 16)
D4R_SURF_SHAPE(int4, 4, 32)
D4R_SURF_SHAPE(uint4, 4, 32)
D4R_SURF_SHAPE(float4, 4, 32)
#undef D4R_SURF_SHAPE

// The unsigned type of one element in memory, and the register type inline asm passes it in: PTX has
// no 8-bit registers, so .b8 elements travel in .b16 ("h") registers as nvcc writes them.
template <int Bits> struct element;
template <> struct element<8> {
    using type = unsigned char;
    using reg = unsigned short;
};
template <> struct element<16> {
    using type = unsigned short;
    using reg = unsigned short;
};
template <> struct element<32> {
    using type = unsigned int;
    using reg = unsigned int;
};
template <> struct element<64> {
    using type = unsigned long long;
    using reg = unsigned long long;
};

// One store and one load per (lanes, bits, mode). C is the asm constraint of the element register.
#define D4R_SURF_ACCESS(bits, c, mode)                                                                     \
    __device__ __forceinline__ void sust_1_##bits##_##mode(unsigned long long s, int x, int y,            \
                                                           const element<bits>::reg* v)                  \
    {                                                                                                    \
        asm volatile("sust.b.2d.b" #bits "." #mode " [%0, {%1, %2}], {%3};"                            \
                     :                                                                                   \
                     : "l"(s), "r"(x), "r"(y), c(v[0])                                                   \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void sust_2_##bits##_##mode(unsigned long long s, int x, int y,            \
                                                           const element<bits>::reg* v)                  \
    {                                                                                                    \
        asm volatile("sust.b.2d.v2.b" #bits "." #mode " [%0, {%1, %2}], {%3, %4};"                     \
                     :                                                                                   \
                     : "l"(s), "r"(x), "r"(y), c(v[0]), c(v[1])                                          \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void suld_1_##bits##_##mode(unsigned long long s, int x, int y,            \
                                                           element<bits>::reg* v)                        \
    {                                                                                                    \
        asm volatile("suld.b.2d.b" #bits "." #mode " {%0}, [%1, {%2, %3}];"                            \
                     : "=" c(v[0])                                                                       \
                     : "l"(s), "r"(x), "r"(y)                                                            \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void suld_2_##bits##_##mode(unsigned long long s, int x, int y,            \
                                                           element<bits>::reg* v)                        \
    {                                                                                                    \
        asm volatile("suld.b.2d.v2.b" #bits "." #mode " {%0, %1}, [%2, {%3, %4}];"                     \
                     : "=" c(v[0]), "=" c(v[1])                                                          \
                     : "l"(s), "r"(x), "r"(y)                                                            \
                     : "memory");                                                                        \
    }
// .v4 exists for elements up to 32 bits (PTX ISA: a .v4 of .b64 is not allowed).
#define D4R_SURF_ACCESS_V4(bits, c, mode)                                                                  \
    __device__ __forceinline__ void sust_4_##bits##_##mode(unsigned long long s, int x, int y,            \
                                                           const element<bits>::reg* v)                  \
    {                                                                                                    \
        asm volatile("sust.b.2d.v4.b" #bits "." #mode " [%0, {%1, %2}], {%3, %4, %5, %6};"             \
                     :                                                                                   \
                     : "l"(s), "r"(x), "r"(y), c(v[0]), c(v[1]), c(v[2]), c(v[3])                        \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void suld_4_##bits##_##mode(unsigned long long s, int x, int y,            \
                                                           element<bits>::reg* v)                        \
    {                                                                                                    \
        asm volatile("suld.b.2d.v4.b" #bits "." #mode " {%0, %1, %2, %3}, [%4, {%5, %6}];"             \
                     : "=" c(v[0]), "=" c(v[1]), "=" c(v[2]), "=" c(v[3])                                \
                     : "l"(s), "r"(x), "r"(y)                                                            \
                     : "memory");                                                                        \
    }
#define D4R_SURF_MODES(bits, c)                                                                            \
    D4R_SURF_ACCESS(bits, c, zero)                                                                       \
    D4R_SURF_ACCESS(bits, c, clamp)                                                                      \
    D4R_SURF_ACCESS(bits, c, trap)
#define D4R_SURF_MODES_V4(bits, c)                                                                         \
    D4R_SURF_ACCESS_V4(bits, c, zero)                                                                    \
    D4R_SURF_ACCESS_V4(bits, c, clamp)                                                                   \
    D4R_SURF_ACCESS_V4(bits, c, trap)
D4R_SURF_MODES(8, "h")
D4R_SURF_MODES(16, "h")
D4R_SURF_MODES(32, "r")
D4R_SURF_MODES(64, "l")
D4R_SURF_MODES_V4(8, "h")
D4R_SURF_MODES_V4(16, "h")
D4R_SURF_MODES_V4(32, "r")
#undef D4R_SURF_MODES_V4
#undef D4R_SURF_MODES
#undef D4R_SURF_ACCESS_V4
#undef D4R_SURF_ACCESS

// Picks the instruction of a boundary mode (cudaBoundaryModeZero, Clamp, Trap: 0, 1, 2).
#define D4R_SURF_DISPATCH(op, lanes, bits)                                                                 \
    switch (mode) {                                                                                      \
    case cudaBoundaryModeZero:                                                                           \
        op##_##lanes##_##bits##_zero(s, x, y, v);                                                        \
        break;                                                                                           \
    case cudaBoundaryModeClamp:                                                                          \
        op##_##lanes##_##bits##_clamp(s, x, y, v);                                                       \
        break;                                                                                           \
    default:                                                                                             \
        op##_##lanes##_##bits##_trap(s, x, y, v);                                                        \
        break;                                                                                           \
    }

template <int Lanes, int Bits>
__device__ __forceinline__ void store(unsigned long long s, int x, int y, const typename element<Bits>::reg* v,
                                      cudaSurfaceBoundaryMode mode)
{
    if constexpr (Lanes == 1 && Bits == 8) { D4R_SURF_DISPATCH(sust, 1, 8) }
    else if constexpr (Lanes == 1 && Bits == 16) { D4R_SURF_DISPATCH(sust, 1, 16) }
    else if constexpr (Lanes == 1 && Bits == 32) { D4R_SURF_DISPATCH(sust, 1, 32) }
    else if constexpr (Lanes == 1 && Bits == 64) { D4R_SURF_DISPATCH(sust, 1, 64) }
    else if constexpr (Lanes == 2 && Bits == 8) { D4R_SURF_DISPATCH(sust, 2, 8) }
    else if constexpr (Lanes == 2 && Bits == 16) { D4R_SURF_DISPATCH(sust, 2, 16) }
    else if constexpr (Lanes == 2 && Bits == 32) { D4R_SURF_DISPATCH(sust, 2, 32) }
    else if constexpr (Lanes == 2 && Bits == 64) { D4R_SURF_DISPATCH(sust, 2, 64) }
    else if constexpr (Lanes == 4 && Bits == 8) { D4R_SURF_DISPATCH(sust, 4, 8) }
    else if constexpr (Lanes == 4 && Bits == 16) { D4R_SURF_DISPATCH(sust, 4, 16) }
    else { D4R_SURF_DISPATCH(sust, 4, 32) }
}

template <int Lanes, int Bits>
__device__ __forceinline__ void load(unsigned long long s, int x, int y, typename element<Bits>::reg* v,
                                     cudaSurfaceBoundaryMode mode)
{
    if constexpr (Lanes == 1 && Bits == 8) { D4R_SURF_DISPATCH(suld, 1, 8) }
    else if constexpr (Lanes == 1 && Bits == 16) { D4R_SURF_DISPATCH(suld, 1, 16) }
    else if constexpr (Lanes == 1 && Bits == 32) { D4R_SURF_DISPATCH(suld, 1, 32) }
    else if constexpr (Lanes == 1 && Bits == 64) { D4R_SURF_DISPATCH(suld, 1, 64) }
    else if constexpr (Lanes == 2 && Bits == 8) { D4R_SURF_DISPATCH(suld, 2, 8) }
    else if constexpr (Lanes == 2 && Bits == 16) { D4R_SURF_DISPATCH(suld, 2, 16) }
    else if constexpr (Lanes == 2 && Bits == 32) { D4R_SURF_DISPATCH(suld, 2, 32) }
    else if constexpr (Lanes == 2 && Bits == 64) { D4R_SURF_DISPATCH(suld, 2, 64) }
    else if constexpr (Lanes == 4 && Bits == 8) { D4R_SURF_DISPATCH(suld, 4, 8) }
    else if constexpr (Lanes == 4 && Bits == 16) { D4R_SURF_DISPATCH(suld, 4, 16) }
    else { D4R_SURF_DISPATCH(suld, 4, 32) }
}
#undef D4R_SURF_DISPATCH

} // namespace d4r_clang_surface

template <class T>
__device__ __forceinline__ void surf2Dwrite(T data, cudaSurfaceObject_t surface, int x, int y,
                                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    using shape = d4r_clang_surface::shape<T>;
    using element = d4r_clang_surface::element<shape::bits>;
    static_assert(sizeof(T) == shape::lanes * sizeof(typename element::type));
    typename element::type lanes[shape::lanes];
    __builtin_memcpy(lanes, &data, sizeof(T));
    typename element::reg regs[shape::lanes];
    for (int i = 0; i < shape::lanes; ++i) {
        regs[i] = lanes[i];
    }
    d4r_clang_surface::store<shape::lanes, shape::bits>(surface, x, y, regs, mode);
}

template <class T>
__device__ __forceinline__ T surf2Dread(cudaSurfaceObject_t surface, int x, int y,
                                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    using shape = d4r_clang_surface::shape<T>;
    using element = d4r_clang_surface::element<shape::bits>;
    static_assert(sizeof(T) == shape::lanes * sizeof(typename element::type));
    typename element::reg regs[shape::lanes];
    d4r_clang_surface::load<shape::lanes, shape::bits>(surface, x, y, regs, mode);
    typename element::type lanes[shape::lanes];
    for (int i = 0; i < shape::lanes; ++i) {
        lanes[i] = static_cast<typename element::type>(regs[i]);
    }
    T data;
    __builtin_memcpy(&data, lanes, sizeof(T));
    return data;
}

template <class T>
__device__ __forceinline__ void surf2Dread(T* data, cudaSurfaceObject_t surface, int x, int y,
                                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    *data = surf2Dread<T>(surface, x, y, mode);
}

#endif
