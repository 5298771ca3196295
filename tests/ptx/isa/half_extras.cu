// d4r-isa-ptx: half_extras.sm_90.ptx -arch=sm_90 -O3
// The f16/bf16 forms issue 11 found missing (COVERAGE.md's half-precision, compare and cvt rows),
// each written as inline PTX on raw bits so that what the H200 computes is the instruction's own
// rule, not nvcc's:
// - half_minmax: min/max with every .ftz/.NaN/.xorsign.abs combination on f16, bf16 (scalars from
//   a, b) and f16x2, bf16x2 (a | c << 16 against b | d << 16).
// - f32_xorsign: min/max.xorsign.abs.f32 with .ftz and .NaN.
// - half_approx: ex2.approx and tanh.approx on f16, bf16, f16x2, bf16x2 (a | b << 16).
// - half_compare: setp on f16, bf16 and the packed p|q pair (lower half to p), set with f16,
//   bf16, f16x2, bf16x2, u32, s32 destinations from half sources, .ftz and .and/.or/.xor.
// - half_fma_oob: fma.rn.oob{.relu} on f16, bf16, f16x2, bf16x2.
// - half_cvt: cvt.sat from integers to f16, f16 <-> bf16, bf16 <-> f64, and cvt to .tf32 (.rna
//   with and without .satfinite; .rn .rz with and without .relu: their .satfinite is sm_100).
// - half_rint_sat: cvt.rXi.sat.f16.f16 (ptxas 13 takes no .sat on bf16 destinations).
#include "isa_common.cuh"

#define D4R_OP16(op)                                                                               \
    asm("{\n\t.reg .b16 ha, hb, hr;\n\tmov.b16 ha, %1;\n\tmov.b16 hb, %2;\n\t" op                  \
        " hr, ha, hb;\n\tmov.b16 %0, hr;\n\t}"                                                     \
        : "=h"(h)                                                                                  \
        : "h"(x), "h"(y));                                                                         \
    oh[k16++] = h
#define D4R_OP32(op)                                                                               \
    asm("{\n\t.reg .b32 ha, hb, hr;\n\tmov.b32 ha, %1;\n\tmov.b32 hb, %2;\n\t" op                  \
        " hr, ha, hb;\n\tmov.b32 %0, hr;\n\t}"                                                     \
        : "=r"(r)                                                                                  \
        : "r"(xy), "r"(zw));                                                                       \
    op32[k32++] = r

#define D4R_MINMAX_F16(name, type)                                                                 \
    D4R_OP16(name "" type);                                                                        \
    D4R_OP16(name ".ftz" type);                                                                    \
    D4R_OP16(name ".NaN" type);                                                                    \
    D4R_OP16(name ".ftz.NaN" type);                                                                \
    D4R_OP16(name ".xorsign.abs" type);                                                            \
    D4R_OP16(name ".ftz.xorsign.abs" type);                                                        \
    D4R_OP16(name ".NaN.xorsign.abs" type);                                                        \
    D4R_OP16(name ".ftz.NaN.xorsign.abs" type)
#define D4R_MINMAX_BF16(name, type)                                                                \
    D4R_OP16(name "" type);                                                                        \
    D4R_OP16(name ".NaN" type);                                                                    \
    D4R_OP16(name ".xorsign.abs" type);                                                            \
    D4R_OP16(name ".NaN.xorsign.abs" type)
#define D4R_MINMAX_F16X2(name, type)                                                               \
    D4R_OP32(name "" type);                                                                        \
    D4R_OP32(name ".ftz" type);                                                                    \
    D4R_OP32(name ".NaN" type);                                                                    \
    D4R_OP32(name ".ftz.NaN" type);                                                                \
    D4R_OP32(name ".xorsign.abs" type);                                                            \
    D4R_OP32(name ".ftz.xorsign.abs" type);                                                        \
    D4R_OP32(name ".NaN.xorsign.abs" type);                                                        \
    D4R_OP32(name ".ftz.NaN.xorsign.abs" type)
#define D4R_MINMAX_BF16X2(name, type)                                                              \
    D4R_OP32(name "" type);                                                                        \
    D4R_OP32(name ".NaN" type);                                                                    \
    D4R_OP32(name ".xorsign.abs" type);                                                            \
    D4R_OP32(name ".NaN.xorsign.abs" type)

// out_h: 24 results per element (f16 min, f16 max, bf16 min, bf16 max); out_p: the same 24 on
// the packed types.
extern "C" __global__ void half_minmax(const unsigned short* a, const unsigned short* b,
                                       const unsigned short* c, const unsigned short* d,
                                       unsigned short* out_h, unsigned* out_p, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    const unsigned short y = b[i];
    const unsigned xy = x | static_cast<unsigned>(c[i]) << 16;
    const unsigned zw = y | static_cast<unsigned>(d[i]) << 16;
    unsigned short* oh = out_h + i * 24;
    unsigned* op32 = out_p + i * 24;
    unsigned short h;
    unsigned r;
    int k16 = 0;
    int k32 = 0;
    D4R_MINMAX_F16("min", ".f16");
    D4R_MINMAX_F16("max", ".f16");
    D4R_MINMAX_BF16("min", ".bf16");
    D4R_MINMAX_BF16("max", ".bf16");
    D4R_MINMAX_F16X2("min", ".f16x2");
    D4R_MINMAX_F16X2("max", ".f16x2");
    D4R_MINMAX_BF16X2("min", ".bf16x2");
    D4R_MINMAX_BF16X2("max", ".bf16x2");
}

// 8 results per element: min, then max, each .xorsign.abs, .ftz, .NaN, .ftz.NaN.
extern "C" __global__ void f32_xorsign(const unsigned* a, const unsigned* b, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned xy = a[i];
    const unsigned zw = b[i];
    unsigned* op32 = out + i * 8;
    unsigned r;
    int k32 = 0;
    D4R_OP32("min.xorsign.abs.f32");
    D4R_OP32("min.ftz.xorsign.abs.f32");
    D4R_OP32("min.NaN.xorsign.abs.f32");
    D4R_OP32("min.ftz.NaN.xorsign.abs.f32");
    D4R_OP32("max.xorsign.abs.f32");
    D4R_OP32("max.ftz.xorsign.abs.f32");
    D4R_OP32("max.NaN.xorsign.abs.f32");
    D4R_OP32("max.ftz.NaN.xorsign.abs.f32");
}

#define D4R_UN16(op)                                                                               \
    asm("{\n\t.reg .b16 ha, hr;\n\tmov.b16 ha, %1;\n\t" op " hr, ha;\n\tmov.b16 %0, hr;\n\t}"      \
        : "=h"(h)                                                                                  \
        : "h"(x))
#define D4R_UN32(op)                                                                               \
    asm("{\n\t.reg .b32 ha, hr;\n\tmov.b32 ha, %1;\n\t" op " hr, ha;\n\tmov.b32 %0, hr;\n\t}"      \
        : "=r"(r)                                                                                  \
        : "r"(xy))

// out_f16: ex2, tanh of a as f16; out_bf16: the same as bf16; out_f16x2 / out_bf16x2: ex2, tanh
// of a | b << 16.
extern "C" __global__ void half_approx(const unsigned short* a, const unsigned short* b,
                                       unsigned short* out_f16, unsigned short* out_bf16,
                                       unsigned* out_f16x2, unsigned* out_bf16x2, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    const unsigned xy = x | static_cast<unsigned>(b[i]) << 16;
    unsigned short h;
    unsigned r;
    D4R_UN16("ex2.approx.f16");
    out_f16[i * 2] = h;
    D4R_UN16("tanh.approx.f16");
    out_f16[i * 2 + 1] = h;
    D4R_UN16("ex2.approx.ftz.bf16");
    out_bf16[i * 2] = h;
    D4R_UN16("tanh.approx.bf16");
    out_bf16[i * 2 + 1] = h;
    D4R_UN32("ex2.approx.f16x2");
    out_f16x2[i * 2] = r;
    D4R_UN32("tanh.approx.f16x2");
    out_f16x2[i * 2 + 1] = r;
    D4R_UN32("ex2.approx.ftz.bf16x2");
    out_bf16x2[i * 2] = r;
    D4R_UN32("tanh.approx.bf16x2");
    out_bf16x2[i * 2 + 1] = r;
}

// setp on a 16-bit scalar: one byte.
#define D4R_SETP16(form)                                                                           \
    asm("{\n\t.reg .pred p;\n\t.reg .b16 ha, hb;\n\tmov.b16 ha, %1;\n\tmov.b16 hb, %2;\n\t" form   \
        " p, ha, hb;\n\tselp.u32 %0, 1, 0, p;\n\t}"                                                \
        : "=r"(r)                                                                                  \
        : "h"(x), "h"(y));                                                                         \
    pb[kp++] = static_cast<unsigned char>(r)
// setp on a packed pair: two bytes, p (the lower halves) first.
#define D4R_SETP32(form)                                                                           \
    asm("{\n\t.reg .pred p, q;\n\t.reg .b32 ha, hb;\n\tmov.b32 ha, %2;\n\tmov.b32 hb, %3;\n\t" form \
        " p|q, ha, hb;\n\tselp.u32 %0, 1, 0, p;\n\tselp.u32 %1, 1, 0, q;\n\t}"                     \
        : "=r"(r), "=r"(s)                                                                         \
        : "r"(xy), "r"(zw));                                                                       \
    pb[kp++] = static_cast<unsigned char>(r);                                                      \
    pb[kp++] = static_cast<unsigned char>(s)
// The same with a combining predicate c (v's bit 0): `tail` is ", c" or ", !c".
#define D4R_SETP32C(form, tail)                                                                    \
    asm("{\n\t.reg .pred p, q, c;\n\t.reg .b32 ha, hb, t;\n\tmov.b32 ha, %2;\n\tmov.b32 hb, %3;\n\t" \
        "and.b32 t, %4, 1;\n\tsetp.ne.b32 c, t, 0;\n\t" form " p|q, ha, hb" tail                   \
        ";\n\tselp.u32 %0, 1, 0, p;\n\tselp.u32 %1, 1, 0, q;\n\t}"                                 \
        : "=r"(r), "=r"(s)                                                                         \
        : "r"(xy), "r"(zw), "r"(v));                                                               \
    pb[kp++] = static_cast<unsigned char>(r);                                                      \
    pb[kp++] = static_cast<unsigned char>(s)
#define D4R_SETP16C(form, tail)                                                                    \
    asm("{\n\t.reg .pred p, c;\n\t.reg .b16 ha, hb;\n\t.reg .b32 t;\n\tmov.b16 ha, %1;\n\t"        \
        "mov.b16 hb, %2;\n\tand.b32 t, %3, 1;\n\tsetp.ne.b32 c, t, 0;\n\t" form " p, ha, hb" tail  \
        ";\n\tselp.u32 %0, 1, 0, p;\n\t}"                                                          \
        : "=r"(r)                                                                                  \
        : "h"(x), "h"(y), "r"(v));                                                                 \
    pb[kp++] = static_cast<unsigned char>(r)
// setp on a packed pair with one destination (ptxas 13 takes it; the ISA writes only p|q).
#define D4R_SETP32S(form)                                                                          \
    asm("{\n\t.reg .pred p;\n\t.reg .b32 ha, hb;\n\tmov.b32 ha, %1;\n\tmov.b32 hb, %2;\n\t" form     \
        " p, ha, hb;\n\tselp.u32 %0, 1, 0, p;\n\t}"                                                \
        : "=r"(r)                                                                                  \
        : "r"(xy), "r"(zw));                                                                       \
    pb[kp++] = static_cast<unsigned char>(r)
// set with an f16 destination from f32 sources (the halves widened).
#define D4R_SET16F(form)                                                                           \
    asm("{\n\t.reg .f32 fa, fb;\n\tcvt.f32.f16 fa, %1;\n\tcvt.f32.f16 fb, %2;\n\t" form           \
        " %0, fa, fb;\n\t}"                                                                        \
        : "=h"(h16)                                                                                \
        : "h"(x), "h"(y));                                                                         \
    D4R_STORE16(h16)
// The 16 bits of a set with a 16-bit destination, stored as the low half of a word whose upper
// half is 0. Not widened inside the asm: ptxas 13 makes set.f16.f16 and set.bf16.bf16 write a
// whole 32-bit register and then drops a cvt.u32.u16 of it, so the H200 showed other bits above
// the 16 the PTX defines.
#define D4R_STORE16(h)                                                                             \
    reinterpret_cast<unsigned short*>(sw + ks)[0] = h;                                             \
    reinterpret_cast<unsigned short*>(sw + ks)[1] = 0;                                             \
    ++ks
// set with a 16-bit destination from 16-bit sources, and with a 32-bit one.
#define D4R_SET16(form)                                                                            \
    asm("{\n\t.reg .b16 ha, hb;\n\tmov.b16 ha, %1;\n\tmov.b16 hb, %2;\n\t" form                    \
        " %0, ha, hb;\n\t}"                                                                        \
        : "=h"(h16)                                                                                \
        : "h"(x), "h"(y));                                                                         \
    D4R_STORE16(h16)
#define D4R_SET16W(form)                                                                           \
    asm("{\n\t.reg .b16 ha, hb;\n\tmov.b16 ha, %1;\n\tmov.b16 hb, %2;\n\t" form                    \
        " %0, ha, hb;\n\t}"                                                                        \
        : "=r"(r)                                                                                  \
        : "h"(x), "h"(y));                                                                         \
    sw[ks++] = r
#define D4R_SET32(form)                                                                            \
    asm("{\n\t.reg .b32 ha, hb;\n\tmov.b32 ha, %1;\n\tmov.b32 hb, %2;\n\t" form                    \
        " %0, ha, hb;\n\t}"                                                                        \
        : "=r"(r)                                                                                  \
        : "r"(xy), "r"(zw));                                                                       \
    sw[ks++] = r
#define D4R_SET32C(form, tail)                                                                     \
    asm("{\n\t.reg .pred c;\n\t.reg .b32 ha, hb, t;\n\tmov.b32 ha, %1;\n\tmov.b32 hb, %2;\n\t"     \
        "and.b32 t, %3, 1;\n\tsetp.ne.b32 c, t, 0;\n\t" form " %0, ha, hb" tail ";\n\t}"           \
        : "=r"(r)                                                                                  \
        : "r"(xy), "r"(zw), "r"(v));                                                               \
    sw[ks++] = r

// Per compare operator: 10 predicate bytes, 13 set words.
#define D4R_COMPARE(OP)                                                                            \
    D4R_SETP16("setp." OP ".f16");                                                                 \
    D4R_SETP16("setp." OP ".ftz.f16");                                                             \
    D4R_SETP16("setp." OP ".bf16");                                                                \
    D4R_SETP32("setp." OP ".f16x2");                                                               \
    D4R_SETP32("setp." OP ".ftz.f16x2");                                                           \
    D4R_SETP32("setp." OP ".bf16x2");                                                              \
    D4R_SETP32S("setp." OP ".f16x2");                                                              \
    D4R_SET16("set." OP ".f16.f16");                                                               \
    D4R_SET16W("set." OP ".ftz.u32.f16");                                                          \
    D4R_SET16("set." OP ".bf16.bf16");                                                             \
    D4R_SET16W("set." OP ".s32.bf16");                                                             \
    D4R_SET32("set." OP ".f16x2.f16x2");                                                           \
    D4R_SET32("set." OP ".ftz.f16x2.f16x2");                                                       \
    D4R_SET32("set." OP ".u32.f16x2");                                                             \
    D4R_SET32("set." OP ".ftz.s32.f16x2");                                                         \
    D4R_SET32("set." OP ".bf16x2.bf16x2");                                                         \
    D4R_SET32("set." OP ".u32.bf16x2");                                                            \
    D4R_SET16("set." OP ".u16.f16");                                                               \
    D4R_SET16("set." OP ".bf16.f16");                                                              \
    D4R_SET16F("set." OP ".f16.f32")

// out_pred: 14 * 10 + 12 bytes per element; out_set: 14 * 13 + 6 words. v's bit 0 is the
// combining predicate.
extern "C" __global__ void half_compare(const unsigned short* a, const unsigned short* b,
                                        const unsigned short* c, const unsigned short* d,
                                        const unsigned* e, unsigned char* out_pred,
                                        unsigned* out_set, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    const unsigned short y = b[i];
    const unsigned xy = x | static_cast<unsigned>(c[i]) << 16;
    const unsigned zw = y | static_cast<unsigned>(d[i]) << 16;
    const unsigned v = e[i];
    unsigned char* pb = out_pred + i * 152;
    unsigned* sw = out_set + i * 188;
    unsigned r;
    unsigned s;
    unsigned short h16;
    int kp = 0;
    int ks = 0;
    D4R_COMPARE("eq");
    D4R_COMPARE("ne");
    D4R_COMPARE("lt");
    D4R_COMPARE("le");
    D4R_COMPARE("gt");
    D4R_COMPARE("ge");
    D4R_COMPARE("equ");
    D4R_COMPARE("neu");
    D4R_COMPARE("ltu");
    D4R_COMPARE("leu");
    D4R_COMPARE("gtu");
    D4R_COMPARE("geu");
    D4R_COMPARE("num");
    D4R_COMPARE("nan");
    D4R_SETP32C("setp.lt.and.f16x2", ", c");
    D4R_SETP32C("setp.ge.or.f16x2", ", !c");
    D4R_SETP32C("setp.neu.xor.ftz.f16x2", ", c");
    D4R_SETP32C("setp.gt.and.bf16x2", ", !c");
    D4R_SETP32C("setp.equ.xor.bf16x2", ", c");
    D4R_SETP16C("setp.le.or.f16", ", !c");
    D4R_SETP16C("setp.nan.xor.bf16", ", c");
    D4R_SET32C("set.lt.and.f16x2.f16x2", ", c");
    D4R_SET32C("set.ge.or.ftz.u32.f16x2", ", !c");
    D4R_SET32C("set.ltu.xor.bf16x2.bf16x2", ", c");
    D4R_SET32C("set.ne.and.s32.bf16x2", ", !c");
    D4R_SET32C("set.gt.xor.ftz.f16x2.f16x2", ", !c");
    D4R_SET32C("set.num.or.u32.f16x2", ", c");
}

#define D4R_FMA16(op)                                                                              \
    asm("{\n\t.reg .b16 ha, hb, hc, hr;\n\tmov.b16 ha, %1;\n\tmov.b16 hb, %2;\n\tmov.b16 hc, %3;\n\t" \
        op " hr, ha, hb, hc;\n\tmov.b16 %0, hr;\n\t}"                                              \
        : "=h"(h)                                                                                  \
        : "h"(x), "h"(y), "h"(z));                                                                 \
    oh[k16++] = h
#define D4R_FMA32(op)                                                                              \
    asm("{\n\t.reg .b32 ha, hb, hc, hr;\n\tmov.b32 ha, %1;\n\tmov.b32 hb, %2;\n\tmov.b32 hc, %3;\n\t" \
        op " hr, ha, hb, hc;\n\tmov.b32 %0, hr;\n\t}"                                              \
        : "=r"(r)                                                                                  \
        : "r"(xy), "r"(yz), "r"(zx));                                                              \
    op32[k32++] = r

// out_h: fma.rn.oob{.relu} on f16, then bf16, then fma.rn.oob.sat.f16, of a, b, c; out_p: the packed forms of
// (a | b << 16, b | c << 16, c | a << 16).
extern "C" __global__ void half_fma_oob(const unsigned short* a, const unsigned short* b,
                                        const unsigned short* c, unsigned short* out_h,
                                        unsigned* out_p, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    const unsigned short y = b[i];
    const unsigned short z = c[i];
    const unsigned xy = x | static_cast<unsigned>(y) << 16;
    const unsigned yz = y | static_cast<unsigned>(z) << 16;
    const unsigned zx = z | static_cast<unsigned>(x) << 16;
    unsigned short* oh = out_h + i * 5;
    unsigned* op32 = out_p + i * 5;
    unsigned short h;
    unsigned r;
    int k16 = 0;
    int k32 = 0;
    D4R_FMA16("fma.rn.oob.f16");
    D4R_FMA16("fma.rn.oob.relu.f16");
    D4R_FMA16("fma.rn.oob.bf16");
    D4R_FMA16("fma.rn.oob.relu.bf16");
    D4R_FMA16("fma.rn.oob.sat.f16");
    D4R_FMA32("fma.rn.oob.f16x2");
    D4R_FMA32("fma.rn.oob.relu.f16x2");
    D4R_FMA32("fma.rn.oob.bf16x2");
    D4R_FMA32("fma.rn.oob.relu.bf16x2");
    D4R_FMA32("fma.rn.oob.sat.f16x2");
}

#define D4R_CVT(out, form, dc, sc, src)                                                            \
    asm(form " %0, %1;" : "=" dc(out) : sc(src))

// out16: 18 half results per element, out64: 1, out32: 6 (each commented below).
extern "C" __global__ void half_cvt(const int* ints, const unsigned short* hf,
                                    const unsigned short* hb, const double* dd, const float* ff,
                                    unsigned short* out16, unsigned long long* out64,
                                    unsigned* out32, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int s = ints[i];
    const unsigned u = static_cast<unsigned>(s);
    const unsigned short u16 = static_cast<unsigned short>(s);
    const long long s64 = static_cast<long long>(s) * 3;
    const unsigned short f = hf[i];
    const unsigned short g = hb[i];
    const double x = dd[i];
    const float y = ff[i];
    unsigned short* o = out16 + i * 18;
    unsigned* w = out32 + i * 6;
    unsigned short h;
    unsigned r;
    // .sat from integers (0..3; ptxas 13 takes no .sat with a bf16 destination).
    D4R_CVT(h, "cvt.rn.sat.f16.s32", "h", "r", s);
    o[0] = h;
    D4R_CVT(h, "cvt.rz.sat.f16.u32", "h", "r", u);
    o[1] = h;
    D4R_CVT(h, "cvt.rm.sat.f16.s64", "h", "l", s64);
    o[2] = h;
    D4R_CVT(h, "cvt.rp.sat.f16.u16", "h", "h", u16);
    o[3] = h;
    // f16 -> bf16 (4..7), bf16 -> f16 (8..11) in the four modes.
    D4R_CVT(h, "cvt.rn.bf16.f16", "h", "h", f);
    o[4] = h;
    D4R_CVT(h, "cvt.rz.bf16.f16", "h", "h", f);
    o[5] = h;
    D4R_CVT(h, "cvt.rm.bf16.f16", "h", "h", f);
    o[6] = h;
    D4R_CVT(h, "cvt.rp.bf16.f16", "h", "h", f);
    o[7] = h;
    D4R_CVT(h, "cvt.rn.f16.bf16", "h", "h", g);
    o[8] = h;
    D4R_CVT(h, "cvt.rz.f16.bf16", "h", "h", g);
    o[9] = h;
    D4R_CVT(h, "cvt.rm.f16.bf16", "h", "h", g);
    o[10] = h;
    D4R_CVT(h, "cvt.rp.f16.bf16", "h", "h", g);
    o[11] = h;
    // f64 -> bf16 (12..15).
    D4R_CVT(h, "cvt.rn.bf16.f64", "h", "d", x);
    o[12] = h;
    D4R_CVT(h, "cvt.rz.bf16.f64", "h", "d", x);
    o[13] = h;
    D4R_CVT(h, "cvt.rm.bf16.f64", "h", "d", x);
    o[14] = h;
    D4R_CVT(h, "cvt.rp.bf16.f64", "h", "d", x);
    o[15] = h;
    // f16 <-> bf16 without a rounding modifier (16, 17: ptxas 13 takes them).
    D4R_CVT(h, "cvt.f16.bf16", "h", "h", g);
    o[16] = h;
    D4R_CVT(h, "cvt.bf16.f16", "h", "h", f);
    o[17] = h;
    // bf16 -> f64.
    double wide;
    D4R_CVT(wide, "cvt.f64.bf16", "d", "h", g);
    out64[i] = __double_as_longlong(wide);
    // f32 -> tf32.
    D4R_CVT(r, "cvt.rna.tf32.f32", "r", "f", y);
    w[0] = r;
    D4R_CVT(r, "cvt.rna.satfinite.tf32.f32", "r", "f", y);
    w[1] = r;
    D4R_CVT(r, "cvt.rn.tf32.f32", "r", "f", y);
    w[2] = r;
    D4R_CVT(r, "cvt.rz.tf32.f32", "r", "f", y);
    w[3] = r;
    D4R_CVT(r, "cvt.rn.relu.tf32.f32", "r", "f", y);
    w[4] = r;
    D4R_CVT(r, "cvt.rz.relu.tf32.f32", "r", "f", y);
    w[5] = r;
}

// cvt.rXi.sat.f16.f16 (and cvt.rXi.bf16.bf16 without .sat): 8 results per element.
extern "C" __global__ void half_rint_sat(const unsigned short* hf, const unsigned short* hb,
                                         unsigned short* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short f = hf[i];
    const unsigned short g = hb[i];
    unsigned short* o = out + i * 8;
    unsigned short h;
    D4R_CVT(h, "cvt.rni.sat.f16.f16", "h", "h", f);
    o[0] = h;
    D4R_CVT(h, "cvt.rzi.sat.f16.f16", "h", "h", f);
    o[1] = h;
    D4R_CVT(h, "cvt.rmi.sat.f16.f16", "h", "h", f);
    o[2] = h;
    D4R_CVT(h, "cvt.rpi.sat.f16.f16", "h", "h", f);
    o[3] = h;
    D4R_CVT(h, "cvt.rni.bf16.bf16", "h", "h", g);
    o[4] = h;
    D4R_CVT(h, "cvt.rzi.bf16.bf16", "h", "h", g);
    o[5] = h;
    D4R_CVT(h, "cvt.rmi.bf16.bf16", "h", "h", g);
    o[6] = h;
    D4R_CVT(h, "cvt.rpi.bf16.bf16", "h", "h", g);
    o[7] = h;
}
