// The CUDA names the corpus sources (tests/ptx/*.cu, tests/ptx/isa/*.cu) use, for building them
// natively as HIP with clang-19 alone (-x hip -nogpulib -nogpuinc -include cuda_shim.h): Debian
// has no HIP headers. d4r-bench-code-quality compiles the sources with it, to compare the
// translator's code against what clang makes of the same kernel.
//
// Mapped to the nearest native AMDGPU form clang-19 can express: ids and barriers through
// __builtin_amdgcn_*, warp shuffles through ds_bpermute, math through __builtin_*, halves as
// _Float16, FP8 through the gfx12 conversion builtin (software on gfx11). clang-19 has no image
// builtins, so tex2D/surf2Dwrite are AMDGPU inline assembly (image_sample_lz, image_store) on the
// descriptors the translator reads too (the handle points at the 8-dword resource descriptor, the
// sampler at dword 12); the assembly waits for its own result (one wait per sample).
//
// Names with no native equivalent are declared and never defined (D4R_SHIM_MISSING): a kernel
// that still calls one after optimisation is reported "n/a" with that name. That covers the
// directed rounding modes (__fadd_rz, ...: clang-19 ignores #pragma STDC FENV_ROUND on AMDGPU).
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define D4R_SHIM_MISSING(declaration) extern "C" __device__ declaration

// Ids ------------------------------------------------------------------------------------------
struct __d4r_thread_idx {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  __device__ unsigned get_x() const { return __builtin_amdgcn_workitem_id_x(); }
  __device__ unsigned get_y() const { return __builtin_amdgcn_workitem_id_y(); }
  __device__ unsigned get_z() const { return __builtin_amdgcn_workitem_id_z(); }
};
struct __d4r_block_idx {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  __device__ unsigned get_x() const { return __builtin_amdgcn_workgroup_id_x(); }
  __device__ unsigned get_y() const { return __builtin_amdgcn_workgroup_id_y(); }
  __device__ unsigned get_z() const { return __builtin_amdgcn_workgroup_id_z(); }
};
// The code object v5 implicit arguments: block sizes (u16) at 12, 14, 16; grid sizes in blocks
// (u32) at 0, 4, 8.
struct __d4r_block_dim {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  __device__ static unsigned at(int offset)
  {
    const __attribute__((address_space(4))) unsigned short* p =
        (const __attribute__((address_space(4))) unsigned short*)__builtin_amdgcn_implicitarg_ptr();
    return p[offset / 2];
  }
  __device__ unsigned get_x() const { return at(12); }
  __device__ unsigned get_y() const { return at(14); }
  __device__ unsigned get_z() const { return at(16); }
};
struct __d4r_grid_dim {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  __device__ static unsigned at(int offset)
  {
    const __attribute__((address_space(4))) unsigned* p =
        (const __attribute__((address_space(4))) unsigned*)__builtin_amdgcn_implicitarg_ptr();
    return p[offset / 4];
  }
  __device__ unsigned get_x() const { return at(0); }
  __device__ unsigned get_y() const { return at(4); }
  __device__ unsigned get_z() const { return at(8); }
};
extern const __device__ __attribute__((weak)) __d4r_thread_idx threadIdx;
extern const __device__ __attribute__((weak)) __d4r_block_idx blockIdx;
extern const __device__ __attribute__((weak)) __d4r_block_dim blockDim;
extern const __device__ __attribute__((weak)) __d4r_grid_dim gridDim;
#define warpSize 32

__device__ inline void __syncthreads()
{
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }

// Vector types ----------------------------------------------------------------------------------
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct uint4 { unsigned x, y, z, w; };
struct ushort2 { unsigned short x, y; };
struct ushort4 { unsigned short x, y, z, w; };
__device__ inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
__device__ inline float2 make_float2(float x, float y) { return {x, y}; }
__device__ inline ushort2 make_ushort2(unsigned short x, unsigned short y) { return {x, y}; }
__device__ inline ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z,
                                       unsigned short w)
{
  return {x, y, z, w};
}

// Warp (wave32) ---------------------------------------------------------------------------------
__device__ inline unsigned __d4r_lane() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
__device__ inline int __d4r_bpermute(int value, unsigned lane)
{
  return __builtin_amdgcn_ds_bpermute(static_cast<int>(lane << 2), value);
}
template <typename T> __device__ inline T __d4r_shfl_bits(T value, unsigned lane)
{
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32 or 64-bit shuffles");
  if constexpr (sizeof(T) == 4) {
    int bits = __builtin_bit_cast(int, value);
    return __builtin_bit_cast(T, __d4r_bpermute(bits, lane));
  } else {
    long long bits = __builtin_bit_cast(long long, value);
    int lo = __d4r_bpermute(static_cast<int>(bits), lane);
    int hi = __d4r_bpermute(static_cast<int>(bits >> 32), lane);
    return __builtin_bit_cast(T, (static_cast<long long>(hi) << 32) | static_cast<unsigned>(lo));
  }
}
template <typename T> __device__ inline T __shfl(T value, int source, int width = 32)
{
  const unsigned lane = __d4r_lane();
  const unsigned base = lane & ~static_cast<unsigned>(width - 1);
  return __d4r_shfl_bits(value, base + (static_cast<unsigned>(source) & (width - 1)));
}
template <typename T> __device__ inline T __shfl_xor(T value, int mask, int width = 32)
{
  const unsigned lane = __d4r_lane();
  const unsigned target = lane ^ static_cast<unsigned>(mask);
  return __d4r_shfl_bits(value, (target & ~(width - 1)) > (lane & ~(width - 1)) ? lane : target);
}
template <typename T> __device__ inline T __shfl_down(T value, unsigned delta, int width = 32)
{
  const unsigned lane = __d4r_lane();
  const unsigned target = lane + delta;
  return __d4r_shfl_bits(value, (target & (width - 1)) < (lane & (width - 1)) ||
                                        target >= 32 ? lane : target);
}
template <typename T> __device__ inline T __shfl_up(T value, unsigned delta, int width = 32)
{
  const unsigned lane = __d4r_lane();
  const int target = static_cast<int>(lane & (width - 1)) - static_cast<int>(delta);
  return __d4r_shfl_bits(value, target < 0 ? lane : lane - delta);
}
// CUDA's *_sync forms: the member mask cannot change the result of a converged wave32.
#define __shfl_sync(mask, ...) __shfl(__VA_ARGS__)
#define __shfl_xor_sync(mask, ...) __shfl_xor(__VA_ARGS__)
#define __shfl_down_sync(mask, ...) __shfl_down(__VA_ARGS__)
#define __shfl_up_sync(mask, ...) __shfl_up(__VA_ARGS__)
__device__ inline unsigned __ballot(int predicate) { return __builtin_amdgcn_ballot_w32(predicate != 0); }
#define __ballot_sync(mask, predicate) (__ballot(predicate) & (mask))
__device__ inline unsigned __activemask() { return __builtin_amdgcn_ballot_w32(true); }
#define __all_sync(mask, predicate) (__ballot_sync(mask, !(predicate)) == 0)
#define __any_sync(mask, predicate) (__ballot_sync(mask, predicate) != 0)

// Math ------------------------------------------------------------------------------------------
__device__ inline float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ inline double fmin(double a, double b) { return __builtin_fmin(a, b); }
__device__ inline double fmax(double a, double b) { return __builtin_fmax(a, b); }
__device__ inline float roundf(float a) { return __builtin_roundf(a); }
__device__ inline float rintf(float a) { return __builtin_rintf(a); }
__device__ inline float truncf(float a) { return __builtin_truncf(a); }
__device__ inline float floorf(float a) { return __builtin_floorf(a); }
__device__ inline float ceilf(float a) { return __builtin_ceilf(a); }
__device__ inline float fabsf(float a) { return __builtin_fabsf(a); }
__device__ inline float sqrtf(float a) { return __builtin_sqrtf(a); }
__device__ inline float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__device__ inline float __fdividef(float a, float b) { return a * __builtin_amdgcn_rcpf(b); }
__device__ inline float __saturatef(float a) { return __builtin_fminf(__builtin_fmaxf(a, 0.0f), 1.0f); }
__device__ inline bool isnan(float a) { return __builtin_isnan(a); }
__device__ inline bool isinf(float a) { return __builtin_isinf(a); }
__device__ inline bool signbit(float a) { return __builtin_signbit(a); }
__device__ inline unsigned __float_as_uint(float a) { return __builtin_bit_cast(unsigned, a); }
__device__ inline float __uint_as_float(unsigned a) { return __builtin_bit_cast(float, a); }
// Round to nearest even is the default mode: these are the plain operations.
__device__ inline float __fadd_rn(float a, float b) { return a + b; }
__device__ inline float __fsub_rn(float a, float b) { return a - b; }
__device__ inline float __fmul_rn(float a, float b) { return a * b; }
__device__ inline float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ inline float __fdiv_rn(float a, float b) { return a / b; }
__device__ inline float __fsqrt_rn(float a) { return __builtin_sqrtf(a); }
__device__ inline float __frcp_rn(float a) { return 1.0f / a; }
__device__ inline double __dadd_rn(double a, double b) { return a + b; }
__device__ inline double __dsub_rn(double a, double b) { return a - b; }
__device__ inline double __dmul_rn(double a, double b) { return a * b; }
__device__ inline double __fma_rn(double a, double b, double c) { return __builtin_fma(a, b, c); }
__device__ inline double __ddiv_rn(double a, double b) { return a / b; }
__device__ inline double __dsqrt_rn(double a) { return __builtin_sqrt(a); }
__device__ inline double __drcp_rn(double a) { return 1.0 / a; }
__device__ inline int __float2int_rz(float a) { return static_cast<int>(a); }
__device__ inline unsigned __float2uint_rz(float a) { return static_cast<unsigned>(a); }
// Directed rounding: no native form in clang-19 for AMDGPU (see the top of this file).
#define D4R_SHIM_DIRECTED(name) \
  D4R_SHIM_MISSING(float name##_rz(float, float)); D4R_SHIM_MISSING(float name##_rd(float, float)); \
  D4R_SHIM_MISSING(float name##_ru(float, float))
D4R_SHIM_DIRECTED(__fadd);
D4R_SHIM_DIRECTED(__fsub);
D4R_SHIM_DIRECTED(__fmul);
D4R_SHIM_DIRECTED(__fdiv);
D4R_SHIM_MISSING(float __fmaf_rz(float, float, float));
D4R_SHIM_MISSING(float __fmaf_rd(float, float, float));
D4R_SHIM_MISSING(float __fmaf_ru(float, float, float));
D4R_SHIM_MISSING(float __fsqrt_rz(float));
D4R_SHIM_MISSING(float __fsqrt_rd(float));
D4R_SHIM_MISSING(float __fsqrt_ru(float));
D4R_SHIM_MISSING(float __frcp_rz(float));
D4R_SHIM_MISSING(float __frcp_rd(float));
D4R_SHIM_MISSING(float __frcp_ru(float));
#define D4R_SHIM_DIRECTED_D(name) \
  D4R_SHIM_MISSING(double name##_rz(double, double)); D4R_SHIM_MISSING(double name##_rd(double, double)); \
  D4R_SHIM_MISSING(double name##_ru(double, double))
D4R_SHIM_DIRECTED_D(__dadd);
D4R_SHIM_DIRECTED_D(__dsub);
D4R_SHIM_DIRECTED_D(__dmul);
D4R_SHIM_DIRECTED_D(__ddiv);
D4R_SHIM_MISSING(double __fma_rz(double, double, double));
D4R_SHIM_MISSING(double __fma_rd(double, double, double));
D4R_SHIM_MISSING(double __fma_ru(double, double, double));
D4R_SHIM_MISSING(double __dsqrt_rz(double));
D4R_SHIM_MISSING(double __dsqrt_rd(double));
D4R_SHIM_MISSING(double __dsqrt_ru(double));
D4R_SHIM_MISSING(double __drcp_rz(double));
D4R_SHIM_MISSING(double __drcp_rd(double));
D4R_SHIM_MISSING(double __drcp_ru(double));
D4R_SHIM_MISSING(int __float2int_rn(float));
D4R_SHIM_MISSING(int __float2int_rd(float));
D4R_SHIM_MISSING(int __float2int_ru(float));
D4R_SHIM_MISSING(unsigned __float2uint_rn(float));
D4R_SHIM_MISSING(unsigned __float2uint_rd(float));
D4R_SHIM_MISSING(unsigned __float2uint_ru(float));

// Integers --------------------------------------------------------------------------------------
__device__ inline int min(int a, int b) { return a < b ? a : b; }
__device__ inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
__device__ inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
__device__ inline unsigned __umulhi(unsigned a, unsigned b)
{
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
__device__ inline long long __mul64hi(long long a, long long b)
{
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
__device__ inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
__device__ inline int __popc(unsigned a) { return __builtin_popcount(a); }
__device__ inline int __popcll(unsigned long long a) { return __builtin_popcountll(a); }
__device__ inline int __clz(unsigned a) { return a == 0 ? 32 : __builtin_clz(a); }
__device__ inline int __clzll(long long a)
{
  return a == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(a));
}
__device__ inline unsigned __brev(unsigned a) { return __builtin_bitreverse32(a); }
__device__ inline unsigned long long __brevll(unsigned long long a) { return __builtin_bitreverse64(a); }
__device__ inline int __ffs(int a) { return __builtin_ffs(a); }
__device__ inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift & 31)) >> 32);
}
__device__ inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift)
{
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift < 32 ? shift : 32));
}
__device__ inline unsigned __sad(int a, int b, unsigned c)
{
  return c + static_cast<unsigned>(a > b ? a - b : b - a);
}
__device__ inline int __hadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b) >> 1); }
__device__ inline unsigned __urhadd(unsigned a, unsigned b)
{
  return static_cast<unsigned>((static_cast<unsigned long long>(a) + b + 1) >> 1);
}
// CUDA's byte permute: selector nibbles 0-7 pick bytes of {b, a}; no sign replication (that is
// v_perm_b32's selector 8+), so the generic form.
__device__ inline unsigned __byte_perm(unsigned a, unsigned b, unsigned s)
{
  const unsigned long long both = (static_cast<unsigned long long>(b) << 32) | a;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) {
    r |= static_cast<unsigned>((both >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  }
  return r;
}

// Atomics ---------------------------------------------------------------------------------------
template <typename T> __device__ inline T atomicAdd(T* p, T v)
{
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicMin(T* p, T v)
{
  return __hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicMax(T* p, T v)
{
  return __hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicOr(T* p, T v)
{
  return __hip_atomic_fetch_or(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicAnd(T* p, T v)
{
  return __hip_atomic_fetch_and(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicXor(T* p, T v)
{
  return __hip_atomic_fetch_xor(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicExch(T* p, T v)
{
  return __hip_atomic_exchange(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicCAS(T* p, T expected, T desired)
{
  __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return expected;
}
__device__ inline unsigned atomicInc(unsigned* p, unsigned limit)
{
  return __builtin_amdgcn_atomic_inc32(p, limit, __ATOMIC_RELAXED, "agent");
}
__device__ inline unsigned atomicDec(unsigned* p, unsigned limit)
{
  return __builtin_amdgcn_atomic_dec32(p, limit, __ATOMIC_RELAXED, "agent");
}

// Halves ----------------------------------------------------------------------------------------
typedef _Float16 __d4r_h2v __attribute__((ext_vector_type(2)));
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __half {
  _Float16 v;
  __half() = default;
  __device__ __half(_Float16 value) : v(value) {}
  __device__ __half(__half_raw raw) : v(__builtin_bit_cast(_Float16, raw.x)) {}
};
struct __half2 {
  __d4r_h2v v;
  __half2() = default;
  __device__ __half2(__d4r_h2v value) : v(value) {}
  __device__ __half2(__half2_raw raw) : v(__builtin_bit_cast(__d4r_h2v, raw)) {}
};
__device__ inline __half __float2half_rn(float a) { return __half(static_cast<_Float16>(a)); }
__device__ inline float __half2float(__half a) { return static_cast<float>(a.v); }
__device__ inline unsigned short __half_as_ushort(__half a) { return __builtin_bit_cast(unsigned short, a.v); }
__device__ inline __half __low2half(__half2 a) { return __half(a.v.x); }
__device__ inline __half __high2half(__half2 a) { return __half(a.v.y); }
__device__ inline __half2 __hadd2(__half2 a, __half2 b) { return __half2(a.v + b.v); }
__device__ inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
  return __half2(__builtin_elementwise_fma(a.v, b.v, c.v));
}
D4R_SHIM_MISSING(__half __float2half_rz(float));
D4R_SHIM_MISSING(__half __float2half_rd(float));
D4R_SHIM_MISSING(__half __float2half_ru(float));

// FP8 (e4m3, e5m2 -> f16): the gfx12 conversion instruction, exact software on gfx11 -----------
typedef unsigned short __nv_fp8x2_storage_t;
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };
__device__ inline unsigned short __d4r_e4m3_to_half_bits(unsigned byte)
{
  const unsigned sign = (byte & 0x80u) << 8;
  const unsigned magnitude = byte & 0x7fu;
  if (magnitude == 0x7fu) {
    return static_cast<unsigned short>(sign | 0x7fffu); // NaN
  }
  if (magnitude >= 8) { // normal: rebias 7 -> 15
    return static_cast<unsigned short>(sign | ((magnitude + (8u << 3)) << 7));
  }
  const float value = static_cast<float>(magnitude) * (1.0f / 512.0f); // subnormal: m * 2^-9
  return static_cast<unsigned short>(sign | __builtin_bit_cast(unsigned short, static_cast<_Float16>(value)));
}
__device__ inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t pair,
                                                        __nv_fp8_interpretation_t kind)
{
#if defined(__gfx1200__) || defined(__gfx1201__)
  typedef float v2f __attribute__((ext_vector_type(2)));
  const v2f both = kind == __NV_E4M3 ? __builtin_amdgcn_cvt_pk_f32_fp8(pair, false)
                                     : __builtin_amdgcn_cvt_pk_f32_bf8(pair, false);
  return {__builtin_bit_cast(unsigned short, static_cast<_Float16>(both.x)),
          __builtin_bit_cast(unsigned short, static_cast<_Float16>(both.y))};
#else
  if (kind == __NV_E5M2) {
    return {static_cast<unsigned short>((pair & 0xffu) << 8), static_cast<unsigned short>(pair & 0xff00u)};
  }
  return {__d4r_e4m3_to_half_bits(pair & 0xffu), __d4r_e4m3_to_half_bits(pair >> 8)};
#endif
}

// Images ----------------------------------------------------------------------------------------
// The handle points at the image resource descriptor (8 dwords) and, for textures, the sampler
// descriptor at dword 12, as HIP (and so ZLUDA) lays them out and the translator reads them.
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero, cudaBoundaryModeClamp, cudaBoundaryModeTrap };
typedef int __d4r_v8i __attribute__((ext_vector_type(8)));
typedef int __d4r_v4i __attribute__((ext_vector_type(4)));
typedef float __d4r_v4f __attribute__((ext_vector_type(4)));
typedef unsigned __d4r_v2u __attribute__((ext_vector_type(2)));
#define D4R_CONSTANT __attribute__((address_space(4)))
__device__ inline __d4r_v8i __d4r_resource(unsigned long long handle)
{
  return *reinterpret_cast<const D4R_CONSTANT __d4r_v8i*>(handle);
}
__device__ inline __d4r_v4i __d4r_sampler(unsigned long long handle)
{
  return *reinterpret_cast<const D4R_CONSTANT __d4r_v4i*>(handle + 48);
}
#if defined(__gfx1200__) || defined(__gfx1201__)
#define D4R_WAIT_SAMPLE "s_wait_samplecnt 0"
#else
#define D4R_WAIT_SAMPLE "s_waitcnt vmcnt(0)"
#endif
__device__ inline __d4r_v4f __d4r_sample(cudaTextureObject_t t, float x, float y)
{
  __d4r_v4f out;
  asm volatile("image_sample_lz %0, [%1, %2], %3, %4 dmask:0xf dim:SQ_RSRC_IMG_2D\n\t" D4R_WAIT_SAMPLE
               : "=v"(out)
               : "v"(x), "v"(y), "s"(__d4r_resource(t)), "s"(__d4r_sampler(t)));
  return out;
}
template <typename T> __device__ T tex2D(cudaTextureObject_t t, float x, float y);
template <> __device__ inline float4 tex2D<float4>(cudaTextureObject_t t, float x, float y)
{
  const __d4r_v4f v = __d4r_sample(t, x, y);
  return {v.x, v.y, v.z, v.w};
}
template <> __device__ inline float tex2D<float>(cudaTextureObject_t t, float x, float y)
{
  float out;
  asm volatile("image_sample_lz %0, [%1, %2], %3, %4 dmask:0x1 dim:SQ_RSRC_IMG_2D\n\t" D4R_WAIT_SAMPLE
               : "=v"(out)
               : "v"(x), "v"(y), "s"(__d4r_resource(t)), "s"(__d4r_sampler(t)));
  return out;
}
// surf2Dwrite: x in bytes, as CUDA has it; the image instruction takes elements. Out-of-range
// stores are dropped by the hardware (cudaBoundaryModeZero), as the translator relies on.
#define D4R_IMAGE_STORE(data, dmask, extra, element_shift)                                         \
  asm volatile("image_store %0, [%1, %2], %3 dmask:" dmask " dim:SQ_RSRC_IMG_2D" extra      \
               :                                                                                   \
               : "v"(data), "v"(x >> (element_shift)), "v"(y), "s"(__d4r_resource(s))            \
               : "memory")
__device__ inline void surf2Dwrite(ushort4 v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode)
{
  const __d4r_v2u data = {v.x | static_cast<unsigned>(v.y) << 16, v.z | static_cast<unsigned>(v.w) << 16};
  D4R_IMAGE_STORE(data, "0xf", " d16", 3);
}
__device__ inline void surf2Dwrite(ushort2 v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode)
{
  const unsigned data = v.x | static_cast<unsigned>(v.y) << 16;
  D4R_IMAGE_STORE(data, "0x3", " d16", 2);
}
__device__ inline void surf2Dwrite(unsigned v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode)
{
  D4R_IMAGE_STORE(v, "0x1", "", 2);
}
__device__ inline void surf2Dwrite(float4 v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode)
{
  const __d4r_v4f data = {v.x, v.y, v.z, v.w};
  D4R_IMAGE_STORE(data, "0xf", "", 4);
}

// Conversions -----------------------------------------------------------------------------------
// C++ conversions to float round to nearest even, and AMDGPU's float -> int instructions
// truncate and saturate (NaN -> 0) as PTX's cvt.rzi does: those are native. The other rounding
// directions are not (D4R_SHIM_MISSING).
__device__ inline double rint(double a) { return __builtin_rint(a); }
__device__ inline double floor(double a) { return __builtin_floor(a); }
__device__ inline double ceil(double a) { return __builtin_ceil(a); }
__device__ inline double trunc(double a) { return __builtin_trunc(a); }
__device__ inline long long __double_as_longlong(double a) { return __builtin_bit_cast(long long, a); }
__device__ inline __half __ushort_as_half(unsigned short a) { return __half(__builtin_bit_cast(_Float16, a)); }
__device__ inline __half __double2half(double a) { return __half(static_cast<_Float16>(a)); }
__device__ inline float __double2float_rn(double a) { return static_cast<float>(a); }
#define D4R_SHIM_CAST(name, from, to) \
  __device__ inline to name(from a) { return static_cast<to>(a); }
D4R_SHIM_CAST(__int2float_rn, int, float)
D4R_SHIM_CAST(__uint2float_rn, unsigned, float)
D4R_SHIM_CAST(__ll2float_rn, long long, float)
D4R_SHIM_CAST(__ull2float_rn, unsigned long long, float)
D4R_SHIM_CAST(__ll2double_rn, long long, double)
D4R_SHIM_CAST(__ull2double_rn, unsigned long long, double)
D4R_SHIM_CAST(__float2ll_rz, float, long long)
D4R_SHIM_CAST(__float2ull_rz, float, unsigned long long)
D4R_SHIM_CAST(__double2int_rz, double, int)
D4R_SHIM_CAST(__double2uint_rz, double, unsigned)
D4R_SHIM_CAST(__double2ll_rz, double, long long)
D4R_SHIM_CAST(__double2ull_rz, double, unsigned long long)
__device__ inline __half __int2half_rn(int a) { return __half(static_cast<_Float16>(a)); }
__device__ inline int __half2int_rz(__half a) { return static_cast<int>(a.v); }
__device__ inline unsigned __half2uint_rz(__half a) { return static_cast<unsigned>(a.v); }
__device__ inline short __half2short_rz(__half a) { return static_cast<short>(a.v); }
__device__ inline unsigned short __half2ushort_rz(__half a) { return static_cast<unsigned short>(a.v); }
__device__ inline signed char __half2char_rz(__half a) { return static_cast<signed char>(a.v); }
__device__ inline unsigned char __half2uchar_rz(__half a) { return static_cast<unsigned char>(a.v); }
struct __nv_bfloat16 {
  __bf16 v;
};
__device__ inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 a) { return __builtin_bit_cast(unsigned short, a.v); }
__device__ inline __nv_bfloat16 __float2bfloat16_rn(float a) { return {static_cast<__bf16>(a)}; }
#define D4R_SHIM_MISSING_RZ_RD_RU(name, from, to) \
  D4R_SHIM_MISSING(to name##_rz(from)); D4R_SHIM_MISSING(to name##_rd(from)); \
  D4R_SHIM_MISSING(to name##_ru(from))
#define D4R_SHIM_MISSING_ALL(name, from, to) \
  D4R_SHIM_MISSING_RZ_RD_RU(name, from, to); D4R_SHIM_MISSING(to name##_rn(from))
D4R_SHIM_MISSING_RZ_RD_RU(__double2float, double, float);
D4R_SHIM_MISSING_RZ_RD_RU(__int2float, int, float);
D4R_SHIM_MISSING_RZ_RD_RU(__uint2float, unsigned, float);
D4R_SHIM_MISSING_RZ_RD_RU(__ll2float, long long, float);
D4R_SHIM_MISSING_RZ_RD_RU(__ull2float, unsigned long long, float);
D4R_SHIM_MISSING_RZ_RD_RU(__ll2double, long long, double);
D4R_SHIM_MISSING_RZ_RD_RU(__ull2double, unsigned long long, double);
D4R_SHIM_MISSING_RZ_RD_RU(__int2half, int, __half);
D4R_SHIM_MISSING_RZ_RD_RU(__float2bfloat16, float, __nv_bfloat16);
D4R_SHIM_MISSING(long long __float2ll_rn(float));
D4R_SHIM_MISSING(long long __float2ll_rd(float));
D4R_SHIM_MISSING(long long __float2ll_ru(float));
D4R_SHIM_MISSING(unsigned long long __float2ull_rn(float));
D4R_SHIM_MISSING(unsigned long long __float2ull_rd(float));
D4R_SHIM_MISSING(unsigned long long __float2ull_ru(float));
D4R_SHIM_MISSING(int __double2int_rn(double));
D4R_SHIM_MISSING(int __double2int_rd(double));
D4R_SHIM_MISSING(int __double2int_ru(double));
D4R_SHIM_MISSING(long long __double2ll_rn(double));
D4R_SHIM_MISSING(long long __double2ll_rd(double));
D4R_SHIM_MISSING(long long __double2ll_ru(double));
D4R_SHIM_MISSING(int __half2int_rn(__half));
D4R_SHIM_MISSING(short __half2short_rn(__half));
D4R_SHIM_MISSING(short __half2short_rd(__half));
D4R_SHIM_MISSING(short __half2short_ru(__half));
D4R_SHIM_MISSING(unsigned short __half2ushort_rn(__half));
D4R_SHIM_MISSING(unsigned short __half2ushort_rd(__half));
D4R_SHIM_MISSING(unsigned short __half2ushort_ru(__half));
// FP8 encoding (cvt to e4m3x2/e5m2x2): gfx12 has it only with saturation to the finite range.
enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
D4R_SHIM_MISSING(__nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2, __nv_saturation_t,
                                                              __nv_fp8_interpretation_t));
