// d4r-isa-ptx: control.sm_90.ptx -arch=sm_90 -O3
// Stage 1 control flow and memory spaces: divergent data-dependent loops with break/continue and an
// early return, a __noinline__ device function (.func call), a local array indexed dynamically
// (forces .local), a .const table, and the special registers.
#include "isa_common.cuh"

__constant__ unsigned k_table[64] = {
    0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0x082efa98u, 0xec4e6c89u,
    0x452821e6u, 0x38d01377u, 0xbe5466cfu, 0x34e90c6cu, 0xc0ac29b7u, 0xc97c50ddu, 0x3f84d5b5u, 0xb5470917u,
    0x9216d5d9u, 0x8979fb1bu, 0xd1310ba6u, 0x98dfb5acu, 0x2ffd72dbu, 0xd01adfb7u, 0xb8e1afedu, 0x6a267e96u,
    0xba7c9045u, 0xf12c7f99u, 0x24a19947u, 0xb3916cf7u, 0x0801f2e2u, 0x858efc16u, 0x636920d8u, 0x71574e69u,
    0xa458fea3u, 0xf4933d7eu, 0x0d95748fu, 0x728eb658u, 0x718bcd58u, 0x82154aeeu, 0x7b54a41du, 0xc25a59b5u,
    0x9c30d539u, 0x2af26013u, 0xc5d1b023u, 0x286085f0u, 0xca417918u, 0xb8db38efu, 0x8e79dcb0u, 0x603a180eu,
    0x6c9e0e8bu, 0xb01e8a3eu, 0xd71577c1u, 0xbd314b27u, 0x78af2fdau, 0x55605c60u, 0xe65525f3u, 0xaa55ab94u,
    0x57489862u, 0x63e81440u, 0x55ca396au, 0x2aab10b6u, 0xb4cc5c34u, 0x1141e8ceu, 0xa15486afu, 0x7c72e993u,
};

__device__ __noinline__ unsigned mix(unsigned a, unsigned b)
{
    unsigned h = a * 0x9e3779b1u + b;
    if (h & 1u) {
        return h ^ (h >> 15);
    }
    return h * 0x85ebca6bu;
}

extern "C" __global__ void control_flow(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    if ((x & 0xf) == 3) {
        out[i] = 0xdead0000u | i;
        return;
    }
    unsigned acc = x;
    const unsigned trips = x % 37;
    for (unsigned k = 0; k < trips; ++k) {
        if ((acc & 7u) == 5u) {
            acc += 3;
            continue;
        }
        acc = mix(acc, k);
        if (acc % 97u == 1u) {
            break;
        }
    }
    unsigned w = 0;
    while (acc != 0 && w < 40) {
        acc &= acc - 1;
        ++w;
    }
    out[i] = acc ^ (w << 24) ^ mix(x, trips);
}

extern "C" __global__ void local_and_const(const unsigned* in, const unsigned* idx, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    unsigned local[24];
    for (int k = 0; k < 24; ++k) {
        local[k] = in[(i + k) % n] ^ k_table[(i + k) & 63];
    }
    const unsigned j = idx[i];
    local[j % 24] += j;
    local[(j >> 8) % 24] ^= local[(j >> 16) % 24];
    unsigned sum = 0;
    for (int k = 0; k < 24; ++k) {
        sum = sum * 31u + local[(k * 7 + j) % 24];
    }
    out[i * 2] = sum;
    out[i * 2 + 1] = k_table[j & 63] ^ k_table[(j >> 6) & 63];
}

extern "C" __global__ void special_regs(unsigned* out)
{
    const unsigned linear_block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned linear_thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned* o = out + (linear_block * threads + linear_thread) * 16;
    o[0] = threadIdx.x;
    o[1] = threadIdx.y;
    o[2] = threadIdx.z;
    o[3] = blockDim.x | blockDim.y << 10 | blockDim.z << 20;
    o[4] = blockIdx.x;
    o[5] = blockIdx.y;
    o[6] = blockIdx.z;
    o[7] = gridDim.x | gridDim.y << 10 | gridDim.z << 20;
    o[8] = lane_id();
    unsigned r;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(r));
    o[9] = r;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
    o[10] = r;
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(r));
    o[11] = r;
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(r));
    o[12] = r;
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r));
    o[13] = r;
    o[14] = warpSize;
    o[15] = linear_thread / 32;
}
