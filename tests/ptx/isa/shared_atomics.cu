// d4r-isa-ptx: shared_atomics.sm_90.ptx -arch=sm_90 -O3
// Stage 2: static and dynamic shared memory with barriers, atomics on global and shared memory,
// fences. Contended atomics are checked only through order-independent results (sums, min/max,
// bitwise, the final value of an inc/dec/CAS counter); atomics on a thread's own slot check the
// returned old values too.
#include "isa_common.cuh"

extern "C" __global__ void shared_static(const unsigned* in, unsigned* out)
{
    __shared__ unsigned tile[256];
    __shared__ unsigned short halves[256];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * 256 + t;
    tile[t] = in[g];
    halves[t] = static_cast<unsigned short>(in[g] >> 7);
    __syncthreads();
    const unsigned v = tile[255 - t] + tile[(t * 7) & 255] + halves[(t + 1) & 255];
    __syncthreads();
    tile[t] = v;
    __syncthreads();
    out[g] = tile[(t + 128) & 255] ^ v;
}

extern "C" __global__ void shared_dynamic(const float* in, float* out, unsigned* sums)
{
    extern __shared__ float dyn[];
    unsigned* counts = reinterpret_cast<unsigned*>(dyn + blockDim.x);
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    dyn[t] = in[g];
    counts[t] = __float_as_uint(in[g]) >> 28;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            dyn[t] += dyn[t + stride];
            counts[t] += counts[t + stride];
        }
        __syncthreads();
    }
    out[g] = dyn[0] * in[g];
    if (t == 0) {
        sums[blockIdx.x] = counts[0];
    }
}

// counters: [0] add, [1] min, [2] max, [3] inc (limit 100), [4] dec (limit 77), [5] or, [6] and,
// [7] xor, [8] a CAS-loop increment, [9] signed min, [10] signed max, [11] exch-then-add.
extern "C" __global__ void atomics_global(const unsigned* in, const float* quarters, unsigned* counters,
                                          float* fsum, unsigned long long* wide, unsigned* slots, unsigned* old)
{
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned x = in[g];
    atomicAdd(&counters[0], x & 0xffu);
    atomicMin(&counters[1], x);
    atomicMax(&counters[2], x);
    atomicInc(&counters[3], 100u);
    atomicDec(&counters[4], 77u);
    atomicOr(&counters[5], 1u << (x & 31));
    atomicAnd(&counters[6], ~(1u << ((x >> 5) & 31)));
    atomicXor(&counters[7], x);
    unsigned seen = counters[8];
    for (;;) {
        const unsigned prior = atomicCAS(&counters[8], seen, seen + 1);
        if (prior == seen) {
            break;
        }
        seen = prior;
    }
    atomicMin(reinterpret_cast<int*>(&counters[9]), static_cast<int>(x));
    atomicMax(reinterpret_cast<int*>(&counters[10]), static_cast<int>(x));
    atomicAdd(fsum, quarters[g]);
    atomicAdd(wide, static_cast<unsigned long long>(x) << 20);
    old[g * 4] = atomicExch(&slots[g * 2], x);
    old[g * 4 + 1] = atomicCAS(&slots[g * 2 + 1], (x & 1) ? slots[g * 2 + 1] : x, x ^ 0x5a5a5a5au);
    old[g * 4 + 2] = atomicAdd(&slots[g * 2], 1u);
    old[g * 4 + 3] = atomicInc(&slots[g * 2 + 1], x >> 1);
}

extern "C" __global__ void atomics_shared(const unsigned* in, const float* quarters, unsigned* out, float* fout)
{
    __shared__ unsigned counters[8];
    __shared__ float fsum;
    __shared__ unsigned slots[256];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    if (t < 8) {
        counters[t] = t == 1 ? 0xffffffffu : (t == 4 ? 50u : 0u);
    }
    if (t == 0) {
        fsum = 0.0f;
    }
    slots[t] = t * 3;
    __syncthreads();
    const unsigned x = in[g];
    atomicAdd(&counters[0], x & 0xffffu);
    atomicMin(&counters[1], x);
    atomicMax(&counters[2], x);
    atomicInc(&counters[3], 33u);
    atomicDec(&counters[4], 60u);
    atomicOr(&counters[5], x & 0x01010101u);
    atomicXor(&counters[6], x);
    atomicAdd(&fsum, quarters[g]);
    const unsigned prior = atomicExch(&slots[t], x);
    const unsigned cas = atomicCAS(&slots[t], (x & 1) ? x : 0u, x + 1);
    __syncthreads();
    out[g * 2] = prior ^ cas;
    out[g * 2 + 1] = slots[255 - t];
    if (t < 8) {
        out[gridDim.x * blockDim.x * 2 + blockIdx.x * 8 + t] = counters[t];
    }
    if (t == 0) {
        fout[blockIdx.x] = fsum;
    }
}

// The last block to finish (ticket from an atomic after a fence) sums every block's partial result.
extern "C" __global__ void fence_reduce(const unsigned* in, unsigned* partial, unsigned* ticket, unsigned* total)
{
    __shared__ unsigned sum;
    __shared__ bool last;
    if (threadIdx.x == 0) {
        sum = 0;
    }
    __syncthreads();
    atomicAdd(&sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        unsigned all = 0;
#if defined(__HIP__)
#pragma unroll 4 // what nvcc chose by itself; clang, building the native twin, would not unroll
#endif
        for (unsigned b = 0; b < gridDim.x; ++b) {
            all += reinterpret_cast<volatile unsigned*>(partial)[b];
        }
        *total = all;
    }
}
