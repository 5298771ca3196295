// d4r-isa-ptx: half_fold.sm_90.ptx -arch=sm_90 -O3
// Which min/max of one register with itself ptxas folds into the register (NaN bits kept):
// half_same_edges showed min.f16 x, x folded and max.bf16, min.f16x2, max.bf16x2 x, x not; these
// are the other four plain forms, with the first two again.
// - half_fold: a holds 16-bit patterns, the packed operand is a | b << 16.
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

// out_h: max.f16, min.bf16, min.f16, max.bf16; out_p: max.f16x2, min.bf16x2, min.f16x2,
// max.bf16x2 (each of a register with itself).
extern "C" __global__ void half_fold(const unsigned short* a, const unsigned short* b,
                                     unsigned short* out_h, unsigned* out_p, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    const unsigned xy = x | static_cast<unsigned>(b[i]) << 16;
    unsigned short* oh = out_h + i * 4;
    unsigned* op32 = out_p + i * 4;
    unsigned short h;
    unsigned r;
    int k16 = 0;
    int k32 = 0;
    D4R_SAME16("max.f16");
    D4R_SAME16("min.bf16");
    D4R_SAME16("min.f16");
    D4R_SAME16("max.bf16");
    D4R_SAME32("max.f16x2");
    D4R_SAME32("min.bf16x2");
    D4R_SAME32("min.f16x2");
    D4R_SAME32("max.bf16x2");
}
