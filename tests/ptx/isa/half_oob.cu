// d4r-isa-ptx: half_oob.sm_90.ptx -arch=sm_90 -O3
// fma.rn.oob{.relu} with every 16-bit pattern in one operand: which value the ISA's "OOB NaN"
// (an fma with it gives +0) is on an H200. half_extras_* showed that 0x7fff, 0xffff, 0x7e00,
// 0x7c01 (f16) and 0x7fc0 (bf16) are ordinary NaNs there.
// - half_oob_scan: x = the thread index; out_h: 6 scalar results per x, out_p: 4 packed.
#include "isa_common.cuh"

#define D4R_FMA16(op, a, b, c)                                                                     \
    asm("{\n\t.reg .b16 ha, hb, hc, hr;\n\tmov.b16 ha, %1;\n\tmov.b16 hb, %2;\n\tmov.b16 hc, %3;\n\t" \
        op " hr, ha, hb, hc;\n\tmov.b16 %0, hr;\n\t}"                                              \
        : "=h"(h)                                                                                  \
        : "h"(a), "h"(b), "h"(c));                                                                 \
    oh[k16++] = h
#define D4R_FMA32(op, a, b, c)                                                                     \
    asm("{\n\t.reg .b32 ha, hb, hc, hr;\n\tmov.b32 ha, %1;\n\tmov.b32 hb, %2;\n\tmov.b32 hc, %3;\n\t" \
        op " hr, ha, hb, hc;\n\tmov.b32 %0, hr;\n\t}"                                              \
        : "=r"(r)                                                                                  \
        : "r"(a), "r"(b), "r"(c));                                                                 \
    op32[k32++] = r

extern "C" __global__ void half_oob_scan(unsigned short* out_h, unsigned* out_p, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = static_cast<unsigned short>(i);
    const unsigned short one = 0x3c00;
    const unsigned short bone = 0x3f80;
    const unsigned short zero = 0;
    const unsigned xx = x | static_cast<unsigned>(x ^ 0x8000) << 16;
    const unsigned ones = 0x3c003c00;
    const unsigned bones = 0x3f803f80;
    const unsigned zeros = 0;
    unsigned short* oh = out_h + i * 6;
    unsigned* op32 = out_p + i * 4;
    unsigned short h;
    unsigned r;
    int k16 = 0;
    int k32 = 0;
    D4R_FMA16("fma.rn.oob.f16", x, one, zero);
    D4R_FMA16("fma.rn.oob.f16", one, one, x);
    D4R_FMA16("fma.rn.oob.bf16", x, bone, zero);
    D4R_FMA16("fma.rn.oob.bf16", bone, bone, x);
    D4R_FMA16("fma.rn.oob.relu.f16", one, x, zero);
    D4R_FMA16("fma.rn.oob.relu.bf16", bone, x, zero);
    D4R_FMA32("fma.rn.oob.f16x2", xx, ones, zeros);
    D4R_FMA32("fma.rn.oob.f16x2", ones, ones, xx);
    D4R_FMA32("fma.rn.oob.bf16x2", xx, bones, zeros);
    D4R_FMA32("fma.rn.oob.relu.bf16x2", bones, xx, zeros);
}
