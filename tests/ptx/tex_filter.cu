// d4r-corpus-archs: sm_80 sm_86 sm_89 sm_90
// A texture-sampling kernel shaped like the input stage of an upscaler: 2D texture fetches into a
// shared tile, a barrier, a 3x3 filter, warp shuffles for a luminance statistic, divergent border
// handling, the roundf idiom (add.rz.ftz.f32 + cvt.rzi.f32.f32 under -ftz=true) to quantise, and a
// half-precision RGBA store (sust.b.2d.v4.b16.zero). Our own code; regenerate with regenerate.sh.
#include <cuda_fp16.h>
#include "corpus_common.cuh"

struct FilterParams {
    cudaTextureObject_t color;
    cudaTextureObject_t depth;
    cudaSurfaceObject_t output;
    int width;
    int height;
    float exposure;
    float levels;
};

__device__ inline float luminance(float4 c)
{
    return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
}

__device__ inline unsigned short half_bits(float value)
{
    return __half_as_ushort(__float2half_rn(value));
}

extern "C" __global__ void hiluma_engine_output_filter(FilterParams p, float* luma_sums)
{
    __shared__ float4 tile[D4R_TILE + 2][D4R_TILE + 2];
    const Texel t = texel_of_thread();
    const float u = (static_cast<float>(t.x) + 0.5f) / static_cast<float>(p.width);
    const float v = (static_cast<float>(t.y) + 0.5f) / static_cast<float>(p.height);
    tile[threadIdx.y + 1][threadIdx.x + 1] = tex2D<float4>(p.color, u, v);
    if (threadIdx.x == 0 || threadIdx.x == D4R_TILE - 1) {
        const float side = threadIdx.x == 0 ? -1.0f : 1.0f;
        const float su = u + side / static_cast<float>(p.width);
        tile[threadIdx.y + 1][threadIdx.x == 0 ? 0 : D4R_TILE + 1] = tex2D<float4>(p.color, su, v);
    }
    if (threadIdx.y == 0 || threadIdx.y == D4R_TILE - 1) {
        const float side = threadIdx.y == 0 ? -1.0f : 1.0f;
        const float sv = v + side / static_cast<float>(p.height);
        tile[threadIdx.y == 0 ? 0 : D4R_TILE + 1][threadIdx.x + 1] = tex2D<float4>(p.color, u, sv);
    }
    D4R_BARRIER();

    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int dy = 0; dy < 3; ++dy) {
        for (int dx = 0; dx < 3; ++dx) {
            const float w = (dx == 1 && dy == 1) ? 0.5f : 0.0625f;
            const float4 c = tile[threadIdx.y + dy][threadIdx.x + dx];
            sum.x += w * c.x;
            sum.y += w * c.y;
            sum.z += w * c.z;
            sum.w += w * c.w;
        }
    }
    const float depth = tex2D<float>(p.depth, u, v);
    if (depth >= 1.0f) {
        sum = tile[threadIdx.y + 1][threadIdx.x + 1];
    }

    const float lane_luma = warp_sum(luminance(sum));
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(luma_sums + blockIdx.y * gridDim.x + blockIdx.x, lane_luma);
    }
    if (t.x >= p.width || t.y >= p.height) {
        return;
    }
    const float r = roundf(clamp01(sum.x * p.exposure) * p.levels) / p.levels;
    const float g = roundf(clamp01(sum.y * p.exposure) * p.levels) / p.levels;
    const float b = roundf(clamp01(sum.z * p.exposure) * p.levels) / p.levels;
    const ushort4 texel = make_ushort4(half_bits(r), half_bits(g), half_bits(b), half_bits(sum.w));
    surf2Dwrite(texel, p.output, t.x * static_cast<int>(sizeof(ushort4)), t.y, cudaBoundaryModeZero);
}
