// d4r-isa-ptx: tensor_copies_im2col.sm_90a.ptx -arch=sm_90a -O3
// The im2col tensor-map copies (lower_tensor_copy.cpp, kernels/support/tensor_copy_im2col.c; the
// map's layout on our side: compiler/translate/tensor_map_layout.hpp). The host passes the map as
// a kernel parameter (`const __grid_constant__`); the golden cases describe it with a
// `param = tensormap ... channels= pixels= lower= upper=` line: cuTensorMapEncodeIm2col on the
// H200, our layout in the executor.
// - tma_im2col_load_{3,4,5}d: each block copies one im2col box (global -> shared::cluster,
//   .im2col.mbarrier::complete_tx::bytes, a cluster of one CTA) at the coordinates {c, w, (h,
//   (d,)) n} and the 16-bit im2col offsets (rank - 2 of them) drawn from its inputs; the shared
//   buffer starts as 0xEE bytes and `offset` bytes into a 1024-aligned array, so the output shows
//   the box as the TMA laid it (pixelsPerColumn rows of channelsPerPixel elements, swizzled or
//   not, out-of-bounds fill), the 64 bytes after it and whether the barrier's phase completed.
//   The 4D kernel spells the instruction three ways by block (plain, .L2::cache_hint,
//   .multicast::cluster with ctaMask 1 and a hint).
// - tma_im2col_store_{3,4}d and tma_im2col_reduce_4d: one thread writes the shared box (from the
//   input) at each coordinate set in turn (shared::cta -> global, .im2col_no_offs.bulk_group,
//   wait_group 0 between); the reduction's operation per step from the input.
#include "isa_common.cuh"

struct alignas(64) TensorMap {
    unsigned long long words[16];
};

__device__ __forceinline__ unsigned smem(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Whether the phase of `parity` completed within a bound of tries (a box whose byte count the
// case got wrong must not hang the GPU: the output's flag word shows it).
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

// Shared memory as 0xEE words, the barrier initialised for one arrival, both visible to the
// async proxy.
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

// The box (from `offset` bytes on), the 64 bytes after it and whether the wait completed, to
// out[block's part].
__device__ __forceinline__ void dump(const unsigned* words, unsigned offset, unsigned bytes,
                                     unsigned done, unsigned* out)
{
    const unsigned count = bytes / 4 + 16;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        out[blockIdx.x * (count + 1) + i] = words[offset / 4 + i];
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x * (count + 1) + count] = done;
    }
}

constexpr unsigned k_tile_bytes = 9216; // a box of at most 8 KiB, 1 KiB of offset

// coords: 3 per block {c, w, n}; offsets: 1 per block {w}.
extern "C" __global__ void tma_im2col_load_3d(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              const unsigned short* offsets, unsigned bytes,
                                              unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const int* c = coords + 3 * blockIdx.x;
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5], {%6};"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                        "r"(bar), "h"(offsets[blockIdx.x]) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

// coords: 4 per block {c, w, h, n}; offsets: 2 per block {w, h}.
extern "C" __global__ void tma_im2col_load_4d(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              const unsigned short* offsets, unsigned bytes,
                                              unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const unsigned dst = smem(tile) + offset;
        const int* c = coords + 4 * blockIdx.x;
        const unsigned short ow = offsets[2 * blockIdx.x];
        const unsigned short oh = offsets[2 * blockIdx.x + 1];
        unsigned long long policy;
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
        switch (blockIdx.x % 3) {
        case 0:
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                         " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                         :: "r"(dst), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                            "r"(bar), "h"(ow), "h"(oh) : "memory");
            break;
        case 1:
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                         ".L2::cache_hint [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8}, %9;"
                         :: "r"(dst), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                            "r"(bar), "h"(ow), "h"(oh), "l"(policy) : "memory");
            break;
        default:
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                         ".multicast::cluster.L2::cache_hint [%0], [%1, {%2, %3, %4, %5}], [%6],"
                         " {%7, %8}, %9, %10;"
                         :: "r"(dst), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                            "r"(bar), "h"(ow), "h"(oh), "h"((unsigned short)1), "l"(policy)
                         : "memory");
            break;
        }
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

// coords: 5 per block {c, w, h, d, n}; offsets: 3 per block {w, h, d}.
extern "C" __global__ void tma_im2col_load_5d(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              const unsigned short* offsets, unsigned bytes,
                                              unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const int* c = coords + 5 * blockIdx.x;
        const unsigned short* o = offsets + 3 * blockIdx.x;
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                        "r"(c[3]), "r"(c[4]), "r"(bar), "h"(o[0]), "h"(o[1]), "h"(o[2])
                     : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

// The shared box from `in` (`bytes` of it), visible to the async proxy.
__device__ __forceinline__ void fill_box(unsigned* tile, const unsigned* in, unsigned bytes)
{
    for (unsigned i = threadIdx.x; i < bytes / 4; i += blockDim.x) {
        tile[i] = in[i];
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
}

__device__ __forceinline__ void store_done()
{
    asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;" ::: "memory");
}

// tensor: the map's global memory (the case's output); `steps` coordinate sets {c, w, n}.
extern "C" __global__ void tma_im2col_store_3d(const __grid_constant__ TensorMap map,
                                               unsigned* tensor, const unsigned* in,
                                               unsigned bytes, const int* coords, unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        for (unsigned k = 0; k < steps; ++k) {
            const int* c = coords + 3 * k;
            asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group"
                         " [%0, {%1, %2, %3}], [%4];"
                         :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(smem(tile))
                         : "memory");
            store_done();
        }
    }
}

// {c, w, h, n} per step; odd steps with a cache hint.
extern "C" __global__ void tma_im2col_store_4d(const __grid_constant__ TensorMap map,
                                               unsigned* tensor, const unsigned* in,
                                               unsigned bytes, const int* coords, unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        unsigned long long policy;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
        for (unsigned k = 0; k < steps; ++k) {
            const int* c = coords + 4 * k;
            if (k % 2 == 0) {
                asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group"
                             " [%0, {%1, %2, %3, %4}], [%5];"
                             :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                                "r"(smem(tile)) : "memory");
            } else {
                asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group"
                             ".L2::cache_hint [%0, {%1, %2, %3, %4}], [%5], %6;"
                             :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                                "r"(smem(tile)), "l"(policy) : "memory");
            }
            store_done();
        }
    }
}

#define D4R_TMA_REDUCE(OP)                                                                         \
    asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta." OP                           \
                 ".im2col_no_offs.bulk_group [%0, {%1, %2, %3, %4}], [%5];"                        \
                 :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(smem(tile))       \
                 : "memory")

// ops[k]: 0 add, 1 min, 2 max, 3 inc, 4 dec, 5 and, 6 or, 7 xor.
extern "C" __global__ void tma_im2col_reduce_4d(const __grid_constant__ TensorMap map,
                                                unsigned* tensor, const unsigned* in,
                                                unsigned bytes, const int* coords,
                                                const unsigned* ops, unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        for (unsigned k = 0; k < steps; ++k) {
            const int* c = coords + 4 * k;
            switch (ops[k]) {
            case 0: D4R_TMA_REDUCE("add"); break;
            case 1: D4R_TMA_REDUCE("min"); break;
            case 2: D4R_TMA_REDUCE("max"); break;
            case 3: D4R_TMA_REDUCE("inc"); break;
            case 4: D4R_TMA_REDUCE("dec"); break;
            case 5: D4R_TMA_REDUCE("and"); break;
            case 6: D4R_TMA_REDUCE("or"); break;
            default: D4R_TMA_REDUCE("xor"); break;
            }
            store_done();
        }
    }
}
