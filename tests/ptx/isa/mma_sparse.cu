// d4r-isa-ptx: mma_sparse.sm_90.ptx -arch=sm_90 -O3
// d4r-isa-ptx: mma_sparse.sm_80.ptx -arch=sm_80 -O3
// mma.sp (sparse A, 2:4 / 1:2 / pair-wise 4:8 structured) in every shape and type of PTX 8.x
// (lower_mma.cpp lower_sparse): each lane takes its A, B and C registers from the input buffers
// as raw words, and its metadata register from a random word made valid (each nibble one of the
// index pairs the ISA allows: the 6 ascending ones for ::ordered_metadata, all 12 for the plain
// form; tf32 nibbles 0b0100 or 0b1110), then writes its D registers. Every lane's metadata is
// random, so the outputs show which lanes the sparsity selector reads and which bits of them
// describe which chunk of which row.
// - mma_sp_float: .f16 / .bf16 m16n8k16 (selectors 0..3) and m16n8k32 (0, 1), f32 and f16 C/D;
//   .tf32 m16n8k8 (0..3) and m16n8k16 (0, 1).
// - mma_sp_int: .s8 / .u8 m16n8k32 (0, 1) and m16n8k64 (0), mixed signedness, .satfinite;
//   .s4 / .u4 m16n8k64 (0, 1) and m16n8k128 (0).
// - mma_sp_fp8 (sm_89+): .e4m3 / .e5m2 m16n8k64 (0).
#include "isa_common.cuh"

#include <cuda_fp16.h>

namespace {

// A valid metadata word from a random one: nibble n becomes k_pairs[n mod 6] (ascending index
// pairs, the only ones ::ordered_metadata allows) or k_pairs[n mod 12] (either order).
__device__ __forceinline__ unsigned valid_metadata(unsigned w, bool ordered)
{
    // (0,1) (0,2) (1,2) (0,3) (1,3) (2,3), then the same pairs descending; index i in bits 2i+1:2i.
    constexpr unsigned k_pairs[12] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe, 0x1, 0x2, 0x6, 0x3, 0x7, 0xb};
    unsigned m = 0;
    for (int i = 0; i < 8; ++i) {
        const unsigned n = (w >> (4 * i)) & 15u;
        m |= k_pairs[ordered ? n % 6 : n % 12] << (4 * i);
    }
    return m;
}

// tf32 (1:2): every nibble 0b0100 (the first element of its pair) or 0b1110 (the second).
__device__ __forceinline__ unsigned tf32_metadata(unsigned w)
{
    unsigned m = 0;
    for (int i = 0; i < 8; ++i) {
        m |= (((w >> i) & 1u) != 0 ? 0xeu : 0x4u) << (4 * i);
    }
    return m;
}

} // namespace

#define D4R_SP(op) "mma.sp.sync.aligned." op
#define D4R_SPO(op) "mma.sp::ordered_metadata.sync.aligned." op

// Two A, two B registers, f32 C/D (m16n8k16 .f16/.bf16, m16n8k8 .tf32).
#define D4R_SP_2x2(name, sel, a, b, m)                                                             \
    asm volatile(name " {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, " #sel ";" \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),    \
                   "r"(c[3]), "r"(m));                                                             \
    d += 128
// Four A, four B registers, f32 or s32 C/D (m16n8k32 .f16/.bf16, m16n8k16 .tf32, the k64/k128
// integer and FP8 forms).
#define D4R_SP_4x4(name, sel, a, b, m)                                                             \
    asm volatile(name " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "                \
                      "{%12, %13, %14, %15}, %16, " #sel ";"                                       \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),    \
                   "r"(b[3]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(m));                 \
    d += 128
// f16 C/D (two registers each).
#define D4R_SP_2x2_H(name, sel, a, b, m)                                                           \
    asm volatile(name " {%0, %1}, {%2, %3}, {%4, %5}, {%6, %7}, %8, " #sel ";"                    \
                 : "=r"(d[0]), "=r"(d[1])                                                          \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(ch[0]), "r"(ch[1]), "r"(m));   \
    d += 128
#define D4R_SP_4x4_H(name, sel, a, b, m)                                                           \
    asm volatile(name " {%0, %1}, {%2, %3, %4, %5}, {%6, %7, %8, %9}, {%10, %11}, %12, " #sel ";" \
                 : "=r"(d[0]), "=r"(d[1])                                                          \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),    \
                   "r"(b[3]), "r"(ch[0]), "r"(ch[1]), "r"(m));                                     \
    d += 128
// Two A, two B registers, s32 C/D (m16n8k32 .s8/.u8, m16n8k64 .s4/.u4).
#define D4R_SP_INT_2x2(name, sel, a, b, m) D4R_SP_2x2(name, sel, a, b, m)

// h, bh, t: 8 words per lane (A registers 0..3, B registers 4..7) of f16, bf16 and f32 (tf32)
// values; meta: one random word per lane; cin: 4 f32 per lane. out: 16 forms x 128 words, lane l
// at 4 l of each (an f16 D in the first two).
extern "C" __global__ void mma_sp_float(const unsigned* h, const unsigned* bh, const unsigned* t,
                                        const unsigned* meta, const float* cin, unsigned* out)
{
    const unsigned l = lane_id();
    const unsigned* ha = h + 8 * l;
    const unsigned* hb = ha + 4;
    const unsigned* ba = bh + 8 * l;
    const unsigned* bb = ba + 4;
    const unsigned* ta = t + 8 * l;
    const unsigned* tb = ta + 4;
    unsigned c[4];
    for (int i = 0; i < 4; ++i) {
        c[i] = __float_as_uint(cin[4 * l + i]);
    }
    unsigned ch[2];
    for (int i = 0; i < 2; ++i) {
        const __half2 pair = __floats2half2_rn(cin[4 * l + 2 * i], cin[4 * l + 2 * i + 1]);
        ch[i] = *reinterpret_cast<const unsigned*>(&pair);
    }
    const unsigned any = valid_metadata(meta[l], false);
    const unsigned asc = valid_metadata(meta[l], true);
    const unsigned mt = tf32_metadata(meta[l]);
    unsigned* d = out + 4 * l;
    D4R_SP_2x2(D4R_SP("m16n8k16.row.col.f32.f16.f16.f32"), 0, ha, hb, any);
    D4R_SP_2x2(D4R_SP("m16n8k16.row.col.f32.f16.f16.f32"), 1, ha, hb, any);
    D4R_SP_2x2(D4R_SP("m16n8k16.row.col.f32.f16.f16.f32"), 2, ha, hb, any);
    D4R_SP_2x2(D4R_SPO("m16n8k16.row.col.f32.f16.f16.f32"), 3, ha, hb, asc);
    D4R_SP_2x2(D4R_SPO("m16n8k16.row.col.f32.bf16.bf16.f32"), 0, ba, bb, asc);
    D4R_SP_2x2(D4R_SP("m16n8k16.row.col.f32.bf16.bf16.f32"), 3, ba, bb, any);
    D4R_SP_2x2_H(D4R_SPO("m16n8k16.row.col.f16.f16.f16.f16"), 1, ha, hb, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k32.row.col.f32.f16.f16.f32"), 0, ha, hb, asc);
    D4R_SP_4x4(D4R_SP("m16n8k32.row.col.f32.f16.f16.f32"), 1, ha, hb, any);
    D4R_SP_4x4(D4R_SPO("m16n8k32.row.col.f32.bf16.bf16.f32"), 1, ba, bb, asc);
    D4R_SP_4x4_H(D4R_SPO("m16n8k32.row.col.f16.f16.f16.f16"), 0, ha, hb, asc);
    D4R_SP_2x2(D4R_SPO("m16n8k8.row.col.f32.tf32.tf32.f32"), 0, ta, tb, mt);
    D4R_SP_2x2(D4R_SP("m16n8k8.row.col.f32.tf32.tf32.f32"), 2, ta, tb, mt);
    D4R_SP_2x2(D4R_SPO("m16n8k8.row.col.f32.tf32.tf32.f32"), 3, ta, tb, mt);
    D4R_SP_4x4(D4R_SPO("m16n8k16.row.col.f32.tf32.tf32.f32"), 0, ta, tb, mt);
    D4R_SP_4x4(D4R_SP("m16n8k16.row.col.f32.tf32.tf32.f32"), 1, ta, tb, mt);
}

// in: 8 random words per lane (A 0..3, B 4..7); meta: one random word per lane; cin: 4 s32 per
// lane. out: 12 forms x 128 words.
extern "C" __global__ void mma_sp_int(const unsigned* in, const unsigned* meta, const int* cin,
                                      unsigned* out)
{
    const unsigned l = lane_id();
    const unsigned* a = in + 8 * l;
    const unsigned* b = a + 4;
    unsigned c[4];
    for (int i = 0; i < 4; ++i) {
        c[i] = static_cast<unsigned>(cin[4 * l + i]);
    }
    const unsigned any = valid_metadata(meta[l], false);
    const unsigned asc = valid_metadata(meta[l], true);
    unsigned* d = out + 4 * l;
    D4R_SP_INT_2x2(D4R_SPO("m16n8k32.row.col.s32.s8.s8.s32"), 0, a, b, asc);
    D4R_SP_INT_2x2(D4R_SP("m16n8k32.row.col.s32.u8.s8.s32"), 1, a, b, any);
    D4R_SP_INT_2x2(D4R_SPO("m16n8k32.row.col.satfinite.s32.s8.u8.s32"), 1, a, b, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k64.row.col.s32.u8.u8.s32"), 0, a, b, asc);
    D4R_SP_4x4(D4R_SP("m16n8k64.row.col.satfinite.s32.s8.s8.s32"), 0, a, b, any);
    D4R_SP_INT_2x2(D4R_SPO("m16n8k64.row.col.s32.s4.s4.s32"), 0, a, b, asc);
    D4R_SP_INT_2x2(D4R_SP("m16n8k64.row.col.s32.u4.s4.s32"), 1, a, b, any);
    D4R_SP_INT_2x2(D4R_SPO("m16n8k64.row.col.satfinite.s32.u4.u4.s32"), 1, a, b, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k128.row.col.s32.s4.u4.s32"), 0, a, b, asc);
    D4R_SP_4x4(D4R_SP("m16n8k128.row.col.satfinite.s32.s4.s4.s32"), 0, a, b, any);
    D4R_SP_INT_2x2(D4R_SPO("m16n8k32.row.col.s32.u8.u8.s32"), 0, a, b, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k64.row.col.satfinite.s32.u8.s8.s32"), 0, a, b, asc);
}

#if __CUDA_ARCH__ >= 890
// in: 8 words per lane of FP8 bytes; meta, cin as mma_sp_float. out: 4 forms x 128 words.
extern "C" __global__ void mma_sp_fp8(const unsigned* in, const unsigned* meta, const float* cin,
                                      unsigned* out)
{
    const unsigned l = lane_id();
    const unsigned* a = in + 8 * l;
    const unsigned* b = a + 4;
    unsigned c[4];
    for (int i = 0; i < 4; ++i) {
        c[i] = __float_as_uint(cin[4 * l + i]);
    }
    const unsigned asc = valid_metadata(meta[l], true);
    unsigned* d = out + 4 * l;
    D4R_SP_4x4(D4R_SPO("m16n8k64.row.col.f32.e4m3.e4m3.f32"), 0, a, b, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k64.row.col.f32.e5m2.e4m3.f32"), 0, a, b, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k64.row.col.f32.e4m3.e5m2.f32"), 0, a, b, asc);
    D4R_SP_4x4(D4R_SPO("m16n8k64.row.col.f32.e5m2.e5m2.f32"), 0, a, b, asc);
}
#endif
