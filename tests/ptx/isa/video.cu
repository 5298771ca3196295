// d4r-isa-ptx: video.sm_90.ptx -arch=sm_90 -O3
// The video instructions (lower_video.cpp, kernels/support/video.c), one output word each:
// scalar vadd/vsub/vabsdiff/vmin/vmax in mixed signedness with .sat, byte and half selects, the
// secondary .add/.min/.max and the merge destinations .b0-.b3/.h0/.h1; vshl/vshr .clamp/.wrap;
// vset with each comparison; the SIMD forms vadd2 ... vset2 and vadd4 ... vset4 with source
// selects, destination masks, .sat and the secondary .add.
#include "isa_common.cuh"

#define D4R_V(i, form)                                                        \
    asm(form ";" : "=r"(r) : "r"(x), "r"(y), "r"(z));                         \
    o[i] = r

extern "C" __global__ void video(const unsigned* a, const unsigned* b, const unsigned* c,
                                 unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 80;
    unsigned r;
    D4R_V(0, "vadd.u32.u32.u32 %0, %1, %2");
    D4R_V(1, "vadd.s32.s32.s32.sat %0, %1, %2");
    D4R_V(2, "vadd.u32.u32.u32.sat %0, %1, %2");
    D4R_V(3, "vadd.s32.u32.s32.sat %0, %1.b0, %2.h0");
    D4R_V(4, "vadd.u32.s32.s32.sat %0, %1.h1, %2.b3");
    D4R_V(5, "vsub.s32.s32.s32.sat %0, %1, %2");
    D4R_V(6, "vsub.u32.u32.u32.sat %0, %1.b1, %2.b2");
    D4R_V(7, "vsub.s32.u32.u32 %0, %1.h0, %2.h1");
    D4R_V(8, "vabsdiff.u32.s32.s32 %0, %1, %2");
    D4R_V(9, "vabsdiff.s32.u32.u32.sat %0, %1, %2");
    D4R_V(10, "vabsdiff.u32.s32.u32.sat %0, %1.b3, %2.b0");
    D4R_V(11, "vmin.s32.s32.s32 %0, %1, %2");
    D4R_V(12, "vmin.u32.u32.s32 %0, %1, %2");
    D4R_V(13, "vmax.s32.u32.s32.sat %0, %1, %2");
    D4R_V(14, "vmax.u32.s32.s32.sat %0, %1.h0, %2.h1");
    D4R_V(15, "vadd.u32.u32.u32.add %0, %1, %2, %3");
    D4R_V(16, "vadd.s32.s32.s32.sat.add %0, %1, %2, %3");
    D4R_V(17, "vsub.s32.s32.s32.min %0, %1, %2, %3");
    D4R_V(18, "vsub.u32.u32.u32.sat.max %0, %1.b0, %2.b1, %3");
    D4R_V(19, "vmin.u32.u32.u32.max %0, %1, %2, %3");
    D4R_V(20, "vmax.s32.s32.s32.sat.min %0, %1.h1, %2.h0, %3");
    D4R_V(21, "vabsdiff.s32.s32.s32.add %0, %1.b2, %2.b2, %3");
    D4R_V(22, "vadd.u32.u32.u32.sat %0.b0, %1, %2, %3");
    D4R_V(23, "vadd.s32.s32.s32.sat %0.b3, %1.b1, %2.b2, %3");
    D4R_V(24, "vsub.s32.s32.s32.sat %0.h1, %1, %2, %3");
    D4R_V(25, "vsub.u32.u32.u32 %0.h0, %1.h1, %2.h0, %3");
    D4R_V(26, "vmax.u32.u32.u32.sat %0.b2, %1, %2, %3");
    D4R_V(27, "vmin.s32.s32.s32.sat %0.b1, %1.h0, %2, %3");
    D4R_V(28, "vabsdiff.u32.u32.u32.sat %0.h1, %1.b3, %2.h1, %3");
    D4R_V(29, "vshl.u32.u32.u32.clamp %0, %1, %2");
    D4R_V(30, "vshl.u32.u32.u32.wrap %0, %1, %2");
    D4R_V(31, "vshl.s32.s32.u32.sat.clamp %0, %1, %2.b0");
    D4R_V(32, "vshl.u32.u32.u32.sat.clamp %0, %1.b0, %2.b0");
    D4R_V(33, "vshr.s32.s32.u32.clamp %0, %1, %2.b0");
    D4R_V(34, "vshr.u32.u32.u32.wrap %0, %1, %2");
    D4R_V(35, "vshr.u32.s32.u32.sat.clamp %0, %1.h1, %2.b1");
    D4R_V(36, "vshl.u32.u32.u32.wrap.add %0, %1, %2.b0, %3");
    D4R_V(37, "vshr.s32.s32.u32.clamp.max %0, %1, %2.b0, %3");
    D4R_V(38, "vshl.s32.s32.u32.sat.clamp %0.h0, %1.b2, %2.b0, %3");
    D4R_V(39, "vset.u32.u32.eq %0, %1.b0, %2.b0");
    D4R_V(40, "vset.s32.s32.lt %0, %1, %2");
    D4R_V(41, "vset.u32.s32.le %0, %1.h1, %2.h0");
    D4R_V(42, "vset.s32.u32.gt %0, %1, %2");
    D4R_V(43, "vset.u32.u32.ne.add %0, %1.b1, %2.b1, %3");
    D4R_V(44, "vset.s32.s32.ge.max %0, %1, %2, %3");
    D4R_V(45, "vset.s32.s32.lt.min %0, %1.b3, %2.b3, %3");
    D4R_V(46, "vset.u32.u32.ge %0.b2, %1, %2, %3");
    D4R_V(47, "vadd2.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(48, "vadd2.s32.s32.s32.sat %0, %1, %2, %3");
    D4R_V(49, "vadd2.u32.u32.u32.sat %0, %1, %2, %3");
    D4R_V(50, "vsub2.s32.s32.s32.sat %0.h0, %1.h21, %2.h03, %3");
    D4R_V(51, "vsub2.u32.u32.u32.sat %0, %1, %2, %3");
    D4R_V(52, "vavrg2.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(53, "vavrg2.s32.s32.s32 %0.h1, %1, %2, %3");
    D4R_V(54, "vabsdiff2.s32.s32.s32.sat %0, %1, %2, %3");
    D4R_V(55, "vabsdiff2.u32.u32.u32 %0, %1.h11, %2.h22, %3");
    D4R_V(56, "vmin2.s32.s32.s32 %0, %1, %2, %3");
    D4R_V(57, "vmax2.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(58, "vadd2.s32.s32.s32.add %0, %1, %2, %3");
    D4R_V(59, "vabsdiff2.u32.u32.u32.add %0.h0, %1, %2, %3");
    D4R_V(60, "vset2.u32.u32.lt %0, %1, %2, %3");
    D4R_V(61, "vset2.s32.s32.ge.add %0, %1, %2, %3");
    D4R_V(62, "vmin2.u32.s32.u32.sat %0, %1.h30, %2.h12, %3");
    D4R_V(63, "vadd4.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(64, "vadd4.s32.s32.s32.sat %0, %1, %2, %3");
    D4R_V(65, "vadd4.u32.u32.u32.sat %0, %1, %2, %3");
    D4R_V(66, "vsub4.s32.s32.s32.sat %0, %1, %2, %3");
    D4R_V(67, "vsub4.u32.u32.u32.sat %0.b20, %1.b0123, %2.b4567, %3");
    D4R_V(68, "vavrg4.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(69, "vavrg4.s32.s32.s32 %0, %1, %2, %3");
    D4R_V(70, "vabsdiff4.u32.u32.u32 %0, %1, %2, %3");
    D4R_V(71, "vabsdiff4.s32.s32.s32.sat %0.b31, %1, %2, %3");
    D4R_V(72, "vmin4.s32.s32.s32 %0, %1, %2, %3");
    D4R_V(73, "vmax4.u32.u32.u32 %0, %1.b7531, %2.b6420, %3");
    D4R_V(74, "vadd4.u32.u32.u32.add %0, %1, %2, %3");
    D4R_V(75, "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3");
    D4R_V(76, "vmax4.s32.u32.s32.sat %0, %1, %2, %3");
    D4R_V(77, "vset4.u32.u32.ne %0, %1, %2, %3");
    D4R_V(78, "vset4.s32.s32.lt.add %0.b210, %1, %2, %3");
    D4R_V(79, "vsub4.s32.s32.s32.add %0, %1, %2, %3");
}
