/* minmax.c: min/max on f16 and bf16 (each half of f16x2/bf16x2 alike) with .ftz, .NaN and
 * .xorsign.abs, and the f32 .xorsign.abs forms; integer operations on the bits, so no target's
 * float min/max rule (NaN quieting, -0/+0 order, subnormal flushing) can enter.
 * PTX ISA, half precision min/max: -0.0 < +0.0; one NaN operand gives the other operand, two give
 * the canonical NaN, and with .NaN any NaN operand gives the canonical NaN; .ftz (f16, f32)
 * flushes subnormal inputs to a zero of their sign; .xorsign.abs gives the operand of the smaller
 * (min) or larger (max) magnitude with the XOR of both operands' signs, and is ignored when the
 * result is NaN. https://docs.nvidia.com/cuda/parallel-thread-execution/#half-precision-floating-point-instructions-min
 */
#include "d4r_ptx_internal.h"

/* A total order on sign-magnitude bits in which -0 < +0 (16 or 32 bits, sign at `top`). */
D4R_INLINE int64_t d4r_order(uint32_t u, int top)
{
  const uint32_t sign = 1u << top;
  return (u & sign) ? -(int64_t)(u & (sign - 1)) - 1 : (int64_t)u;
}

/* The rule above on bits of width top + 1: nan_mag the magnitude of infinity (anything above is
 * NaN), exp_mask the exponent field (zero: subnormal or zero), canonical the NaN result. */
D4R_INLINE uint32_t d4r_minmax_bits(uint32_t a, uint32_t b, int top, uint32_t nan_mag,
                                    uint32_t exp_mask, uint32_t canonical, int is_max, int ftz,
                                    int nan, int xorsign)
{
  const uint32_t sign = 1u << top;
  if (ftz) {
    a = (a & exp_mask) == 0 ? (a & sign) : a;
    b = (b & exp_mask) == 0 ? (b & sign) : b;
  }
  const int a_nan = (a & (sign - 1)) > nan_mag;
  const int b_nan = (b & (sign - 1)) > nan_mag;
  if ((a_nan && b_nan) || (nan && (a_nan || b_nan))) {
    return canonical;
  }
  const uint32_t signs = (a ^ b) & sign;
  if (xorsign) {
    a &= sign - 1;
    b &= sign - 1;
  }
  uint32_t r;
  if (a_nan) {
    r = b;
  } else if (b_nan) {
    r = a;
  } else {
    const int a_less = d4r_order(a, top) < d4r_order(b, top);
    r = (a_less != is_max) ? a : b;
  }
  return xorsign ? (r | signs) : r;
}

D4R_API uint16_t __d4r_ptx_minmax_f16(uint16_t a, uint16_t b, int is_max, int ftz, int nan,
                                      int xorsign)
{
  return (uint16_t)d4r_minmax_bits(a, b, 15, 0x7c00u, 0x7c00u, 0x7fffu, is_max, ftz, nan, xorsign);
}

D4R_API uint16_t __d4r_ptx_minmax_bf16(uint16_t a, uint16_t b, int is_max, int nan, int xorsign)
{
  return (uint16_t)d4r_minmax_bits(a, b, 15, 0x7f80u, 0x7f80u, 0x7fffu, is_max, 0, nan, xorsign);
}

D4R_API float __d4r_ptx_minmax_xorsign_f32(float a, float b, int is_max, int ftz, int nan)
{
  return d4r_f32_bits(d4r_minmax_bits(d4r_bits_f32(a), d4r_bits_f32(b), 31, 0x7f800000u,
                                      0x7f800000u, D4R_F32_NAN, is_max, ftz, nan, 1));
}

/* ---- cvt to .tf32 ----
 * cvt.rna{.satfinite}.tf32.f32 and cvt.{rn,rz}{.relu}.tf32.f32: the f32 value rounded to 10
 * fraction bits (the f32 exponent range, subnormals included), in f32 layout with the 13 low bits
 * zero. .satfinite clamps an infinite result to the largest finite (0x7f7fe000); .relu makes a
 * negative result (and -0) +0. NaN, as the H200 does it (half_cvt_exhaustive, 440 NaNs): .rn/.rz
 * give 0x7fffe000; .rna truncates the 13 low bits (0x7f800001 becomes +inf, sign and payload
 * kept otherwise), and .rna.satfinite then takes one tf32 unit off whatever has an all-ones
 * exponent, as it does to infinity (0x7fc00000 -> 0x7fbfe000, 0xffffffff -> 0xffffc000). */
static const D4rFormat d4r_tf32 = {10, 127, 18, 0x3fbffu, 0x3fc00u, 0x3ffffu};

D4R_API uint32_t __d4r_ptx_cvt_tf32_f32(float x, int mode, int relu, int satfinite)
{
  const uint32_t u = d4r_bits_f32(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    if (mode != D4R_RNA) {
      return 0x7fffe000u;
    }
    const uint32_t t = u & 0xffffe000u;
    return satfinite && (t & 0x7f800000u) == 0x7f800000u ? t - 0x2000u : t;
  }
  const uint32_t r = (uint32_t)d4r_encode_f64(&d4r_tf32, (double)x, mode, satfinite) << 13;
  return relu && (r >> 31) ? 0 : r;
}
