// d4r-isa-ptx: tanh_halves.sm_90.ptx -arch=sm_90 -O3
// Probe (issue 11): tanh.approx.f32 of every f16 and every bf16 value, widened exactly to f32, to
// compare with tanh.approx.f16/.bf16 (half_approx_exhaustive). ptxas 13 emits MUFU.TANH for the
// f32 form and MUFU.TANH.F16 / MUFU.TANH.BF16 (the same unit, a half-format result) for the
// half forms; the question is whether the half result is the f32 one truncated.
#include "isa_common.cuh"

extern "C" __global__ void tanh_halves(const unsigned short* a, float* out_f16, float* out_bf16,
                                       int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned short x = a[i];
    float r;
    asm("{\n\t.reg .f32 w;\n\tcvt.f32.f16 w, %1;\n\ttanh.approx.f32 %0, w;\n\t}"
        : "=f"(r)
        : "h"(x));
    out_f16[i] = r;
    asm("{\n\t.reg .f32 w;\n\tmov.b32 w, %1;\n\ttanh.approx.f32 %0, w;\n\t}"
        : "=f"(r)
        : "r"(static_cast<unsigned>(x) << 16));
    out_bf16[i] = r;
}
