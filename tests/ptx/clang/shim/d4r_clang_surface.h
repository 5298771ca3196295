// surf2Dwrite / surf2Dread (and the 1D, 3D and layered ones) on surface objects for clang's CUDA mode (our own code, force-included by
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

// The other geometries (surf1D*, surf1DLayered*, surf3D*, surf2DLayered*), as CUDA 13 writes
// them: the coordinate vector of each (1d {x}; a1d {layer, x}; 3d {x, y, z, z}; a2d {layer, x, y,
// y}: a 4-vector's unused last lane repeats the one before, as nvcc fills it) in k[].
// The coordinate operands are function-like macros passed by name, expanded only in the asm
// statements: their commas must not split the arguments of the macros in between.
#define D4R_K1() [k0] "r"(k[0])
#define D4R_K2() [k0] "r"(k[0]), [k1] "r"(k[1])
#define D4R_K4() [k0] "r"(k[0]), [k1] "r"(k[1]), [k2] "r"(k[2]), [k3] "r"(k[3])
#define D4R_C1 "{%[k0]}"
#define D4R_C2 "{%[k0], %[k1]}"
#define D4R_C4 "{%[k0], %[k1], %[k2], %[k3]}"
#define D4R_GEOM_ACCESS(geom, coords, operands, bits, c, mode)                                             \
    __device__ __forceinline__ void sust_##geom##_1_##bits##_##mode(unsigned long long s, const int* k,    \
                                                                    const element<bits>::reg* v)         \
    {                                                                                                    \
        asm volatile("sust.b." #geom ".b" #bits "." #mode " [%[s], " coords "], {%[v0]};"               \
                     :                                                                                   \
                     : [s] "l"(s), operands(), [v0] c(v[0])                                                \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void sust_##geom##_2_##bits##_##mode(unsigned long long s, const int* k,    \
                                                                    const element<bits>::reg* v)         \
    {                                                                                                    \
        asm volatile("sust.b." #geom ".v2.b" #bits "." #mode " [%[s], " coords "], {%[v0], %[v1]};"     \
                     :                                                                                   \
                     : [s] "l"(s), operands(), [v0] c(v[0]), [v1] c(v[1])                                  \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void suld_##geom##_1_##bits##_##mode(unsigned long long s, const int* k,    \
                                                                    element<bits>::reg* v)               \
    {                                                                                                    \
        asm volatile("suld.b." #geom ".b" #bits "." #mode " {%[v0]}, [%[s], " coords "];"               \
                     : [v0] "=" c(v[0])                                                                  \
                     : [s] "l"(s), operands()                                                            \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void suld_##geom##_2_##bits##_##mode(unsigned long long s, const int* k,    \
                                                                    element<bits>::reg* v)               \
    {                                                                                                    \
        asm volatile("suld.b." #geom ".v2.b" #bits "." #mode " {%[v0], %[v1]}, [%[s], " coords "];"     \
                     : [v0] "=" c(v[0]), [v1] "=" c(v[1])                                                \
                     : [s] "l"(s), operands()                                                            \
                     : "memory");                                                                        \
    }
#define D4R_GEOM_ACCESS_V4(geom, coords, operands, bits, c, mode)                                          \
    __device__ __forceinline__ void sust_##geom##_4_##bits##_##mode(unsigned long long s, const int* k,    \
                                                                    const element<bits>::reg* v)         \
    {                                                                                                    \
        asm volatile("sust.b." #geom ".v4.b" #bits "." #mode " [%[s], " coords                          \
                     "], {%[v0], %[v1], %[v2], %[v3]};"                                                  \
                     :                                                                                   \
                     : [s] "l"(s), operands(), [v0] c(v[0]), [v1] c(v[1]), [v2] c(v[2]), [v3] c(v[3])      \
                     : "memory");                                                                        \
    }                                                                                                    \
    __device__ __forceinline__ void suld_##geom##_4_##bits##_##mode(unsigned long long s, const int* k,    \
                                                                    element<bits>::reg* v)               \
    {                                                                                                    \
        asm volatile("suld.b." #geom ".v4.b" #bits "." #mode " {%[v0], %[v1], %[v2], %[v3]}, [%[s], "   \
                     coords "];"                                                                         \
                     : [v0] "=" c(v[0]), [v1] "=" c(v[1]), [v2] "=" c(v[2]), [v3] "=" c(v[3])            \
                     : [s] "l"(s), operands()                                                            \
                     : "memory");                                                                        \
    }
#define D4R_GEOM_MODES(geom, coords, operands, bits, c)                                                    \
    D4R_GEOM_ACCESS(geom, coords, operands, bits, c, zero)                                     \
    D4R_GEOM_ACCESS(geom, coords, operands, bits, c, clamp)                                    \
    D4R_GEOM_ACCESS(geom, coords, operands, bits, c, trap)
#define D4R_GEOM_MODES_V4(geom, coords, operands, bits, c)                                                 \
    D4R_GEOM_ACCESS_V4(geom, coords, operands, bits, c, zero)                                  \
    D4R_GEOM_ACCESS_V4(geom, coords, operands, bits, c, clamp)                                 \
    D4R_GEOM_ACCESS_V4(geom, coords, operands, bits, c, trap)
#define D4R_GEOM(geom, coords, operands)                                                                   \
    D4R_GEOM_MODES(geom, coords, operands, 8, "h")                                             \
    D4R_GEOM_MODES(geom, coords, operands, 16, "h")                                            \
    D4R_GEOM_MODES(geom, coords, operands, 32, "r")                                            \
    D4R_GEOM_MODES(geom, coords, operands, 64, "l")                                            \
    D4R_GEOM_MODES_V4(geom, coords, operands, 8, "h")                                          \
    D4R_GEOM_MODES_V4(geom, coords, operands, 16, "h")                                         \
    D4R_GEOM_MODES_V4(geom, coords, operands, 32, "r")
D4R_GEOM(1d, D4R_C1, D4R_K1)
D4R_GEOM(a1d, D4R_C2, D4R_K2)
D4R_GEOM(3d, D4R_C4, D4R_K4)
D4R_GEOM(a2d, D4R_C4, D4R_K4)

#define D4R_GEOM_DISPATCH(op, geom, lanes, bits)                                                           \
    switch (mode) {                                                                                      \
    case cudaBoundaryModeZero:                                                                           \
        op##_##geom##_##lanes##_##bits##_zero(s, k, v);                                                  \
        break;                                                                                           \
    case cudaBoundaryModeClamp:                                                                          \
        op##_##geom##_##lanes##_##bits##_clamp(s, k, v);                                                 \
        break;                                                                                           \
    default:                                                                                             \
        op##_##geom##_##lanes##_##bits##_trap(s, k, v);                                                  \
        break;                                                                                           \
    }
#define D4R_GEOM_PICK(op, geom)                                                                            \
    if constexpr (Lanes == 1 && Bits == 8) { D4R_GEOM_DISPATCH(op, geom, 1, 8) }                         \
    else if constexpr (Lanes == 1 && Bits == 16) { D4R_GEOM_DISPATCH(op, geom, 1, 16) }                  \
    else if constexpr (Lanes == 1 && Bits == 32) { D4R_GEOM_DISPATCH(op, geom, 1, 32) }                  \
    else if constexpr (Lanes == 1 && Bits == 64) { D4R_GEOM_DISPATCH(op, geom, 1, 64) }                  \
    else if constexpr (Lanes == 2 && Bits == 8) { D4R_GEOM_DISPATCH(op, geom, 2, 8) }                    \
    else if constexpr (Lanes == 2 && Bits == 16) { D4R_GEOM_DISPATCH(op, geom, 2, 16) }                  \
    else if constexpr (Lanes == 2 && Bits == 32) { D4R_GEOM_DISPATCH(op, geom, 2, 32) }                  \
    else if constexpr (Lanes == 2 && Bits == 64) { D4R_GEOM_DISPATCH(op, geom, 2, 64) }                  \
    else if constexpr (Lanes == 4 && Bits == 8) { D4R_GEOM_DISPATCH(op, geom, 4, 8) }                    \
    else if constexpr (Lanes == 4 && Bits == 16) { D4R_GEOM_DISPATCH(op, geom, 4, 16) }                  \
    else { D4R_GEOM_DISPATCH(op, geom, 4, 32) }
#define D4R_GEOM_FUNCTIONS(geom)                                                                           \
    template <int Lanes, int Bits>                                                                       \
    __device__ __forceinline__ void store_##geom(unsigned long long s, const int* k,                     \
                                                 const typename element<Bits>::reg* v,                   \
                                                 cudaSurfaceBoundaryMode mode)                           \
    {                                                                                                    \
        D4R_GEOM_PICK(sust, geom)                                                                        \
    }                                                                                                    \
    template <int Lanes, int Bits>                                                                       \
    __device__ __forceinline__ void load_##geom(unsigned long long s, const int* k,                      \
                                                typename element<Bits>::reg* v,                          \
                                                cudaSurfaceBoundaryMode mode)                            \
    {                                                                                                    \
        D4R_GEOM_PICK(suld, geom)                                                                        \
    }
D4R_GEOM_FUNCTIONS(1d)
D4R_GEOM_FUNCTIONS(a1d)
D4R_GEOM_FUNCTIONS(3d)
D4R_GEOM_FUNCTIONS(a2d)
#undef D4R_GEOM_FUNCTIONS
#undef D4R_GEOM_PICK
#undef D4R_GEOM_DISPATCH
#undef D4R_GEOM
#undef D4R_GEOM_MODES_V4
#undef D4R_GEOM_MODES
#undef D4R_GEOM_ACCESS_V4
#undef D4R_GEOM_ACCESS
#undef D4R_C4
#undef D4R_C2
#undef D4R_C1
#undef D4R_K4
#undef D4R_K2
#undef D4R_K1

// T's lanes as the registers of its elements, and back.
template <class T>
__device__ __forceinline__ void to_regs(const T& data,
                                        typename element<shape<T>::bits>::reg* regs)
{
    using element_t = element<shape<T>::bits>;
    static_assert(sizeof(T) == shape<T>::lanes * sizeof(typename element_t::type));
    typename element_t::type lanes[shape<T>::lanes];
    __builtin_memcpy(lanes, &data, sizeof(T));
    for (int i = 0; i < shape<T>::lanes; ++i) {
        regs[i] = lanes[i];
    }
}

template <class T>
__device__ __forceinline__ T from_regs(const typename element<shape<T>::bits>::reg* regs)
{
    using element_t = element<shape<T>::bits>;
    typename element_t::type lanes[shape<T>::lanes];
    for (int i = 0; i < shape<T>::lanes; ++i) {
        lanes[i] = static_cast<typename element_t::type>(regs[i]);
    }
    T data;
    __builtin_memcpy(&data, lanes, sizeof(T));
    return data;
}
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

// surf1D*, surf1DLayered*, surf3D*, surf2DLayered*: CUDA's argument order (x in bytes, then y, z
// or the layer), the coordinate vector as nvcc writes it.
#define D4R_SURF_GEOMETRY(name, geom, params, coords)                                                      \
    template <class T>                                                                                   \
    __device__ __forceinline__ void name##write(T data, cudaSurfaceObject_t surface, D4R_UNPACK params,  \
                                                cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)     \
    {                                                                                                    \
        const int k[] = {D4R_UNPACK coords};                                                             \
        typename d4r_clang_surface::element<d4r_clang_surface::shape<T>::bits>::reg                      \
            regs[d4r_clang_surface::shape<T>::lanes];                                                    \
        d4r_clang_surface::to_regs(data, regs);                                                          \
        d4r_clang_surface::store_##geom<d4r_clang_surface::shape<T>::lanes,                              \
                                        d4r_clang_surface::shape<T>::bits>(surface, k, regs, mode);      \
    }                                                                                                    \
    template <class T>                                                                                   \
    __device__ __forceinline__ T name##read(cudaSurfaceObject_t surface, D4R_UNPACK params,              \
                                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)         \
    {                                                                                                    \
        const int k[] = {D4R_UNPACK coords};                                                             \
        typename d4r_clang_surface::element<d4r_clang_surface::shape<T>::bits>::reg                      \
            regs[d4r_clang_surface::shape<T>::lanes];                                                    \
        d4r_clang_surface::load_##geom<d4r_clang_surface::shape<T>::lanes,                               \
                                       d4r_clang_surface::shape<T>::bits>(surface, k, regs, mode);       \
        return d4r_clang_surface::from_regs<T>(regs);                                                    \
    }
#define D4R_UNPACK(...) __VA_ARGS__
D4R_SURF_GEOMETRY(surf1D, 1d, (int x), (x))
D4R_SURF_GEOMETRY(surf1DLayered, a1d, (int x, int layer), (layer, x))
D4R_SURF_GEOMETRY(surf3D, 3d, (int x, int y, int z), (x, y, z, z))
D4R_SURF_GEOMETRY(surf2DLayered, a2d, (int x, int y, int layer), (layer, x, y, y))
#undef D4R_UNPACK
#undef D4R_SURF_GEOMETRY

#endif
