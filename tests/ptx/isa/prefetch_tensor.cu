// d4r-isa-ptx: prefetch_tensor.sm_90.ptx -arch=sm_90 -O3
// cp.async.bulk.prefetch.tensor (lower_async_copy.cpp): an L2 prefetch through a tensor map, a
// hint with no result. Each block prefetches its box (and a second box partly outside the tensor)
// in one of four spellings by block (plain, .tile, .L2::cache_hint, .tile.L2::cache_hint with a
// createpolicy operand), then loads the box through the same map as tensor_copies.cu's tma_load
// kernels do (global -> shared::cluster, complete_tx) and writes the shared copy, the 64 bytes
// after it and the wait's flag, so the output is what the load alone gives: the prefetch changes
// nothing a thread can see. The map is a kernel parameter (`param = tensormap` in the case).
// prefetch_tensor_1d and _3d do the same with maps of rank 1 and 3 (plain and .tile.L2::cache_hint),
// prefetch_tensor_im2col_3d with an im2col map (.im2col with its offset, and .L2::cache_hint).
#include "isa_common.cuh"

struct alignas(64) TensorMap {
    unsigned long long words[16];
};

__device__ __forceinline__ unsigned smem(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

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

__device__ __forceinline__ void prepare(unsigned* words, unsigned count, unsigned bar)
{
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        words[i] = 0xEEEEEEEEu;
    }
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
}

__device__ __forceinline__ void expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void dump(const unsigned* words, unsigned bytes, unsigned done,
                                     unsigned* out)
{
    const unsigned count = bytes / 4 + 16;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        out[blockIdx.x * (count + 1) + i] = words[i];
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x * (count + 1) + count] = done;
    }
}

__device__ __forceinline__ unsigned long long evict_last()
{
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

constexpr unsigned k_tile_words = 2048 + 16; // a box of at most 8 KiB and the 64 bytes after it

// coords: (x, y) of the box, then (x, y) of the second prefetch, per block.
extern "C" __global__ void prefetch_tensor_2d(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              unsigned bytes, unsigned* out)
{
    __shared__ __align__(1024) unsigned tile[k_tile_words];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_words, bar);
    if (threadIdx.x == 0) {
        const int* c = coords + 4 * blockIdx.x;
        const unsigned long long policy = evict_last();
        switch (blockIdx.x % 4) {
        case 0:
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global [%0, {%1, %2}];"
                         :: "l"(&map), "r"(c[0]), "r"(c[1]) : "memory");
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global [%0, {%1, %2}];"
                         :: "l"(&map), "r"(c[2]), "r"(c[3]) : "memory");
            break;
        case 1:
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                         :: "l"(&map), "r"(c[0]), "r"(c[1]) : "memory");
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                         :: "l"(&map), "r"(c[2]), "r"(c[3]) : "memory");
            break;
        case 2:
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.L2::cache_hint [%0, {%1, %2}], %3;"
                         :: "l"(&map), "r"(c[0]), "r"(c[1]), "l"(policy) : "memory");
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.L2::cache_hint [%0, {%1, %2}], %3;"
                         :: "l"(&map), "r"(c[2]), "r"(c[3]), "l"(policy) : "memory");
            break;
        default:
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile.L2::cache_hint"
                         " [%0, {%1, %2}], %3;"
                         :: "l"(&map), "r"(c[0]), "r"(c[1]), "l"(policy) : "memory");
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile.L2::cache_hint"
                         " [%0, {%1, %2}], %3;"
                         :: "l"(&map), "r"(c[2]), "r"(c[3]), "l"(policy) : "memory");
            break;
        }
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(smem(tile)), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, bytes, done, out);
}

// coords: x of the box, then x of the second prefetch, per block.
extern "C" __global__ void prefetch_tensor_1d(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              unsigned bytes, unsigned* out)
{
    __shared__ __align__(1024) unsigned tile[k_tile_words];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_words, bar);
    if (threadIdx.x == 0) {
        const int* c = coords + 2 * blockIdx.x;
        asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global [%0, {%1}];"
                     :: "l"(&map), "r"(c[0]) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global.tile.L2::cache_hint [%0, {%1}], %2;"
                     :: "l"(&map), "r"(c[1]), "l"(evict_last()) : "memory");
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2}], [%3];"
                     :: "r"(smem(tile)), "l"(&map), "r"(c[0]), "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, bytes, done, out);
}

// coords: (x, y, z) of the box, then (x, y, z) of the second prefetch, per block.
extern "C" __global__ void prefetch_tensor_3d(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              unsigned bytes, unsigned* out)
{
    __shared__ __align__(1024) unsigned tile[k_tile_words];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_words, bar);
    if (threadIdx.x == 0) {
        const int* c = coords + 6 * blockIdx.x;
        asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];"
                     :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.L2::cache_hint"
                     " [%0, {%1, %2, %3}], %4;"
                     :: "l"(&map), "r"(c[3]), "r"(c[4]), "r"(c[5]), "l"(evict_last()) : "memory");
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];"
                     :: "r"(smem(tile)), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(bar)
                     : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, bytes, done, out);
}

// An im2col map (rank 3: C, W, N): coords {c, w, n} and the w offset per block; the prefetch of the
// box (.im2col, then .im2col.L2::cache_hint of the same box), then its im2col load.
extern "C" __global__ void prefetch_tensor_im2col_3d(const __grid_constant__ TensorMap map,
                                                     const unsigned* tensor, const int* coords,
                                                     const unsigned short* offsets,
                                                     unsigned bytes, unsigned* out)
{
    __shared__ __align__(1024) unsigned tile[k_tile_words];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_words, bar);
    if (threadIdx.x == 0) {
        const int* c = coords + 3 * blockIdx.x;
        const unsigned short w = offsets[blockIdx.x];
        asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [%0, {%1, %2, %3}], {%4};"
                     :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "h"(w) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint"
                     " [%0, {%1, %2, %3}], {%4}, %5;"
                     :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "h"(w), "l"(evict_last())
                     : "memory");
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5], {%6};"
                     :: "r"(smem(tile)), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(bar),
                        "h"(w) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, bytes, done, out);
}
