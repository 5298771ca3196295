// d4r-isa-ptx: converged.sm_90.ptx -arch=sm_90 -O3
// activemask (which names no member lanes) after warp collectives that some lanes of the warp
// skip: a shfl.sync of the lanes a per-warp mask selects, then activemask where the warp is
// converged again, inside a branch, and after a vote.sync of the same lanes. Random differential
// testing found the CPU executor answering with the lanes that happened to arrive first.
#include "isa_common.cuh"

// masks: one member mask per warp; out: 4 words per thread.
extern "C" __global__ void activemask_after_partial(const unsigned* values, const unsigned* masks,
                                                    unsigned* out)
{
    const unsigned g = D4R_GID;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned mask = masks[g / 32] | (1u << (g / 32 % 32)); // never empty
    unsigned v = values[g];
    if ((mask >> lane) & 1u) {
        v = __shfl_sync(mask, v, __ffs(mask) - 1);
    }
    unsigned after_shfl;
    asm volatile("activemask.b32 %0;" : "=r"(after_shfl));
    unsigned in_branch = 0;
    if (lane < 20u) {
        asm volatile("activemask.b32 %0;" : "=r"(in_branch));
    }
    unsigned ballot = 0;
    if ((mask >> lane) & 1u) {
        ballot = __ballot_sync(mask, v & 1u);
    }
    unsigned after_vote;
    asm volatile("activemask.b32 %0;" : "=r"(after_vote));
    unsigned* o = out + g * 4;
    o[0] = after_shfl;
    o[1] = in_branch;
    o[2] = ballot ^ v;
    o[3] = after_vote;
}
