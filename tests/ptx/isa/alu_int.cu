// d4r-isa-ptx: alu_int.sm_90.ptx -arch=sm_90 -O3
// Stage 1 integer ALU. Where C++ leaves a result undefined (division by zero, INT_MIN / -1, shifts
// by the width or more) the instruction is written as inline PTX so the exact PTX form is tested.
#include "isa_common.cuh"

extern "C" __global__ void int_arith32(const int* a, const int* b, int* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const int x = a[i];
    const int y = b[i];
    const unsigned ux = static_cast<unsigned>(x);
    const unsigned uy = static_cast<unsigned>(y);
    int* o = out + i * 16;
    o[0] = static_cast<int>(ux + uy);
    o[1] = static_cast<int>(ux - uy);
    o[2] = static_cast<int>(ux * uy);
    o[3] = __mulhi(x, y);
    o[4] = static_cast<int>(__umulhi(ux, uy));
    int r;
    asm("mad.lo.s32 %0, %1, %2, %1;" : "=r"(r) : "r"(x), "r"(y));
    o[5] = r;
    asm("div.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[6] = r;
    asm("rem.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[7] = r;
    asm("div.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[8] = r;
    asm("rem.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[9] = r;
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[10] = r;
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[11] = r;
    asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[12] = r;
    o[13] = min(x, y);
    o[14] = static_cast<int>(max(ux, uy));
    asm("abs.s32 %0, %1;" : "=r"(r) : "r"(x));
    o[15] = r;
}

extern "C" __global__ void int_arith64(const long long* a, const long long* b, long long* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const long long x = a[i];
    const long long y = b[i];
    const unsigned long long ux = static_cast<unsigned long long>(x);
    const unsigned long long uy = static_cast<unsigned long long>(y);
    long long* o = out + i * 12;
    o[0] = static_cast<long long>(ux + uy);
    o[1] = static_cast<long long>(ux * uy);
    o[2] = __mul64hi(x, y);
    o[3] = static_cast<long long>(__umul64hi(ux, uy));
    long long r;
    asm("div.s64 %0, %1, %2;" : "=l"(r) : "l"(x), "l"(y));
    o[4] = r;
    asm("rem.s64 %0, %1, %2;" : "=l"(r) : "l"(x), "l"(y));
    o[5] = r;
    asm("div.u64 %0, %1, %2;" : "=l"(r) : "l"(x), "l"(y));
    o[6] = r;
    asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(static_cast<unsigned>(y)));
    o[7] = r;
    asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(static_cast<unsigned>(y)));
    o[8] = r;
    o[9] = static_cast<long long>(static_cast<int>(x)) * static_cast<long long>(static_cast<int>(y));
    o[10] = static_cast<long long>(static_cast<unsigned long long>(static_cast<unsigned>(x)) *
                                   static_cast<unsigned>(y));
    o[11] = static_cast<long long>(__brevll(ux) ^ static_cast<unsigned long long>(__clzll(x) + __popcll(uy)));
}

extern "C" __global__ void int_bits(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 16;
    o[0] = __popc(x);
    o[1] = __clz(x);
    o[2] = __brev(x);
    unsigned r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y & 0xffu), "r"(z & 0xffu));
    o[3] = r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y & 0xffu), "r"(z & 0xffu));
    o[4] = r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(z & 0xffu), "r"((z >> 8) & 0xffu));
    o[5] = r;
    o[6] = __byte_perm(x, y, z);
    o[7] = __ffs(static_cast<int>(x));
    o[8] = __funnelshift_l(x, y, z);
    o[9] = __funnelshift_rc(x, y, z);
    o[10] = __sad(static_cast<int>(x), static_cast<int>(y), z);
    o[11] = static_cast<unsigned>(__hadd(static_cast<int>(x), static_cast<int>(y)));
    o[12] = __urhadd(x, y);
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
    o[13] = r;
    asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(x));
    o[14] = r;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[15] = r;
}
