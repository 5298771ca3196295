// d4r-isa-ptx: int_edges.sm_90.ptx -arch=sm_90 -O3
// Integer forms at their edges (issue 11), written as inline PTX:
// - bit_fields: bfi and bfe, 32 and 64 bit, with pos and len from registers over a grid that
//   covers pos + len beyond the width and values of 256 and more (the ISA takes their low 8
//   bits), and a few immediate pos/len pairs (which ptxas may fold).
// - carry_signed: every .cc form on .u32/.s32/.u64/.s64 after a carry-in of 0 or 1, its result
//   and the flag it leaves, read back both as addc 0, 0 and as subc 0, 0; mixed chains
//   (sub.cc then addc, add.cc then subc, mad.cc then subc).
// - immediates: negative and out-of-range immediates on unsigned types, an f32 literal in an
//   f64 operation and an f64 literal in an f32 one, decimal literals, immediates in cvt.
#include "isa_common.cuh"

extern "C" __global__ void bit_fields(const unsigned* a, const unsigned* b, const unsigned* pos,
                                      const unsigned* len, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned p = pos[i];
    const unsigned l = len[i];
    const unsigned long long wx = static_cast<unsigned long long>(y) << 32 | (x ^ 0x5a5a5a5au);
    const unsigned long long wy = static_cast<unsigned long long>(x) << 32 | (y ^ 0xa5a5a5a5u);
    unsigned* o = out + i * 9;
    unsigned r;
    unsigned long long w;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(p), "r"(l));
    o[0] = r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(l));
    o[1] = r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(l));
    o[2] = r;
    asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(w) : "l"(wx), "l"(wy), "r"(p), "r"(l));
    o[3] = static_cast<unsigned>(w);
    o[4] = static_cast<unsigned>(w >> 32);
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(w) : "l"(wx), "r"(p), "r"(l));
    o[5] = static_cast<unsigned>(w);
    o[6] = static_cast<unsigned>(w >> 32);
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(w) : "l"(wx), "r"(p), "r"(l));
    o[7] = static_cast<unsigned>(w);
    o[8] = static_cast<unsigned>(w >> 32);
}

extern "C" __global__ void bit_fields_immediate(const unsigned* a, const unsigned* b, unsigned* out,
                                                int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned long long wx = static_cast<unsigned long long>(y) << 32 | x;
    const unsigned long long wy = static_cast<unsigned long long>(x) << 32 | y;
    unsigned* o = out + i * 16;
    unsigned r;
    unsigned long long w;
    asm("bfi.b32 %0, %1, %2, 30, 5;" : "=r"(r) : "r"(x), "r"(y));
    o[0] = r;
    asm("bfi.b32 %0, %1, %2, 31, 2;" : "=r"(r) : "r"(x), "r"(y));
    o[1] = r;
    asm("bfi.b32 %0, %1, %2, 0, 33;" : "=r"(r) : "r"(x), "r"(y));
    o[2] = r;
    asm("bfi.b32 %0, %1, %2, 16, 40;" : "=r"(r) : "r"(x), "r"(y));
    o[3] = r;
    asm("bfi.b32 %0, %1, %2, 32, 1;" : "=r"(r) : "r"(x), "r"(y));
    o[4] = r;
    asm("bfi.b32 %0, %1, %2, 5, 255;" : "=r"(r) : "r"(x), "r"(y));
    o[5] = r;
    asm("bfi.b32 %0, %1, %2, 255, 1;" : "=r"(r) : "r"(x), "r"(y));
    o[6] = r;
    asm("bfe.u32 %0, %1, 30, 5;" : "=r"(r) : "r"(x));
    o[7] = r;
    asm("bfe.s32 %0, %1, 20, 40;" : "=r"(r) : "r"(x));
    o[8] = r;
    asm("bfi.b64 %0, %1, %2, 60, 10;" : "=l"(w) : "l"(wx), "l"(wy));
    o[9] = static_cast<unsigned>(w);
    o[10] = static_cast<unsigned>(w >> 32);
    asm("bfi.b64 %0, %1, %2, 0, 65;" : "=l"(w) : "l"(wx), "l"(wy));
    o[11] = static_cast<unsigned>(w);
    o[12] = static_cast<unsigned>(w >> 32);
    asm("bfi.b64 %0, %1, %2, 63, 2;" : "=l"(w) : "l"(wx), "l"(wy));
    o[13] = static_cast<unsigned>(w);
    o[14] = static_cast<unsigned>(w >> 32);
    asm("bfi.b32 %0, %1, %2, %3, 20;" : "=r"(r) : "r"(x), "r"(y), "r"(x & 0x3f));
    o[15] = r;
}

// A carry-in set from cin (add.cc of cin and 0xffffffff carries iff cin != 0), then FORM, then the
// flag read back: o = {result, addc 0 0}, and the same again read back as subc 0 0.
#define D4R_CARRY32(form)                                                                          \
    asm("{\n\t.reg .b32 t;\n\tadd.cc.u32 t, %3, -1;\n\t" form "\n\taddc.u32 %1, 0, 0;\n\t}"         \
        : "=r"(r), "=r"(f) : "r"(x), "r"(cin), "r"(y), "r"(z));                                    \
    o[k++] = r;                                                                                    \
    o[k++] = f;                                                                                    \
    asm("{\n\t.reg .b32 t;\n\tadd.cc.u32 t, %3, -1;\n\t" form "\n\tsubc.u32 %1, 0, 0;\n\t}"         \
        : "=r"(r), "=r"(f) : "r"(x), "r"(cin), "r"(y), "r"(z));                                    \
    o[k++] = f
#define D4R_CARRY64(form)                                                                          \
    asm("{\n\t.reg .b32 t;\n\tadd.cc.u32 t, %3, -1;\n\t" form "\n\taddc.u32 %1, 0, 0;\n\t}"         \
        : "=l"(w), "=r"(f) : "l"(wx), "r"(cin), "l"(wy), "l"(wz));                                 \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32);                                                       \
    o[k++] = f;                                                                                    \
    asm("{\n\t.reg .b32 t;\n\tadd.cc.u32 t, %3, -1;\n\t" form "\n\tsubc.u32 %1, 0, 0;\n\t}"         \
        : "=l"(w), "=r"(f) : "l"(wx), "r"(cin), "l"(wy), "l"(wz));                                 \
    o[k++] = f

extern "C" __global__ void carry_signed(const unsigned* a, const unsigned* b, const unsigned* c,
                                        unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned cin = c[i] & 1;
    const unsigned z = x ^ y ^ 0x12345678u;
    const unsigned long long wx = static_cast<unsigned long long>(x) << 32 | (y ^ x);
    const unsigned long long wy = static_cast<unsigned long long>(y) << 32 | x;
    const unsigned long long wz = static_cast<unsigned long long>(z) << 32 | (x + y);
    unsigned* o = out + i * 97; // 19 forms * 3 words + 10 * 4
    unsigned r;
    unsigned f;
    unsigned long long w;
    int k = 0;
    D4R_CARRY32("add.cc.u32 %0, %2, %4;");
    D4R_CARRY32("add.cc.s32 %0, %2, %4;");
    D4R_CARRY32("sub.cc.u32 %0, %2, %4;");
    D4R_CARRY32("sub.cc.s32 %0, %2, %4;");
    D4R_CARRY32("addc.cc.u32 %0, %2, %4;");
    D4R_CARRY32("addc.cc.s32 %0, %2, %4;");
    D4R_CARRY32("subc.cc.u32 %0, %2, %4;");
    D4R_CARRY32("subc.cc.s32 %0, %2, %4;");
    D4R_CARRY32("addc.s32 %0, %2, %4;");
    D4R_CARRY32("subc.s32 %0, %2, %4;");
    D4R_CARRY32("mad.lo.cc.s32 %0, %2, %4, %5;");
    D4R_CARRY32("mad.hi.cc.s32 %0, %2, %4, %5;");
    D4R_CARRY32("madc.lo.cc.s32 %0, %2, %4, %5;");
    D4R_CARRY32("madc.hi.cc.s32 %0, %2, %4, %5;");
    D4R_CARRY32("madc.hi.cc.u32 %0, %2, %4, %5;");
    D4R_CARRY32("sub.cc.s32 %0, %2, %4;\n\taddc.cc.s32 %0, %0, %5;");
    D4R_CARRY32("add.cc.s32 %0, %2, %4;\n\tsubc.cc.s32 %0, %0, %5;");
    D4R_CARRY32("sub.cc.u32 %0, %2, %4;\n\taddc.cc.u32 %0, %0, %5;");
    D4R_CARRY32("mad.lo.cc.u32 %0, %2, %4, %5;\n\tsubc.cc.u32 %0, %0, %2;");
    D4R_CARRY64("add.cc.s64 %0, %2, %4;");
    D4R_CARRY64("sub.cc.u64 %0, %2, %4;");
    D4R_CARRY64("sub.cc.s64 %0, %2, %4;");
    D4R_CARRY64("addc.cc.s64 %0, %2, %4;");
    D4R_CARRY64("subc.cc.u64 %0, %2, %4;");
    D4R_CARRY64("subc.cc.s64 %0, %2, %4;");
    D4R_CARRY64("subc.s64 %0, %2, %4;");
    D4R_CARRY64("mad.lo.cc.s64 %0, %2, %4, %5;");
    D4R_CARRY64("madc.hi.cc.s64 %0, %2, %4, %5;");
    D4R_CARRY64("sub.cc.s64 %0, %2, %4;\n\taddc.cc.u64 %0, %0, %5;");
}

extern "C" __global__ void immediates(const unsigned* a, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned short hx = static_cast<unsigned short>(x);
    const unsigned long long wx = static_cast<unsigned long long>(x) * 0x9E3779B97F4A7C15ull;
    unsigned* o = out + i * 20;
    unsigned r;
    unsigned short h;
    unsigned long long w;
    asm("add.u32 %0, %1, -1;" : "=r"(r) : "r"(x));
    o[0] = r;
    asm("add.u16 %0, %1, -1;" : "=h"(h) : "h"(hx));
    o[1] = h;
    asm("add.u16 %0, %1, 65537;" : "=h"(h) : "h"(hx));
    o[2] = h;
    asm("add.u32 %0, %1, 0x100000003;" : "=r"(r) : "r"(x));
    o[3] = r;
    asm("add.s32 %0, %1, -2147483649;" : "=r"(r) : "r"(x));
    o[4] = r;
    asm("add.u64 %0, %1, -1;" : "=l"(w) : "l"(wx));
    o[5] = static_cast<unsigned>(w);
    o[6] = static_cast<unsigned>(w >> 32);
    asm("min.u32 %0, %1, -2;" : "=r"(r) : "r"(x));
    o[7] = r;
    asm("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %1, -16;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(x));
    o[8] = r;
    asm("and.b16 %0, %1, 0x1fff0;" : "=h"(h) : "h"(hx));
    o[9] = h;
    asm("{\n\t.reg .f64 d;\n\tmov.b64 d, %1;\n\tadd.f64 d, d, 0f3FC00000;\n\tmov.b64 %0, d;\n\t}" : "=l"(w) : "l"(wx));
    o[10] = static_cast<unsigned>(w);
    o[11] = static_cast<unsigned>(w >> 32);
    asm("{\n\t.reg .f32 f;\n\tcvt.rn.f32.f64 f, 0f3EAAAAAB;\n\tmov.b32 %0, f;\n\t}" : "=r"(r));
    o[12] = r ^ x;
    asm("{\n\t.reg .f32 f;\n\tcvt.rn.f32.s32 f, -7;\n\tmov.b32 %0, f;\n\t}" : "=r"(r));
    o[13] = r ^ x;
    asm("mov.b32 %0, 0f7FC00001;" : "=r"(r));
    o[14] = r ^ x;
    asm("shl.b32 %0, %1, -1;" : "=r"(r) : "r"(x));
    o[15] = r;
    // A literal of the other float width: converted by value, or its bits?
    asm("{\n\t.reg .f32 f;\n\tmov.f32 f, 0d3FF5555555555555;\n\tmov.b32 %0, f;\n\t}" : "=r"(r));
    o[16] = r ^ x;
    asm("{\n\t.reg .f64 d;\n\tmov.f64 d, 0f3FAAAAAB;\n\tmov.b64 %0, d;\n\t}" : "=l"(w));
    o[17] = static_cast<unsigned>(w) ^ x;
    o[18] = static_cast<unsigned>(w >> 32) ^ x;
    asm("{\n\t.reg .f32 f;\n\tmov.f32 f, 1.3333333333333333;\n\tmov.b32 %0, f;\n\t}" : "=r"(r));
    o[19] = r ^ x;
}
