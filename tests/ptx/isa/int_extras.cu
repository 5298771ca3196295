// d4r-isa-ptx: int_extras.sm_90.ptx -arch=sm_90 -O3
// Integer instructions beyond stage 1's, written as inline PTX so that the exact forms are tested:
// - int_dot: dp4a and dp2a in every signedness combination (dp2a .lo and .hi), mul24 and mad24
//   (.lo and .hi, signed and unsigned, mad24.hi.sat.s32).
// - int_carry: carry chains, the way multi-word arithmetic is written: a 128-bit add and subtract
//   (add.cc / addc.cc / addc, sub.cc / subc.cc / subc), a multiply-add chain (mad.lo.cc /
//   madc.hi.cc / addc), the carry and borrow flags read back with addc / subc of zeros, and a
//   128-bit add in two 64-bit halves (add.cc.u64 / addc.u64).
#include "isa_common.cuh"

extern "C" __global__ void int_dot(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 18;
    unsigned r;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[0] = r;
    asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[1] = r;
    asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[2] = r;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[3] = r;
    asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[4] = r;
    asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[5] = r;
    asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[6] = r;
    asm("dp2a.hi.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[7] = r;
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[8] = r;
    asm("dp2a.hi.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[9] = r;
    asm("mul24.lo.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[10] = r;
    asm("mul24.hi.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[11] = r;
    asm("mul24.lo.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[12] = r;
    asm("mul24.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[13] = r;
    asm("mad24.lo.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[14] = r;
    asm("mad24.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[15] = r;
    asm("mad24.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[16] = r;
    asm("mad24.hi.sat.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[17] = r;
}

extern "C" __global__ void int_carry(const unsigned* a, const unsigned* b, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned* x = a + i * 4;
    const unsigned* y = b + i * 4;
    unsigned* o = out + i * 17;
    unsigned r0, r1, r2, r3, carry;
    asm("add.cc.u32 %0, %5, %9;\n\t"
        "addc.cc.u32 %1, %6, %10;\n\t"
        "addc.cc.u32 %2, %7, %11;\n\t"
        "addc.cc.u32 %3, %8, %12;\n\t"
        "addc.u32 %4, 0, 0;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3), "=r"(carry)
        : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
    o[0] = r0;
    o[1] = r1;
    o[2] = r2;
    o[3] = r3;
    o[4] = carry;
    unsigned borrow;
    asm("sub.cc.u32 %0, %5, %9;\n\t"
        "subc.cc.u32 %1, %6, %10;\n\t"
        "subc.cc.u32 %2, %7, %11;\n\t"
        "subc.cc.u32 %3, %8, %12;\n\t"
        "subc.u32 %4, 0, 0;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3), "=r"(borrow)
        : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
    o[5] = r0;
    o[6] = r1;
    o[7] = r2;
    o[8] = r3;
    o[9] = borrow;
    asm("mad.lo.cc.u32 %0, %3, %4, %5;\n\t"
        "madc.hi.cc.u32 %1, %3, %4, %6;\n\t"
        "addc.u32 %2, %7, 0;"
        : "=r"(r0), "=r"(r1), "=r"(r2)
        : "r"(x[0]), "r"(y[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]));
    o[10] = r0;
    o[11] = r1;
    o[12] = r2;
    const unsigned long long xl = (static_cast<unsigned long long>(x[1]) << 32) | x[0];
    const unsigned long long xh = (static_cast<unsigned long long>(x[3]) << 32) | x[2];
    const unsigned long long yl = (static_cast<unsigned long long>(y[1]) << 32) | y[0];
    const unsigned long long yh = (static_cast<unsigned long long>(y[3]) << 32) | y[2];
    unsigned long long sl, sh;
    asm("add.cc.u64 %0, %2, %4;\n\t"
        "addc.u64 %1, %3, %5;"
        : "=l"(sl), "=l"(sh)
        : "l"(xl), "l"(xh), "l"(yl), "l"(yh));
    o[13] = static_cast<unsigned>(sl);
    o[14] = static_cast<unsigned>(sl >> 32);
    o[15] = static_cast<unsigned>(sh);
    o[16] = static_cast<unsigned>(sh >> 32);
}
