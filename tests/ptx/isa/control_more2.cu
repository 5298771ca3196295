// d4r-isa-ptx: control_more2.sm_90.ptx -arch=sm_90 -O3
// More of control_more.cu's forms, in a file of their own so that the PTX its cases were recorded
// from stays as it was:
// - exit_indirect: `exit` in a function called through a register (a __constant__ table of two
//   function addresses; one of them exits for some inputs);
// - barrier_mixed: barrier 1 with a thread count (warps 0-1) and then without one (the whole
//   block), so that both forms of one barrier id meet;
// - packed_pointer: a packed struct holding pointers, which nvcc and clang initialise byte by byte
//   with PTX 7.1's masks (`0xFF00(generic(sym)+8)`).
#include "isa_common.cuh"

typedef unsigned (*unary_op)(unsigned);

__device__ __noinline__ unsigned maybe_exit(unsigned x)
{
    if (x % 5u == 0u) {
        asm volatile("exit;" ::: "memory");
    }
    return x + 1u;
}

__device__ __noinline__ unsigned keep(unsigned x)
{
    return x * 2u;
}

__constant__ unary_op k_unary[2] = {maybe_exit, keep};

extern "C" __global__ void exit_indirect(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    out[i] = x ^ 0xa5a5a5a5u; // stored before a possible exit
    const unsigned y = k_unary[(x >> 3) & 1u](x);
    out[n + i] = y; // only threads that did not exit
}

extern "C" __global__ void barrier_mixed(const unsigned* in, unsigned* out)
{
    __shared__ unsigned a[128];
    __shared__ unsigned b[64];
    const unsigned t = threadIdx.x;
    a[t] = in[blockIdx.x * 128u + t];
    if (t < 64u) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        b[t] = a[63u - t] * 3u + t;
    }
    asm volatile("bar.sync 1;" ::: "memory");
    out[blockIdx.x * 128u + t] = b[(t + 5u) % 64u] + a[127u - t];
}

__device__ unsigned g_words[8] = {3u, 1u, 4u, 1u, 5u, 9u, 2u, 6u};
__constant__ unsigned c_words[4] = {27u, 18u, 28u, 18u};
struct __attribute__((packed)) Packed {
    unsigned char tag;
    unsigned* words;
    unsigned short count;
    const unsigned* constants;
};
__device__ Packed g_packed = {7, g_words + 2, 5, c_words + 1};

extern "C" __global__ void packed_pointer(unsigned* out)
{
    const unsigned t = threadIdx.x;
    const Packed p = g_packed;
    out[t] = p.words[t % p.count] * 10u + p.constants[t % 3u] + p.tag;
}
