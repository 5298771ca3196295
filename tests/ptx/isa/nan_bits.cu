// d4r-isa-ptx: nan_bits.sm_90.ptx -arch=sm_90 -O3
// What NVIDIA does to a NaN's bits where an instruction moves or selects bits rather than computing
// (issue 11): abs, neg (with and without .ftz), min/max (plain, .ftz, .NaN), copysign, selp, mov,
// ld/st, each written as inline PTX on raw bits. abs and neg are also written in several contexts
// (stored as a float, moved to an integer register, fed to an integer xor, through shfl, twice in
// a row, fed to selp and cvt.f64) because ptxas chooses the machine instruction by context: see
// out_context below.
// - nan_bits_f32 / nan_bits_f64: a, b, c are raw bits; c's low bit is selp's predicate.
// - nan_bits_half: abs/neg on f16, bf16 (scalars on their 16 bits) and f16x2, bf16x2.
#include "isa_common.cuh"

#define D4R_F32(op)                                                                                \
    asm("{\n\t.reg .f32 fa, fb, fr;\n\tmov.b32 fa, %1;\n\tmov.b32 fb, %2;\n\t" op                  \
        "\n\tmov.b32 %0, fr;\n\t}"                                                                 \
        : "=r"(r)                                                                                  \
        : "r"(x), "r"(y))

extern "C" __global__ void nan_bits_f32(const unsigned* a, const unsigned* b, const unsigned* c,
                                        unsigned* out, float* out_f, unsigned* out_context, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 21;
    unsigned r;
    D4R_F32("abs.f32 fr, fa;");
    o[0] = r;
    D4R_F32("abs.ftz.f32 fr, fa;");
    o[1] = r;
    D4R_F32("neg.f32 fr, fa;");
    o[2] = r;
    D4R_F32("neg.ftz.f32 fr, fa;");
    o[3] = r;
    D4R_F32("min.f32 fr, fa, fb;");
    o[4] = r;
    D4R_F32("max.f32 fr, fa, fb;");
    o[5] = r;
    D4R_F32("min.ftz.f32 fr, fa, fb;");
    o[6] = r;
    D4R_F32("max.ftz.f32 fr, fa, fb;");
    o[7] = r;
    D4R_F32("min.NaN.f32 fr, fa, fb;");
    o[8] = r;
    D4R_F32("max.NaN.f32 fr, fa, fb;");
    o[9] = r;
    D4R_F32("min.ftz.NaN.f32 fr, fa, fb;");
    o[10] = r;
    D4R_F32("max.ftz.NaN.f32 fr, fa, fb;");
    o[11] = r;
    D4R_F32("copysign.f32 fr, fa, fb;");
    o[12] = r;
    D4R_F32("mov.f32 fr, fa;");
    o[13] = r;
    asm("{\n\t.reg .f32 fa, fb, fr;\n\t.reg .pred p;\n\tmov.b32 fa, %1;\n\tmov.b32 fb, %2;\n\t"
        "setp.ne.b32 p, %3, 0;\n\tselp.f32 fr, fa, fb, p;\n\tmov.b32 %0, fr;\n\t}"
        : "=r"(r) : "r"(x), "r"(y), "r"(z & 1));
    o[14] = r;
    // neg fed to an integer xor.
    asm("{\n\t.reg .f32 fa, fs;\n\t.reg .b32 t;\n\tmov.b32 fa, %1;\n\t"
        "neg.f32 fs, fa;\n\tmov.b32 t, fs;\n\txor.b32 %0, t, %2;\n\t}"
        : "=r"(r) : "r"(x), "r"(z));
    o[15] = r ^ z;
    // abs through shfl (the own lane) and through cvt.f64.f32 (the high word).
    asm("{\n\t.reg .f32 fa, fs;\n\t.reg .b32 t;\n\tmov.b32 fa, %1;\n\t"
        "abs.f32 fs, fa;\n\tmov.b32 t, fs;\n\tshfl.sync.idx.b32 %0, t, %2, 31, -1;\n\t}"
        : "=r"(r) : "r"(x), "r"(lane_id()));
    o[16] = r;
    // abs of abs, neg of abs, copysign then abs, neg then copysign.
    D4R_F32("abs.f32 fr, fa;\n\tabs.f32 fr, fr;");
    o[17] = r;
    D4R_F32("abs.f32 fr, fa;\n\tneg.f32 fr, fr;");
    o[18] = r;
    D4R_F32("copysign.f32 fr, fb, fa;\n\tabs.f32 fr, fr;");
    o[19] = r;
    D4R_F32("neg.f32 fr, fa;\n\tcopysign.f32 fr, fr, fb;");
    o[20] = r;
    // Where ptxas folds abs/neg into the next instruction (an FSEL operand modifier, a removed
    // neg of a neg, an F2F source modifier), the NaN's bits are the consumer's business: the H200
    // keeps them (abs into selp: 0xffa00005 -> 0x7fa00005; neg(neg(0xffc00000)) = 0xffc00000;
    // cvt.f64.f32(neg(0x7fc00000)) = 0x7ff8000000000000, not negated), where the same abs or neg
    // alone gives 0x7fffffff. Recorded, not compared: a translator sees PTX, not ptxas's choice.
    unsigned* oc = out_context + i * 3;
    asm("{\n\t.reg .f32 fa, fb, fr, fs;\n\t.reg .pred p;\n\tmov.b32 fa, %1;\n\tmov.b32 fb, %2;\n\t"
        "setp.ne.b32 p, %3, 0;\n\tabs.f32 fs, fa;\n\tselp.f32 fr, fs, fb, p;\n\tmov.b32 %0, fr;\n\t}"
        : "=r"(r) : "r"(x), "r"(y), "r"(z & 1));
    oc[0] = r;
    D4R_F32("neg.f32 fr, fa;\n\tneg.f32 fr, fr;");
    oc[1] = r;
    asm("{\n\t.reg .f32 fa, fs;\n\t.reg .f64 d;\n\t.reg .b32 lo;\n\tmov.b32 fa, %1;\n\t"
        "neg.f32 fs, fa;\n\tcvt.f64.f32 d, fs;\n\tmov.b64 {lo, %0}, d;\n\t}"
        : "=r"(r) : "r"(x));
    oc[2] = r;
    // Float stores: abs/neg/mov/selp results as ld.global.f32 / st.global.f32 see them.
    float* of = out_f + i * 6;
    const float fx = __uint_as_float(x);
    const float fy = __uint_as_float(y);
    float f;
    asm("abs.f32 %0, %1;" : "=f"(f) : "f"(fx));
    of[0] = f;
    asm("neg.f32 %0, %1;" : "=f"(f) : "f"(fx));
    of[1] = f;
    asm("abs.ftz.f32 %0, %1;" : "=f"(f) : "f"(fx));
    of[2] = f;
    asm("neg.ftz.f32 %0, %1;" : "=f"(f) : "f"(fx));
    of[3] = f;
    asm("mov.f32 %0, %1;" : "=f"(f) : "f"(fx));
    of[4] = f;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %3, 0;\n\tselp.f32 %0, %1, %2, p;\n\t}"
        : "=f"(f) : "f"(fx), "f"(fy), "r"(z & 1));
    of[5] = f;
}

#define D4R_F64(op)                                                                                \
    asm("{\n\t.reg .f64 fa, fb, fr;\n\tmov.b64 fa, %1;\n\tmov.b64 fb, %2;\n\t" op                  \
        "\n\tmov.b64 %0, fr;\n\t}"                                                                 \
        : "=l"(r)                                                                                  \
        : "l"(x), "l"(y))

extern "C" __global__ void nan_bits_f64(const unsigned long long* a, const unsigned long long* b,
                                        const unsigned* c, unsigned long long* out, double* out_d,
                                        int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned long long x = a[i];
    const unsigned long long y = b[i];
    const unsigned z = c[i];
    unsigned long long* o = out + i * 10;
    unsigned long long r;
    D4R_F64("abs.f64 fr, fa;");
    o[0] = r;
    D4R_F64("neg.f64 fr, fa;");
    o[1] = r;
    D4R_F64("min.f64 fr, fa, fb;");
    o[2] = r;
    D4R_F64("max.f64 fr, fa, fb;");
    o[3] = r;
    D4R_F64("copysign.f64 fr, fa, fb;");
    o[4] = r;
    D4R_F64("mov.f64 fr, fa;");
    o[5] = r;
    asm("{\n\t.reg .f64 fa, fb, fr;\n\t.reg .pred p;\n\tmov.b64 fa, %1;\n\tmov.b64 fb, %2;\n\t"
        "setp.ne.b32 p, %3, 0;\n\tselp.f64 fr, fa, fb, p;\n\tmov.b64 %0, fr;\n\t}"
        : "=l"(r) : "l"(x), "l"(y), "r"(z & 1));
    o[6] = r;
    D4R_F64("abs.f64 fr, fa;\n\tneg.f64 fr, fr;");
    o[7] = r;
    D4R_F64("neg.f64 fr, fa;\n\tcopysign.f64 fr, fr, fb;");
    o[8] = r;
    D4R_F64("abs.f64 fr, fa;\n\tmin.f64 fr, fr, fb;");
    o[9] = r;
    double* od = out_d + i * 4;
    const double dx = __longlong_as_double(static_cast<long long>(x));
    const double dy = __longlong_as_double(static_cast<long long>(y));
    double d;
    asm("abs.f64 %0, %1;" : "=d"(d) : "d"(dx));
    od[0] = d;
    asm("neg.f64 %0, %1;" : "=d"(d) : "d"(dx));
    od[1] = d;
    asm("mov.f64 %0, %1;" : "=d"(d) : "d"(dx));
    od[2] = d;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %3, 0;\n\tselp.f64 %0, %1, %2, p;\n\t}"
        : "=d"(d) : "d"(dx), "d"(dy), "r"(z & 1));
    od[3] = d;
}

#define D4R_H16(op)                                                                                \
    asm("{\n\t.reg .b16 ha, hr;\n\tmov.b16 ha, %1;\n\t" op "\n\tmov.b16 %0, hr;\n\t}"              \
        : "=h"(h)                                                                                  \
        : "h"(x))
#define D4R_H32(op)                                                                                \
    asm("{\n\t.reg .b32 ha, hr;\n\tmov.b32 ha, %1;\n\t" op "\n\tmov.b32 %0, hr;\n\t}"              \
        : "=r"(r)                                                                                  \
        : "r"(xy))

extern "C" __global__ void nan_bits_half(const unsigned short* a, const unsigned short* b,
                                         unsigned short* out_h, unsigned* out_p, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    const unsigned xy = x | static_cast<unsigned>(b[i]) << 16;
    unsigned short* oh = out_h + i * 6;
    unsigned* op = out_p + i * 6;
    unsigned short h;
    unsigned r;
    D4R_H16("abs.f16 hr, ha;");
    oh[0] = h;
    D4R_H16("neg.f16 hr, ha;");
    oh[1] = h;
    D4R_H16("abs.ftz.f16 hr, ha;");
    oh[2] = h;
    D4R_H16("neg.ftz.f16 hr, ha;");
    oh[3] = h;
    D4R_H16("abs.bf16 hr, ha;");
    oh[4] = h;
    D4R_H16("neg.bf16 hr, ha;");
    oh[5] = h;
    D4R_H32("abs.f16x2 hr, ha;");
    op[0] = r;
    D4R_H32("neg.f16x2 hr, ha;");
    op[1] = r;
    D4R_H32("abs.ftz.f16x2 hr, ha;");
    op[2] = r;
    D4R_H32("neg.ftz.f16x2 hr, ha;");
    op[3] = r;
    D4R_H32("abs.bf16x2 hr, ha;");
    op[4] = r;
    D4R_H32("neg.bf16x2 hr, ha;");
    op[5] = r;
}
