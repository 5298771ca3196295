// d4r-isa-ptx: sync_extras.sm_90.ptx -arch=sm_90 -O3
// Barrier and atomic forms beyond stage 2's:
// - bar_reduce: bar.red.popc / .and / .or (__syncthreads_count / _and / _or) on bits of the input,
//   bar.red.popc on barrier 1 with an explicit thread count, and a producer/consumer hand-off over
//   named barrier 2 (warp 0 writes shared memory and bar.arrive, warp 1 bar.sync and reads).
// - atom_half: atom.add.noftz on .f16, .f16x2, .bf16 and .bf16x2 (atomicAdd on __half, __half2,
//   __nv_bfloat16, __nv_bfloat162) and red.add.noftz.f16x2. The cases add small integers, whose
//   sums are exact in any order, so the results are deterministic.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "isa_common.cuh"

extern "C" __global__ void bar_reduce(const unsigned* in, unsigned* out, unsigned* handed)
{
    __shared__ unsigned buffer[32];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    const unsigned v = in[g];
    const int count = __syncthreads_count(v & 1u);
    const int all = __syncthreads_and(v & 2u);
    const int any = __syncthreads_or(v & 4u);
    unsigned count8;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tbar.red.popc.u32 %0, 1, %2, p;\n\t}"
                 : "=r"(count8)
                 : "r"(v & 8u), "r"(blockDim.x));
    out[g * 4 + 0] = static_cast<unsigned>(count);
    out[g * 4 + 1] = static_cast<unsigned>(all);
    out[g * 4 + 2] = static_cast<unsigned>(any);
    out[g * 4 + 3] = count8;
    const unsigned warp = t / 32;
    const unsigned lane = t % 32;
    if (warp == 0) {
        buffer[lane] = v * 3u + blockIdx.x;
        asm volatile("bar.arrive 2, 64;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        handed[blockIdx.x * 32 + lane] = buffer[31 - lane];
    }
}

extern "C" __global__ void atom_half(const __half* h, const __nv_bfloat16* bh, __half* acc_h, __half2* acc_h2,
                                     __nv_bfloat16* acc_b, __nv_bfloat162* acc_b2, __half2* red_h2, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned slot = i % 8;
    const __half a = h[i];
    const __half b = h[(i + 1) % static_cast<unsigned>(n)];
    const __nv_bfloat16 c = bh[i];
    const __nv_bfloat16 d = bh[(i + 3) % static_cast<unsigned>(n)];
    const __half2 ab = __halves2half2(a, b);
    unsigned ab_bits;
    memcpy(&ab_bits, &ab, sizeof(ab_bits));
    atomicAdd(acc_h + slot, a);
    atomicAdd(acc_h2 + slot, ab);
    atomicAdd(acc_b + slot, c);
    atomicAdd(acc_b2 + slot, __halves2bfloat162(c, d));
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" : : "l"(red_h2 + slot), "r"(ab_bits) : "memory");
}
