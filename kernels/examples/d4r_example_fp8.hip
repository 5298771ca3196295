// d4r_example_fp8: decodes packed OCP FP8 E4M3 values to f32. gfx12 (RDNA4) has hardware FP8
// conversions (v_cvt_pk_f32_fp8: two bytes of a dword to two floats); gfx11 has none, and LLVM
// aborts on the intrinsic there, so the gfx11 build takes a software decode instead.
#include "../include/d4r_kernel.h"

#if defined(__gfx1200__) || defined(__gfx1201__)
#define D4R_HAS_FP8_CVT 1
#endif

#ifndef D4R_HAS_FP8_CVT
// E4M3 (OCP "fn"): sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities, S.1111.111 is
// NaN; exponent 0 holds the subnormals m * 2^-9.
D4R_DEVICE float d4r_e4m3_to_f32(unsigned byte)
{
  unsigned sign = (byte >> 7) & 1u;
  unsigned exponent = (byte >> 3) & 15u;
  unsigned mantissa = byte & 7u;
  float magnitude = 0.0f;
  if (exponent == 15u && mantissa == 7u) {
    magnitude = __builtin_nanf("");
  } else if (exponent == 0u) {
    magnitude = static_cast<float>(mantissa) * 0x1p-9f;
  } else {
    magnitude = __builtin_bit_cast(float, ((exponent + 120u) << 23) | (mantissa << 20));
  }
  return sign != 0u ? -magnitude : magnitude;
}
#endif

// Four FP8 values per dword in, four floats out.
D4R_KERNEL d4r_example_fp8(const unsigned* in, float* out, unsigned n)
{
  unsigned i = d4r_index(128u);
  if (i >= n) {
    return;
  }
  unsigned packed = in[i];
#ifdef D4R_HAS_FP8_CVT
  typedef float d4r_float2 __attribute__((ext_vector_type(2)));
  d4r_float2 low = __builtin_amdgcn_cvt_pk_f32_fp8(static_cast<int>(packed), false);
  d4r_float2 high = __builtin_amdgcn_cvt_pk_f32_fp8(static_cast<int>(packed), true);
  out[4 * i + 0] = low.x;
  out[4 * i + 1] = low.y;
  out[4 * i + 2] = high.x;
  out[4 * i + 3] = high.y;
#else
  for (unsigned k = 0; k < 4u; ++k) {
    out[4 * i + k] = d4r_e4m3_to_f32((packed >> (8u * k)) & 0xffu);
  }
#endif
}
