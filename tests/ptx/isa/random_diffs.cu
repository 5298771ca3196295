// d4r-isa-ptx: random_diffs.sm_90.ptx -arch=sm_90 -O3
// Forms where differential random testing (tests/random) found the CPU executor and the H200
// apart, probed on their own (issue 11), as inline PTX on values read from buffers:
// - testp_probe: every testp mode on f32 and f64 (zero, subnormal, inf, NaN).
// - cvt_widen: f16/bf16/f32 widened to f32/f64 (NaN payloads; bf16 -> f64 through f32), and
//   narrowed (NaN).
// - cvt_narrow_sat: .satfinite (and .relu) f32 -> f16/bf16, scalar and x2, rn and rz.
// - cvt_ftz_probe: which cvt forms flush subnormal inputs or results under .ftz.
// - shift_probe: shl/shr on 16/32/64 bits by register amounts of any 32-bit value.
// - bit_field_imm: bfe/bfi with immediate pos and len (ptxas folds them) over a grid beyond
//   the width, and the same pairs with one or both of them in registers.
// - same_operand: min/max (f32, f64) and add of a register with itself (ptxas may fold it).
// - ptxas_context: values whose producer ptxas knows (cnot, cvt to an integer) fed to cvt.
#include "isa_common.cuh"

#define D4R_TESTP(mode, type, cons, value)                                                         \
    asm("{\n\t.reg .pred p;\n\ttestp." mode "." type " p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}"       \
        : "=r"(r) : cons(value));                                                                  \
    o[k++] = r

extern "C" __global__ void testp_probe(const unsigned* f, const unsigned long long* d,
                                       unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = f[i];
    const unsigned long long y = d[i];
    unsigned* o = out + i * 12;
    unsigned r;
    int k = 0;
    D4R_TESTP("finite", "f32", "r", x);
    D4R_TESTP("infinite", "f32", "r", x);
    D4R_TESTP("number", "f32", "r", x);
    D4R_TESTP("notanumber", "f32", "r", x);
    D4R_TESTP("normal", "f32", "r", x);
    D4R_TESTP("subnormal", "f32", "r", x);
    D4R_TESTP("finite", "f64", "l", y);
    D4R_TESTP("infinite", "f64", "l", y);
    D4R_TESTP("number", "f64", "l", y);
    D4R_TESTP("notanumber", "f64", "l", y);
    D4R_TESTP("normal", "f64", "l", y);
    D4R_TESTP("subnormal", "f64", "l", y);
}

extern "C" __global__ void cvt_widen(const unsigned short* h, const unsigned* f, unsigned* out,
                                     int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = h[i];
    const unsigned y = f[i];
    unsigned* o = out + i * 12;
    unsigned r;
    unsigned long long w;
    unsigned short s;
    unsigned short t;
    asm("cvt.f32.f16 %0, %1;" : "=r"(r) : "h"(x));
    o[0] = r;
    asm("cvt.f64.f16 %0, %1;" : "=l"(w) : "h"(x));
    o[1] = static_cast<unsigned>(w);
    o[2] = static_cast<unsigned>(w >> 32);
    asm("cvt.f32.bf16 %0, %1;" : "=r"(r) : "h"(x));
    o[3] = r;
    asm("{\n\t.reg .b32 t;\n\tcvt.f32.bf16 t, %1;\n\tcvt.f64.f32 %0, t;\n\t}" : "=l"(w) : "h"(x));
    o[4] = static_cast<unsigned>(w);
    o[5] = static_cast<unsigned>(w >> 32);
    asm("cvt.f64.f32 %0, %1;" : "=l"(w) : "r"(y));
    o[6] = static_cast<unsigned>(w);
    o[7] = static_cast<unsigned>(w >> 32);
    asm("cvt.ftz.f64.f32 %0, %1;" : "=l"(w) : "r"(y));
    o[8] = static_cast<unsigned>(w);
    o[9] = static_cast<unsigned>(w >> 32);
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(s) : "r"(y));
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(t) : "r"(y));
    o[10] = s | static_cast<unsigned>(t) << 16;
    asm("cvt.rz.f16.f32 %0, %1;" : "=h"(s) : "r"(y));
    asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(t) : "r"(y));
    o[11] = s | static_cast<unsigned>(t) << 16;
}

#define D4R_NARROW(form, value)                                                                    \
    asm(form " %0, %1;" : "=h"(s) : "r"(value));                                                   \
    asm(form " %0, %1;" : "=h"(t) : "r"(value ^ 0x80000000u));                                     \
    o[k++] = s | static_cast<unsigned>(t) << 16
#define D4R_PAIR(form)                                                                             \
    asm(form " %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));                                           \
    o[k++] = r

extern "C" __global__ void cvt_narrow_sat(const unsigned* a, const unsigned* b, unsigned* out,
                                          int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    unsigned* o = out + i * 16;
    unsigned r;
    unsigned short s;
    unsigned short t;
    int k = 0;
    D4R_NARROW("cvt.rn.satfinite.f16.f32", x);
    D4R_NARROW("cvt.rz.satfinite.f16.f32", x);
    D4R_NARROW("cvt.rn.relu.satfinite.f16.f32", x);
    D4R_NARROW("cvt.rn.satfinite.bf16.f32", x);
    D4R_NARROW("cvt.rz.satfinite.bf16.f32", x);
    D4R_NARROW("cvt.rn.relu.satfinite.bf16.f32", x);
    D4R_NARROW("cvt.rz.relu.satfinite.bf16.f32", x);
    D4R_NARROW("cvt.rn.relu.bf16.f32", x);
    D4R_PAIR("cvt.rn.satfinite.f16x2.f32");
    D4R_PAIR("cvt.rz.satfinite.f16x2.f32");
    D4R_PAIR("cvt.rn.relu.satfinite.f16x2.f32");
    D4R_PAIR("cvt.rn.satfinite.bf16x2.f32");
    D4R_PAIR("cvt.rz.satfinite.bf16x2.f32");
    D4R_PAIR("cvt.rn.relu.satfinite.bf16x2.f32");
    D4R_PAIR("cvt.rn.f16x2.f32");
    D4R_PAIR("cvt.rn.bf16x2.f32");
}

#define D4R_CVT32(form, in_cons, value)                                                            \
    asm(form " %0, %1;" : "=r"(r) : in_cons(value));                                               \
    o[k++] = r
#define D4R_CVT16(form)                                                                            \
    asm(form " %0, %1;" : "=h"(s) : "r"(x));                                                       \
    asm(form " %0, %1;" : "=h"(t) : "r"(x ^ 0x80000000u));                                         \
    o[k++] = s | static_cast<unsigned>(t) << 16
#define D4R_CVT64(form)                                                                            \
    asm(form " %0, %1;" : "=l"(w) : "r"(x));                                                       \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32)

extern "C" __global__ void cvt_ftz_probe(const unsigned* a, const unsigned long long* d,
                                         unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned long long y = d[i];
    unsigned* o = out + i * 32;
    unsigned r;
    unsigned long long w;
    unsigned short s;
    unsigned short t;
    int k = 0;
    D4R_CVT16("cvt.rn.ftz.f16.f32");
    D4R_CVT16("cvt.rz.ftz.f16.f32");
    D4R_CVT16("cvt.rm.ftz.f16.f32");
    D4R_CVT16("cvt.rp.ftz.f16.f32");
    D4R_CVT16("cvt.rn.f16.f32");
    D4R_CVT16("cvt.rz.f16.f32");
    D4R_CVT16("cvt.rm.f16.f32");
    D4R_CVT16("cvt.rp.f16.f32");
    D4R_CVT16("cvt.rn.ftz.sat.f16.f32");
    D4R_CVT64("cvt.ftz.f64.f32");
    D4R_CVT32("cvt.rn.ftz.f32.f64", "l", y);
    D4R_CVT32("cvt.rz.ftz.f32.f64", "l", y);
    D4R_CVT32("cvt.rm.ftz.f32.f64", "l", y);
    D4R_CVT32("cvt.rp.ftz.f32.f64", "l", y);
    D4R_CVT32("cvt.rp.f32.f64", "l", y);
    D4R_CVT32("cvt.rni.ftz.f32.f32", "r", x);
    D4R_CVT32("cvt.rzi.ftz.f32.f32", "r", x);
    D4R_CVT32("cvt.rmi.ftz.f32.f32", "r", x);
    D4R_CVT32("cvt.rpi.ftz.f32.f32", "r", x);
    D4R_CVT32("cvt.rpi.f32.f32", "r", x);
    D4R_CVT32("cvt.rmi.f32.f32", "r", x);
    D4R_CVT32("cvt.rpi.ftz.s32.f32", "r", x);
    D4R_CVT32("cvt.rmi.ftz.s32.f32", "r", x);
    D4R_CVT32("cvt.rpi.s32.f32", "r", x);
    D4R_CVT32("cvt.rmi.s32.f32", "r", x);
    D4R_CVT32("cvt.ftz.f32.f32", "r", x);
    D4R_CVT32("cvt.ftz.sat.f32.f32", "r", x);
    D4R_CVT32("cvt.rpi.ftz.u32.f32", "r", x);
    D4R_CVT32("cvt.rn.ftz.f32.s32", "r", x);
}

#define D4R_SHIFT64(form)                                                                          \
    asm(form " %0, %1, %2;" : "=l"(w) : "l"(x), "r"(c));                                           \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32)
#define D4R_SHIFT32(form)                                                                          \
    asm(form " %0, %1, %2;" : "=r"(r) : "r"(static_cast<unsigned>(x)), "r"(c));                   \
    o[k++] = r
#define D4R_SHIFT16(form)                                                                          \
    asm(form " %0, %1, %2;" : "=h"(s) : "h"(static_cast<unsigned short>(x >> 48)), "r"(c));       \
    o[k++] = s

extern "C" __global__ void shift_probe(const unsigned long long* a, const unsigned* amount,
                                       unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned long long x = a[i];
    const unsigned c = amount[i];
    unsigned* o = out + i * 12;
    unsigned r;
    unsigned long long w;
    unsigned short s;
    int k = 0;
    D4R_SHIFT64("shl.b64");
    D4R_SHIFT64("shr.u64");
    D4R_SHIFT64("shr.s64");
    D4R_SHIFT32("shl.b32");
    D4R_SHIFT32("shr.u32");
    D4R_SHIFT32("shr.s32");
    D4R_SHIFT16("shl.b16");
    D4R_SHIFT16("shr.u16");
    D4R_SHIFT16("shr.s16");
}

#define D4R_STR2(x) #x
#define D4R_STR(x) D4R_STR2(x)
#define D4R_BF32(p, l)                                                                             \
    asm("bfe.u32 %0, %1, " D4R_STR(p) ", " D4R_STR(l) ";" : "=r"(r) : "r"(x));                     \
    o[k++] = r;                                                                                    \
    asm("bfe.s32 %0, %1, " D4R_STR(p) ", " D4R_STR(l) ";" : "=r"(r) : "r"(x));                     \
    o[k++] = r;                                                                                    \
    asm("bfi.b32 %0, %1, %2, " D4R_STR(p) ", " D4R_STR(l) ";" : "=r"(r) : "r"(x), "r"(y));         \
    o[k++] = r
#define D4R_BF64(p, l)                                                                             \
    asm("bfe.u64 %0, %1, " D4R_STR(p) ", " D4R_STR(l) ";" : "=l"(w) : "l"(wx));                    \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32);                                                       \
    asm("bfe.s64 %0, %1, " D4R_STR(p) ", " D4R_STR(l) ";" : "=l"(w) : "l"(wx));                    \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32);                                                       \
    asm("bfi.b64 %0, %1, %2, " D4R_STR(p) ", " D4R_STR(l) ";" : "=l"(w) : "l"(wx), "l"(wy));       \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32)
// One register and one immediate: pos from c[j] (equal to P) with immediate len L, and
// immediate pos P with len from c[j + 1] (equal to L).
#define D4R_BFMIX(p, l, j)                                                                         \
    asm("bfe.s32 %0, %1, %2, " D4R_STR(l) ";" : "=r"(r) : "r"(x), "r"(c[j]));                      \
    o[k++] = r;                                                                                    \
    asm("bfe.s32 %0, %1, " D4R_STR(p) ", %2;" : "=r"(r) : "r"(x), "r"(c[j + 1]));                  \
    o[k++] = r;                                                                                    \
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(c[j]), "r"(c[j + 1]));                   \
    o[k++] = r;                                                                                    \
    asm("bfe.u32 %0, %1, %2, " D4R_STR(l) ";" : "=r"(r) : "r"(x), "r"(c[j]));                      \
    o[k++] = r;                                                                                    \
    asm("bfi.b32 %0, %1, %2, %3, " D4R_STR(l) ";" : "=r"(r) : "r"(x), "r"(y), "r"(c[j]));          \
    o[k++] = r;                                                                                    \
    asm("bfi.b32 %0, %1, %2, " D4R_STR(p) ", %3;" : "=r"(r) : "r"(x), "r"(y), "r"(c[j + 1]));      \
    o[k++] = r;                                                                                    \
    asm("bfe.s64 %0, %1, %2, " D4R_STR(l) ";" : "=l"(w) : "l"(wx), "r"(c[j]));                     \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32)

// 120 pairs x 3 (32 bit) + 90 pairs x 6 (64 bit) + 8 pairs x 8 = 964 words a thread.
extern "C" __global__ void bit_field_imm(const unsigned* a, const unsigned* b, const unsigned* c,
                                         unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned long long wx = static_cast<unsigned long long>(y) << 32 | x;
    const unsigned long long wy = static_cast<unsigned long long>(x) << 32 | y;
    unsigned* o = out + i * 964;
    unsigned r;
    unsigned long long w;
    int k = 0;
    D4R_BF32(0, 0);
    D4R_BF32(0, 1);
    D4R_BF32(0, 11);
    D4R_BF32(0, 17);
    D4R_BF32(0, 22);
    D4R_BF32(0, 31);
    D4R_BF32(0, 32);
    D4R_BF32(0, 33);
    D4R_BF32(0, 40);
    D4R_BF32(0, 255);
    D4R_BF32(10, 0);
    D4R_BF32(10, 1);
    D4R_BF32(10, 11);
    D4R_BF32(10, 17);
    D4R_BF32(10, 22);
    D4R_BF32(10, 31);
    D4R_BF32(10, 32);
    D4R_BF32(10, 33);
    D4R_BF32(10, 40);
    D4R_BF32(10, 255);
    D4R_BF32(20, 0);
    D4R_BF32(20, 1);
    D4R_BF32(20, 11);
    D4R_BF32(20, 17);
    D4R_BF32(20, 22);
    D4R_BF32(20, 31);
    D4R_BF32(20, 32);
    D4R_BF32(20, 33);
    D4R_BF32(20, 40);
    D4R_BF32(20, 255);
    D4R_BF32(31, 0);
    D4R_BF32(31, 1);
    D4R_BF32(31, 11);
    D4R_BF32(31, 17);
    D4R_BF32(31, 22);
    D4R_BF32(31, 31);
    D4R_BF32(31, 32);
    D4R_BF32(31, 33);
    D4R_BF32(31, 40);
    D4R_BF32(31, 255);
    D4R_BF32(32, 0);
    D4R_BF32(32, 1);
    D4R_BF32(32, 11);
    D4R_BF32(32, 17);
    D4R_BF32(32, 22);
    D4R_BF32(32, 31);
    D4R_BF32(32, 32);
    D4R_BF32(32, 33);
    D4R_BF32(32, 40);
    D4R_BF32(32, 255);
    D4R_BF32(33, 0);
    D4R_BF32(33, 1);
    D4R_BF32(33, 11);
    D4R_BF32(33, 17);
    D4R_BF32(33, 22);
    D4R_BF32(33, 31);
    D4R_BF32(33, 32);
    D4R_BF32(33, 33);
    D4R_BF32(33, 40);
    D4R_BF32(33, 255);
    D4R_BF32(35, 0);
    D4R_BF32(35, 1);
    D4R_BF32(35, 11);
    D4R_BF32(35, 17);
    D4R_BF32(35, 22);
    D4R_BF32(35, 31);
    D4R_BF32(35, 32);
    D4R_BF32(35, 33);
    D4R_BF32(35, 40);
    D4R_BF32(35, 255);
    D4R_BF32(40, 0);
    D4R_BF32(40, 1);
    D4R_BF32(40, 11);
    D4R_BF32(40, 17);
    D4R_BF32(40, 22);
    D4R_BF32(40, 31);
    D4R_BF32(40, 32);
    D4R_BF32(40, 33);
    D4R_BF32(40, 40);
    D4R_BF32(40, 255);
    D4R_BF32(63, 0);
    D4R_BF32(63, 1);
    D4R_BF32(63, 11);
    D4R_BF32(63, 17);
    D4R_BF32(63, 22);
    D4R_BF32(63, 31);
    D4R_BF32(63, 32);
    D4R_BF32(63, 33);
    D4R_BF32(63, 40);
    D4R_BF32(63, 255);
    D4R_BF32(64, 0);
    D4R_BF32(64, 1);
    D4R_BF32(64, 11);
    D4R_BF32(64, 17);
    D4R_BF32(64, 22);
    D4R_BF32(64, 31);
    D4R_BF32(64, 32);
    D4R_BF32(64, 33);
    D4R_BF32(64, 40);
    D4R_BF32(64, 255);
    D4R_BF32(100, 0);
    D4R_BF32(100, 1);
    D4R_BF32(100, 11);
    D4R_BF32(100, 17);
    D4R_BF32(100, 22);
    D4R_BF32(100, 31);
    D4R_BF32(100, 32);
    D4R_BF32(100, 33);
    D4R_BF32(100, 40);
    D4R_BF32(100, 255);
    D4R_BF32(255, 0);
    D4R_BF32(255, 1);
    D4R_BF32(255, 11);
    D4R_BF32(255, 17);
    D4R_BF32(255, 22);
    D4R_BF32(255, 31);
    D4R_BF32(255, 32);
    D4R_BF32(255, 33);
    D4R_BF32(255, 40);
    D4R_BF32(255, 255);
    D4R_BF64(0, 0);
    D4R_BF64(0, 1);
    D4R_BF64(0, 5);
    D4R_BF64(0, 17);
    D4R_BF64(0, 63);
    D4R_BF64(0, 64);
    D4R_BF64(0, 65);
    D4R_BF64(0, 100);
    D4R_BF64(0, 255);
    D4R_BF64(30, 0);
    D4R_BF64(30, 1);
    D4R_BF64(30, 5);
    D4R_BF64(30, 17);
    D4R_BF64(30, 63);
    D4R_BF64(30, 64);
    D4R_BF64(30, 65);
    D4R_BF64(30, 100);
    D4R_BF64(30, 255);
    D4R_BF64(60, 0);
    D4R_BF64(60, 1);
    D4R_BF64(60, 5);
    D4R_BF64(60, 17);
    D4R_BF64(60, 63);
    D4R_BF64(60, 64);
    D4R_BF64(60, 65);
    D4R_BF64(60, 100);
    D4R_BF64(60, 255);
    D4R_BF64(63, 0);
    D4R_BF64(63, 1);
    D4R_BF64(63, 5);
    D4R_BF64(63, 17);
    D4R_BF64(63, 63);
    D4R_BF64(63, 64);
    D4R_BF64(63, 65);
    D4R_BF64(63, 100);
    D4R_BF64(63, 255);
    D4R_BF64(64, 0);
    D4R_BF64(64, 1);
    D4R_BF64(64, 5);
    D4R_BF64(64, 17);
    D4R_BF64(64, 63);
    D4R_BF64(64, 64);
    D4R_BF64(64, 65);
    D4R_BF64(64, 100);
    D4R_BF64(64, 255);
    D4R_BF64(65, 0);
    D4R_BF64(65, 1);
    D4R_BF64(65, 5);
    D4R_BF64(65, 17);
    D4R_BF64(65, 63);
    D4R_BF64(65, 64);
    D4R_BF64(65, 65);
    D4R_BF64(65, 100);
    D4R_BF64(65, 255);
    D4R_BF64(70, 0);
    D4R_BF64(70, 1);
    D4R_BF64(70, 5);
    D4R_BF64(70, 17);
    D4R_BF64(70, 63);
    D4R_BF64(70, 64);
    D4R_BF64(70, 65);
    D4R_BF64(70, 100);
    D4R_BF64(70, 255);
    D4R_BF64(127, 0);
    D4R_BF64(127, 1);
    D4R_BF64(127, 5);
    D4R_BF64(127, 17);
    D4R_BF64(127, 63);
    D4R_BF64(127, 64);
    D4R_BF64(127, 65);
    D4R_BF64(127, 100);
    D4R_BF64(127, 255);
    D4R_BF64(128, 0);
    D4R_BF64(128, 1);
    D4R_BF64(128, 5);
    D4R_BF64(128, 17);
    D4R_BF64(128, 63);
    D4R_BF64(128, 64);
    D4R_BF64(128, 65);
    D4R_BF64(128, 100);
    D4R_BF64(128, 255);
    D4R_BF64(255, 0);
    D4R_BF64(255, 1);
    D4R_BF64(255, 5);
    D4R_BF64(255, 17);
    D4R_BF64(255, 63);
    D4R_BF64(255, 64);
    D4R_BF64(255, 65);
    D4R_BF64(255, 100);
    D4R_BF64(255, 255);
    D4R_BFMIX(35, 17, 0);
    D4R_BFMIX(32, 11, 2);
    D4R_BFMIX(40, 5, 4);
    D4R_BFMIX(10, 33, 6);
    D4R_BFMIX(33, 1, 8);
    D4R_BFMIX(0, 33, 10);
    D4R_BFMIX(64, 3, 12);
    D4R_BFMIX(255, 255, 14);
}

#define D4R_SAME32(form)                                                                           \
    asm(form " %0, %1, %1;" : "=r"(r) : "r"(x));                                                   \
    o[k++] = r
#define D4R_SAME64(form)                                                                           \
    asm(form " %0, %1, %1;" : "=l"(w) : "l"(wx));                                                  \
    o[k++] = static_cast<unsigned>(w);                                                             \
    o[k++] = static_cast<unsigned>(w >> 32)

extern "C" __global__ void same_operand(const unsigned* a, const unsigned long long* d,
                                        unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned long long wx = d[i];
    unsigned* o = out + i * 16;
    unsigned r;
    unsigned long long w;
    int k = 0;
    D4R_SAME32("max.f32");
    D4R_SAME32("min.f32");
    D4R_SAME32("max.ftz.f32");
    D4R_SAME32("min.ftz.f32");
    D4R_SAME32("max.NaN.f32");
    D4R_SAME32("add.f32");
    D4R_SAME64("max.f64");
    D4R_SAME64("min.f64");
    D4R_SAME64("add.f64");
}

extern "C" __global__ void ptxas_context(const unsigned short* h, const unsigned long long* d,
                                         const unsigned* f, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = h[i];
    const unsigned long long y = d[i];
    const unsigned z = f[i];
    unsigned* o = out + i * 8;
    unsigned r;
    unsigned short s;
    asm("{\n\t.reg .b16 t;\n\tcnot.b16 t, %1;\n\tcvt.rzi.s16.f16 %0, t;\n\t}" : "=h"(s) : "h"(x));
    o[0] = s;
    asm("{\n\t.reg .b16 t;\n\tcnot.b16 t, %1;\n\tcvt.f32.f16 %0, t;\n\t}" : "=r"(r) : "h"(x));
    o[1] = r;
    asm("{\n\t.reg .b16 t;\n\tcnot.b16 t, %1;\n\tcvt.rni.u16.f16 %0, t;\n\t}" : "=h"(s) : "h"(x));
    o[2] = s;
    asm("{\n\t.reg .b32 t;\n\tcvt.rmi.s32.f64 t, %1;\n\tcvt.rn.satfinite.bf16.f32 %0, t;\n\t}"
        : "=h"(s) : "l"(y));
    o[3] = s;
    asm("{\n\t.reg .b32 t;\n\tcvt.rmi.s32.f64 t, %1;\n\tcvt.rn.bf16.f32 %0, t;\n\t}" : "=h"(s)
        : "l"(y));
    o[4] = s;
    asm("{\n\t.reg .b32 t;\n\tcvt.rmi.s32.f64 t, %1;\n\tcvt.rn.satfinite.f16.f32 %0, t;\n\t}"
        : "=h"(s) : "l"(y));
    o[5] = s;
    asm("{\n\t.reg .b32 t;\n\tadd.u32 t, %1, %1;\n\tcvt.rp.ftz.f16.f32 %0, t;\n\t}" : "=h"(s)
        : "r"(z));
    o[6] = s;
    asm("{\n\t.reg .b32 t;\n\tcvt.rmi.s32.f64 t, %1;\n\tmov.b32 %0, t;\n\t}" : "=r"(r) : "l"(y));
    o[7] = r;
}
