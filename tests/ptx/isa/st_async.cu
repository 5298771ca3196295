// d4r-isa-ptx: st_async.sm_90.ptx -arch=sm_90 -O3
// d4r-isa-ptx: st_async_maxrank.sm_90.ptx -arch=sm_90 -O3 -DD4R_PART_MAXRANK=1
// st.async and red.async into the CTA's own shared memory (lower_async_copy.cpp). The H200 stops
// them with an illegal instruction in a launch without clusters (mbarrier_bulk.cu's mbar_st_async,
// mbar_red_async); these kernels are declared with __cluster_dims__(1, 1, 1)
// (.reqnctapercluster 1, 1, 1), so the driver launches them as clusters of one CTA, where the own
// CTA is the whole cluster and its shared memory a valid .shared::cluster target.
// - st_async_forms: each thread stores every type (.b32 .u32 .s32 .f32 .b64 .u64 .s64 .f64), the
//   .v2 of each and the .v4 of the 32-bit ones into its own 224 bytes of shared memory, through a
//   mapa'd .shared::cluster address, the plain .shared address, a generic address (no state
//   space: st_async_generic only, st_async_forms gives those five the .shared address), [addr+imm],
//   an immediate source, .weak and .cluster spellings; thread 0 expects the
//   block's bytes plus 4 more, so the phase can only complete after its own complete_tx of 4: the
//   test_wait before it (out1) shows no store over-counts its bytes, the bounded wait after it
//   (out1) that none under-counts them. out0: the shared words, read back after the wait.
// - red_async_forms: every operation (.inc .dec .u32, .min .max .u32 .s32, .add .u32 .s32 .u64
//   .s64, .and .or .xor .b32) on words that 8 threads each hit (inc/dec with one bound per word, so
//   the order does not matter), the same address forms (two generic ones in red_async_generic);
//   the same byte check.
// - st_async_maxrank: __launch_bounds__(64, 1, 1) (.maxclusterrank 1) and no cluster dimensions:
//   whether the H200 runs st.async / red.async in a kernel that only bounds its clusters to one
//   CTA and is launched without a cluster shape (its own PTX file, st_async_maxrank.sm_90.ptx, as
//   the translator rejects it): it does not; the H200 stopped it with an illegal instruction, as
//   a kernel without a cluster directive.
#include "isa_common.cuh"

__device__ __forceinline__ unsigned smem(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ unsigned mapa0(unsigned a)
{
    unsigned mapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(mapped) : "r"(a));
    return mapped;
}

__device__ __forceinline__ unsigned test_parity(unsigned bar, unsigned parity)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(bar), "r"(parity) : "memory");
    return r;
}

// Whether the phase of `parity` completed within a bound of tries (a wrong byte count must not
// hang the GPU).
__device__ __forceinline__ unsigned wait_parity(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    for (unsigned tries = 0; tries < 100000 && done == 0; ++tries) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
    return done;
}

// Thread 0: the barrier for one arrival that expects `bytes` plus 4.
__device__ __forceinline__ void arm(unsigned bar, unsigned bytes)
{
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(bar), "r"(bytes + 4) : "memory");
    }
    __syncthreads();
}

// After every thread issued its operations: the phase still open (flag 1 if not), then the last
// 4 bytes completed by thread 0 and the bounded wait of every thread. flags[t] = open + 2 * done.
__device__ __forceinline__ void finish(unsigned bar, unsigned* flags)
{
    __syncthreads();
    unsigned open = 1;
    if (threadIdx.x == 0) {
        open = test_parity(bar, 0) == 0 ? 1u : 0u;
        asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 4;" :: "r"(bar)
                     : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    flags[blockIdx.x * blockDim.x + threadIdx.x] = open + 2u * done;
}

#ifndef D4R_PART_MAXRANK

constexpr unsigned k_words = 56; // 224 bytes per thread

// Generic: the five generic-address stores (no state space) of st_async_generic; without it the
// same stores take the plain .shared address with .shared::cluster.
template <bool Generic>
__device__ __forceinline__ void st_async_body(const unsigned* in, unsigned* out, unsigned* flags)
{
    __shared__ __align__(16) unsigned words[64 * k_words];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    const unsigned* x = in + g * 32;
    unsigned* mine = words + t * k_words;
    for (unsigned i = 0; i < k_words; ++i) {
        mine[i] = 0xEEEE0000u + t * 64 + i;
    }
    const unsigned bar = smem(&barrier);
    arm(bar, blockDim.x * 212u);
    const unsigned base = smem(mine);
    const unsigned mbase = mapa0(base);
    const unsigned mbar = mapa0(bar);
    const unsigned long long gbase = reinterpret_cast<unsigned long long>(mine);
    const unsigned long long gbar = reinterpret_cast<unsigned long long>(&barrier);
    const unsigned long long w0 = (static_cast<unsigned long long>(x[5]) << 32) | x[4];
    const unsigned long long w1 = (static_cast<unsigned long long>(x[7]) << 32) | x[6];
    const unsigned long long w2 = (static_cast<unsigned long long>(x[9]) << 32) | x[8];
    const unsigned long long w3 = (static_cast<unsigned long long>(x[11]) << 32) | x[10];
    // Scalars, 48 bytes.
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                 :: "r"(mbase), "r"(x[0]), "r"(mbar) : "memory");
    asm volatile("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                 :: "r"(base + 4), "r"(x[1]), "r"(bar) : "memory");
    if constexpr (Generic) {
        asm volatile("st.async.mbarrier::complete_tx::bytes.s32 [%0], %1, [%2];"
                     :: "l"(gbase + 8), "r"(x[2]), "l"(gbar) : "memory");
    } else {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.s32 [%0], %1, [%2];"
                     :: "r"(base + 8), "r"(x[2]), "r"(bar) : "memory");
    }
    asm volatile("st.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0+12], %1, [%2];"
                 :: "r"(mbase), "f"(__uint_as_float(x[3])), "r"(mbar) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];"
                 :: "r"(mbase + 16), "l"(w0), "r"(mbar) : "memory");
    asm volatile("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.u64 [%0], %1, [%2];"
                 :: "r"(base + 24), "l"(w1), "r"(bar) : "memory");
    if constexpr (Generic) {
        asm volatile("st.async.mbarrier::complete_tx::bytes.s64 [%0], %1, [%2];"
                     :: "l"(gbase + 32), "l"(w2), "l"(gbar) : "memory");
    } else {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.s64 [%0], %1, [%2];"
                     :: "r"(base + 32), "l"(w2), "r"(bar) : "memory");
    }
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f64 [%0], %1, [%2];"
                 :: "r"(mbase + 40), "d"(__longlong_as_double(static_cast<long long>(w3))),
                    "r"(mbar) : "memory");
    // .v2 of 32-bit types, 32 bytes (at 48, 56, 192, 200).
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                 :: "r"(mbase + 48), "r"(x[12]), "r"(x[13]), "r"(mbar) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];"
                 :: "r"(base + 56), "f"(__uint_as_float(x[14])), "f"(__uint_as_float(x[15])),
                    "r"(bar) : "memory");
    if constexpr (Generic) {
        asm volatile("st.async.mbarrier::complete_tx::bytes.v2.u32 [%0], {%1, %2}, [%3];"
                     :: "l"(gbase + 192), "r"(x[16]), "r"(x[17]), "l"(gbar) : "memory");
    } else {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%0], {%1, %2}, [%3];"
                     :: "r"(base + 192), "r"(x[16]), "r"(x[17]), "r"(bar) : "memory");
    }
    asm volatile("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.s32 [%0], {%1, %2}, [%3];"
                 :: "r"(mbase + 200), "r"(x[18]), "r"(x[19]), "r"(mbar) : "memory");
    // .v2 of 64-bit types, 64 bytes (at 64 .. 127).
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];"
                 :: "r"(mbase + 64), "l"(w0 ^ w1), "l"(w2), "r"(mbar) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%0], {%1, %2}, [%3];"
                 :: "r"(base + 80), "d"(__longlong_as_double(static_cast<long long>(w1))),
                    "d"(__longlong_as_double(static_cast<long long>(w3 ^ w0))), "r"(bar)
                 : "memory");
    if constexpr (Generic) {
        asm volatile("st.async.mbarrier::complete_tx::bytes.v2.u64 [%0], {%1, %2}, [%3];"
                     :: "l"(gbase + 96), "l"(w3), "l"(w0 + w1), "l"(gbar) : "memory");
    } else {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u64 [%0], {%1, %2}, [%3];"
                     :: "r"(base + 96), "l"(w3), "l"(w0 + w1), "r"(bar) : "memory");
    }
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s64 [%0], {%1, %2}, [%3];"
                 :: "r"(mbase + 112), "l"(w2 - w3), "l"(w1 ^ w2), "r"(mbar) : "memory");
    // .v4 of 32-bit types, 64 bytes (at 128 .. 191).
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                 :: "r"(mbase + 128), "r"(x[20]), "r"(x[21]), "r"(x[22]), "r"(x[23]), "r"(mbar)
                 : "memory");
    asm volatile("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%0], {%1, %2, %3, %4}, [%5];"
                 :: "r"(base + 144), "r"(x[24]), "r"(x[25]), "r"(x[26]), "r"(x[27]), "r"(bar)
                 : "memory");
    if constexpr (Generic) {
        asm volatile("st.async.mbarrier::complete_tx::bytes.v4.s32 [%0], {%1, %2, %3, %4}, [%5];"
                     :: "l"(gbase + 160), "r"(x[28]), "r"(x[29]), "r"(x[30]), "r"(x[31]), "l"(gbar)
                     : "memory");
    } else {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.s32 [%0], {%1, %2, %3, %4}, [%5];"
                     :: "r"(base + 160), "r"(x[28]), "r"(x[29]), "r"(x[30]), "r"(x[31]), "r"(bar)
                     : "memory");
    }
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];"
                 :: "r"(mbase + 176), "f"(__uint_as_float(x[3] ^ x[20])), "f"(1.5f),
                    "f"(__uint_as_float(x[14] | 0x7f800000u)), "f"(-0.0f), "r"(mbar) : "memory");
    // An immediate source, 4 bytes (at 208); 212 .. 223 stay as they were.
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], 0x12345678, [%1];"
                 :: "r"(mbase + 208), "r"(mbar) : "memory");
    finish(bar, flags);
    for (unsigned i = 0; i < k_words; ++i) {
        out[g * k_words + i] = mine[i];
    }
}

extern "C" __global__ void __cluster_dims__(1, 1, 1)
    st_async_forms(const unsigned* in, unsigned* out, unsigned* flags)
{
    st_async_body<false>(in, out, flags);
}

extern "C" __global__ void __cluster_dims__(1, 1, 1)
    st_async_generic(const unsigned* in, unsigned* out, unsigned* flags)
{
    st_async_body<true>(in, out, flags);
}

// Words hit by red.async: 16 words per operation kind, 8 threads on each (t & 7 picks the word of
// the thread's group of eight: threads t and t + 8 ... share word t & 7 of their 8-word group).
constexpr unsigned k_red_words = 160;

template <bool Generic>
__device__ __forceinline__ void red_async_body(const unsigned* in, const unsigned* init,
                                               unsigned* out, unsigned* flags)
{
    __shared__ __align__(16) unsigned words[k_red_words];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    const unsigned* x = in + g * 16;
    for (unsigned i = t; i < k_red_words; i += blockDim.x) {
        words[i] = init[blockIdx.x * k_red_words + i];
    }
    const unsigned bar = smem(&barrier);
    arm(bar, blockDim.x * 68u);
    const unsigned w = t & 7u;
    const unsigned mbar = mapa0(bar);
    const unsigned long long gbar = reinterpret_cast<unsigned long long>(&barrier);
    // One bound per word: the bound of word w is init's last 8 words.
    const unsigned bound = init[blockIdx.x * k_red_words + 152 + w] & 15u;
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 "
                 "[%0], %1, [%2];" :: "r"(mapa0(smem(words + w))), "r"(bound), "r"(mbar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.dec.u32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 8 + w)), "r"(bound), "r"(bar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u32 "
                 "[%0], %1, [%2];" :: "r"(mapa0(smem(words + 16 + w))), "r"(x[0]), "r"(mbar)
                 : "memory");
    if constexpr (Generic) {
        asm volatile("red.async.relaxed.cluster.mbarrier::complete_tx::bytes.max.u32 "
                     "[%0], %1, [%2];" :: "l"(words + 24 + w), "r"(x[1]), "l"(gbar) : "memory");
    } else {
        asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.u32 "
                     "[%0], %1, [%2];" :: "r"(smem(words + 24 + w)), "r"(x[1]), "r"(bar) : "memory");
    }
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 32 + w)), "r"(x[2]), "r"(mbar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32 "
                 "[%0+4], %1, [%2];" :: "r"(mapa0(smem(words + 39 + w))), "r"(x[3]), "r"(mbar)
                 : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 48 + w)), "r"(x[4]), "r"(bar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s32 "
                 "[%0], %1, [%2];" :: "r"(mapa0(smem(words + 56 + w))), "r"(x[5]), "r"(mbar)
                 : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.and.b32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 64 + w)), "r"(x[6] | x[7]), "r"(mbar)
                 : "memory");
    if constexpr (Generic) {
        asm volatile("red.async.relaxed.cluster.mbarrier::complete_tx::bytes.or.b32 "
                     "[%0], %1, [%2];" :: "l"(words + 72 + w), "r"(x[7] & x[8]), "l"(gbar) : "memory");
    } else {
        asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.or.b32 "
                     "[%0], %1, [%2];" :: "r"(smem(words + 72 + w)), "r"(x[7] & x[8]), "r"(bar)
                     : "memory");
    }
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 80 + w)), "r"(x[8]), "r"(mbar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
                 "[%0], 3, [%1];" :: "r"(mapa0(smem(words + 88 + w))), "r"(mbar) : "memory");
    // 64-bit adds on 8-byte aligned pairs (words 96 .. 127 and 128 .. 143), 16 bytes.
    const unsigned long long v0 = (static_cast<unsigned long long>(x[10]) << 32) | x[9];
    const unsigned long long v1 = (static_cast<unsigned long long>(x[12]) << 32) | x[11];
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 "
                 "[%0], %1, [%2];" :: "r"(mapa0(smem(words + 96 + 2 * w))), "l"(v0), "r"(mbar)
                 : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s64 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 112 + 2 * w)), "l"(v1 | (1ull << 63)),
                    "r"(bar) : "memory");
    // The same 8 words hit by every thread's add of its own index.
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 128 + (t >> 3))), "r"(t), "r"(bar)
                 : "memory");
    finish(bar, flags);
    for (unsigned i = t; i < k_red_words; i += blockDim.x) {
        out[blockIdx.x * k_red_words + i] = words[i];
    }
}

extern "C" __global__ void __cluster_dims__(1, 1, 1)
    red_async_forms(const unsigned* in, const unsigned* init, unsigned* out, unsigned* flags)
{
    red_async_body<false>(in, init, out, flags);
}

extern "C" __global__ void __cluster_dims__(1, 1, 1)
    red_async_generic(const unsigned* in, const unsigned* init, unsigned* out, unsigned* flags)
{
    red_async_body<true>(in, init, out, flags);
}

#else

extern "C" __global__ void __launch_bounds__(64, 1, 1)
    st_async_maxrank(const unsigned* in, unsigned* out, unsigned* flags)
{
    __shared__ __align__(16) unsigned words[128];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    words[t] = 0xEEEEEEEEu;
    words[64 + t] = in[g];
    const unsigned bar = smem(&barrier);
    arm(bar, blockDim.x * 8u);
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                 :: "r"(mapa0(smem(words + t))), "r"(in[g] * 3u), "r"(mapa0(bar)) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
                 "[%0], %1, [%2];" :: "r"(smem(words + 64 + (t & 7u))), "r"(t), "r"(bar)
                 : "memory");
    finish(bar, flags);
    out[2 * g] = words[t];
    out[2 * g + 1] = words[64 + t];
}

#endif
