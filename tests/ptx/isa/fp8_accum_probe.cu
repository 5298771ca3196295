// d4r-isa-ptx: fp8_accum_probe.sm_90.ptx -arch=sm_90 -O3
// FP8 mma.sync with f16 C and D (the f32 forms are matrix_more.cu's mma_fp8). On sm_90 ptxas
// turns an FP8 mma.sync into f16 tensor-core steps: the FP8 bytes widened to f16 (exact), one
// m16n8k8 (k16) or m16n8k16 (k32) HMMA per half of K from a zero accumulator, the second taking
// the first's result, then C added by a separate add (HADD2 here, FADD for f32 C). These cases
// check mma_fragments.hpp mma_fp8_sum's model of that chain where the accumulator is f16.
// Lane l takes A from in[8 l ..], B from in[256 + 4 l ..], C (two f16x2 words) from cin[2 l ..];
// its D words go to out[64 f + 2 l ..] for form f: m16n8k16 e4m3.e4m3, m16n8k16 e5m2.e5m2,
// m16n8k32 e4m3.e4m3, m16n8k32 e5m2.e4m3.
#include "isa_common.cuh"

extern "C" __global__ void fp8_accum_f16(const unsigned* in, const unsigned* cin, unsigned* out)
{
    const unsigned l = lane_id();
    const unsigned* a = in + 8 * l;
    const unsigned* b = in + 256 + 4 * l;
    const unsigned* c = cin + 2 * l;
    unsigned* d = out + 2 * l;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3}, {%4}, "
                 "{%5, %6};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16 {%0, %1}, {%2, %3}, {%4}, "
                 "{%5, %6};"
                 : "=r"(d[64]), "=r"(d[65])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, "
                 "{%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(d[128]), "=r"(d[129])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16 {%0, %1}, "
                 "{%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(d[192]), "=r"(d[193])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]));
}
