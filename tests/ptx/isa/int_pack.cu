// d4r-isa-ptx: int_pack.sm_90.ptx -arch=sm_90 -O3
// bmsk (.clamp, .wrap), every integer cvt.pack.sat form (lower_int_pack.cpp) and nanosleep
// (lower_sleep.cpp: no result; the store after it shows the thread went on).
#include "isa_common.cuh"

extern "C" __global__ void int_pack(const unsigned* a, const unsigned* b, const unsigned* c,
                                    unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = a[i];
    const unsigned y = b[i];
    const unsigned z = c[i];
    unsigned* o = out + i * 12;
    unsigned r;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[0] = r;
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[1] = r;
    asm("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[2] = r;
    asm("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[3] = r;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[4] = r;
    asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[5] = r;
    asm("cvt.pack.sat.u4.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[6] = r;
    asm("cvt.pack.sat.s4.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[7] = r;
    asm("cvt.pack.sat.u2.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[8] = r;
    asm("cvt.pack.sat.s2.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    o[9] = r;
    asm volatile("nanosleep.u32 %0;" ::"r"(z & 255u));
    asm volatile("nanosleep.u32 100;");
    o[10] = 1;
    // bmsk with immediates, as the ISA's example.
    asm("bmsk.wrap.b32 %0, 1, 2;" : "=r"(r));
    o[11] = r;
}
