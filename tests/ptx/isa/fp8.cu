// d4r-isa-ptx: fp8.sm_89.ptx -arch=sm_89 -O3
// d4r-isa-ptx: fp8.sm_90.ptx -arch=sm_90 -O3
// Stage 5: FP8 conversions (sm_89+). Exhaustive e4m3x2 / e5m2x2 -> f16x2 over all 65536 pairs, with
// and without .relu; f16x2 -> e4m3x2 / e5m2x2 (.satfinite, with and without .relu) over every half in
// each position; f32 pairs -> e4m3x2 / e5m2x2 on an edge-heavy sample. The exact instruction forms
// are inline PTX; one kernel goes through cuda_fp8.h as a game's code would.
#include <cuda_fp8.h>
#include "isa_common.cuh"

extern "C" __global__ void fp8x2_to_f16x2(const unsigned short* pairs, unsigned* e4m3, unsigned* e4m3_relu,
                                          unsigned* e5m2, unsigned* e5m2_relu, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short p = pairs[i];
    unsigned r;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(p));
    e4m3[i] = r;
    asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(p));
    e4m3_relu[i] = r;
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(p));
    e5m2[i] = r;
    asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(p));
    e5m2_relu[i] = r;
}

// Every half h in the low position, paired with a permuted half in the high position.
extern "C" __global__ void f16x2_to_fp8x2(const unsigned short* halves, unsigned short* e4m3,
                                          unsigned short* e4m3_relu, unsigned short* e5m2,
                                          unsigned short* e5m2_relu, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned h = halves[i];
    const unsigned pair = h | ((h * 40503u) & 0xffffu) << 16;
    unsigned short r;
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(r) : "r"(pair));
    e4m3[i] = r;
    asm("cvt.rn.satfinite.relu.e4m3x2.f16x2 %0, %1;" : "=h"(r) : "r"(pair));
    e4m3_relu[i] = r;
    asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(r) : "r"(pair));
    e5m2[i] = r;
    asm("cvt.rn.satfinite.relu.e5m2x2.f16x2 %0, %1;" : "=h"(r) : "r"(pair));
    e5m2_relu[i] = r;
}

// PTX: cvt.rn.satfinite.e4m3x2.f32 d, a, b puts a in the high byte and b in the low byte.
extern "C" __global__ void f32_to_fp8x2(const float* a, const float* b, unsigned short* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const float x = a[i];
    const float y = b[i];
    unsigned short r;
    unsigned short* o = out + i * 6;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(y));
    o[0] = r;
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(y));
    o[1] = r;
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(y));
    o[2] = r;
    asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(y));
    o[3] = r;
    o[4] = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_NOSAT, __NV_E4M3);
    o[5] = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_NOSAT, __NV_E5M2);
}
