// d4r-isa-ptx: control_more.sm_90.ptx -arch=sm_90 -O3
// Control flow and module forms beyond stage 1's (issue 11's coverage table):
// - func_exit: `exit` inside a .func, two calls deep (the thread ends in the callee; the caller's
//   code after the call never runs for it; what it stored before the exit stays);
// - indirect_call: calls through a register with a .callprototype: a __constant__ table of function
//   addresses (an initialiser naming functions), a function address chosen by selp, and a void
//   function called through a pointer;
// - symbol_inits: module variables whose initialisers name symbols: `generic(sym)+4` in .global and
//   .const, arrays of addresses of a .global and of a .const array;
// - alloca_stack: alloca (a per-thread stack in .local) of a data-dependent size in the kernel and
//   in a .func called in a loop, with the 16-byte alignment checked (nvcc only: clang 19 writes
//   `alloca.u64 d, n, 0`, which ptxas refuses: "Alignment must be a power of two");
// - named_barriers: a producer/consumer hand-off over two named barriers with thread counts (warps
//   0-1 produce into shared memory, warps 2-3 consume, four rounds: bar.sync/barrier.sync with a
//   count, bar.arrive) and a barrier whose id and count are registers;
// - alias_call (clang only: nvcc does not write .alias): `.alias alias_fn, base_fn`.
#include <alloca.h>
#include "isa_common.cuh"

__device__ __noinline__ void exit_if(unsigned x)
{
    if (x % 3u == 0u) {
        asm volatile("exit;" ::: "memory");
    }
}

__device__ __noinline__ unsigned exit_nested(unsigned* out, unsigned i, unsigned x)
{
    out[i] = x ^ 0x5a5a5a5au; // stored before the exit
    exit_if(x >> 4);
    return x * 7u + 1u;
}

extern "C" __global__ void func_exit(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    const unsigned y = exit_nested(out, i, x);
    out[n + i] = y ^ i; // only threads that did not exit
}

typedef unsigned (*binary_op)(unsigned, unsigned);
typedef void (*sink_op)(unsigned*, unsigned);

__device__ __noinline__ unsigned op_add(unsigned a, unsigned b) { return a + b * 3u; }
__device__ __noinline__ unsigned op_xor(unsigned a, unsigned b) { return (a ^ b) * 0x9e3779b1u; }
__device__ __noinline__ unsigned op_mul(unsigned a, unsigned b) { return a * (b | 1u); }
__device__ __noinline__ unsigned op_rot(unsigned a, unsigned b) { return (a << (b & 31u)) | (a >> ((32u - b) & 31u)); }
__device__ __noinline__ void sink_low(unsigned* p, unsigned v) { *p = v & 0xffffu; }
__device__ __noinline__ void sink_high(unsigned* p, unsigned v) { *p = v >> 16; }

__constant__ binary_op k_ops[4] = {op_add, op_xor, op_mul, op_rot};
__device__ sink_op g_sinks[2] = {sink_low, sink_high};

extern "C" __global__ void indirect_call(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    const unsigned a = k_ops[x & 3u](x, i);
    const binary_op chosen = (x & 4u) != 0u ? op_mul : op_xor;
    const unsigned b = chosen(a, x >> 8);
    out[2 * i] = a;
    g_sinks[(x >> 3) & 1u](out + 2 * i + 1, b);
}

__device__ unsigned g_data[8] = {11u, 22u, 33u, 44u, 55u, 66u, 77u, 88u};
__device__ unsigned* g_ptr = g_data + 3;
__device__ unsigned* g_ptrs[3] = {g_data, g_data + 5, &g_data[7]};
__constant__ unsigned c_data[4] = {0x1000u, 0x2000u, 0x3000u, 0x4000u};
__constant__ const unsigned* c_ptrs[2] = {c_data, c_data + 2};
__device__ const unsigned* g_to_const = c_data + 1;

extern "C" __global__ void symbol_inits(unsigned* out)
{
    const unsigned t = threadIdx.x;
    out[t] = g_ptr[t & 3u] + *g_ptrs[t % 3u] + *c_ptrs[t & 1u] + g_to_const[t % 3u] * (t + 1u);
}

#ifndef __clang__
__device__ __noinline__ unsigned stack_sum(unsigned x, unsigned k)
{
    const unsigned count = 1u + (x + k) % 23u;
    unsigned* scratch = static_cast<unsigned*>(alloca(count * sizeof(unsigned)));
    for (unsigned j = 0; j < count; ++j) {
        scratch[j] = x * (j + 1u) + k;
    }
    unsigned sum = 0;
    for (unsigned j = 0; j < count; j += 1u + (x & 1u)) {
        sum = sum * 31u + scratch[(j * 7u) % count];
    }
    return sum;
}

extern "C" __global__ void alloca_stack(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    const unsigned count = 1u + x % 37u;
    unsigned* local = static_cast<unsigned*>(alloca(count * sizeof(unsigned)));
    for (unsigned j = 0; j < count; ++j) {
        local[j] = x ^ (j * 0x01010101u);
    }
    unsigned acc = local[(x >> 8) % count];
    for (unsigned k = 0; k < 3u; ++k) {
        acc += stack_sum(x, k);
    }
    out[3 * i] = acc;
    out[3 * i + 1] = local[count - 1u];
    out[3 * i + 2] = static_cast<unsigned>(reinterpret_cast<unsigned long long>(local) & 15u);
}
#endif

// Barrier 1 "full" (producers arrive, consumers wait), barrier 2 "empty" (consumers arrive,
// producers wait): 64 producer and 64 consumer threads each, 128 per barrier.
extern "C" __global__ void named_barriers(const unsigned* in, unsigned* out)
{
    __shared__ unsigned buffer[64];
    __shared__ unsigned tail[64];
    const unsigned t = threadIdx.x;
    const unsigned base = blockIdx.x * 256u;
    unsigned acc = 0;
    if (t < 64u) {
        for (unsigned r = 0; r < 4u; ++r) {
            asm volatile("bar.sync 2, 128;" ::: "memory");
            buffer[t] = in[base + r * 64u + t] * (r + 1u);
            asm volatile("bar.arrive 1, 128;" ::: "memory");
        }
    } else {
        const unsigned c = t - 64u;
        for (unsigned r = 0; r < 4u; ++r) {
            asm volatile("bar.arrive 2, 128;" ::: "memory");
            asm volatile("barrier.sync 1, 128;" ::: "memory");
            acc = acc * 3u + buffer[63u - c];
        }
        tail[c] = acc;
        // The consumers alone, on a barrier whose id and count are registers.
        asm volatile("barrier.sync.aligned %0, %1;" ::"r"(3u + (t >> 10)), "r"(blockDim.x - 64u) : "memory");
        acc += tail[(c + 1u) % 64u];
        out[blockIdx.x * 64u + c] = acc;
    }
}

#ifdef __clang__
extern "C" __device__ __attribute__((noinline)) unsigned base_fn(unsigned x)
{
    return x * 3u + 1u;
}
extern "C" __device__ unsigned alias_fn(unsigned x) __attribute__((alias("base_fn")));

extern "C" __global__ void alias_call(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i < static_cast<unsigned>(n)) {
        out[i] = alias_fn(in[i]);
    }
}
#endif
