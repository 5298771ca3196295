// d4r-isa-ptx: pred_negation.sm_90.ptx -arch=sm_90 -O3
// A negated predicate source operand (!p) in every place the PTX ISA (and ptxas 13) accepts one
// (issue 11): setp's and nothing else's combining operand (.and/.or/.xor, one destination and
// the p|q pair), set's, selp's selector, and/or/xor/not/mov on .pred, vote.sync (any, all, uni,
// ballot), bar.red (popc, and, or), and the guard @!p. Each form is written twice: with
// predicates named like inline-asm locals (`p`, no '%', as nvcc's users write them) and with
// %-names, because the two are different operand kinds to a parser.
// - pred_negation: a[i] supplies the values; the votes see a predicate that is false in the
//   first warp of each block, true in the second, random in the third (and bar.red the same by
//   block), so any/all/uni each come out both ways.
#include "isa_common.cuh"

// One result bit from a form on predicates p (v's bit 0) and q (bit 1) and the compare of x < y.
#define D4R_PRED(names, decl, body)                                                                \
    asm("{\n\t.reg .pred " decl ";\n\t.reg .b32 t;\n\t"                                            \
        "and.b32 t, %1, 1;\n\tsetp.ne.b32 " names "0, t, 0;\n\t"                                   \
        "and.b32 t, %1, 2;\n\tsetp.ne.b32 " names "1, t, 0;\n\t" body "\n\t}"                      \
        : "=r"(r)                                                                                  \
        : "r"(v), "r"(x), "r"(y), "f"(fx), "f"(fy))

__device__ __forceinline__ unsigned pred_forms_named(unsigned v, unsigned x, unsigned y, float fx,
                                                     float fy)
{
    unsigned r;
    unsigned bits = 0;
    int k = 0;
#define D4R_N(body)                                                                                \
    D4R_PRED("p", "p0, p1, d, e", body);                                                           \
    bits |= (r & 1) << k++
    D4R_N("setp.lt.and.u32 d, %2, %3, !p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("setp.lt.or.u32 d, %2, %3, !p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("setp.lt.xor.u32 d, %2, %3, !p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("setp.lt.and.u32 d|e, %2, %3, !p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("setp.lt.and.u32 d|e, %2, %3, !p1;\n\tselp.u32 %0, 1, 0, e;");
    D4R_N("setp.lt.or.u32 d|e, %2, %3, !p1;\n\tselp.u32 %0, 1, 0, e;");
    D4R_N("setp.lt.and.f32 d, %4, %5, !p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("setp.gtu.xor.f32 d|e, %4, %5, !p0;\n\tselp.u32 %0, 1, 0, e;");
    D4R_N("set.lt.and.u32.u32 %0, %2, %3, !p1;\n\tand.b32 %0, %0, 1;");
    D4R_N("set.lt.or.f32.u32 %0, %2, %3, !p1;\n\tsetp.ne.b32 d, %0, 0;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("selp.u32 %0, 1, 0, !p0;");
    D4R_N("and.pred d, !p0, p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("or.pred d, p0, !p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("xor.pred d, !p0, p1;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("not.pred d, !p0;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("mov.pred d, !p0;\n\tselp.u32 %0, 1, 0, d;");
    D4R_N("mov.u32 %0, 0;\n\t@!p0 mov.u32 %0, 1;");
    D4R_N("and.pred d, !p0, !p1;\n\tselp.u32 %0, 1, 0, !d;");
#undef D4R_N
    return bits;
}

__device__ __forceinline__ unsigned pred_forms_percent(unsigned v, unsigned x, unsigned y, float fx,
                                                       float fy)
{
    unsigned r;
    unsigned bits = 0;
    int k = 0;
#define D4R_P(body)                                                                                \
    D4R_PRED("%%np", "%%np0, %%np1, %%nd, %%ne", body);                                            \
    bits |= (r & 1) << k++
    D4R_P("setp.lt.and.u32 %%nd, %2, %3, !%%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("setp.lt.or.u32 %%nd, %2, %3, !%%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("setp.lt.xor.u32 %%nd, %2, %3, !%%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("setp.lt.and.u32 %%nd|%%ne, %2, %3, !%%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("setp.lt.and.u32 %%nd|%%ne, %2, %3, !%%np1;\n\tselp.u32 %0, 1, 0, %%ne;");
    D4R_P("setp.lt.or.u32 %%nd|%%ne, %2, %3, !%%np1;\n\tselp.u32 %0, 1, 0, %%ne;");
    D4R_P("setp.lt.and.f32 %%nd, %4, %5, !%%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("setp.gtu.xor.f32 %%nd|%%ne, %4, %5, !%%np0;\n\tselp.u32 %0, 1, 0, %%ne;");
    D4R_P("set.lt.and.u32.u32 %0, %2, %3, !%%np1;\n\tand.b32 %0, %0, 1;");
    D4R_P("set.lt.or.f32.u32 %0, %2, %3, !%%np1;\n\tsetp.ne.b32 %%nd, %0, 0;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("selp.u32 %0, 1, 0, !%%np0;");
    D4R_P("and.pred %%nd, !%%np0, %%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("or.pred %%nd, %%np0, !%%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("xor.pred %%nd, !%%np0, %%np1;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("not.pred %%nd, !%%np0;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("mov.pred %%nd, !%%np0;\n\tselp.u32 %0, 1, 0, %%nd;");
    D4R_P("mov.u32 %0, 0;\n\t@!%%np0 mov.u32 %0, 1;");
    D4R_P("and.pred %%nd, !%%np0, !%%np1;\n\tselp.u32 %0, 1, 0, !%%nd;");
#undef D4R_P
    return bits;
}

extern "C" __global__ void pred_negation(const unsigned* a, unsigned* out)
{
    const unsigned i = D4R_GID;
    const unsigned v = a[i];
    const unsigned x = v >> 8 & 0xf;
    const unsigned y = v >> 12 & 0xf;
    // NaN now and then: bits 16-19 all set make x a NaN.
    const float fx = (v >> 16 & 0xf) == 0xf ? __uint_as_float(0x7fc00000u) : static_cast<float>(x);
    const float fy = static_cast<float>(y);
    unsigned* o = out + i * 8;
    o[0] = pred_forms_named(v, x, y, fx, fy);
    o[1] = pred_forms_percent(v, x, y, fx, fy);
    const unsigned warp = threadIdx.x / 32 % 3;
    const unsigned pw = warp == 0 ? 0u : (warp == 1 ? 1u : (v >> 20 & 1));
    const unsigned block = blockIdx.x % 3;
    const unsigned pb = block == 0 ? 0u : (block == 1 ? 1u : (v >> 21 & 1));
    unsigned r;
    unsigned votes = 0;
#define D4R_VOTE(k, body)                                                                          \
    asm("{\n\t.reg .pred p, d;\n\tsetp.ne.b32 p, %1, 0;\n\t" body "\n\tselp.u32 %0, 1, 0, d;\n\t}"   \
        : "=r"(r) : "r"(pw));                                                                      \
    votes |= r << (k)
    D4R_VOTE(0, "vote.sync.any.pred d, !p, -1;");
    D4R_VOTE(1, "vote.sync.all.pred d, !p, -1;");
    D4R_VOTE(2, "vote.sync.uni.pred d, !p, -1;");
    asm("{\n\t.reg .pred %%vp, %%vd;\n\tsetp.ne.b32 %%vp, %1, 0;\n\t"
        "vote.sync.all.pred %%vd, !%%vp, -1;\n\tselp.u32 %0, 1, 0, %%vd;\n\t}"
        : "=r"(r) : "r"(pw));
    votes |= r << 3;
#undef D4R_VOTE
    o[2] = votes;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, !p, -1;\n\t}"
        : "=r"(r) : "r"(pw));
    o[3] = r;
    asm("{\n\t.reg .pred %%bp;\n\tsetp.ne.b32 %%bp, %1, 0;\n\tvote.sync.ballot.b32 %0, !%%bp, -1;\n\t}"
        : "=r"(r) : "r"(v & 1));
    o[4] = r;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\tbar.red.popc.u32 %0, 0, !p;\n\t}"
                 : "=r"(r) : "r"(pb));
    o[5] = r;
    unsigned reds = 0;
    asm volatile("{\n\t.reg .pred p, d;\n\tsetp.ne.b32 p, %1, 0;\n\tbar.red.and.pred d, 0, !p;\n\t"
                 "selp.u32 %0, 1, 0, d;\n\t}"
                 : "=r"(r) : "r"(pb));
    reds |= r;
    asm volatile("{\n\t.reg .pred p, d;\n\tsetp.ne.b32 p, %1, 0;\n\tbar.red.or.pred d, 0, !p;\n\t"
                 "selp.u32 %0, 1, 0, d;\n\t}"
                 : "=r"(r) : "r"(pb));
    reds |= r << 1;
    asm volatile("{\n\t.reg .pred %%rp, %%rq;\n\tsetp.ne.b32 %%rp, %1, 0;\n\t"
                 "bar.red.or.pred %%rq, 0, !%%rp;\n\tselp.u32 %0, 1, 0, %%rq;\n\t}"
                 : "=r"(r) : "r"(v >> 22 & 1));
    reds |= r << 2;
    o[6] = reds;
    asm volatile("{\n\t.reg .pred %%rp;\n\tsetp.ne.b32 %%rp, %1, 0;\n\tbar.red.popc.u32 %0, 0, !%%rp;\n\t}"
                 : "=r"(r) : "r"(v >> 23 & 1));
    o[7] = r;
}
