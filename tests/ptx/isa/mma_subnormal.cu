// d4r-isa-ptx: mma_subnormal.sm_90.ptx -arch=sm_90 -O3
// f32 tensor-core sums of tf32 and bf16 inputs where subnormals decide the result: a subnormal
// factor (its exponent as the tensor cores estimate it), products and sums below the smallest f32
// normal, and sums that round to zero (their sign). A, B and C come from three buffers, so each
// case fills them from its own range: thread t takes A words a[4 t ..], B words b[2 t ..] and C
// c[4 t ..] and writes out[12 t ..]: m16n8k4 tf32 (A words 0-1, B word 0), m16n8k8 tf32 (A words
// 0-3, B words 0-1), m16n8k8 bf16 (the high halves of those words, exact in bf16).
#include "isa_common.cuh"

extern "C" __global__ void mma_subnormal(const unsigned* a, const unsigned* b, const float* c,
                                         float* out)
{
    const unsigned t = D4R_GID;
    const unsigned* fa = a + 4 * t;
    const unsigned* fb = b + 2 * t;
    const float* fc = c + 4 * t;
    float* d = out + 12 * t;
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(fa[0]), "r"(fa[1]), "r"(fb[0]), "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
                 : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]),
                   "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]));
    const unsigned ba[2] = {(fa[0] >> 16) | (fa[1] & 0xffff0000u), (fa[2] >> 16) | (fa[3] & 0xffff0000u)};
    const unsigned bb = (fb[0] >> 16) | (fb[1] & 0xffff0000u);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11])
                 : "r"(ba[0]), "r"(ba[1]), "r"(bb), "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]));
}
