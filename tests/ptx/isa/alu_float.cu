// d4r-isa-ptx: alu_float.sm_90.ptx -arch=sm_90 -O3 -ftz=false
// d4r-isa-ptx: alu_float_ftz.sm_90.ptx -arch=sm_90 -O3 -ftz=true
// Stage 1 float ALU: every rounding mode through the intrinsics (__fadd_rz ...), min/max/copysign/
// abs with NaN, and compares (ordered and unordered) as bit masks. Built twice, without and with
// flush-to-zero, so the .ftz forms are tested on the same inputs.
#include "isa_common.cuh"

extern "C" __global__ void float_arith(const float* a, const float* b, const float* c, float* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const float x = a[i];
    const float y = b[i];
    const float z = c[i];
    float* o = out + i * 32;
    o[0] = __fadd_rn(x, y);
    o[1] = __fadd_rz(x, y);
    o[2] = __fadd_rd(x, y);
    o[3] = __fadd_ru(x, y);
    o[4] = __fsub_rn(x, y);
    o[5] = __fsub_rz(x, y);
    o[6] = __fsub_rd(x, y);
    o[7] = __fsub_ru(x, y);
    o[8] = __fmul_rn(x, y);
    o[9] = __fmul_rz(x, y);
    o[10] = __fmul_rd(x, y);
    o[11] = __fmul_ru(x, y);
    o[12] = __fmaf_rn(x, y, z);
    o[13] = __fmaf_rz(x, y, z);
    o[14] = __fmaf_rd(x, y, z);
    o[15] = __fmaf_ru(x, y, z);
    o[16] = __fdiv_rn(x, y);
    o[17] = __fdiv_rz(x, y);
    o[18] = __fdiv_rd(x, y);
    o[19] = __fdiv_ru(x, y);
    o[20] = __fsqrt_rn(x);
    o[21] = __fsqrt_rz(x);
    o[22] = __fsqrt_rd(x);
    o[23] = __fsqrt_ru(x);
    o[24] = __frcp_rn(x);
    o[25] = __frcp_rz(x);
    o[26] = __frcp_rd(x);
    o[27] = __frcp_ru(x);
    o[28] = x + y;
    o[29] = x * y + z;
    o[30] = x / y;
    o[31] = sqrtf(x);
}

extern "C" __global__ void float_minmax(const float* a, const float* b, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const float x = a[i];
    const float y = b[i];
    unsigned* o = out + i * 12;
    o[0] = __float_as_uint(fminf(x, y));
    o[1] = __float_as_uint(fmaxf(x, y));
    o[2] = __float_as_uint(copysignf(x, y));
    o[3] = __float_as_uint(fabsf(x));
    o[4] = __float_as_uint(-x);
    o[5] = __float_as_uint(__saturatef(x));
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    o[6] = __float_as_uint(r);
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    o[7] = __float_as_uint(r);
    unsigned bits;
    asm("{\n\t.reg .pred p;\n\t.reg .u32 t;\n\t"
        "setp.eq.f32 p, %1, %2; selp.u32 %0, 1, 0, p;\n\t"
        "setp.ne.f32 p, %1, %2; selp.u32 t, 2, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.lt.f32 p, %1, %2; selp.u32 t, 4, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.le.f32 p, %1, %2; selp.u32 t, 8, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.gt.f32 p, %1, %2; selp.u32 t, 16, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.ge.f32 p, %1, %2; selp.u32 t, 32, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.equ.f32 p, %1, %2; selp.u32 t, 64, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.neu.f32 p, %1, %2; selp.u32 t, 128, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.ltu.f32 p, %1, %2; selp.u32 t, 256, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.leu.f32 p, %1, %2; selp.u32 t, 512, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.gtu.f32 p, %1, %2; selp.u32 t, 1024, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.geu.f32 p, %1, %2; selp.u32 t, 2048, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.num.f32 p, %1, %2; selp.u32 t, 4096, 0, p; or.b32 %0, %0, t;\n\t"
        "setp.nan.f32 p, %1, %2; selp.u32 t, 8192, 0, p; or.b32 %0, %0, t;\n\t}"
        : "=r"(bits) : "f"(x), "f"(y));
    o[8] = bits;
    o[9] = __float_as_uint(x < y ? x : y);
    o[10] = __float_as_uint(!(x >= y) ? x : y);
    o[11] = static_cast<unsigned>(isnan(x)) | static_cast<unsigned>(isinf(y)) << 1 |
            static_cast<unsigned>(signbit(x)) << 2;
}

extern "C" __global__ void double_arith(const double* a, const double* b, const double* c, double* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const double x = a[i];
    const double y = b[i];
    const double z = c[i];
    double* o = out + i * 28;
    o[0] = __dadd_rn(x, y);
    o[1] = __dadd_rz(x, y);
    o[2] = __dadd_rd(x, y);
    o[3] = __dadd_ru(x, y);
    o[4] = __dmul_rn(x, y);
    o[5] = __dmul_rz(x, y);
    o[6] = __dmul_rd(x, y);
    o[7] = __dmul_ru(x, y);
    o[8] = __fma_rn(x, y, z);
    o[9] = __fma_rz(x, y, z);
    o[10] = __fma_rd(x, y, z);
    o[11] = __fma_ru(x, y, z);
    o[12] = __ddiv_rn(x, y);
    o[13] = __ddiv_rz(x, y);
    o[14] = __ddiv_rd(x, y);
    o[15] = __ddiv_ru(x, y);
    o[16] = __dsqrt_rn(x);
    o[17] = __dsqrt_rz(x);
    o[18] = __dsqrt_rd(x);
    o[19] = __dsqrt_ru(x);
    o[20] = __drcp_rn(x);
    o[21] = __drcp_rz(x);
    o[22] = __drcp_rd(x);
    o[23] = __drcp_ru(x);
    o[24] = fmin(x, y);
    o[25] = fmax(x, y);
    o[26] = x - y;
    o[27] = __dsub_rz(x, y);
}
