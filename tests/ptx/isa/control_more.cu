// d4r-isa-ptx: control_more.sm_90.ptx -arch=sm_90 -O3
// d4r-isa-ptx: control_more_branch.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_BRANCH=1
// d4r-isa-ptx: control_more_brkpt.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_BRKPT=1
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

#if !defined(D4R_PART_BRANCH) && !defined(D4R_PART_BRKPT)

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
#endif

// Added after the kernels above were recorded, in PTX files of their own (D4R_PART_*), so that
// control_more.sm_90.ptx stays as its cases were recorded from, and brkpt (which may stop the
// module) costs only its own case:
// - space_probe: isspacep on every kind of generic address a kernel can make: global buffers, a
//   __device__ variable, static .shared, a .local array, a __constant__ array, a __grid_constant__
//   parameter (cvta.param) and the null pointer; each output is a bit mask of the spaces the H200
//   says the address is in; space_probe_func: such addresses and a .func's own .local array
//   seen from a .func;
// - branch_index: brx.idx over a .branchtargets list (divergent indices, a target listed twice),
//   and brx.idx.uni driving a loop (a warp-uniform state machine that also branches backwards);
// - branch_index_oob: brx.idx with an index past the list for some threads (undefined in the
//   ISA): the H200 hung (the recording's 120 s limit), so it has no case and the translator traps;
// - breakpoint: brkpt in a few threads, with stores before and after: without a debugger the H200
//   fails the launch (CUDA_ERROR_LAUNCH_FAILED), as a trap does.
#if defined(D4R_PART_BRANCH)
struct SpaceParams {
    unsigned words[4];
};

__device__ unsigned g_space_word[4];
__constant__ unsigned c_space_words[4] = {5u, 6u, 7u, 8u};

// Bit 0 .global, 1 .shared, 2 .shared::cta, 3 .local, 4 .const, 5 .param, 6 .param::entry,
// 7 .shared::cluster (sm_90 only).
#define D4R_SPACE_BIT(space, bit)                                                                  \
    "isspacep." space " q, %1;\n\t"                                                                \
    "selp.u32 s, " bit ", 0, q;\n\t"                                                               \
    "or.b32 r, r, s;\n\t"
#if __CUDA_ARCH__ >= 900
#define D4R_SPACE_CLUSTER D4R_SPACE_BIT("shared::cluster", "128")
#else
#define D4R_SPACE_CLUSTER
#endif
#define D4R_SPACE_COMMON                                                                           \
    ".reg .pred q;\n\t"                                                                            \
    ".reg .u32 r, s;\n\t"                                                                          \
    "mov.u32 r, 0;\n\t" D4R_SPACE_BIT("global", "1") D4R_SPACE_BIT("shared", "2")                  \
        D4R_SPACE_BIT("shared::cta", "4") D4R_SPACE_BIT("local", "8") D4R_SPACE_BIT("const", "16")  \
            D4R_SPACE_CLUSTER

__device__ __forceinline__ unsigned space_mask(const void* p)
{
    unsigned mask;
    asm volatile("{\n\t" D4R_SPACE_COMMON D4R_SPACE_BIT("param", "32")
                     D4R_SPACE_BIT("param::entry", "64") "mov.u32 %0, r;\n\t}"
                 : "=r"(mask)
                 : "l"(p));
    return mask;
}

// Without the .param bits: a .func cannot know the parameter window of the kernel that called it.
__device__ __forceinline__ unsigned space_mask_no_param(const void* p)
{
    unsigned mask;
    asm volatile("{\n\t" D4R_SPACE_COMMON "mov.u32 %0, r;\n\t}" : "=r"(mask) : "l"(p));
    return mask;
}

// 10 outputs per thread.
extern "C" __global__ void space_probe(const unsigned* in, unsigned* out,
                                       const __grid_constant__ SpaceParams params)
{
    __shared__ unsigned tile[64];
    unsigned local[8];
    const unsigned t = threadIdx.x;
    const unsigned x = in[t];
    tile[t] = x;
    for (unsigned k = 0; k < 8u; ++k) {
        local[k] = x * (k + 1u);
    }
    __syncthreads();
    unsigned* o = out + 10u * t;
    o[0] = space_mask(in + t);
    o[1] = space_mask(o);
    o[2] = space_mask(&g_space_word[t & 3u]);
    o[3] = space_mask(&tile[(t + x) & 63u]);
    o[4] = space_mask(&local[x & 7u]);
    o[5] = space_mask(&c_space_words[t & 3u]);
    o[6] = space_mask(&params.words[t & 3u]);
    o[7] = space_mask(&params.words[0]) | (space_mask(&c_space_words[3]) << 8);
    o[8] = space_mask(nullptr);
    o[9] = local[(x >> 3) & 7u] + tile[(t + 1u) & 63u] + params.words[x & 3u];
}

// The masks of its own .local array and of `p` in a .func, and a word of the array.
__device__ __noinline__ unsigned func_masks(const void* p, unsigned x)
{
    unsigned scratch[8];
    for (unsigned k = 0; k < 8u; ++k) {
        scratch[k] = x + k;
    }
    return space_mask_no_param(&scratch[x & 7u]) | (space_mask_no_param(p) << 8) |
           ((scratch[(x >> 3) & 7u] & 0xffffu) << 16);
}

// The same addresses seen from a .func (no kernel parameter's address in this kernel): 5 outputs
// per thread.
extern "C" __global__ void space_probe_func(const unsigned* in, unsigned* out)
{
    __shared__ unsigned tile[64];
    unsigned local[8];
    const unsigned t = threadIdx.x;
    const unsigned x = in[t];
    tile[t] = x;
    for (unsigned k = 0; k < 8u; ++k) {
        local[k] = x ^ k;
    }
    __syncthreads();
    unsigned* o = out + 5u * t;
    o[0] = func_masks(in + t, x);
    o[1] = func_masks(&tile[(t + x) & 63u], x >> 1);
    o[2] = func_masks(&local[x & 7u], x >> 2);
    o[3] = func_masks(&c_space_words[t & 3u], x >> 3);
    o[4] = func_masks(nullptr, x >> 4) + local[(x >> 5) & 7u] + tile[(t + 3u) & 63u];
}

// The result of one brx.idx over six targets (L0 twice) for index x % 6.
__device__ __forceinline__ unsigned branch_six(unsigned x)
{
    unsigned r;
    asm volatile("{\n\t"
                 ".reg .u32 idx;\n\t"
                 "rem.u32 idx, %1, 6;\n\t"
                 "ts: .branchtargets L0, L1, L2, L0, L3, L4;\n\t"
                 "brx.idx idx, ts;\n\t"
                 "L0:\n\t"
                 "mul.lo.u32 %0, %1, 3;\n\t"
                 "bra.uni done;\n\t"
                 "L1:\n\t"
                 "add.u32 %0, %1, 17;\n\t"
                 "bra.uni done;\n\t"
                 "L2:\n\t"
                 "xor.b32 %0, %1, 0x5a5a;\n\t"
                 "bra.uni done;\n\t"
                 "L3:\n\t"
                 "shl.b32 %0, %1, 3;\n\t"
                 "bra.uni done;\n\t"
                 "L4:\n\t"
                 "not.b32 %0, %1;\n\t"
                 "done:\n\t"
                 "}"
                 : "=r"(r)
                 : "r"(x));
    return r;
}

// A state machine over four states whose index is warp-uniform (the step count), so brx.idx.uni;
// state 3 jumps back to the loop head.
__device__ __forceinline__ unsigned branch_loop(unsigned x, unsigned steps)
{
    unsigned acc;
    asm volatile("{\n\t"
                 ".reg .u32 k, idx;\n\t"
                 ".reg .pred more;\n\t"
                 "mov.u32 %0, %1;\n\t"
                 "mov.u32 k, 0;\n\t"
                 "head:\n\t"
                 "setp.lt.u32 more, k, %2;\n\t"
                 "@!more bra.uni out;\n\t"
                 "and.b32 idx, k, 3;\n\t"
                 "add.u32 k, k, 1;\n\t"
                 "tl: .branchtargets S0, S1, S2, head;\n\t"
                 "brx.idx.uni idx, tl;\n\t"
                 "S0:\n\t"
                 "mad.lo.u32 %0, %0, 5, 1;\n\t"
                 "bra.uni head;\n\t"
                 "S1:\n\t"
                 "shr.u32 idx, %0, 7;\n\t"
                 "xor.b32 %0, %0, idx;\n\t"
                 "bra.uni head;\n\t"
                 "S2:\n\t"
                 "add.u32 %0, %0, k;\n\t"
                 "bra.uni head;\n\t"
                 "out:\n\t"
                 "}"
                 : "=r"(acc)
                 : "r"(x), "r"(steps));
    return acc;
}

extern "C" __global__ void branch_index(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    out[2 * i] = branch_six(x);
    out[2 * i + 1] = branch_loop(x, 5u + blockIdx.x * 3u);
}

// Index x for the list L0, L1, L2: 3 and more are past its end.
extern "C" __global__ void branch_index_oob(const unsigned* in, unsigned* out)
{
    const unsigned t = threadIdx.x;
    const unsigned x = in[t];
    out[2 * t] = x;
    unsigned r;
    asm volatile("{\n\t"
                 "ts: .branchtargets L0, L1, L2;\n\t"
                 "mov.u32 %0, 0xdead;\n\t"
                 "brx.idx %1, ts;\n\t"
                 "L0:\n\t"
                 "add.u32 %0, %0, 1;\n\t"
                 "L1:\n\t"
                 "add.u32 %0, %0, 2;\n\t"
                 "L2:\n\t"
                 "add.u32 %0, %0, 4;\n\t"
                 "}"
                 : "=r"(r)
                 : "r"(x));
    out[2 * t + 1] = r;
}

#endif

#if defined(D4R_PART_BRKPT)
// brkpt in the threads whose input is odd; every thread stores before and after.
extern "C" __global__ void breakpoint(const unsigned* in, unsigned* out)
{
    const unsigned t = threadIdx.x;
    const unsigned x = in[t];
    out[2 * t] = x + 1u;
    if ((x & 1u) != 0u) {
        asm volatile("brkpt;" ::: "memory");
    }
    out[2 * t + 1] = x * 3u;
}
#endif
