// d4r-corpus-archs: sm_80 sm_86 sm_89 sm_90
// The GEMM core of a convolution layer as DLSS texture kernels write it: a warp loads A and B
// fragments from shared memory and issues mma.sync.aligned.m16n8k16 with f16 inputs and an f32
// accumulator; on sm_89 and later a second kernel does the same with e4m3 (FP8) inputs. The mma
// instructions are inline PTX (as in CUTLASS-style code); the fallback is plain C++ so the file also
// builds where there is no PTX. Our own code; regenerate with regenerate.sh.
#include <cuda_fp16.h>
#include "corpus_common.cuh"
#if !D4R_CORPUS_PTX
#include "wmma_twins.cuh"
#endif

struct Accum {
    float c[4];
};

#if D4R_CORPUS_PTX
__device__ inline void mma_f16_m16n8k16(Accum& acc, const unsigned a[4], const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc.c[0]), "+f"(acc.c[1]), "+f"(acc.c[2]), "+f"(acc.c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

__device__ inline void mma_e4m3_m16n8k16(Accum& acc, const unsigned a[2], unsigned b)
{
#if D4R_CORPUS_PTX && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(acc.c[0]), "+f"(acc.c[1]), "+f"(acc.c[2]), "+f"(acc.c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b));
#else
    for (int i = 0; i < 4; ++i) {
        acc.c[i] += static_cast<float>(a[i & 1] >> 24) * static_cast<float>(b >> (8 * i) & 0xffu);
    }
#endif
}

// Stage a 16x16 f16 A tile and a 16x8 B tile through shared memory, then hand each lane its
// fragments (row-major A, column-major B, the mma.sync fragment layout). Built as HIP, the same
// product in the WMMA layout (wmma_twins.cuh).
extern "C" __global__ void enc0_gemm_f16(const unsigned* a_tiles, const unsigned* b_tiles, float* out, int k_tiles)
{
    __shared__ unsigned a_shared[128];
    __shared__ unsigned b_shared[64];
#if !D4R_CORPUS_PTX
    DeviceWave wave;
    enc0_gemm_f16_twin(wave, a_tiles, b_tiles, out, k_tiles, blockIdx.x, a_shared, b_shared);
#else
    const int lane = static_cast<int>(threadIdx.x & 31);
    Accum acc = {{0.0f, 0.0f, 0.0f, 0.0f}};
    for (int k = 0; k < k_tiles; ++k) {
        for (int i = lane; i < 128; i += 32) {
            a_shared[i] = a_tiles[k * 128 + i];
        }
        for (int i = lane; i < 64; i += 32) {
            b_shared[i] = b_tiles[k * 64 + i];
        }
        D4R_BARRIER();
        const int group = lane >> 2;
        const int quad = lane & 3;
        const unsigned a[4] = {a_shared[group * 4 + quad], a_shared[(group + 8) * 4 + quad],
                               a_shared[64 + group * 4 + quad], a_shared[64 + (group + 8) * 4 + quad]};
        const unsigned b[2] = {b_shared[group * 4 + quad], b_shared[32 + group * 4 + quad]};
        mma_f16_m16n8k16(acc, a, b);
        D4R_BARRIER();
    }
    const float row_max = fmaxf(fmaxf(acc.c[0], acc.c[1]), fmaxf(acc.c[2], acc.c[3]));
    const float warp_max = fmaxf(row_max, D4R_SHFL_XOR(row_max, 1));
    for (int i = 0; i < 4; ++i) {
        out[(blockIdx.x * 32 + lane) * 4 + i] = acc.c[i] > 0.0f ? acc.c[i] / fmaxf(warp_max, 1e-6f) : 0.0f;
    }
#endif
}

extern "C" __global__ void enc0_gemm_e4m3(const unsigned* a_tiles, const unsigned* b_tiles, float* out, int k_tiles,
                                          float dequant)
{
    __shared__ unsigned a_shared[64];
    __shared__ unsigned b_shared[32];
#if !D4R_CORPUS_PTX && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    DeviceWave wave;
    enc0_gemm_e4m3_twin(wave, a_tiles, b_tiles, out, k_tiles, dequant, blockIdx.x, a_shared, b_shared);
#else
    const int lane = static_cast<int>(threadIdx.x & 31);
    Accum acc = {{0.0f, 0.0f, 0.0f, 0.0f}};
    // Not unrolled by nvcc (it would make two or four copies and a remainder loop): clang does
    // not unroll the native build of this loop, whose barriers forbid a remainder loop, and the
    // code-quality benchmark compares like with like. The products are the same, in the same
    // order. clang's own PTX (tests/ptx/clang, sm_80) is left as it was recorded.
#if defined(__NVCC__) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890)
#pragma unroll 1
#endif
    for (int k = 0; k < k_tiles; ++k) {
        a_shared[lane] = a_tiles[k * 64 + lane];
        a_shared[lane + 32] = a_tiles[k * 64 + lane + 32];
        b_shared[lane] = b_tiles[k * 32 + lane];
        D4R_BARRIER();
        const unsigned a[2] = {a_shared[lane], a_shared[lane + 32]};
        mma_e4m3_m16n8k16(acc, a, b_shared[(lane + k) & 31]);
        D4R_BARRIER();
    }
    float total = acc.c[0] + acc.c[1] + acc.c[2] + acc.c[3];
    total += D4R_SHFL_DOWN(total, 16);
    total += D4R_SHFL_DOWN(total, 8);
    if (lane < 8) {
        out[blockIdx.x * 8 + lane] = total * dequant;
    }
#endif
}
