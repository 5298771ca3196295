// d4r-isa-ptx: coverage_gaps.sm_90.ptx -arch=sm_90 -O3 -lineinfo
// The forms that COVERAGE.md called supported without an H200 golden (issue 11), as inline PTX
// on values read from buffers, one kernel per family:
// - gap_approx: rsqrt, tanh, sin, cos, lg2 (.approx, with and without .ftz); the trig and lg2
//   results also biased by an exact-enough add (+2, +256) so that their absolute error bound
//   becomes an ulp bound (the cases say how).
// - gap_rsqrt_f64: rsqrt.approx.f64 and rsqrt.approx.ftz.f64.
// - gap_mad: mad.{rn,rz,rm,rp}{.ftz}{.sat}.f32 and mad.{rn,rz,rm,rp}.f64.
// - gap_half: sub/mul on f16, f16x2 (.rn .ftz .sat), bf16, bf16x2 (.rn).
// - gap_select: slct on every destination width with an s32 and an f32 (.ftz) selector.
// - gap_lop3: lop3.b32 with every one of the 256 lookup tables.
// - gap_memory: ldu (scalar, .v2, .v4, generic) at warp-uniform addresses, prefetch/prefetchu in
//   every state space and eviction form, each followed by the load it hints.
// - gap_exit: exit in some threads, the others go on (and bar.warp.sync over the lanes left).
// - gap_warp_sync: bar.warp.sync with full and partial masks ordering shared-memory exchanges.
// - gap_trap: one thread traps (the launch fails).
// - gap_module: a __managed__ table (.attribute(.managed)), .b128 registers (mov.b128 pack and
//   unpack); -lineinfo puts .file/.loc into every kernel of this file.
// - gap_store_wide: st.{u,s,b}{32,16,8} and st.f32 of a wider register, after producers of
//   several types (what ptxas stores when the register holds an f64 or f32 value).
// - gap_shift_amounts: shift amounts (and a bfe position) written by an f32 instruction.
// - gap_late_activemask: activemask after per-lane loops, and after a barrier that the lanes
//   leave at different times (random program r370).
#include "isa_common.cuh"

#define D4R_F32_1(form, out, value)                                                                \
    asm(form " %0, %1;" : "=f"(out) : "f"(value))
#define D4R_BIAS(out, value, bias)                                                                 \
    asm("add.rn.f32 %0, %1, " bias ";" : "=f"(out) : "f"(value))

extern "C" __global__ void gap_approx(const float* x, float* rsq, float* tnh, float* trig,
                                      float* trig_biased, float* lg, float* lg_biased, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const float v = x[i];
    float r;
    D4R_F32_1("rsqrt.approx.f32", r, v);
    rsq[i * 2] = r;
    D4R_F32_1("rsqrt.approx.ftz.f32", r, v);
    rsq[i * 2 + 1] = r;
    D4R_F32_1("tanh.approx.f32", r, v);
    tnh[i] = r;
    float t[4];
    D4R_F32_1("sin.approx.f32", t[0], v);
    D4R_F32_1("sin.approx.ftz.f32", t[1], v);
    D4R_F32_1("cos.approx.f32", t[2], v);
    D4R_F32_1("cos.approx.ftz.f32", t[3], v);
    for (int k = 0; k < 4; ++k) {
        trig[i * 4 + k] = t[k];
        D4R_BIAS(r, t[k], "0f40000000");
        trig_biased[i * 4 + k] = r;
    }
    float l[2];
    D4R_F32_1("lg2.approx.f32", l[0], v);
    D4R_F32_1("lg2.approx.ftz.f32", l[1], v);
    for (int k = 0; k < 2; ++k) {
        lg[i * 2 + k] = l[k];
        D4R_BIAS(r, l[k], "0f43800000");
        lg_biased[i * 2 + k] = r;
    }
}

extern "C" __global__ void gap_rsqrt_f64(const double* x, double* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    double r;
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x[i]));
    out[i * 2] = r;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x[i]));
    out[i * 2 + 1] = r;
}

#define D4R_MAD32(form)                                                                            \
    asm(form " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                               \
    o[k++] = r
#define D4R_MAD64(form)                                                                            \
    asm(form " %0, %1, %2, %3;" : "=l"(w) : "l"(da), "l"(db), "l"(dc));                            \
    o64[k64++] = w

extern "C" __global__ void gap_mad(const unsigned* fa, const unsigned* fb, const unsigned* fc,
                                   const unsigned long long* xa, const unsigned long long* xb,
                                   const unsigned long long* xc, unsigned* out,
                                   unsigned long long* out64, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned a = fa[i];
    const unsigned b = fb[i];
    const unsigned c = fc[i];
    const unsigned long long da = xa[i];
    const unsigned long long db = xb[i];
    const unsigned long long dc = xc[i];
    unsigned* o = out + i * 12;
    unsigned long long* o64 = out64 + i * 4;
    unsigned r;
    unsigned long long w;
    int k = 0;
    int k64 = 0;
    D4R_MAD32("mad.rn.f32");
    D4R_MAD32("mad.rz.f32");
    D4R_MAD32("mad.rm.f32");
    D4R_MAD32("mad.rp.f32");
    D4R_MAD32("mad.rn.ftz.f32");
    D4R_MAD32("mad.rz.ftz.f32");
    D4R_MAD32("mad.rm.ftz.f32");
    D4R_MAD32("mad.rp.ftz.f32");
    D4R_MAD32("mad.rn.sat.f32");
    D4R_MAD32("mad.rn.ftz.sat.f32");
    D4R_MAD32("mad.rz.sat.f32");
    D4R_MAD32("mad.rp.ftz.sat.f32");
    D4R_MAD64("mad.rn.f64");
    D4R_MAD64("mad.rz.f64");
    D4R_MAD64("mad.rm.f64");
    D4R_MAD64("mad.rp.f64");
}

#define D4R_HALF16(form)                                                                           \
    asm(form " %0, %1, %2;" : "=h"(s) : "h"(ha), "h"(hb));                                         \
    o[k++] = s
#define D4R_HALF32(form)                                                                           \
    asm(form " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                                           \
    o[k++] = r

// 16 f16 + 8 bf16 scalar results (low half of a and b), 8 f16x2 + 4 bf16x2 results: 36 words.
extern "C" __global__ void gap_half(const unsigned* pa, const unsigned* pb, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned a = pa[i];
    const unsigned b = pb[i];
    const unsigned short ha = static_cast<unsigned short>(a);
    const unsigned short hb = static_cast<unsigned short>(b);
    unsigned* o = out + i * 36;
    unsigned short s;
    unsigned r;
    int k = 0;
    D4R_HALF16("sub.f16");
    D4R_HALF16("sub.rn.f16");
    D4R_HALF16("sub.ftz.f16");
    D4R_HALF16("sub.sat.f16");
    D4R_HALF16("sub.rn.ftz.sat.f16");
    D4R_HALF16("mul.f16");
    D4R_HALF16("mul.rn.f16");
    D4R_HALF16("mul.ftz.f16");
    D4R_HALF16("mul.sat.f16");
    D4R_HALF16("mul.rn.ftz.sat.f16");
    D4R_HALF16("sub.ftz.sat.f16");
    D4R_HALF16("mul.ftz.sat.f16");
    D4R_HALF16("sub.rn.sat.f16");
    D4R_HALF16("mul.rn.sat.f16");
    D4R_HALF16("sub.rn.ftz.f16");
    D4R_HALF16("mul.rn.ftz.f16");
#if __CUDA_ARCH__ >= 900 // bf16 sub/mul are sm_90 (clang also builds this file for sm_80)
    D4R_HALF16("sub.bf16");
    D4R_HALF16("sub.rn.bf16");
    D4R_HALF16("mul.bf16");
    D4R_HALF16("mul.rn.bf16");
    asm("{\n\t.reg .b16 t;\n\tsub.bf16 t, %1, %2;\n\tmul.bf16 %0, t, %1;\n\t}"
        : "=h"(s) : "h"(ha), "h"(hb));
    o[k++] = s;
    asm("{\n\t.reg .b16 t;\n\tmul.rn.bf16 t, %1, %2;\n\tsub.rn.bf16 %0, t, %2;\n\t}"
        : "=h"(s) : "h"(ha), "h"(hb));
    o[k++] = s;
#else
    k += 6;
#endif
    // .rn: without it ptxas contracts this mul and sub into one fma, which the ISA allows.
    asm("{\n\t.reg .b16 t;\n\tmul.rn.f16 t, %1, %2;\n\tsub.rn.f16 %0, t, %2;\n\t}"
        : "=h"(s) : "h"(ha), "h"(hb));
    o[k++] = s;
    asm("{\n\t.reg .b16 t;\n\tsub.ftz.f16 t, %1, %2;\n\tmul.ftz.f16 %0, t, %2;\n\t}"
        : "=h"(s) : "h"(ha), "h"(hb));
    o[k++] = s;
    D4R_HALF32("sub.f16x2");
    D4R_HALF32("sub.rn.f16x2");
    D4R_HALF32("sub.ftz.f16x2");
    D4R_HALF32("sub.rn.ftz.sat.f16x2");
    D4R_HALF32("mul.f16x2");
    D4R_HALF32("mul.rn.f16x2");
    D4R_HALF32("mul.ftz.f16x2");
    D4R_HALF32("mul.rn.ftz.sat.f16x2");
#if __CUDA_ARCH__ >= 900
    D4R_HALF32("sub.bf16x2");
    D4R_HALF32("sub.rn.bf16x2");
    D4R_HALF32("mul.bf16x2");
    D4R_HALF32("mul.rn.bf16x2");
#endif
}

#define D4R_SLCT16(dtype, ctype, cons, cval)                                                       \
    asm("slct." dtype "." ctype " %0, %1, %2, %3;" : "=h"(s) : "h"(s0), "h"(s1), cons(cval));      \
    o[k++] = s
#define D4R_SLCT32(dtype, ctype, cons, cval)                                                       \
    asm("slct." dtype "." ctype " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), cons(cval));        \
    o[k++] = r
#define D4R_SLCT64(dtype, ctype, cons, cval)                                                       \
    asm("slct." dtype "." ctype " %0, %1, %2, %3;" : "=l"(w) : "l"(wa), "l"(wb), cons(cval));      \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32)

// c is read both as an s32 and as an f32: each form with each selector type, 40 words.
extern "C" __global__ void gap_select(const unsigned* pa, const unsigned* pb, const unsigned* pc,
                                      unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned a = pa[i];
    const unsigned b = pb[i];
    const unsigned c = pc[i];
    const float cf = __uint_as_float(c);
    const unsigned short s0 = static_cast<unsigned short>(a >> 7);
    const unsigned short s1 = static_cast<unsigned short>(b >> 9);
    const unsigned long long wa = static_cast<unsigned long long>(b) << 32 | a;
    const unsigned long long wb = static_cast<unsigned long long>(a) << 32 | (b ^ 0x5a5a5a5au);
    unsigned* o = out + i * 40;
    unsigned short s;
    unsigned r;
    unsigned long long w;
    int k = 0;
    D4R_SLCT16("b16", "s32", "r", c);
    D4R_SLCT16("u16", "f32", "f", cf);
    D4R_SLCT16("s16", "s32", "r", c);
    D4R_SLCT16("b16", "f32", "f", cf);
    D4R_SLCT32("b32", "s32", "r", c);
    D4R_SLCT32("u32", "s32", "r", c);
    D4R_SLCT32("s32", "s32", "r", c);
    D4R_SLCT32("f32", "s32", "r", c);
    D4R_SLCT32("b32", "f32", "f", cf);
    D4R_SLCT32("u32", "f32", "f", cf);
    D4R_SLCT32("s32", "f32", "f", cf);
    D4R_SLCT32("f32", "f32", "f", cf);
    D4R_SLCT32("ftz.b32", "f32", "f", cf);
    D4R_SLCT32("ftz.u32", "f32", "f", cf);
    D4R_SLCT32("ftz.s32", "f32", "f", cf);
    D4R_SLCT32("ftz.f32", "f32", "f", cf);
    D4R_SLCT64("b64", "s32", "r", c);
    D4R_SLCT64("u64", "s32", "r", c);
    D4R_SLCT64("s64", "f32", "f", cf);
    D4R_SLCT64("f64", "f32", "f", cf);
    D4R_SLCT64("ftz.f64", "f32", "f", cf);
    D4R_SLCT64("ftz.b64", "f32", "f", cf);
    D4R_SLCT64("f64", "s32", "r", c);
    D4R_SLCT64("s64", "s32", "r", c);
    D4R_SLCT16("ftz.u16", "f32", "f", cf);
    D4R_SLCT16("u16", "s32", "r", c);
    D4R_SLCT16("ftz.s16", "f32", "f", cf);
    D4R_SLCT16("s16", "f32", "f", cf);
}

#define D4R_LOP(lut)                                                                               \
    asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(r) : "r"(a), "r"(b), "r"(c));                   \
    o[lut] = r
#define D4R_LOP8(base)                                                                             \
    D4R_LOP(base##0);                                                                              \
    D4R_LOP(base##1);                                                                              \
    D4R_LOP(base##2);                                                                              \
    D4R_LOP(base##3);                                                                              \
    D4R_LOP(base##4);                                                                              \
    D4R_LOP(base##5);                                                                              \
    D4R_LOP(base##6);                                                                              \
    D4R_LOP(base##7)
#define D4R_LOP64(base)                                                                            \
    D4R_LOP8(base##0);                                                                             \
    D4R_LOP8(base##1);                                                                             \
    D4R_LOP8(base##2);                                                                             \
    D4R_LOP8(base##3);                                                                             \
    D4R_LOP8(base##4);                                                                             \
    D4R_LOP8(base##5);                                                                             \
    D4R_LOP8(base##6);                                                                             \
    D4R_LOP8(base##7)

// Every lookup table, written in octal (0ddd is a PTX octal literal): o[lut].
extern "C" __global__ void gap_lop3(const unsigned* pa, const unsigned* pb, const unsigned* pc,
                                    unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned a = pa[i];
    const unsigned b = pb[i];
    const unsigned c = pc[i];
    unsigned* o = out + i * 256;
    unsigned r;
    D4R_LOP64(00);
    D4R_LOP64(01);
    D4R_LOP64(02);
    D4R_LOP64(03);
}

// Loads at addresses every lane of a warp shares (ldu reads data common to the warp), and
// prefetches of each kind before the load they announce: 16 words a thread.
extern "C" __global__ void gap_memory(const unsigned* data, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned warp = i / 32;
    const unsigned* base = data + warp * 16;
    unsigned* o = out + i * 16;
    unsigned r;
    unsigned r2[2];
    unsigned r4[4];
    unsigned long long w;
    float f;
    asm volatile("ldu.global.u32 %0, [%1];" : "=r"(r) : "l"(base));
    o[0] = r;
    asm volatile("ldu.global.v2.u32 {%0, %1}, [%2];" : "=r"(r2[0]), "=r"(r2[1]) : "l"(base + 2));
    o[1] = r2[0] ^ r2[1];
    asm volatile("ldu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r4[0]), "=r"(r4[1]), "=r"(r4[2]), "=r"(r4[3]) : "l"(base + 4));
    o[2] = r4[0] + r4[1] * 3u + r4[2] * 5u + r4[3] * 7u;
    asm volatile("ldu.global.u64 %0, [%1];" : "=l"(w) : "l"(base + 8));
    o[3] = static_cast<unsigned>(w) ^ static_cast<unsigned>(w >> 32) * 11u;
    asm volatile("ldu.global.f32 %0, [%1];" : "=f"(f) : "l"(base + 10));
    o[4] = __float_as_uint(f);
    asm volatile("ldu.u32 %0, [%1];" : "=r"(r) : "l"(base + 11));
    o[5] = r;
    asm volatile("ldu.global.u8 %0, [%1];" : "=r"(r) : "l"(reinterpret_cast<const char*>(base) + 49));
    o[6] = r;
    const unsigned* mine = data + (i * 7) % static_cast<unsigned>(n);
    asm volatile("prefetch.global.L1 [%0];" ::"l"(mine));
    o[7] = mine[0];
    asm volatile("prefetch.global.L2 [%0];" ::"l"(mine + 1));
    o[8] = mine[1];
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(mine + 2));
    o[9] = mine[2];
    asm volatile("prefetch.global.L2::evict_normal [%0];" ::"l"(mine + 3));
    o[10] = mine[3];
    asm volatile("prefetch.L1 [%0];" ::"l"(mine + 4));
    o[11] = mine[4];
    asm volatile("prefetch.L2 [%0];" ::"l"(mine + 5));
    o[12] = mine[5];
    asm volatile("prefetchu.L1 [%0];" ::"l"(mine + 6));
    o[13] = mine[6];
    volatile unsigned local[4];
    for (int k = 0; k < 4; ++k) {
        local[k] = mine[k] * 3u + k;
    }
    asm volatile("{\n\t.reg .u64 a;\n\tcvta.to.local.u64 a, %0;\n\tprefetch.local.L1 [a];\n\t"
                 "prefetch.local.L2 [a];\n\t}" ::"l"(&local[0]));
    o[14] = local[i & 3];
    o[15] = local[(i + 1) & 3];
}

// Threads whose input has bit 0 set leave at once; of the rest, those with bit 1 set write one
// word and leave; the others write both words after a bar.warp.sync over the lanes still there
// (the mask is taken from activemask after the exits, as bar.warp.sync requires every lane it
// names to execute it).
extern "C" __global__ void gap_exit(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    if (x & 1u) {
        asm volatile("exit;");
    }
    out[i * 2] = x ^ 0x1234567u;
    if (x & 2u) {
        asm volatile("exit;");
    }
    unsigned mask;
    asm volatile("activemask.b32 %0;" : "=r"(mask));
    asm volatile("bar.warp.sync %0;" ::"r"(mask));
    out[i * 2 + 1] = mask;
}

// Each lane writes a shared word, a bar.warp.sync orders the writes before the reads of another
// lane's word: the full warp, then two half-warp groups (each synchronising only its own half),
// then lanes whose input selects them (a mask from a ballot of them).
extern "C" __global__ void gap_warp_sync(const unsigned* in, unsigned* out, int n)
{
    __shared__ unsigned cells[256];
    const unsigned i = D4R_GID;
    const unsigned t = threadIdx.x;
    const unsigned lane = lane_id();
    const unsigned x = i < static_cast<unsigned>(n) ? in[i] : 0u;
    cells[t] = x * 3u + 1u;
    asm volatile("bar.warp.sync -1;" ::: "memory");
    unsigned v = cells[(t & ~31u) | ((lane + 5u) & 31u)];
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
    cells[t] = v ^ lane;
    if (lane < 16) {
        asm volatile("bar.warp.sync 0x0000ffff;" ::: "memory");
        v += cells[(t & ~31u) | ((lane + 3u) & 15u)];
    } else {
        asm volatile("bar.warp.sync 0xffff0000;" ::: "memory");
        v += cells[(t & ~31u) | (16u + ((lane + 7u) & 15u))];
    }
    __syncwarp();
    const unsigned chosen = __ballot_sync(D4R_FULL, x & 4u);
    if (x & 4u) {
        cells[t] = v + 0x100u;
        asm volatile("bar.warp.sync %0;" ::"r"(chosen) : "memory");
        const unsigned highest = 31u - static_cast<unsigned>(__clz(chosen));
        v ^= cells[(t & ~31u) | highest];
    }
    if (i < static_cast<unsigned>(n)) {
        out[i] = v;
    }
}

// Every thread writes its word; thread `victim` then traps, so the launch fails.
extern "C" __global__ void gap_trap(unsigned* out, int victim)
{
    const unsigned i = D4R_GID;
    out[i] = i * 0x9e3779b1u;
    if (static_cast<int>(i) == victim) {
        asm volatile("trap;");
    }
}

__device__ __managed__ unsigned g_managed_table[8] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u,
                                           0x55555555u, 0x66666666u, 0x77777777u, 0x88888888u};

// A __managed__ table read by index, and .b128 registers: two u64 packed into one, unpacked in
// the other order (mov.b128 both ways).
extern "C" __global__ void gap_module(const unsigned long long* in, unsigned long long* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned long long a = in[i * 2];
    const unsigned long long b = in[i * 2 + 1];
    unsigned long long lo;
    unsigned long long hi;
    asm("{\n\t.reg .b128 q;\n\tmov.b128 q, {%2, %3};\n\tmov.b128 {%1, %0}, q;\n\t}"
        : "=l"(lo), "=l"(hi) : "l"(a), "l"(b));
    out[i * 3] = lo;
    out[i * 3 + 1] = hi;
    out[i * 3 + 2] = g_managed_table[a & 7] ^ (static_cast<unsigned long long>(g_managed_table[b & 7]) << 32);
}

// A store of a register wider than the instruction type: the ISA keeps the register's low bits.
// Each producer writes a .b64 (or .b32) register t inside one asm block, then one store of each
// narrower type writes it to its own word of the thread's 66 (the words start as 0xCD bytes).
#define D4R_ST64(producer, store, slot)                                                            \
    asm volatile("{\n\t.reg .b64 t;\n\t" producer "\n\t" store " [%0], t;\n\t}" ::"l"(o + (slot)), \
                 "l"(d), "l"(pd), "r"(f)                                                           \
                 : "memory")
#define D4R_ST64_ALL(producer, base)                                                               \
    D4R_ST64(producer, "st.global.u32", base);                                                     \
    D4R_ST64(producer, "st.global.s32", base + 1);                                                 \
    D4R_ST64(producer, "st.global.b32", base + 2);                                                 \
    D4R_ST64(producer, "st.global.u16", base + 3);                                                 \
    D4R_ST64(producer, "st.global.s16", base + 4);                                                 \
    D4R_ST64(producer, "st.global.u8", base + 5);                                                  \
    D4R_ST64(producer, "st.global.s8", base + 6);                                                  \
    D4R_ST64(producer, "st.global.f32", base + 7)
#define D4R_ST32(producer, store, slot)                                                            \
    asm volatile("{\n\t.reg .b32 t;\n\t" producer "\n\t" store " [%0], t;\n\t}" ::"l"(o + (slot)), \
                 "l"(d), "l"(pd), "r"(f)                                                           \
                 : "memory")
#define D4R_ST32_ALL(producer, base)                                                               \
    D4R_ST32(producer, "st.global.u16", base);                                                     \
    D4R_ST32(producer, "st.global.s16", base + 1);                                                 \
    D4R_ST32(producer, "st.global.b16", base + 2);                                                 \
    D4R_ST32(producer, "st.global.u8", base + 3);                                                  \
    D4R_ST32(producer, "st.global.s8", base + 4);                                                  \
    D4R_ST32(producer, "st.global.b8", base + 5)

// %1: the f64 bits (u64 register), %2: their address, %3: an f32's bits.
extern "C" __global__ void gap_store_wide(const unsigned long long* pd, const unsigned* pf,
                                          unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned long long d = pd[i];
    const unsigned f = pf[i];
    unsigned* o = out + i * 66;
    pd += i;
    D4R_ST64_ALL("mov.b64 t, %1;", 0);
    D4R_ST64_ALL("ld.global.u64 t, [%2];", 8);
    D4R_ST64_ALL("ld.global.f64 t, [%2];", 16);
    D4R_ST64_ALL("add.rn.f64 t, %1, 0d8000000000000000;", 24);
    D4R_ST64_ALL("cvt.f64.f32 t, %3;", 32);
    D4R_ST64_ALL("xor.b64 t, %1, 0;", 40);
    D4R_ST32_ALL("add.rn.f32 t, %3, 0f80000000;", 48);
    D4R_ST32_ALL("mov.b32 t, %3;", 54);
    D4R_ST32_ALL("cvt.rn.f32.f64 t, %1;", 60);
}

// activemask after a loop whose trip count is the lane's own (0-7 from its input), then after a
// bar.sync that lanes reach from different places: lanes whose input has bit 3 set first vote in a
// ballot of their own (a partial mask), the rest go straight to the barrier (random program r370:
// every lane active on the H200). Three words a thread: both masks and the loop's sum.
extern "C" __global__ void gap_late_activemask(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    const unsigned x = i < static_cast<unsigned>(n) ? in[i] : 0u;
    unsigned acc = x;
    for (unsigned k = 0; k < (x & 7u); ++k) {
        acc = acc * 0x9e3779b1u + k;
    }
    unsigned after_loop;
    asm volatile("activemask.b32 %0;" : "=r"(after_loop));
    const unsigned voters = __ballot_sync(D4R_FULL, x & 8u);
    if (x & 8u) {
        acc ^= __ballot_sync(voters, acc & 1u);
    }
    __syncthreads();
    unsigned after_barrier;
    asm volatile("activemask.b32 %0;" : "=r"(after_barrier));
    if (i < static_cast<unsigned>(n)) {
        out[i * 3] = after_loop;
        out[i * 3 + 1] = after_barrier;
        out[i * 3 + 2] = acc;
    }
}

// Shift amounts an f32 instruction wrote (random programs r76, r115: the H200 left a 64-bit value
// unchanged): each f32 input goes through add.rn.f32 x, -0 (a float-typed register of the same
// bits) and through mov.b32 (a bit-typed one) into the amount of shl/shr on 64 and 32 bits.
#define D4R_SHIFT_BY(producer, form, slot)                                                          \
    asm("{\n\t.reg .b32 t;\n\t" producer "\n\t" form " %0, %1, t;\n\t}" : "=l"(w) : "l"(v), "r"(a));   \
    o[slot] = static_cast<unsigned>(w);                                                            \
    o[slot + 1] = static_cast<unsigned>(w >> 32)

extern "C" __global__ void gap_shift_amounts(const unsigned* amounts, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned a = amounts[i];
    const unsigned long long v = 0xd9d36b30a3260772ull;
    unsigned* o = out + i * 16;
    unsigned long long w;
    D4R_SHIFT_BY("add.rn.f32 t, %2, 0f80000000;", "shl.b64", 0);
    D4R_SHIFT_BY("add.rn.f32 t, %2, 0f80000000;", "shr.u64", 2);
    D4R_SHIFT_BY("add.rn.f32 t, %2, 0f80000000;", "shr.s64", 4);
    D4R_SHIFT_BY("mov.b32 t, %2;", "shl.b64", 6);
    D4R_SHIFT_BY("mov.b32 t, %2;", "shr.u64", 8);
    D4R_SHIFT_BY("mov.b32 t, %2;", "shr.s64", 10);
    unsigned r;
    asm("{\n\t.reg .b32 t;\n\tadd.rn.f32 t, %2, 0f80000000;\n\tshr.u32 %0, %1, t;\n\t}"
        : "=r"(r) : "r"(static_cast<unsigned>(v)), "r"(a));
    o[12] = r;
    asm("{\n\t.reg .b32 t;\n\tadd.rn.f32 t, %2, 0f80000000;\n\tshl.b32 %0, %1, t;\n\t}"
        : "=r"(r) : "r"(static_cast<unsigned>(v)), "r"(a));
    o[13] = r;
    asm("{\n\t.reg .b32 t;\n\tmov.b32 t, %2;\n\tshr.u32 %0, %1, t;\n\t}"
        : "=r"(r) : "r"(static_cast<unsigned>(v)), "r"(a));
    o[14] = r;
    asm("{\n\t.reg .b32 t;\n\tadd.rn.f32 t, %2, 0f80000000;\n\tbfe.u32 %0, %1, t, 8;\n\t}"
        : "=r"(r) : "r"(static_cast<unsigned>(v)), "r"(a));
    o[15] = r;
}
