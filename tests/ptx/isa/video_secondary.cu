// d4r-isa-ptx: video_secondary.sm_90.ptx -arch=sm_90 -O3
// The scalar video instructions with a secondary .min or .max, in every signedness mix of a, b and
// the destination, with and without .sat, and with c the same register as b: what these compare
// (the wide intermediate or its low 32 bits, and in whose signedness) is measured on these forms.
#include "isa_common.cuh"

#define D4R_V(i, form)                                                        \
    asm(form ";" : "=r"(r) : "r"(x), "r"(y), "r"(z));                         \
    o[i] = r

extern "C" __global__ void video_secondary(const unsigned* a, const unsigned* b, const unsigned* c,
                                           unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 36;
    unsigned r;
    D4R_V(0, "vadd.u32.u32.u32.min %0, %1, %2, %3");
    D4R_V(1, "vadd.s32.s32.s32.min %0, %1, %2, %3");
    D4R_V(2, "vadd.u32.s32.s32.min %0, %1, %2, %3");
    D4R_V(3, "vadd.s32.u32.u32.min %0, %1, %2, %3");
    D4R_V(4, "vsub.u32.u32.u32.min %0, %1, %2, %3");
    D4R_V(5, "vsub.s32.s32.s32.min %0, %1, %2, %3");
    D4R_V(6, "vsub.u32.u32.s32.min %0, %1, %2, %3");
    D4R_V(7, "vsub.s32.u32.s32.min %0, %1, %2, %3");
    D4R_V(8, "vabsdiff.u32.u32.s32.min %0, %1, %2, %3");
    D4R_V(9, "vabsdiff.s32.s32.s32.min %0, %1, %2, %3");
    D4R_V(10, "vabsdiff.u32.s32.u32.min %0, %1, %2, %3");
    D4R_V(11, "vmax.s32.u32.s32.min %0, %1, %2, %3");
    D4R_V(12, "vmin.u32.s32.u32.min %0, %1, %2, %3");
    D4R_V(13, "vmax.u32.u32.u32.min %0, %1, %2, %3");
    D4R_V(14, "vadd.u32.u32.u32.sat.min %0, %1, %2, %3");
    D4R_V(15, "vsub.s32.s32.s32.sat.min %0, %1, %2, %3");
    D4R_V(16, "vadd.u32.u32.u32.max %0, %1, %2, %3");
    D4R_V(17, "vadd.s32.s32.s32.max %0, %1, %2, %3");
    D4R_V(18, "vadd.u32.s32.s32.max %0, %1, %2, %3");
    D4R_V(19, "vadd.s32.u32.u32.max %0, %1, %2, %3");
    D4R_V(20, "vsub.u32.u32.u32.max %0, %1, %2, %3");
    D4R_V(21, "vsub.s32.s32.s32.max %0, %1, %2, %3");
    D4R_V(22, "vsub.u32.u32.s32.max %0, %1, %2, %3");
    D4R_V(23, "vsub.s32.u32.s32.max %0, %1, %2, %3");
    D4R_V(24, "vabsdiff.u32.u32.s32.max %0, %1, %2, %3");
    D4R_V(25, "vabsdiff.s32.s32.s32.max %0, %1, %2, %3");
    D4R_V(26, "vabsdiff.u32.s32.u32.max %0, %1, %2, %3");
    D4R_V(27, "vmax.s32.u32.s32.max %0, %1, %2, %3");
    D4R_V(28, "vmin.u32.s32.u32.max %0, %1, %2, %3");
    D4R_V(29, "vmax.u32.u32.u32.max %0, %1, %2, %3");
    D4R_V(30, "vadd.u32.u32.u32.sat.max %0, %1, %2, %3");
    D4R_V(31, "vsub.s32.s32.s32.sat.max %0, %1, %2, %3");
    D4R_V(32, "vsub.u32.u32.u32.max %0, %1, %2, %2");
    D4R_V(33, "vsub.s32.s32.s32.min %0, %1, %2, %2");
    D4R_V(34, "vadd.u32.s32.u32.min %0, %1.h1, %2.b0, %3");
    D4R_V(35, "vsub.s32.u32.u32.max %0, %1.b3, %2.h0, %3");
}
