// d4r-isa-ptx: video_extra.sm_90.ptx -arch=sm_90 -O3
// More video forms (lower_video.cpp): vmad (each type, .sat, .shr7/.shr15, .po, selects; the
// negated operands do not parse yet), the scalar .h1 merge without .sat, vset's secondary
// .min/.max on unsigned and mixed types, and .sat on unsigned words and signed merges beyond the
// forms of video.cu, one output word each.
#include "isa_common.cuh"

#define D4R_V(i, form)                                                        \
    asm(form ";" : "=r"(r) : "r"(x), "r"(y), "r"(z));                         \
    o[i] = r

extern "C" __global__ void video_extra(const unsigned* a, const unsigned* b, const unsigned* c,
                                       unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 32;
    unsigned r;
    D4R_V(0, "vmad.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(1, "vmad.s32.s32.s32 %0, %1, %2, %3");
    D4R_V(2, "vmad.s32.u32.s32 %0, %1, %2, %3");
    D4R_V(3, "vmad.u32.s32.u32.sat %0, %1, %2, %3");
    D4R_V(4, "vmad.s32.s32.s32.sat %0, %1, %2, %3");
    D4R_V(5, "vmad.u32.u32.u32.sat %0, %1, %2, %3");
    D4R_V(6, "vmad.s32.s32.s32.shr7 %0, %1, %2, %3");
    D4R_V(7, "vmad.u32.u32.u32.shr15 %0, %1, %2, %3");
    D4R_V(8, "vmad.s32.s32.s32.sat.shr15 %0, %1.h0, %2.h1, %3");
    D4R_V(9, "vmad.u32.u32.u32.sat.shr7 %0, %1.b0, %2.b3, %3");
    D4R_V(10, "vmad.s32.s32.s32.po %0, %1, %2, %3");
    D4R_V(11, "vmad.u32.u32.u32.po.sat %0, %1.h1, %2.h1, %3");
    D4R_V(12, "vmad.s32.u32.u32.po.sat.shr7 %0, %1, %2.b2, %3");
    D4R_V(13, "vmad.s32.s32.u32.sat %0, %1.b1, %2, %3");
    D4R_V(14, "vadd.u32.u32.u32 %0.h1, %1, %2, %3");
    D4R_V(15, "vsub.s32.s32.s32 %0.h1, %1.b0, %2, %3");
    D4R_V(16, "vmax.u32.s32.u32 %0.h1, %1.h0, %2.h1, %3");
    D4R_V(17, "vset.u32.u32.lt %0.h1, %1, %2, %3");
    D4R_V(18, "vset.u32.u32.lt.max %0, %1, %2, %3");
    D4R_V(19, "vset.u32.u32.gt.min %0, %1.b0, %2.b1, %3");
    D4R_V(20, "vset.s32.u32.ge.max %0, %1, %2, %3");
    D4R_V(21, "vset.u32.s32.ne.min %0, %1, %2, %3");
    D4R_V(22, "vsub.u32.u32.s32.sat %0, %1, %2");
    D4R_V(23, "vadd.u32.s32.u32.sat %0, %1, %2");
    D4R_V(24, "vabsdiff.u32.s32.s32.sat %0, %1, %2");
    D4R_V(25, "vsub.u32.s32.u32.sat %0, %1, %2");
    D4R_V(26, "vadd.s32.s32.s32.sat %0.h0, %1, %2, %3");
    D4R_V(27, "vsub.s32.u32.u32.sat %0.b2, %1, %2, %3");
    D4R_V(28, "vadd.u32.s32.s32.sat %0.h0, %1, %2, %3");
    D4R_V(29, "vshr.s32.s32.u32.sat.clamp %0.b1, %1, %2.b0, %3");
    D4R_V(30, "vshl.u32.u32.u32.sat.wrap %0.h0, %1, %2, %3");
    D4R_V(31, "vshl.s32.u32.u32.sat.clamp %0, %1, %2.b0");
}
