// d4r-isa-ptx: half_same.sm_90.ptx -arch=sm_90 -O3
// min/max of a register with itself on f16, bf16, f16x2, bf16x2 and min/max.xorsign.abs.f32:
// ptxas folds min.f32/max.f32 x, x into x, NaN bits included (rd_same_operand); these say what
// the half and .xorsign.abs forms do with one register as both operands (half_extras.cu has
// the two-register forms).
// - half_same: a holds 16-bit patterns, the packed operand is a | a' << 16 (a' = b[i]).
#include "isa_common.cuh"

#define D4R_SAME16(op)                                                                             \
    asm("{\n\t.reg .b16 ha, hr;\n\tmov.b16 ha, %1;\n\t" op " hr, ha, ha;\n\tmov.b16 %0, hr;\n\t}"  \
        : "=h"(h)                                                                                  \
        : "h"(x));                                                                                 \
    oh[k16++] = h
#define D4R_SAME32(op)                                                                             \
    asm("{\n\t.reg .b32 ha, hr;\n\tmov.b32 ha, %1;\n\t" op " hr, ha, ha;\n\tmov.b32 %0, hr;\n\t}"  \
        : "=r"(r)                                                                                  \
        : "r"(xy));                                                                                \
    op32[k32++] = r

// out_h: 8 scalar results per element, out_p: 8 packed, out_f: 4 f32 (of a's bits widened as
// a << 16, so that the f32 operand is a NaN exactly when the bf16 pattern is).
extern "C" __global__ void half_same(const unsigned short* a, const unsigned short* b,
                                     unsigned short* out_h, unsigned* out_p, unsigned* out_f,
                                     int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    unsigned xy = x | static_cast<unsigned>(b[i]) << 16;
    unsigned short* oh = out_h + i * 8;
    unsigned* op32 = out_p + i * 8;
    unsigned short h;
    unsigned r;
    int k16 = 0;
    int k32 = 0;
    D4R_SAME16("min.f16");
    D4R_SAME16("max.ftz.f16");
    D4R_SAME16("min.NaN.f16");
    D4R_SAME16("max.xorsign.abs.f16");
    D4R_SAME16("max.bf16");
    D4R_SAME16("min.NaN.bf16");
    D4R_SAME16("min.xorsign.abs.bf16");
    D4R_SAME16("max.NaN.xorsign.abs.bf16");
    D4R_SAME32("min.f16x2");
    D4R_SAME32("max.ftz.f16x2");
    D4R_SAME32("min.NaN.f16x2");
    D4R_SAME32("max.xorsign.abs.f16x2");
    D4R_SAME32("max.bf16x2");
    D4R_SAME32("min.NaN.bf16x2");
    D4R_SAME32("min.xorsign.abs.bf16x2");
    D4R_SAME32("max.NaN.xorsign.abs.bf16x2");
    xy = static_cast<unsigned>(x) << 16;
    op32 = out_f + i * 4;
    k32 = 0;
    D4R_SAME32("min.xorsign.abs.f32");
    D4R_SAME32("max.ftz.xorsign.abs.f32");
    D4R_SAME32("min.NaN.xorsign.abs.f32");
    D4R_SAME32("max.f32");
}
