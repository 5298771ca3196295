// d4r-isa-ptx: cvt.sm_90.ptx -arch=sm_90 -O3 -ftz=false
// d4r-isa-ptx: cvt_ftz.sm_90.ptx -arch=sm_90 -O3 -ftz=true
// Stage 1 cvt of every kind: float -> int (every rounding mode, saturating, NaN -> 0), int -> float
// (every rounding mode), float <-> float (f64, f32, f16, bf16), cvt.rXi (rint/trunc/floor/ceil) and
// saturation; plus exhaustive f16 -> f32 and f16 -> integers over all 65536 halves.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "isa_common.cuh"

__device__ __forceinline__ unsigned hbits(__half h) { return __half_as_ushort(h); }
__device__ __forceinline__ unsigned bbits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }

extern "C" __global__ void cvt_from_f32(const float* a, unsigned* o32, unsigned long long* o64, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const float x = a[i];
    unsigned* o = o32 + i * 22;
    o[0] = static_cast<unsigned>(__float2int_rn(x));
    o[1] = static_cast<unsigned>(__float2int_rz(x));
    o[2] = static_cast<unsigned>(__float2int_rd(x));
    o[3] = static_cast<unsigned>(__float2int_ru(x));
    o[4] = __float2uint_rn(x);
    o[5] = __float2uint_rz(x);
    o[6] = __float2uint_rd(x);
    o[7] = __float2uint_ru(x);
    o[8] = hbits(__float2half_rn(x)) | hbits(__float2half_rz(x)) << 16;
    o[9] = hbits(__float2half_rd(x)) | hbits(__float2half_ru(x)) << 16;
    o[10] = bbits(__float2bfloat16_rn(x)) | bbits(__float2bfloat16_rz(x)) << 16;
    o[11] = bbits(__float2bfloat16_rd(x)) | bbits(__float2bfloat16_ru(x)) << 16;
    o[12] = __float_as_uint(__saturatef(x));
    o[13] = __float_as_uint(rintf(x));
    o[14] = __float_as_uint(truncf(x));
    o[15] = __float_as_uint(floorf(x));
    o[16] = __float_as_uint(ceilf(x));
    o[17] = __float_as_uint(roundf(x));
    unsigned r;
    asm("{ .reg .s16 t; cvt.rni.s16.f32 t, %1; cvt.u32.u16 %0, t; }" : "=r"(r) : "f"(x));
    o[18] = r;
    asm("{ .reg .u16 t; cvt.rzi.u8.f32 t, %1; cvt.u32.u16 %0, t; }" : "=r"(r) : "f"(x));
    o[19] = r;
    asm("{ .reg .s16 t; cvt.rmi.s8.f32 t, %1; cvt.u32.u16 %0, t; }" : "=r"(r) : "f"(x));
    o[20] = r;
    float s;
    asm("cvt.rni.sat.f32.f32 %0, %1;" : "=f"(s) : "f"(x));
    o[21] = __float_as_uint(s);
    unsigned long long* w = o64 + i * 9;
    w[0] = static_cast<unsigned long long>(__float2ll_rn(x));
    w[1] = static_cast<unsigned long long>(__float2ll_rz(x));
    w[2] = static_cast<unsigned long long>(__float2ll_rd(x));
    w[3] = static_cast<unsigned long long>(__float2ll_ru(x));
    w[4] = __float2ull_rn(x);
    w[5] = __float2ull_rz(x);
    w[6] = __float2ull_rd(x);
    w[7] = __float2ull_ru(x);
    w[8] = __double_as_longlong(static_cast<double>(x));
}

extern "C" __global__ void cvt_from_f64(const double* a, unsigned* o32, unsigned long long* o64, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const double x = a[i];
    unsigned* o = o32 + i * 10;
    o[0] = __float_as_uint(__double2float_rn(x));
    o[1] = __float_as_uint(__double2float_rz(x));
    o[2] = __float_as_uint(__double2float_rd(x));
    o[3] = __float_as_uint(__double2float_ru(x));
    o[4] = static_cast<unsigned>(__double2int_rn(x));
    o[5] = static_cast<unsigned>(__double2int_rz(x));
    o[6] = static_cast<unsigned>(__double2int_rd(x));
    o[7] = static_cast<unsigned>(__double2int_ru(x));
    o[8] = __double2uint_rz(x);
    o[9] = hbits(__double2half(x));
    unsigned long long* w = o64 + i * 9;
    w[0] = static_cast<unsigned long long>(__double2ll_rn(x));
    w[1] = static_cast<unsigned long long>(__double2ll_rz(x));
    w[2] = static_cast<unsigned long long>(__double2ll_rd(x));
    w[3] = static_cast<unsigned long long>(__double2ll_ru(x));
    w[4] = __double2ull_rz(x);
    w[5] = __double_as_longlong(rint(x));
    w[6] = __double_as_longlong(trunc(x));
    w[7] = __double_as_longlong(floor(x));
    w[8] = __double_as_longlong(ceil(x));
}

extern "C" __global__ void cvt_from_int(const long long* a, unsigned* o32, unsigned long long* o64, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const long long x = a[i];
    const int x32 = static_cast<int>(x);
    const unsigned u32 = static_cast<unsigned>(x);
    const unsigned long long u64 = static_cast<unsigned long long>(x);
    unsigned* o = o32 + i * 18;
    o[0] = __float_as_uint(__int2float_rn(x32));
    o[1] = __float_as_uint(__int2float_rz(x32));
    o[2] = __float_as_uint(__int2float_rd(x32));
    o[3] = __float_as_uint(__int2float_ru(x32));
    o[4] = __float_as_uint(__uint2float_rn(u32));
    o[5] = __float_as_uint(__uint2float_rz(u32));
    o[6] = __float_as_uint(__uint2float_rd(u32));
    o[7] = __float_as_uint(__uint2float_ru(u32));
    o[8] = __float_as_uint(__ll2float_rn(x));
    o[9] = __float_as_uint(__ll2float_rz(x));
    o[10] = __float_as_uint(__ll2float_rd(x));
    o[11] = __float_as_uint(__ll2float_ru(x));
    o[12] = __float_as_uint(__ull2float_rn(u64));
    o[13] = __float_as_uint(__ull2float_rz(u64));
    o[14] = __float_as_uint(__ull2float_rd(u64));
    o[15] = __float_as_uint(__ull2float_ru(u64));
    o[16] = hbits(__int2half_rn(x32)) | hbits(__int2half_rz(x32)) << 16;
    o[17] = hbits(__int2half_rd(x32)) | hbits(__int2half_ru(x32)) << 16;
    unsigned long long* w = o64 + i * 9;
    w[0] = __double_as_longlong(__ll2double_rn(x));
    w[1] = __double_as_longlong(__ll2double_rz(x));
    w[2] = __double_as_longlong(__ll2double_rd(x));
    w[3] = __double_as_longlong(__ll2double_ru(x));
    w[4] = __double_as_longlong(__ull2double_rn(u64));
    w[5] = __double_as_longlong(__ull2double_rz(u64));
    w[6] = __double_as_longlong(__ull2double_rd(u64));
    w[7] = __double_as_longlong(__ull2double_ru(u64));
    w[8] = __double_as_longlong(static_cast<double>(x32));
}

// Every half: to f32 (exact), and to integers of each width in every rounding mode.
extern "C" __global__ void cvt_f16_exhaustive(const unsigned short* h, float* f32, short* s16_rn, short* s16_rz,
                                              short* s16_rd, short* s16_ru, unsigned short* u16_rn,
                                              unsigned short* u16_rz, unsigned short* u16_rd,
                                              unsigned short* u16_ru, int* s32_rn, unsigned* u32_rz,
                                              signed char* s8_rz, unsigned char* u8_rz, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const __half x = __ushort_as_half(h[i]);
    f32[i] = __half2float(x);
    s16_rn[i] = __half2short_rn(x);
    s16_rz[i] = __half2short_rz(x);
    s16_rd[i] = __half2short_rd(x);
    s16_ru[i] = __half2short_ru(x);
    u16_rn[i] = __half2ushort_rn(x);
    u16_rz[i] = __half2ushort_rz(x);
    u16_rd[i] = __half2ushort_rd(x);
    u16_ru[i] = __half2ushort_ru(x);
    s32_rn[i] = __half2int_rn(x);
    u32_rz[i] = __half2uint_rz(x);
    s8_rz[i] = __half2char_rz(x);
    u8_rz[i] = __half2uchar_rz(x);
}
