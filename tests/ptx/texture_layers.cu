// d4r-corpus-archs: sm_86 sm_89
// The largest module of the corpus: a family of encoder/decoder layers, each a template instantiated
// for several channel counts and fully unrolled, the way a DLSS texture module holds one large entry
// per layer. It mixes every idiom of the smaller files in one module (texture fetches, shared tiles,
// barriers, shuffles, mma.sync, the roundf idiom, surface stores, and FP8 decoding on sm_89) so that the
// parser and the passes see them interleaved, and it gives the benchmark a realistic large input.
// Entries are extern "C" wrappers plus a few mangled template kernels. Our own code; regenerate with
// regenerate.sh.
#include <cuda_fp16.h>
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#include <cuda_fp8.h>
#endif
#include "corpus_common.cuh"
#if !D4R_CORPUS_PTX
#include "wmma_twins.cuh"
#endif

struct LayerParams {
    cudaTextureObject_t input;
    cudaSurfaceObject_t output;
    const unsigned* weights;
    const float* bias;
    int width;
    int height;
    float scale;
    float levels;
};

__device__ inline unsigned short half_bits(float value)
{
    return __half_as_ushort(__float2half_rn(value));
}

__device__ inline float decode_weight(unsigned packed, int which)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    const __half2_raw raw =
        __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(packed >> (16 * (which & 1))), __NV_E4M3);
    return __half2float(__half(__half_raw{raw.x}));
#else
    return static_cast<float>(static_cast<int>((packed >> (8 * (which & 3))) & 0xffu) - 128) * (1.0f / 64.0f);
#endif
}

#if D4R_CORPUS_PTX
__device__ inline void mma_tile(float acc[4], const unsigned a[4], const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

template <int Channels, int Taps>
__device__ __forceinline__ void layer_body(const LayerParams& p, float* scratch)
{
    __shared__ float tile[Channels][D4R_TILE * D4R_TILE];
    const Texel t = texel_of_thread();
    const int local = static_cast<int>(threadIdx.y * D4R_TILE + threadIdx.x);
    const float u = (static_cast<float>(t.x) + 0.5f) / static_cast<float>(p.width);
    const float v = (static_cast<float>(t.y) + 0.5f) / static_cast<float>(p.height);
#pragma unroll
    for (int c = 0; c < Channels; c += 4) {
        const float4 texel = tex2D<float4>(p.input, u + static_cast<float>(c) * 0.001f, v);
        tile[c][local] = texel.x;
        if (c + 1 < Channels) {
            tile[c + 1][local] = texel.y;
        }
        if (c + 2 < Channels) {
            tile[c + 2][local] = texel.z;
        }
        if (c + 3 < Channels) {
            tile[c + 3][local] = texel.w;
        }
    }
    D4R_BARRIER();

    float out[Channels];
#pragma unroll
    for (int o = 0; o < Channels; ++o) {
        float sum = p.bias[o];
#pragma unroll
        for (int k = 0; k < Taps; ++k) {
            const unsigned w = p.weights[(o * Taps + k) >> 1];
            const int neighbour = (local + k * 17) & (D4R_TILE * D4R_TILE - 1);
            sum += decode_weight(w, k) * tile[(o + k) % Channels][neighbour];
        }
        out[o] = sum > 0.0f ? sum : 0.01f * sum;
    }

#if D4R_CORPUS_PTX
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int k = 0; k < Channels / 8; ++k) {
        const unsigned a[4] = {__float_as_uint(out[k]), __float_as_uint(out[(k + 1) % Channels]),
                               __float_as_uint(out[(k + 2) % Channels]), __float_as_uint(out[(k + 3) % Channels])};
        const unsigned b[2] = {p.weights[k * 2], p.weights[k * 2 + 1]};
        mma_tile(acc, a, b);
    }
    const float energy = warp_sum(acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2] + acc[3] * acc[3]);
#else // built as HIP: the same product in the WMMA layout (wmma_twins.cuh)
    __shared__ unsigned warp_tiles[D4R_TILE * D4R_TILE / 32][128];
    DeviceWave wave;
    const float energy = warp_sum(layer_energy_twin(wave, out, Channels, p.weights, warp_tiles[local / 32]));
#endif
    // One warp's energy per block: lane 0 of warp 0 (every warp storing to the one slot made the
    // slot's value the GPU's schedule).
    if (local == 0) {
        scratch[blockIdx.y * gridDim.x + blockIdx.x] = energy;
    }
    D4R_BARRIER();
    if (t.x >= p.width || t.y >= p.height) {
        return;
    }
#pragma unroll
    for (int c = 0; c < Channels; c += 4) {
        const float r = roundf(clamp01(out[c] * p.scale) * p.levels) / p.levels;
        const float g = roundf(clamp01(out[(c + 1) % Channels] * p.scale) * p.levels) / p.levels;
        const ushort4 texel = make_ushort4(half_bits(r), half_bits(g), half_bits(out[(c + 2) % Channels]),
                                           half_bits(out[(c + 3) % Channels]));
        surf2Dwrite(texel, p.output, (t.x * Channels / 4 + c / 4) * 8, t.y, cudaBoundaryModeZero);
    }
}

extern "C" __global__ void dltss_pwin_enc0_layer(LayerParams p, float* scratch) { layer_body<8, 9>(p, scratch); }
extern "C" __global__ void dltss_pwin_enc1_layer(LayerParams p, float* scratch) { layer_body<16, 9>(p, scratch); }
extern "C" __global__ void dltss_pwin_enc2_layer(LayerParams p, float* scratch) { layer_body<24, 9>(p, scratch); }
extern "C" __global__ void dltss_pwin_enc3_layer(LayerParams p, float* scratch) { layer_body<32, 9>(p, scratch); }
extern "C" __global__ void dltss_pwin_dec3_layer(LayerParams p, float* scratch) { layer_body<32, 4>(p, scratch); }
extern "C" __global__ void dltss_pwin_dec2_layer(LayerParams p, float* scratch) { layer_body<24, 4>(p, scratch); }
extern "C" __global__ void dltss_pwin_dec1_layer(LayerParams p, float* scratch) { layer_body<16, 4>(p, scratch); }

template <int Channels>
__global__ void dltss_pwin_dec0_layer(LayerParams p, float* scratch)
{
    layer_body<Channels, 1>(p, scratch);
}

template __global__ void dltss_pwin_dec0_layer<8>(LayerParams, float*);
template __global__ void dltss_pwin_dec0_layer<16>(LayerParams, float*);
