// d4r-isa-ptx: mbarrier_bulk.sm_90.ptx -arch=sm_90 -O3
// mbarrier, the bulk asynchronous copies and the sm_90 atom forms (lower_mbarrier.cpp,
// lower_async_copy.cpp, lower_memory.cpp):
// - mbar_sequence: each thread drives its own barrier through a script drawn from its input
//   (init, arrive with and without a count, arrive.expect_tx, expect_tx, complete_tx, arrive_drop,
//   arrive.noComplete, inval and init again); a shadow model in the kernel only picks legal
//   operands. Each step records pending_count of the state it got, test_wait / try_wait on the
//   last state and on both parities (out 0), and the raw state and barrier word (out 1: the
//   opaque encoding).
// - mbar_pipeline: warp 0 produces into a two-slot ring, warps 1-2 consume; full/empty barriers
//   waited on with try_wait.parity spin loops; then rounds of a whole-block barrier built from
//   arrive + test_wait(state) spin loops.
// - mbar_bulk_*: cp.async.bulk global -> shared with complete_tx (load), shared::cta ->
//   shared::cluster copy and reduction (shared), shared -> global with bulk groups and
//   cp.reduce.async.bulk's integer operations (store), .multicast::cluster with ctaMask 1
//   (multicast); cp.async.mbarrier.arrive(.noinc)
//   (mbar_cp_async_arrive); st.async and red.async to the own CTA (mbar_st_async).
//   The H200 stops mbar_bulk_shared and mbar_st_async with an illegal instruction in a launch
//   without clusters (they write a peer CTA; a cluster of one has none): those kernels have no
//   case and the translator rejects their forms; mbar_bulk_s2s_copy / _s2s_reduce /
//   mbar_red_async, each form alone, were refused alike (recording window 3).
// - atom_extras: atom.cas.b16, .b128 exch/cas, vector add on f32/f16/bf16, half min/max,
//   .L2::cache_hint.
#include "isa_common.cuh"

__device__ __forceinline__ unsigned smem(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ unsigned test_state(unsigned bar, unsigned long long state)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(bar), "l"(state) : "memory");
    return r;
}

__device__ __forceinline__ unsigned test_parity(unsigned bar, unsigned parity)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, "
                 "[%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(bar), "r"(parity)
                 : "memory");
    return r;
}

__device__ __forceinline__ unsigned try_state(unsigned bar, unsigned long long state)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared::cta.b64 p, [%1], %2, 200;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(bar), "l"(state) : "memory");
    return r;
}

__device__ __forceinline__ unsigned try_parity(unsigned bar, unsigned parity)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, "
                 "[%1], %2, 200;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(bar), "r"(parity)
                 : "memory");
    return r;
}

__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity)
{
    asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT_%=;\n\t}" :: "r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ unsigned long long raw(const unsigned long long* p)
{
    return *reinterpret_cast<const volatile unsigned long long*>(p);
}

// 16 steps per thread, 4 input words each step; out0: 2 words per step, out1: 2 u64 per step.
extern "C" __global__ void mbar_sequence(const unsigned* in, unsigned* out,
                                         unsigned long long* raws)
{
    __shared__ __align__(8) unsigned long long bars[64];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    const unsigned* w = in + g * 64;
    unsigned* o = out + g * 32;
    unsigned long long* r = raws + g * 32;
    const unsigned bar = smem(&bars[t]);
    int expected = 1 + static_cast<int>(w[0] % 9u);
    int pending = expected;
    int tx = 0;
    unsigned long long last = 0;
    int phase = 0;      // phases completed so far
    int last_phase = -2; // the phase `last` was taken in; test_wait on older states is undefined
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(expected) : "memory");
    for (int step = 0; step < 16; ++step) {
        const unsigned a = w[step * 4 + 1];
        const unsigned b = w[step * 4 + 2];
        const unsigned c = w[step * 4 + 3];
        unsigned long long state = 0;
        unsigned got_state = 0;
        unsigned op = a % 9u;
        if (pending == 0 && op != 3 && op != 8) {
            op = 4; // only complete_tx (or expect_tx, inval) may follow an all-arrived phase
        }
        if (op == 4 && tx == 0) {
            op = 3;
        }
        switch (op) {
        case 0: { // arrive with a count
            const int k = 1 + static_cast<int>(b % static_cast<unsigned>(pending));
            asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], %2;"
                         : "=l"(state) : "r"(bar), "r"(k) : "memory");
            pending -= k;
            got_state = 1;
            break;
        }
        case 1:
            asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
            pending -= 1;
            got_state = 1;
            break;
        case 2: { // arrive.expect_tx
            const int n = static_cast<int>(b % 4000u);
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                         : "=l"(state) : "r"(bar), "r"(n) : "memory");
            tx += n;
            pending -= 1;
            got_state = 1;
            break;
        }
        case 3: { // expect_tx
            const int n = static_cast<int>(b % 3000u);
            asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;"
                         :: "r"(bar), "r"(n) : "memory");
            tx += n;
            break;
        }
        case 4: { // complete_tx, never below zero
            const int n = (b & 1u) != 0 ? tx : static_cast<int>(b % static_cast<unsigned>(tx + 1));
            asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;"
                         :: "r"(bar), "r"(n) : "memory");
            tx -= n;
            break;
        }
        case 5: { // arrive_drop, keeping at least one expected arrival
            const int most = pending < expected - 1 ? pending : expected - 1;
            if (most < 1) {
                asm volatile("mbarrier.arrive.release.cta.shared.b64 %0, [%1];"
                             : "=l"(state) : "r"(bar) : "memory");
                pending -= 1;
            } else if ((b & 1u) != 0) {
                asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];"
                             : "=l"(state) : "r"(bar) : "memory");
                pending -= 1;
                expected -= 1;
            } else {
                const int k = 1 + static_cast<int>((b >> 1) % static_cast<unsigned>(most));
                asm volatile("mbarrier.arrive_drop.release.cta.shared::cta.b64 %0, [%1], %2;"
                             : "=l"(state) : "r"(bar), "r"(k) : "memory");
                pending -= k;
                expected -= k;
            }
            got_state = 1;
            break;
        }
        case 6: { // arrive.noComplete: never the last arrival
            if (pending > 1) {
                const int k = 1 + static_cast<int>(b % static_cast<unsigned>(pending - 1));
                asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], %2;"
                             : "=l"(state) : "r"(bar), "r"(k) : "memory");
                pending -= k;
                got_state = 1;
            }
            break;
        }
        case 7: // arrive without a state
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
            pending -= 1;
            break;
        case 8: // inval and init with a new count
            asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
            expected = 1 + static_cast<int>(b % 9u);
            pending = expected;
            tx = 0;
            asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(bar), "r"(expected) : "memory");
            break;
        }
        if (got_state != 0) {
            last = state;
            last_phase = phase;
        }
        if (op == 8) {
            last_phase = -2; // a state of the old object means nothing to the new one
            phase = 0;
        }
        if (pending == 0 && tx == 0) {
            pending = expected; // the phase completed
            ++phase;
        }
        unsigned pc = 0xffffffffu;
        if (got_state != 0) {
            asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(state));
        }
        unsigned bits = test_parity(bar, 0) | test_parity(bar, 1) << 1 | try_parity(bar, c & 1u) << 2;
        if (phase - last_phase <= 1) {
            bits |= test_state(bar, last) << 3 | try_state(bar, last) << 4 | 1u << 5;
        }
        o[step * 2] = pc;
        o[step * 2 + 1] = bits;
        r[step * 2] = state;
        r[step * 2 + 1] = raw(&bars[t]);
    }
}

// 96 threads: warp 0 produces 6 rounds into slots of 32 words, warps 1-2 consume them.
extern "C" __global__ void mbar_pipeline(const unsigned* in, unsigned* out)
{
    __shared__ __align__(8) unsigned long long full[2];
    __shared__ __align__(8) unsigned long long empty[2];
    __shared__ __align__(8) unsigned long long round;
    __shared__ unsigned slots[2][32];
    __shared__ unsigned total;
    const unsigned t = threadIdx.x;
    const unsigned base = blockIdx.x * 1024;
    if (t == 0) {
        for (int s = 0; s < 2; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(smem(&full[s])) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" :: "r"(smem(&empty[s])) : "memory");
        }
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 96;" :: "r"(smem(&round)) : "memory");
        total = 0;
    }
    __syncthreads();
    for (unsigned k = 0; k < 6; ++k) {
        const unsigned s = k & 1u;
        const unsigned parity = (k >> 1) & 1u;
        if (t < 32) {
            if (k >= 2) {
                wait_parity(smem(&empty[s]), parity ^ 1u);
            }
            slots[s][t] = in[base + k * 32 + t] * (k + 1);
            asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];"
                         :: "r"(smem(&full[s])) : "memory");
        } else {
            wait_parity(smem(&full[s]), parity);
            const unsigned c = t - 32;
            out[base + k * 64 + c] = slots[s][c & 31u] + slots[s][(c * 7 + k) & 31u] * 3u;
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&empty[s])) : "memory");
        }
    }
    for (unsigned k = 0; k < 4; ++k) {
        atomicAdd(&total, in[base + 512 + k * 96 + t]);
        unsigned long long state;
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                     : "=l"(state) : "r"(smem(&round)) : "memory");
        while (test_state(smem(&round), state) == 0) {
        }
        out[base + 384 + k * 96 + t] = *reinterpret_cast<volatile unsigned*>(&total);
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                     : "=l"(state) : "r"(smem(&round)) : "memory");
        while (test_state(smem(&round), state) == 0) {
        }
    }
}

// The bulk kernels: 64 threads, src 1024 words per block, out 1024 words per block. Each form
// is its own kernel, so that a form the H200 refuses fails only its own case.
#define D4R_BULK_SETUP                                                                           \
    __shared__ __align__(128) unsigned data[512];                                                 \
    __shared__ __align__(8) unsigned long long bar;                                               \
    const unsigned t = threadIdx.x;                                                               \
    const unsigned* from = src + blockIdx.x * 1024;                                               \
    unsigned* to = out + blockIdx.x * 1024;                                                       \
    if (t == 0) {                                                                                 \
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");    \
    }                                                                                             \
    __syncthreads();

// Fills data[0..511] from src through two cp.async.bulk global -> shared::cluster copies (one with
// .L2::cache_hint) completing phase 0 of bar, after the bulk prefetch.
__device__ __forceinline__ void bulk_load(unsigned* data, unsigned bar, const unsigned* from)
{
    if (threadIdx.x == 0) {
        unsigned long long policy;
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 2048;" :: "l"(from + 512) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 2048;"
                     :: "r"(bar) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 1024, [%2];" :: "r"(smem(data)), "l"(from), "r"(bar)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     ".L2::cache_hint [%0], [%1], 1024, [%2], %3;"
                     :: "r"(smem(data + 256)), "l"(from + 256), "r"(bar), "l"(policy)
                     : "memory");
    }
    wait_parity(bar, 0);
}

extern "C" __global__ void mbar_bulk_load(const unsigned* src, unsigned* out)
{
    D4R_BULK_SETUP
    bulk_load(data, smem(&bar), from);
    for (unsigned k = t; k < 512; k += 64) {
        to[k] = data[k];
    }
}

// shared::cta -> shared::cluster copy and reduction (add.u32), completing phase 1.
extern "C" __global__ void mbar_bulk_shared(const unsigned* src, unsigned* out)
{
    D4R_BULK_SETUP
    __shared__ __align__(128) unsigned copy[256];
    __shared__ __align__(16) unsigned acc[64];
    acc[t] = t * 0x01010101u;
    bulk_load(data, smem(&bar), from);
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], 1040;"
                     :: "r"(smem(&bar)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 1024, [%2];" :: "r"(smem(copy)), "r"(smem(data + 128)),
                     "r"(smem(&bar)) : "memory");
        asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
                     ".add.u32 [%0], [%1], 16, [%2];" :: "r"(smem(acc)), "r"(smem(data + 4)),
                     "r"(smem(&bar)) : "memory");
    }
    wait_parity(smem(&bar), 1);
    for (unsigned k = t; k < 256; k += 64) {
        to[k] = copy[k];
    }
    to[256 + t] = acc[t];
}

// The two halves of mbar_bulk_shared (which the H200 stopped with an illegal instruction in a
// launch without clusters), one kernel each, to tell which form it refuses.
extern "C" __global__ void mbar_bulk_s2s_copy(const unsigned* src, unsigned* out)
{
    D4R_BULK_SETUP
    __shared__ __align__(128) unsigned copy[256];
    bulk_load(data, smem(&bar), from);
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;"
                     :: "r"(smem(&bar)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 1024, [%2];" :: "r"(smem(copy)), "r"(smem(data + 128)),
                     "r"(smem(&bar)) : "memory");
    }
    wait_parity(smem(&bar), 1);
    for (unsigned k = t; k < 256; k += 64) {
        to[k] = copy[k];
    }
}

extern "C" __global__ void mbar_bulk_s2s_reduce(const unsigned* src, unsigned* out)
{
    D4R_BULK_SETUP
    __shared__ __align__(16) unsigned acc[64];
    acc[t] = t * 0x01010101u;
    bulk_load(data, smem(&bar), from);
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;"
                     :: "r"(smem(&bar)) : "memory");
        asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
                     ".add.u32 [%0], [%1], 16, [%2];" :: "r"(smem(acc)), "r"(smem(data + 4)),
                     "r"(smem(&bar)) : "memory");
    }
    wait_parity(smem(&bar), 1);
    to[t] = acc[t];
}

// red.async alone (mbar_st_async has st.async and red.async; the H200 refused that kernel).
extern "C" __global__ void mbar_red_async(const unsigned* src, unsigned* out)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ __align__(16) unsigned small[64];
    const unsigned t = threadIdx.x;
    const unsigned* from = src + blockIdx.x * 1024;
    unsigned* to = out + blockIdx.x * 1024;
    small[t] = from[768 + t];
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 64;"
                     :: "r"(smem(&bar)) : "memory");
    }
    __syncthreads();
    if (t < 16) {
        asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
                     "[%0], %1, [%2];" :: "r"(smem(small + (t & 7u))), "r"(from[1000 + t]),
                     "r"(smem(&bar)) : "memory");
    }
    wait_parity(smem(&bar), 0);
    to[t] = small[t];
}

// shared -> global (bulk groups): a copy and the global reductions on red (inout, 512 words per
// block, 16 words each).
extern "C" __global__ void mbar_bulk_store(const unsigned* src, unsigned* out, unsigned* red)
{
    D4R_BULK_SETUP
    unsigned* r = red + blockIdx.x * 512;
    bulk_load(data, smem(&bar), from);
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                     :: "l"(to), "r"(smem(data + 64)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 64;"
                     :: "l"(r), "r"(smem(data)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32 [%0], [%1], 64;"
                     :: "l"(r + 16), "r"(smem(data + 16)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%0], [%1], 64;"
                     :: "l"(r + 32), "r"(smem(data + 32)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%0], [%1], 64;"
                     :: "l"(r + 48), "r"(smem(data + 48)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.u32 [%0], [%1], 64;"
                     :: "l"(r + 64), "r"(smem(data + 64)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%0], [%1], 64;"
                     :: "l"(r + 80), "r"(smem(data + 80)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.or.b64 [%0], [%1], 64;"
                     :: "l"(r + 96), "r"(smem(data + 96)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%0], [%1], 64;"
                     :: "l"(r + 112), "r"(smem(data + 112)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [%0], [%1], 64;"
                     :: "l"(r + 128), "r"(smem(data + 128)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s64 [%0], [%1], 64;"
                     :: "l"(r + 144), "r"(smem(data + 144)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.s32 [%0], [%1], 64;"
                     :: "l"(r + 160), "r"(smem(data + 160)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u64 [%0], [%1], 64;"
                     :: "l"(r + 176), "r"(smem(data + 176)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

// cp.async.bulk .multicast::cluster in a launch without clusters (a cluster of one CTA): ctaMask 1
// names the own CTA.
extern "C" __global__ void mbar_bulk_multicast(const unsigned* src, unsigned* out)
{
    D4R_BULK_SETUP
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;"
                     :: "r"(smem(&bar)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     ".multicast::cluster [%0], [%1], 512, [%2], %3;"
                     :: "r"(smem(data)), "l"(from + 64), "r"(smem(&bar)), "h"(static_cast<unsigned short>(1))
                     : "memory");
    }
    wait_parity(smem(&bar), 0);
    for (unsigned k = t; k < 128; k += 64) {
        to[k] = data[k];
    }
}

// cp.reduce.async.bulk's float forms into global memory (the translator rejects them until this
// golden says how they round and treat subnormals): add.f32, add.f64, add.noftz.f16,
// min.noftz.bf16, max.noftz.f16 on red (inout), 16 words each.
extern "C" __global__ void mbar_bulk_reduce_float(const unsigned* src, unsigned* out, unsigned* red)
{
    D4R_BULK_SETUP
    unsigned* r = red + blockIdx.x * 512;
    bulk_load(data, smem(&bar), from);
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], 64;"
                     :: "l"(r), "r"(smem(data)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64 [%0], [%1], 64;"
                     :: "l"(r + 16), "r"(smem(data + 16)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], 64;"
                     :: "l"(r + 32), "r"(smem(data + 32)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.bf16 [%0], [%1], 64;"
                     :: "l"(r + 48), "r"(smem(data + 48)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.f16 [%0], [%1], 64;"
                     :: "l"(r + 64), "r"(smem(data + 64)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    to[t] = 0;
}

// cp.async tracked by a barrier of 64 arrivals: each thread copies 4 words, then arrives through
// cp.async.mbarrier.arrive (odd threads without .noinc plus an arrive of their own).
extern "C" __global__ void mbar_cp_async_arrive(const unsigned* src, unsigned* out)
{
    __shared__ __align__(8) unsigned long long bar2;
    __shared__ __align__(16) unsigned small[64];
    const unsigned t = threadIdx.x;
    const unsigned* from = src + blockIdx.x * 1024;
    unsigned* to = out + blockIdx.x * 1024;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" :: "r"(smem(&bar2)) : "memory");
    }
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(smem(small + (t & 15u) * 4)),
                 "l"(from + 768 + (t & 15u) * 4) : "memory");
    if ((t & 1u) != 0) {
        asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(smem(&bar2)) : "memory");
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&bar2)) : "memory");
    } else {
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(smem(&bar2))
                     : "memory");
    }
    wait_parity(smem(&bar2), 0);
    to[t] = small[t];
}

// st.async / red.async into the CTA's own shared memory (a cluster of one), completing a phase.
extern "C" __global__ void mbar_st_async(const unsigned* src, unsigned* out)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ __align__(16) unsigned small[64];
    __shared__ __align__(16) unsigned acc[64];
    const unsigned t = threadIdx.x;
    const unsigned* from = src + blockIdx.x * 1024;
    unsigned* to = out + blockIdx.x * 1024;
    small[t] = from[768 + t];
    acc[t] = 0;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 640;"
                     :: "r"(smem(&bar)) : "memory");
    }
    __syncthreads();
    if (t < 16) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                     :: "r"(smem(small + t)), "r"(from[900 + t]), "r"(smem(&bar)) : "memory");
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], "
                     "{%1, %2}, [%3];" :: "r"(smem(small + 16 + t * 2)), "r"(from[920 + t]),
                     "r"(from[940 + t]), "r"(smem(&bar)) : "memory");
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], "
                     "{%1, %2, %3, %4}, [%5];" :: "r"(smem(acc + t * 4)), "f"(__uint_as_float(from[960 + t])),
                     "f"(1.5f), "f"(-2.0f), "f"(__uint_as_float(from[980 + t])), "r"(smem(&bar))
                     : "memory");
    } else if (t < 32) {
        const unsigned i = t - 16;
        asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
                     "[%0], %1, [%2];" :: "r"(smem(small + 48 + (i & 7u))), "r"(from[1000 + i]),
                     "r"(smem(&bar)) : "memory");
        asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32 "
                     "[%0], %1, [%2];" :: "r"(smem(small + 56 + (i & 3u))), "r"(from[1004 + i]),
                     "r"(smem(&bar)) : "memory");
        if (i < 8) {
            asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes"
                         ".add.u64 [%0], %1, [%2];" :: "r"(smem(small + 60 + (i & 1u) * 2)),
                         "l"(static_cast<unsigned long long>(from[1016 + i]) << 20), "r"(smem(&bar))
                         : "memory");
        }
    }
    wait_parity(smem(&bar), 0);
    to[t] = small[t];
    to[64 + t] = acc[t];
}

// 64 threads: each on its own 16-byte slots of `slots` (inout) and on shared words.
extern "C" __global__ void atom_extras(const unsigned* in, unsigned* slots, unsigned* out)
{
    __shared__ __align__(16) unsigned short halves[64];
    __shared__ __align__(16) unsigned quads[64 * 4];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    const unsigned* w = in + g * 16;
    unsigned* s = slots + g * 32;
    unsigned* o = out + g * 16;
    halves[t] = static_cast<unsigned short>(w[0]);
    for (int k = 0; k < 4; ++k) {
        quads[t * 4 + k] = w[1 + k];
    }
    __syncthreads();
    unsigned short old16;
    const unsigned short cmp = (w[5] & 1u) != 0 ? static_cast<unsigned short>(w[0])
                                                : static_cast<unsigned short>(w[5] >> 16);
    asm volatile("atom.shared.cas.b16 %0, [%1], %2, %3;" : "=h"(old16)
                 : "r"(smem(&halves[t])), "h"(cmp), "h"(static_cast<unsigned short>(w[6]))
                 : "memory");
    o[0] = old16 | static_cast<unsigned>(halves[t]) << 16;
    unsigned short oldg;
    asm volatile("atom.global.cas.b16 %0, [%1], %2, %3;" : "=h"(oldg)
                 : "l"(reinterpret_cast<unsigned short*>(s) + 1),
                   "h"(static_cast<unsigned short>(w[7] & 0xffu)), "h"(static_cast<unsigned short>(w[6]))
                 : "memory");
    o[1] = oldg;
    // b128 exch and cas on the shared quads and on global slot words 4..7.
    asm volatile("{\n\t.reg .b128 d, v, c;\n\t.reg .b64 lo, hi;\n\t"
                 "mov.b128 v, {%2, %3};\n\t"
                 "atom.shared.exch.b128 d, [%1], v;\n\t"
                 "mov.b128 {lo, hi}, d;\n\tmov.b64 %0, lo;\n\t}"
                 : "=l"(*reinterpret_cast<unsigned long long*>(o + 2))
                 : "r"(smem(&quads[t * 4])), "l"(static_cast<unsigned long long>(w[8]) << 32 | w[9]),
                   "l"(static_cast<unsigned long long>(w[10]))
                 : "memory");
    unsigned long long expect_lo = (w[11] & 1u) != 0 ? *reinterpret_cast<unsigned long long*>(s + 4)
                                                     : 7;
    unsigned long long got_lo;
    unsigned long long got_hi;
    asm volatile("{\n\t.reg .b128 d, c, v;\n\t"
                 "mov.b128 c, {%2, %3};\n\tmov.b128 v, {%4, %5};\n\t"
                 "atom.global.cas.b128 d, [%6], c, v;\n\t"
                 "mov.b128 {%0, %1}, d;\n\t}"
                 : "=l"(got_lo), "=l"(got_hi)
                 : "l"(expect_lo), "l"(*reinterpret_cast<unsigned long long*>(s + 6)),
                   "l"(static_cast<unsigned long long>(w[12])), "l"(static_cast<unsigned long long>(w[13])),
                   "l"(s + 4)
                 : "memory");
    o[4] = static_cast<unsigned>(got_lo);
    o[5] = static_cast<unsigned>(got_hi >> 32);
    o[6] = quads[t * 4];
    o[7] = quads[t * 4 + 3];
    // Vector adds (global only): f32 v2/v4, f16x2 v4 (the .v8.f16 form), bf16x2 v2.
    float f0, f1, f2, f3;
    asm volatile("atom.global.add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};"
                 : "=f"(f0), "=f"(f1), "=f"(f2), "=f"(f3)
                 : "l"(s + 8), "f"(__uint_as_float(w[1])), "f"(__uint_as_float(w[2])),
                   "f"(0.5f), "f"(__uint_as_float(w[3] & 0x807fffffu))
                 : "memory");
    o[8] = __float_as_uint(f0) ^ __float_as_uint(f3);
    float g0, g1;
    asm volatile("atom.global.add.v2.f32 {%0, %1}, [%2], {%3, %4};" : "=f"(g0), "=f"(g1)
                 : "l"(s + 12), "f"(__uint_as_float(w[4])), "f"(-1.25f) : "memory");
    o[9] = __float_as_uint(g1) ^ __float_as_uint(g0);
    unsigned h0, h1, h2, h3;
    asm volatile("atom.global.add.noftz.v4.f16x2 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};"
                 : "=r"(h0), "=r"(h1), "=r"(h2), "=r"(h3)
                 : "l"(s + 16), "r"(w[5]), "r"(w[6]), "r"(0x3c00bc00u), "r"(w[7])
                 : "memory");
    o[10] = h0 ^ h3 ^ h1 ^ (h2 << 1);
    unsigned b0, b1;
    asm volatile("atom.global.add.noftz.v2.bf16x2 {%0, %1}, [%2], {%3, %4};" : "=r"(b0), "=r"(b1)
                 : "l"(s + 20), "r"(w[8]), "r"(w[9]) : "memory");
    o[11] = b1 + b0;
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};"
                 :: "l"(s + 24), "f"(__uint_as_float(w[10])), "f"(2.0f), "f"(-0.0f),
                    "f"(__uint_as_float(w[11])) : "memory");
    // Half min/max (sm_90: vector forms only, with .noftz) on global slot words 28-29.
    unsigned short m0, m1;
    asm volatile("atom.global.min.noftz.v2.f16 {%0, %1}, [%2], {%3, %4};" : "=h"(m0), "=h"(m1)
                 : "l"(s + 28), "h"(static_cast<unsigned short>(w[12])),
                   "h"(static_cast<unsigned short>(w[12] >> 16))
                 : "memory");
    o[12] = m0 | static_cast<unsigned>(m1) << 16;
    unsigned x0, x1;
    asm volatile("atom.global.max.noftz.v2.bf16x2 {%0, %1}, [%2], {%3, %4};" : "=r"(x0), "=r"(x1)
                 : "l"(s + 28), "r"(w[13]), "r"(w[14] ^ 0x80008000u) : "memory");
    o[13] = x0 ^ x1;
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    unsigned hinted;
    asm volatile("atom.global.add.L2::cache_hint.u32 %0, [%1], %2, %3;" : "=r"(hinted)
                 : "l"(s + 30), "r"(w[14]), "l"(policy) : "memory");
    o[14] = hinted;
    asm volatile("red.global.max.noftz.v4.bf16 [%0], {%1, %2, %3, %4};" :: "l"(s + 24),
                 "h"(static_cast<unsigned short>(w[15])), "h"(static_cast<unsigned short>(w[15] >> 16)),
                 "h"(static_cast<unsigned short>(0xff80u)), "h"(static_cast<unsigned short>(0x7f80u))
                 : "memory");
    asm volatile("red.global.min.noftz.v2.f16x2 [%0], {%1, %2};" :: "l"(s + 26), "r"(w[15]),
                 "r"(w[14]) : "memory");
    o[15] = f1 == f2 ? 1u : 0u;
}
