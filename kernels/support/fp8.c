/* fp8.c: the FP8 conversions of cvt, exact in software (gfx12 has instructions; the translator
 * uses those there, this everywhere else).
 * PTX ISA, cvt: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt
 * Formats (PTX ISA "Alternate Floating Point Data Formats"):
 *   e4m3: 1 sign, 4 exponent bits (bias 7), 3 fraction bits; no infinity; NaN is S.1111.111 only;
 *         the largest finite value is S.1111.110 = 448; subnormals down to 2^-9.
 *   e5m2: 1 sign, 5 exponent bits (bias 15), 2 fraction bits; IEEE-like: infinity S.11111.00,
 *         NaNs S.11111.{01,10,11}; the largest finite value is 57344; subnormals down to 2^-16.
 * Decoding (cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a) is exact: every value is an f16 value. The
 * byte a[15:8] becomes d[31:16] and a[7:0] becomes d[15:0]. NaN becomes the canonical f16 NaN
 * 0x7fff; .relu turns negative values (and -0.0) into +0.0.
 * Encoding (cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2}) rounds to nearest even once from
 * the exact source; .satfinite (mandatory in PTX) maps overflow and infinities to +-max finite
 * (448, 57344) and NaN to the canonical NaN 0x7f; .relu turns negative results into +0.0. For
 * cvt ... d, a, b the value of a goes to d[15:8] and b to d[7:0]; for an f16x2 source, a[31:16]
 * goes to d[15:8]. Without .satfinite (not valid PTX, kept for completeness) e5m2 overflows to
 * infinity and e4m3, having none, saturates.
 */
#include "d4r_ptx_internal.h"

/* e4m3 -> f16 is exact (f16 has more exponent and fraction bits), so no rounding code: a normal
 * S.EEEE.MMM becomes S.(E + 8).MMM0000000, the magnitude shifted left by 7 plus the rebias (8 << 10).
 * The seven subnormals m * 2^-9 (m = 1..7) are normal in f16; their upper bytes (the lower ones are
 * zero) sit in one 64-bit constant indexed by m. About ten instructions, no branch, where the
 * general decode-and-round path was about 150 per byte on gfx11. */
D4R_API uint16_t __d4r_ptx_cvt_f16_e4m3(uint8_t v)
{
  const uint32_t mag = v & 0x7fu;
  if (mag == 0x7fu) {
    return 0x7fffu;
  }
  const uint32_t subnormal = (uint32_t)((0x232221201e1c1800ull >> ((mag & 7u) * 8u)) & 0xffu) << 8;
  const uint32_t h = mag >= 8u ? (mag << 7) + 0x2000u : subnormal;
  return (uint16_t)(h | ((uint32_t)(v & 0x80u) << 8));
}

D4R_API uint16_t __d4r_ptx_cvt_f16_e5m2(uint8_t v)
{
  if ((v & 0x7fu) > 0x7cu) {
    return 0x7fffu;
  }
  return (uint16_t)((uint16_t)v << 8); /* e5m2 is the upper byte of an f16 */
}

D4R_INLINE uint16_t d4r_relu_f16(uint16_t h, int relu)
{
  return (relu && (h & 0x8000u) && (h & 0x7fffu) <= 0x7c00u) ? 0 : h;
}

D4R_API uint32_t __d4r_ptx_cvt_f16x2_e4m3x2(uint16_t pair, int relu)
{
  const uint16_t hi = d4r_relu_f16(__d4r_ptx_cvt_f16_e4m3((uint8_t)(pair >> 8)), relu);
  const uint16_t lo = d4r_relu_f16(__d4r_ptx_cvt_f16_e4m3((uint8_t)pair), relu);
  return ((uint32_t)hi << 16) | lo;
}

D4R_API uint32_t __d4r_ptx_cvt_f16x2_e5m2x2(uint16_t pair, int relu)
{
  const uint16_t hi = d4r_relu_f16(__d4r_ptx_cvt_f16_e5m2((uint8_t)(pair >> 8)), relu);
  const uint16_t lo = d4r_relu_f16(__d4r_ptx_cvt_f16_e5m2((uint8_t)pair), relu);
  return ((uint32_t)hi << 16) | lo;
}

D4R_INLINE uint8_t d4r_encode_fp8(const D4rFormat* f, double x, int satfinite, int relu)
{
  uint8_t r = (uint8_t)d4r_encode_f64(f, x, D4R_RN, satfinite);
  if (relu && (r & 0x80u) && (r & 0x7fu) != 0x7fu && !((r & 0x7fu) > 0x7cu && f == &d4r_e5m2)) {
    r = 0;
  }
  return r;
}

D4R_API uint8_t __d4r_ptx_cvt_e4m3_f32(float x, int satfinite, int relu)
{
  return d4r_encode_fp8(&d4r_e4m3, x, satfinite, relu);
}

D4R_API uint8_t __d4r_ptx_cvt_e5m2_f32(float x, int satfinite, int relu)
{
  return d4r_encode_fp8(&d4r_e5m2, x, satfinite, relu);
}

D4R_API uint16_t __d4r_ptx_cvt_e4m3x2_f32(float hi, float lo, int satfinite, int relu)
{
  return (uint16_t)(((uint16_t)__d4r_ptx_cvt_e4m3_f32(hi, satfinite, relu) << 8) |
                    __d4r_ptx_cvt_e4m3_f32(lo, satfinite, relu));
}

D4R_API uint16_t __d4r_ptx_cvt_e5m2x2_f32(float hi, float lo, int satfinite, int relu)
{
  return (uint16_t)(((uint16_t)__d4r_ptx_cvt_e5m2_f32(hi, satfinite, relu) << 8) |
                    __d4r_ptx_cvt_e5m2_f32(lo, satfinite, relu));
}

D4R_API uint16_t __d4r_ptx_cvt_e4m3x2_f16x2(uint32_t f16x2, int satfinite, int relu)
{
  const double hi = d4r_decode(&d4r_f16, f16x2 >> 16);
  const double lo = d4r_decode(&d4r_f16, f16x2 & 0xffffu);
  return (uint16_t)(((uint16_t)d4r_encode_fp8(&d4r_e4m3, hi, satfinite, relu) << 8) |
                    d4r_encode_fp8(&d4r_e4m3, lo, satfinite, relu));
}

D4R_API uint16_t __d4r_ptx_cvt_e5m2x2_f16x2(uint32_t f16x2, int satfinite, int relu)
{
  const double hi = d4r_decode(&d4r_f16, f16x2 >> 16);
  const double lo = d4r_decode(&d4r_f16, f16x2 & 0xffffu);
  return (uint16_t)(((uint16_t)d4r_encode_fp8(&d4r_e5m2, hi, satfinite, relu) << 8) |
                    d4r_encode_fp8(&d4r_e5m2, lo, satfinite, relu));
}
