// Shared by the ISA test kernels in this folder (our own code). Each kernel reads its inputs from
// buffers, so one kernel serves the random, the edge and the exhaustive cases in tests/golden/cases.
#pragma once

#define D4R_GID (blockIdx.x * blockDim.x + threadIdx.x)
#define D4R_FULL 0xffffffffu

__device__ __forceinline__ unsigned lane_id()
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
