/* convert.c: cvt between f64, f32, f16, bf16 and the integer types, exact in every rounding mode.
 * PTX ISA, cvt: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt
 *
 * Every narrowing conversion decodes its source exactly into a double (or an integer) and encodes
 * once with d4r_round, so f64 -> f16 never rounds twice through f32. Semantics taken from the ISA:
 *   float -> int saturates to the destination range; NaN gives 0, except for an .f64 source or a
 *     64-bit destination, where it gives 1 << (width - 1) ("Integer Notes").
 *   .ftz applies only to f32 inputs and results ("applies only to single precision"): it flushes
 *     f32 subnormal inputs of any cvt with an f32 source and f32 subnormal results; f16 and bf16
 *     results are never flushed.
 *   .sat on a float destination clamps to [0, 1] and turns NaN into +0.0 (we also turn -0.0 into
 *     +0.0); .relu turns negative results into +0.0 and keeps NaN canonical; .satfinite maps
 *     overflow and infinities to the largest finite value of that sign.
 *   NaN results (d4r_ptx_support.h, "NaN rules", measured on an H200): conversions between f32 and
 *     f64, f64 -> f16 and cvt.rXi.f64.f64 keep the NaN's sign and payload (the payload's top bits
 *     when narrowing) and set the quiet bit; cvt.ftz.f64.f32 widens the canonical f32 NaN
 *     (0x7fffffffe0000000). Every other conversion with a float result gives the canonical NaN of
 *     its format (f32 0x7fffffff, f16/bf16 0x7fff), except cvt.f32.bf16, which is a bit copy (the
 *     ISA leaves its NaN unspecified).
 */
#include "d4r_ptx_internal.h"

/* ---- float -> float ---- */

/* A NaN narrowed from f64 to a format of frac_bits fraction bits: sign, all-ones exponent, the
 * payload's top frac_bits bits with the quiet bit set (cvt_f64_random: 0xfff4000000000000 gives f32
 * 0xffe00000 and f16 0xff00). */
D4R_INLINE uint64_t d4r_narrow_nan(const D4rFormat* f, double x)
{
  const uint64_t u = d4r_bits_f64(x);
  const uint64_t payload = (u & ((1ull << 52) - 1)) >> (52 - f->frac_bits);
  const uint64_t quiet = 1ull << (f->frac_bits - 1);
  return ((u >> 63) << f->sign_shift) | f->inf_code | quiet | payload;
}

D4R_API float __d4r_ptx_cvt_f32_f64(double x, int mode, int ftz, int sat)
{
  if (d4r_isnan_f64(x)) {
    return sat ? 0.0f : d4r_f32_bits((uint32_t)d4r_narrow_nan(&d4r_f32, x));
  }
  return d4r_finish_f32((uint32_t)d4r_encode_f64(&d4r_f32, x, mode, 0), ftz, sat);
}

D4R_API double __d4r_ptx_cvt_f64_f32(float x, int ftz, int sat)
{
  if (ftz) {
    x = d4r_ftz_f32(x);
  }
  if (x != x) {
    if (sat) {
      return 0.0;
    }
    /* Sign and payload kept, quieted (0x7f800001 -> 0x7ff8000020000000); with .ftz the canonical
     * f32 NaN is widened (cvt_f32_ftz_*: every NaN -> 0x7fffffffe0000000). */
    const uint64_t u = ftz ? 0x7fffffffu : d4r_bits_f32(x);
    return d4r_f64_bits(((u >> 31) << 63) | 0x7ff8000000000000ull | ((u & 0x7fffffu) << 29));
  }
  const double d = x;
  return sat ? __d4r_ptx_sat_f64(d) : d;
}

D4R_INLINE uint16_t d4r_sat_half(const D4rFormat* f, uint16_t h)
{
  const uint16_t mag = h & 0x7fffu;
  if ((h & 0x8000u) || mag > f->inf_code) {
    return 0;
  }
  const uint16_t one = (uint16_t)((uint64_t)f->bias << f->frac_bits);
  return mag > one ? one : h;
}

/* Narrow a double to f16/bf16 with the modifiers (NaN already canonical from the encoder). */
D4R_INLINE uint16_t d4r_narrow16(const D4rFormat* f, double x, int mode, int sat, int relu,
                                 int satfinite)
{
  uint16_t h = (uint16_t)d4r_encode_f64(f, x, mode, satfinite);
  if (relu && (h & 0x8000u) && (h & 0x7fffu) <= f->inf_code) {
    h = 0;
  }
  return sat ? d4r_sat_half(f, h) : h;
}

/* .ftz does not flush the f32 input on an H200: cvt.rp.ftz.f16.f32 of 2^-148 is 0x0001 and
 * cvt.rm.ftz of -2^-148 0x8001 (rd_cvt_ftz_*), as without .ftz; rn and rz give a signed zero
 * either way. */
D4R_API uint16_t __d4r_ptx_cvt_f16_f32_ex(float x, int mode, int ftz, int sat, int relu,
                                          int satfinite)
{
  (void)ftz;
  return d4r_narrow16(&d4r_f16, x, mode, sat, relu, satfinite);
}

D4R_API uint16_t __d4r_ptx_cvt_f16_f32(float x, int mode, int ftz, int sat)
{
  return __d4r_ptx_cvt_f16_f32_ex(x, mode, ftz, sat, 0, 0);
}

D4R_API uint16_t __d4r_ptx_cvt_f16_f64(double x, int mode, int sat)
{
  if (d4r_isnan_f64(x)) {
    return sat ? 0 : (uint16_t)d4r_narrow_nan(&d4r_f16, x);
  }
  return d4r_narrow16(&d4r_f16, x, mode, sat, 0, 0);
}

D4R_API float __d4r_ptx_cvt_f32_f16(uint16_t h, int ftz, int sat)
{
  (void)ftz; /* every f16 value is a normal f32 or zero */
  const double d = d4r_decode(&d4r_f16, h);
  if (d4r_isnan_f64(d)) {
    return d4r_nan_f32();
  }
  const float r = (float)d; /* exact */
  return sat ? d4r_sat_f32(r) : r;
}

/* A NaN keeps its sign and payload (shifted to the top of the f64 fraction) and is quieted
 * (rd_cvt_widen_*: 0x7fff -> 0x7ffffc0000000000, 0x7c01 -> 0x7ff8040000000000), unlike
 * cvt.f32.f16, which gives the canonical NaN. */
D4R_API double __d4r_ptx_cvt_f64_f16(uint16_t h, int sat)
{
  if (!sat && (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0) {
    return d4r_f64_bits((uint64_t)(h & 0x8000u) << 48 | 0x7ff8000000000000ull |
                        (uint64_t)(h & 0x03ffu) << 42);
  }
  const double d = d4r_decode(&d4r_f16, h);
  return sat ? __d4r_ptx_sat_f64(d) : d;
}

D4R_API uint16_t __d4r_ptx_cvt_bf16_f32_ex(float x, int mode, int sat, int relu, int satfinite)
{
  return d4r_narrow16(&d4r_bf16, x, mode, sat, relu, satfinite);
}

D4R_API uint16_t __d4r_ptx_cvt_bf16_f32(float x, int mode, int sat)
{
  return d4r_narrow16(&d4r_bf16, x, mode, sat, 0, 0);
}

D4R_API uint16_t __d4r_ptx_cvt_bf16_f64(double x, int mode)
{
  return d4r_narrow16(&d4r_bf16, x, mode, 0, 0, 0);
}

D4R_API uint16_t __d4r_ptx_cvt_bf16_f16(uint16_t h, int mode)
{
  return d4r_narrow16(&d4r_bf16, d4r_decode(&d4r_f16, h), mode, 0, 0, 0);
}

D4R_API uint16_t __d4r_ptx_cvt_f16_bf16(uint16_t h, int mode)
{
  return d4r_narrow16(&d4r_f16, d4r_decode(&d4r_bf16, h), mode, 0, 0, 0);
}

D4R_API float __d4r_ptx_cvt_f32_bf16(uint16_t h) { return d4r_f32_bits((uint32_t)h << 16); }

D4R_API float __d4r_ptx_cvt_f32_bf16_ex(uint16_t h, int ftz, int sat)
{
  return d4r_finish_f32((uint32_t)h << 16, ftz, sat);
}

D4R_API double __d4r_ptx_cvt_f64_bf16(uint16_t h) { return d4r_decode(&d4r_bf16, h); }

/* ---- round to an integral value in the same format ---- */

/* Integral rounding of a binary value given by its bits; frac = fraction bits, ebias = bias. */
D4R_INLINE uint64_t d4r_rint_bits(uint64_t u, int frac, int bias, int sign_shift, int mode)
{
  const uint64_t sign = (u >> sign_shift) & 1;
  const uint64_t mag = u & ((1ull << sign_shift) - 1);
  const int e = (int)(mag >> frac) - bias; /* unbiased exponent */
  if (e >= frac) {
    return u; /* already integral, infinite or NaN (NaN handled by callers) */
  }
  const uint64_t one = (uint64_t)bias << frac;
  if (e < 0) { /* |x| < 1: the result is 0 or 1 in magnitude */
    int up = 0;
    switch (mode) {
    case D4R_RN: up = e == -1 && mag > ((uint64_t)(bias - 1) << frac); break; /* > 0.5 */
    case D4R_RNA: up = e == -1; break;
    case D4R_RM: up = sign && mag != 0; break;
    case D4R_RP: up = !sign && mag != 0; break;
    default: break;
    }
    return (sign << sign_shift) | (up ? one : 0);
  }
  const int fb = frac - e; /* fraction bits below the units place, 1..frac */
  const uint64_t mask = (1ull << fb) - 1;
  const uint64_t rem = mag & mask;
  const uint64_t half = 1ull << (fb - 1);
  uint64_t t = mag & ~mask;
  int up = 0;
  switch (mode) {
  case D4R_RN: up = rem > half || (rem == half && ((t >> fb) & 1)); break;
  case D4R_RNA: up = rem >= half; break;
  case D4R_RM: up = sign && rem != 0; break;
  case D4R_RP: up = !sign && rem != 0; break;
  default: break;
  }
  if (up) {
    t += 1ull << fb; /* a carry into the exponent is right */
  }
  return (sign << sign_shift) | t;
}

D4R_API double __d4r_ptx_cvt_rint_f64(double x, int mode)
{
  if (d4r_isnan_f64(x)) {
    return d4r_quiet_f64(x); /* cvt_f64_random: 0xfff4000000000000 -> 0xfffc000000000000 */
  }
  return d4r_f64_bits(d4r_rint_bits(d4r_bits_f64(x), 52, 1023, 63, mode));
}

D4R_API uint16_t __d4r_ptx_cvt_rint_f16(uint16_t h, int mode)
{
  if ((h & 0x7fffu) > 0x7c00u) {
    return 0x7fffu;
  }
  return (uint16_t)d4r_rint_bits(h, 10, 15, 15, mode);
}

D4R_API uint16_t __d4r_ptx_cvt_rint_bf16(uint16_t h, int mode)
{
  if ((h & 0x7fffu) > 0x7f80u) {
    return 0x7fffu;
  }
  return (uint16_t)d4r_rint_bits(h, 7, 127, 15, mode);
}

/* ---- int -> float ---- */

D4R_INLINE uint64_t d4r_from_s64(const D4rFormat* f, int64_t x, int mode)
{
  const int sign = x < 0;
  const uint64_t mag = sign ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  return d4r_round(f, sign, mag, 0, mode, 0);
}

D4R_API float __d4r_ptx_cvt_f32_s64(int64_t x, int mode)
{
  return d4r_f32_bits((uint32_t)d4r_from_s64(&d4r_f32, x, mode));
}
D4R_API float __d4r_ptx_cvt_f32_u64(uint64_t x, int mode)
{
  return d4r_f32_bits((uint32_t)d4r_round(&d4r_f32, 0, x, 0, mode, 0));
}
D4R_API float __d4r_ptx_cvt_f32_s32(int32_t x, int mode) { return __d4r_ptx_cvt_f32_s64(x, mode); }
D4R_API float __d4r_ptx_cvt_f32_u32(uint32_t x, int mode) { return __d4r_ptx_cvt_f32_u64(x, mode); }
D4R_API double __d4r_ptx_cvt_f64_s64(int64_t x, int mode)
{
  return d4r_f64_bits(d4r_from_s64(&d4r_f64, x, mode));
}
D4R_API double __d4r_ptx_cvt_f64_u64(uint64_t x, int mode)
{
  return d4r_f64_bits(d4r_round(&d4r_f64, 0, x, 0, mode, 0));
}
D4R_API uint16_t __d4r_ptx_cvt_f16_s64(int64_t x, int mode)
{
  return (uint16_t)d4r_from_s64(&d4r_f16, x, mode);
}
D4R_API uint16_t __d4r_ptx_cvt_f16_u64(uint64_t x, int mode)
{
  return (uint16_t)d4r_round(&d4r_f16, 0, x, 0, mode, 0);
}
D4R_API uint16_t __d4r_ptx_cvt_f16_s32(int32_t x, int mode) { return __d4r_ptx_cvt_f16_s64(x, mode); }
D4R_API uint16_t __d4r_ptx_cvt_f16_u32(uint32_t x, int mode) { return __d4r_ptx_cvt_f16_u64(x, mode); }
D4R_API uint16_t __d4r_ptx_cvt_bf16_s64(int64_t x, int mode)
{
  return (uint16_t)d4r_from_s64(&d4r_bf16, x, mode);
}
D4R_API uint16_t __d4r_ptx_cvt_bf16_u64(uint64_t x, int mode)
{
  return (uint16_t)d4r_round(&d4r_bf16, 0, x, 0, mode, 0);
}

/* cvt.frnd.bf16.f64 with the H200's NaN rule for f64 -> f16 (sign and payload kept, quieted:
 * d4r_narrow_nan); the value rounded as __d4r_ptx_cvt_bf16_f64. */
D4R_API uint16_t __d4r_ptx_cvt_bf16_f64_ex(double x, int mode)
{
  if (d4r_isnan_f64(x)) {
    return (uint16_t)d4r_narrow_nan(&d4r_bf16, x);
  }
  return d4r_narrow16(&d4r_bf16, x, mode, 0, 0, 0);
}
