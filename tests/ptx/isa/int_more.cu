// d4r-isa-ptx: int_more.sm_90.ptx -arch=sm_90 -O3
// Integer forms of issue 11's "could: TODO" rows (lower_int_pack.cpp, lower_bits.cpp,
// lower_arith.cpp, lower_video.cpp): add/min/max on the packed .u16x2/.s16x2 types (min/max
// .relu on .s16x2; sub has no packed type, ptxas rejects one), mad.hi.sat.s32, fns.b32 (every
// base, small and edge offsets), szext (.clamp/.wrap, .u32/.s32, widths 0..63 and any), lop3
// with a predicate output (.and/.or, q and !q, the sink `_`), and vmad (types, selects, .sat,
// .shr7/.shr15, .po, the negated operands -a, -b, -c and -a with -b, immediates). One output row
// of 48 words per thread.
#include "isa_common.cuh"

#define D4R_R(i, form)                                                        \
    asm(form ";" : "=r"(r) : "r"(x), "r"(y), "r"(z));                         \
    o[i] = r

// Predicate results packed as bits: bit k is the k-th predicate of the row. The asm's q is
// c != 0 (operand %4; %5, the w below, is passed but not read: the H200 recorded this PTX).
#define D4R_P(k, form)                                                        \
    asm("{\n\t.reg .pred q, p;\n\tsetp.ne.u32 q, %4, 0;\n\t" form                \
        ";\n\tselp.u32 %1, 1, 0, p;\n\t}"                                        \
        : "=r"(r), "=r"(bit)                                                  \
        : "r"(x), "r"(y), "r"(z), "r"(w));                                    \
    bits |= bit << (k)

extern "C" __global__ void int_more(const unsigned* a, const unsigned* b, const unsigned* c,
                                    unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    const unsigned w = (x ^ y ^ z) & 0x100u; // an operand of D4R_P that it does not read
    unsigned* o = out + i * 48;
    unsigned r;
    unsigned bit;
    unsigned bits = 0;
    D4R_R(0, "add.u16x2 %0, %1, %2");
    D4R_R(1, "add.s16x2 %0, %1, %2");
    D4R_R(2, "add.u16x2 %0, %2, %3");
    D4R_R(3, "max.relu.s16x2 %0, %3, %2");
    D4R_R(4, "min.u16x2 %0, %1, %2");
    D4R_R(5, "min.s16x2 %0, %1, %2");
    D4R_R(6, "max.u16x2 %0, %1, %2");
    D4R_R(7, "max.s16x2 %0, %1, %2");
    D4R_R(8, "min.relu.s16x2 %0, %1, %2");
    D4R_R(9, "max.relu.s16x2 %0, %1, %2");
    D4R_R(10, "mad.hi.sat.s32 %0, %1, %2, %3");
    // fns: base in 0..31 (larger is undefined), the offset as given and in -40..40.
    const unsigned base = y & 31u;
    const int small = static_cast<int>(z % 81u) - 40;
    asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(base), "r"(z));
    o[11] = r;
    asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(base), "r"(small));
    o[12] = r;
    // szext: b as given and in 0..63.
    const unsigned width = y & 63u;
    D4R_R(13, "szext.clamp.s32 %0, %1, %2");
    D4R_R(14, "szext.wrap.s32 %0, %1, %2");
    D4R_R(15, "szext.clamp.u32 %0, %1, %2");
    D4R_R(16, "szext.wrap.u32 %0, %1, %2");
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(width));
    o[17] = r;
    asm("szext.wrap.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(width));
    o[18] = r;
    asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(width));
    o[19] = r;
    asm("szext.wrap.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(width));
    o[20] = r;
    // lop3 with a predicate output (q = c != 0): d in o[21..24], the predicates in o[25].
    D4R_P(0, "lop3.and.b32 %0|p, %2, %3, %4, 0x80, q");
    o[21] = r;
    D4R_P(1, "lop3.or.b32 %0|p, %2, %3, %4, 0x80, q");
    D4R_P(2, "lop3.and.b32 %0|p, %2, %3, %4, 0xfe, !q");
    o[22] = r;
    D4R_P(3, "lop3.or.b32 %0|p, %2, %3, %4, 0x96, !q");
    o[23] = r;
    D4R_P(4, "lop3.or.b32 %0|p, %2, %3, %4, 0x00, q");
    o[24] = r;
    D4R_P(5, "lop3.and.b32 _|p, %2, %3, %4, 0xe8, q");
    D4R_P(6, "lop3.or.b32 _|p, %2, %3, %4, 0x01, !q");
    o[25] = bits;
    // vmad
    D4R_R(26, "vmad.u32.u32.u32.sat.shr15 %0, %1, %2, %3");
    D4R_R(27, "vmad.s32.u32.u32.sat %0, %1.h0, %2.h1, %3");
    D4R_R(28, "vmad.u32.s32.s32.sat.shr7 %0, %1.b3, %2.h0, %3");
    D4R_R(29, "vmad.s32.s32.s32 %0, -%1, %2, %3");
    D4R_R(30, "vmad.s32.s32.s32 %0, %1, -%2, %3");
    D4R_R(31, "vmad.s32.s32.s32 %0, %1, %2, -%3");
    D4R_R(32, "vmad.s32.s32.s32 %0, -%1, -%2, %3");
    D4R_R(33, "vmad.s32.u32.u32 %0, -%1, %2, %3");
    D4R_R(34, "vmad.s32.u32.u32 %0, %1, %2, -%3");
    D4R_R(35, "vmad.u32.u32.u32 %0, -%1, %2, %3");
    D4R_R(36, "vmad.u32.u32.u32 %0, %1, %2, -%3");
    D4R_R(37, "vmad.s32.s32.s32.sat %0, -%1, %2, %3");
    D4R_R(38, "vmad.s32.u32.u32.sat %0, %1, %2, -%3");
    D4R_R(39, "vmad.u32.u32.u32.sat %0, -%1.h1, %2.b0, %3");
    D4R_R(40, "vmad.s32.u32.s32.sat.shr7 %0, %1.b2, -%2.h0, %3");
    D4R_R(41, "vmad.u32.u32.u32.sat.shr15 %0, %1.h0, %2.h1, -%3");
    D4R_R(42, "vmad.s32.s32.s32.sat.shr15 %0, -%1, -%2.b1, %3");
    D4R_R(43, "vmad.u32.u32.u32.sat.shr7 %0, -%1, %2, %3");
    D4R_R(44, "vmad.u32.u32.u32 %0, %1, 3, %3");
    D4R_R(45, "vmad.s32.s32.s32.sat %0, %1.h1, -7, %3");
    D4R_R(46, "vmad.u32.u32.u32.po %0, %1.b1, %2.b2, 5");
    D4R_R(47, "vmad.u32.u32.u32.sat %0, %1, %2.h1, -%3");
}
