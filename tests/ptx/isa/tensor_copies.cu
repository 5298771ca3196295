// d4r-isa-ptx: tensor_copies.sm_90.ptx -arch=sm_90 -O3
// d4r-isa-ptx: tensor_copies.sm_90a.ptx -arch=sm_90a -O3
// The tensor-map copies (lower_tensor_copy.cpp; the map's layout on our side:
// compiler/translate/tensor_map_layout.hpp). The host passes each map as a kernel parameter
// (`const __grid_constant__`), which the golden cases describe with a `param = tensormap` line:
// cuTensorMapEncodeTiled on the H200, our layout in the executor.
// - tma_load_{1..5}d: `tensor` is the map's memory (the param the case's map names); each block
//   copies one box (global -> shared::cluster with
//   .mbarrier::complete_tx::bytes, a cluster of one CTA) at coordinates drawn from its input,
//   many of them partly or wholly outside the tensor; the shared buffer starts as 0xEE bytes and
//   `offset` bytes into a 1024-aligned array, so the output shows the box exactly as the TMA laid
//   it (swizzled or not, out-of-bounds fill), the 64 bytes after it (never written) and a word
//   that says whether the barrier's phase completed (a bounded wait). The 2D
//   kernel spells the instruction four ways by block (plain, .tile, .L2::cache_hint,
//   .multicast::cluster with ctaMask 1 and a hint).
// - tma_store_{1,2,3}d: one thread stores the shared box (from the input) at each coordinate set
//   in turn (shared::cta -> global, .bulk_group, wait_group 0 between), boxes partly outside
//   (their outside elements are not written).
// - tma_reduce_2d, tma_reduce_3d: the same with cp.reduce.async.bulk.tensor, the operation of each
//   step from the input (add min max inc dec and or xor; the element type is the map's).
// - tma_replace (sm_90a only): the map copied to shared memory (block 0) or global memory
//   (block 1), fields rewritten by tensormap.replace (global address, dims, stride, box, swizzle,
//   fill mode, element stride, rank, element type, interleave), published with tensormap.cp_fenceproxy (block 0) or
//   fence.proxy.tensormap::generic release/acquire (block 1), then used by a 2D load.
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

extern "C" __global__ void tma_load_1d(const __grid_constant__ TensorMap map,
                                       const unsigned* tensor, const int* coords, unsigned bytes,
                                       unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2}], [%3];"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(coords[blockIdx.x]), "r"(bar)
                     : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

extern "C" __global__ void tma_load_2d(const __grid_constant__ TensorMap map,
                                       const unsigned* tensor, const int* coords, unsigned bytes,
                                       unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const unsigned dst = smem(tile) + offset;
        const int x = coords[2 * blockIdx.x];
        const int y = coords[2 * blockIdx.x + 1];
        unsigned long long policy;
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
        switch (blockIdx.x % 4) {
        case 0:
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                         " [%0], [%1, {%2, %3}], [%4];"
                         :: "r"(dst), "l"(&map), "r"(x), "r"(y), "r"(bar) : "memory");
            break;
        case 1:
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         " [%0], [%1, {%2, %3}], [%4];"
                         :: "r"(dst), "l"(&map), "r"(x), "r"(y), "r"(bar) : "memory");
            break;
        case 2:
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;"
                         :: "r"(dst), "l"(&map), "r"(x), "r"(y), "r"(bar), "l"(policy) : "memory");
            break;
        default:
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         ".multicast::cluster.L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5, %6;"
                         :: "r"(dst), "l"(&map), "r"(x), "r"(y), "r"(bar), "h"((unsigned short)1),
                            "l"(policy) : "memory");
            break;
        }
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

extern "C" __global__ void tma_load_3d(const __grid_constant__ TensorMap map,
                                       const unsigned* tensor, const int* coords, unsigned bytes,
                                       unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const int* c = coords + 3 * blockIdx.x;
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                        "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

extern "C" __global__ void tma_load_4d(const __grid_constant__ TensorMap map,
                                       const unsigned* tensor, const int* coords, unsigned bytes,
                                       unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const int* c = coords + 4 * blockIdx.x;
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5}], [%6];"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                        "r"(c[3]), "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

extern "C" __global__ void tma_load_5d(const __grid_constant__ TensorMap map,
                                       const unsigned* tensor, const int* coords, unsigned bytes,
                                       unsigned offset, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        const int* c = coords + 5 * blockIdx.x;
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                        "r"(c[3]), "r"(c[4]), "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, bytes, done, out);
}

// tma_load_2d with the map first copied to global memory (`maps`, 128 bytes per block) and
// fenced there, as tma_replace's block 1 does without the replacements: whether a map read from
// the kernel's parameters (the other kernels) and one read from global memory behave alike.
extern "C" __global__ void tma_load_2d_global(const __grid_constant__ TensorMap map,
                                              const unsigned* tensor, const int* coords,
                                              unsigned bytes, unsigned offset, unsigned* out,
                                              TensorMap* maps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    TensorMap* mine = maps + blockIdx.x;
    if (threadIdx.x < 16) {
        mine->words[threadIdx.x] = map.words[threadIdx.x];
    }
    __syncwarp();
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(mine) : "memory");
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(smem(tile) + offset), "l"(mine), "r"(coords[2 * blockIdx.x]),
                        "r"(coords[2 * blockIdx.x + 1]), "r"(bar) : "memory");
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

// tensor: the map's global memory (the case's output); `steps` coordinate sets.
extern "C" __global__ void tma_store_1d(const __grid_constant__ TensorMap map, unsigned* tensor,
                                        const unsigned* in, unsigned bytes, const int* coords,
                                        unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        for (unsigned k = 0; k < steps; ++k) {
            asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
                         :: "l"(&map), "r"(coords[k]), "r"(smem(tile)) : "memory");
            store_done();
        }
    }
}

extern "C" __global__ void tma_store_2d(const __grid_constant__ TensorMap map, unsigned* tensor,
                                        const unsigned* in, unsigned bytes, const int* coords,
                                        unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        unsigned long long policy;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
        for (unsigned k = 0; k < steps; ++k) {
            const int x = coords[2 * k];
            const int y = coords[2 * k + 1];
            if (k % 2 == 0) {
                asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
                             " [%0, {%1, %2}], [%3];"
                             :: "l"(&map), "r"(x), "r"(y), "r"(smem(tile)) : "memory");
            } else {
                asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint"
                             " [%0, {%1, %2}], [%3], %4;"
                             :: "l"(&map), "r"(x), "r"(y), "r"(smem(tile)), "l"(policy) : "memory");
            }
            store_done();
        }
    }
}

extern "C" __global__ void tma_store_3d(const __grid_constant__ TensorMap map, unsigned* tensor,
                                        const unsigned* in, unsigned bytes, const int* coords,
                                        unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        for (unsigned k = 0; k < steps; ++k) {
            const int* c = coords + 3 * k;
            asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
                         " [%0, {%1, %2, %3}], [%4];"
                         :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(smem(tile))
                         : "memory");
            store_done();
        }
    }
}

// ops[k]: 0 add, 1 min, 2 max, 3 inc, 4 dec, 5 and, 6 or, 7 xor, each through REDUCE(OP).
#define D4R_TMA_REDUCE_BY_OP(OP_INDEX, REDUCE)                                                     \
    switch (OP_INDEX) {                                                                            \
    case 0: REDUCE("add"); break;                                                                  \
    case 1: REDUCE("min"); break;                                                                  \
    case 2: REDUCE("max"); break;                                                                  \
    case 3: REDUCE("inc"); break;                                                                  \
    case 4: REDUCE("dec"); break;                                                                  \
    case 5: REDUCE("and"); break;                                                                  \
    case 6: REDUCE("or"); break;                                                                   \
    default: REDUCE("xor"); break;                                                                 \
    }

#define D4R_TMA_REDUCE(OP)                                                                         \
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta." OP ".tile.bulk_group"        \
                 " [%0, {%1, %2}], [%3];"                                                          \
                 :: "l"(&map), "r"(x), "r"(y), "r"(smem(tile)) : "memory")

// ops[k] as D4R_TMA_REDUCE_BY_OP numbers them.
extern "C" __global__ void tma_reduce_2d(const __grid_constant__ TensorMap map, unsigned* tensor,
                                         const unsigned* in, unsigned bytes, const int* coords,
                                         const unsigned* ops, unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        for (unsigned k = 0; k < steps; ++k) {
            const int x = coords[2 * k];
            const int y = coords[2 * k + 1];
            D4R_TMA_REDUCE_BY_OP(ops[k], D4R_TMA_REDUCE);
            store_done();
        }
    }
}

#define D4R_TMA_REDUCE_3D(OP)                                                                      \
    asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta." OP ".tile.bulk_group"        \
                 " [%0, {%1, %2, %3}], [%4];"                                                      \
                 :: "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(smem(tile)) : "memory")

// The 3D form of tma_reduce_2d (interleaved maps need rank 3 or more).
extern "C" __global__ void tma_reduce_3d(const __grid_constant__ TensorMap map, unsigned* tensor,
                                         const unsigned* in, unsigned bytes, const int* coords,
                                         const unsigned* ops, unsigned steps)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    fill_box(tile, in, bytes);
    if (threadIdx.x == 0) {
        for (unsigned k = 0; k < steps; ++k) {
            const int* c = coords + 3 * k;
            D4R_TMA_REDUCE_BY_OP(ops[k], D4R_TMA_REDUCE_3D);
            store_done();
        }
    }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// knobs: 0 global_dim 0, 1 global_dim 1, 2 global_stride 0 (bytes), 3 box_dim 0, 4 box_dim 1,
// 7 element_stride 1, 8 the new box's bytes, 9 rank - 1 (5, 6, 10, 11 unused: ptxas takes the
// swizzle, fill, element type and interleave values only as immediates, so they are spelled per
// block: SWIZZLE, FILL, TYPE). maps: 128 bytes per block (global memory the kernel writes).
#define D4R_REPLACE_ALL(SPACE, M, SWIZZLE, FILL, TYPE)                                             \
    asm volatile(                                                                                  \
        "tensormap.replace.tile.global_address." SPACE ".b1024.b64 [%0], %1;\n\t"                  \
        "tensormap.replace.tile.global_dim." SPACE ".b1024.b32 [%0], 0, %2;\n\t"                   \
        "tensormap.replace.tile.global_dim." SPACE ".b1024.b32 [%0], 1, %3;\n\t"                   \
        "tensormap.replace.tile.global_stride." SPACE ".b1024.b64 [%0], 0, %4;\n\t"                \
        "tensormap.replace.tile.box_dim." SPACE ".b1024.b32 [%0], 0, %5;\n\t"                      \
        "tensormap.replace.tile.box_dim." SPACE ".b1024.b32 [%0], 1, %6;\n\t"                      \
        "tensormap.replace.tile.swizzle_mode." SPACE ".b1024.b32 [%0], " SWIZZLE ";\n\t"                    \
        "tensormap.replace.tile.fill_mode." SPACE ".b1024.b32 [%0], " FILL ";\n\t"                       \
        "tensormap.replace.tile.element_stride." SPACE ".b1024.b32 [%0], 1, %7;\n\t"               \
        "tensormap.replace.tile.rank." SPACE ".b1024.b32 [%0], %8;\n\t"                           \
        "tensormap.replace.tile.elemtype." SPACE ".b1024.b32 [%0], " TYPE ";\n\t"                       \
        "tensormap.replace.tile.interleave_layout." SPACE ".b1024.b32 [%0], 0;"                  \
        :: M, "l"(source), "r"(knobs[0]), "r"(knobs[1]), "l"((unsigned long long)knobs[2]),      \
           "r"(knobs[3]), "r"(knobs[4]), "r"(knobs[7]), "r"(knobs[9]) : "memory")

extern "C" __global__ void tma_replace(const __grid_constant__ TensorMap map,
                                       const unsigned* source, TensorMap* maps,
                                       const unsigned* knobs, const int* coords, unsigned* out)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(128) TensorMap staged;
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    TensorMap* mine = maps + blockIdx.x;
    const unsigned lane = threadIdx.x;
    if (blockIdx.x == 0) {
        if (lane < 16) {
            staged.words[lane] = map.words[lane];
        }
        __syncwarp();
        if (lane == 0) {
            D4R_REPLACE_ALL("shared::cta", "r"(smem(&staged)), "3", "1", "7"); // 128B, NaN, f32
        }
        __syncwarp();
        if (threadIdx.x < 32) {
            asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu"
                         ".sync.aligned [%0], [%1], 128;" :: "l"(mine), "r"(smem(&staged))
                         : "memory");
        }
    } else {
        if (lane < 16) {
            mine->words[lane] = map.words[lane];
        }
        __syncwarp();
        if (lane == 0) {
            D4R_REPLACE_ALL("global", "l"(mine), "0", "0", "2"); // none, zeros, u32
        }
        __syncwarp();
        asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    }
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(mine) : "memory");
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, knobs[8]);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(smem(tile)), "l"(mine), "r"(coords[2 * blockIdx.x]),
                        "r"(coords[2 * blockIdx.x + 1]), "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, 0, knobs[8], done, out);
}
#endif

// tma_load_2d (the plain spelling) that shows `shown` bytes of shared memory instead of the box's
// `bytes`: where the TMA puts a box whose rows are narrower than the swizzle span (the box's
// bytes are not its footprint then).
extern "C" __global__ void tma_load_2d_view(const __grid_constant__ TensorMap map,
                                            const unsigned* tensor, const int* coords,
                                            unsigned bytes, unsigned offset, unsigned* out,
                                            unsigned shown)
{
    __shared__ alignas(1024) unsigned tile[k_tile_bytes / 4];
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem(&barrier);
    prepare(tile, k_tile_bytes / 4, bar);
    if (threadIdx.x == 0) {
        expect(bar, bytes);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(smem(tile) + offset), "l"(&map), "r"(coords[2 * blockIdx.x]),
                        "r"(coords[2 * blockIdx.x + 1]), "r"(bar) : "memory");
    }
    const unsigned done = wait_parity(bar, 0);
    dump(tile, offset, shown, done, out);
}
