/* d4r_ptx_internal.h: helpers shared by the support library's .c files (not part of its
 * interface). The heart is d4r_round: one correctly rounded encoder, in integer arithmetic, from an
 * exact value sign * mant * 2^exp (plus, through d4r_round_pair, the sign of a tiny remainder) to
 * any binary format PTX uses (f64, f32, f16, bf16, e4m3, e5m2), for every rounding mode, with
 * subnormals, overflow to infinity or to the largest finite value as the direction requires, and
 * .satfinite. Every operation reduces to it: compute an exact or "rounded-to-nearest plus exact
 * error" double result, then encode.
 * PTX ISA floating-point rounding: https://docs.nvidia.com/cuda/parallel-thread-execution/
 */
#ifndef D4R_PTX_INTERNAL_H
#define D4R_PTX_INTERNAL_H

#include "d4r_ptx_support.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* Exported functions: external (bitcode is linked, then internalised by the translator); in the
 * bitcode build also always_inline so each call site folds its constant flags. */
#ifdef D4R_PTX_SUPPORT_BITCODE
#define D4R_API __attribute__((always_inline))
#else
#define D4R_API
#endif
#define D4R_INLINE static inline __attribute__((always_inline))

enum { D4R_RN = 0, D4R_RZ = 1, D4R_RM = 2, D4R_RP = 3, D4R_RNA = 4 };

/* The shared-window address of byte `linear` of a tensor copy's box under swizzle `mode` (0 none,
 * 1 32B, 2 64B, 3 128B): its 16-byte chunk A[4..] xor A[7..] over 1, 2 or 3 bits, so bits 4-6 of
 * the address take bits 7-9 into account (the CUTLASS Swizzle<B,4,3> functors; CUDA Programming
 * Guide, "TMA Swizzle"). tensor_copy.c and tensor_copy_im2col.c both place bytes with it. */
D4R_INLINE uint32_t d4r_tmap_swizzled(uint32_t window, uint32_t linear, uint32_t mode)
{
  const uint32_t address = window + linear;
  const uint32_t mask = ((1u << mode) - 1u) << 4;
  return address ^ ((address >> 3) & mask);
}

typedef struct {
  int frac_bits;       /* explicit fraction bits */
  int bias;
  int sign_shift;      /* position of the sign bit */
  uint64_t max_finite; /* magnitude code of the largest finite value */
  uint64_t inf_code;   /* magnitude code of infinity; 0 when the format has none */
  uint64_t nan_code;   /* canonical NaN, sign included */
} D4rFormat;

static const D4rFormat d4r_f64 = {52, 1023, 63, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
                                  0x7fffffffffffffffull};
static const D4rFormat d4r_f32 = {23, 127, 31, 0x7f7fffffu, 0x7f800000u, 0x7fffffffu};
static const D4rFormat d4r_f16 = {10, 15, 15, 0x7bffu, 0x7c00u, 0x7fffu};
static const D4rFormat d4r_bf16 = {7, 127, 15, 0x7f7fu, 0x7f80u, 0x7fffu};
static const D4rFormat d4r_e4m3 = {3, 7, 7, 0x7eu, 0u, 0x7fu};
static const D4rFormat d4r_e5m2 = {2, 15, 7, 0x7bu, 0x7cu, 0x7fu};

#define D4R_F32_NAN 0x7fffffffu
#define D4R_F64_NAN 0x7fffffffffffffffull

D4R_INLINE uint32_t d4r_bits_f32(float x)
{
  uint32_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
}
D4R_INLINE float d4r_f32_bits(uint32_t u)
{
  float x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
}
D4R_INLINE uint64_t d4r_bits_f64(double x)
{
  uint64_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
}
D4R_INLINE double d4r_f64_bits(uint64_t u)
{
  double x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
}
D4R_INLINE int d4r_isnan_f64(double x) { return (d4r_bits_f64(x) << 1) > 0xffe0000000000000ull; }
D4R_INLINE int d4r_isinf_f64(double x) { return (d4r_bits_f64(x) << 1) == 0xffe0000000000000ull; }
D4R_INLINE int d4r_signbit_f64(double x) { return (int)(d4r_bits_f64(x) >> 63); }
D4R_INLINE double d4r_pow2(int k) { return d4r_f64_bits((uint64_t)(k + 1023) << 52); } /* normal k */
D4R_INLINE float d4r_nan_f32(void) { return d4r_f32_bits(D4R_F32_NAN); }
D4R_INLINE double d4r_nan_f64(void) { return d4r_f64_bits(D4R_F64_NAN); }
D4R_INLINE double d4r_fabs(double x) { return d4r_f64_bits(d4r_bits_f64(x) & ~(1ull << 63)); }

/* NaN results of f64 operations (d4r_ptx_support.h, "NaN rules"): the first NaN operand in operand
 * order, quieted (sign and payload kept); a NaN made from non-NaN operands (0 * inf, inf - inf,
 * sqrt(-1)) is 0xfff8000000000000. Operands that do not exist are passed as 0. */
#define D4R_F64_DEFAULT_NAN 0xfff8000000000000ull
D4R_INLINE double d4r_quiet_f64(double x)
{
  return d4r_f64_bits(d4r_bits_f64(x) | 0x0008000000000000ull);
}
D4R_INLINE double d4r_nan_result_f64(double a, double b, double c)
{
  if (d4r_isnan_f64(a)) {
    return d4r_quiet_f64(a);
  }
  if (d4r_isnan_f64(b)) {
    return d4r_quiet_f64(b);
  }
  if (d4r_isnan_f64(c)) {
    return d4r_quiet_f64(c);
  }
  return d4r_f64_bits(D4R_F64_DEFAULT_NAN);
}

/* The code of an overflowed result (|value| beyond the largest finite), per IEEE 754 directions. */
D4R_INLINE uint64_t d4r_overflow(const D4rFormat* f, int sign, int mode, int satfinite)
{
  uint64_t mag = f->inf_code;
  if (satfinite || f->inf_code == 0 || mode == D4R_RZ || (mode == D4R_RM && !sign) ||
      (mode == D4R_RP && sign)) {
    mag = f->max_finite;
  }
  return mag | ((uint64_t)sign << f->sign_shift);
}

/* Round sign * mant * 2^exp (exact) to format f. */
D4R_INLINE uint64_t d4r_round(const D4rFormat* f, int sign, uint64_t mant, int exp, int mode,
                              int satfinite)
{
  const uint64_t sbit = (uint64_t)sign << f->sign_shift;
  if (mant == 0) {
    return sbit;
  }
  const int p = f->frac_bits;
  const int nb = 64 - __builtin_clzll(mant);
  const int e_top = exp + nb - 1; /* 2^e_top <= value < 2^(e_top+1) */
  const int emin = 1 - f->bias;
  int q = (e_top < emin ? emin : e_top) - p; /* exponent of the result's last place */
  const int shift = q - exp;
  uint64_t r;
  int inexact = 0;
  int half_cmp = -1; /* remainder compared with half a last place */
  if (shift <= 0) {
    r = mant << -shift;
  } else if (shift < 64) {
    r = mant >> shift;
    const uint64_t rem = mant & ((1ull << shift) - 1);
    const uint64_t half = 1ull << (shift - 1);
    inexact = rem != 0;
    half_cmp = rem > half ? 1 : (rem == half ? 0 : -1);
  } else {
    r = 0;
    inexact = 1;
    if (shift == 64) {
      half_cmp = mant > (1ull << 63) ? 1 : (mant == (1ull << 63) ? 0 : -1);
    }
  }
  int up = 0;
  switch (mode) {
  case D4R_RN: up = half_cmp > 0 || (half_cmp == 0 && (r & 1)); break;
  case D4R_RNA: up = half_cmp >= 0; break;
  case D4R_RM: up = inexact && sign; break;
  case D4R_RP: up = inexact && !sign; break;
  default: break; /* rz */
  }
  r += (uint64_t)up;
  if (r >> (p + 1)) {
    r >>= 1;
    q += 1;
  }
  uint64_t code = r;
  if (r >> p) {
    const int64_t be = (int64_t)q + p + f->bias;
    if (be > 4000) {
      return d4r_overflow(f, sign, mode, satfinite);
    }
    code = ((uint64_t)be << p) | (r & ((1ull << p) - 1));
  }
  if (code > f->max_finite) {
    return d4r_overflow(f, sign, mode, satfinite);
  }
  return code | sbit;
}

/* A finite double as sign, integer significand and exponent. */
D4R_INLINE void d4r_split_f64(double x, int* sign, uint64_t* mant, int* exp)
{
  const uint64_t u = d4r_bits_f64(x);
  const int e = (int)((u >> 52) & 0x7ff);
  *sign = (int)(u >> 63);
  *mant = u & ((1ull << 52) - 1);
  *exp = -1074;
  if (e != 0) {
    *mant |= 1ull << 52;
    *exp = e - 1075;
  }
}

/* Round the exact value (s + tiny) * 2^scale, where s is a nonzero finite double that is the value
 * rounded to nearest in double and dir (-1, 0, 1) the sign of the remainder (smaller than half an
 * ulp of s). Moving the remainder to a quarter of s's last place keeps the value strictly inside
 * the same gap between candidate results and midpoints of every format at most as precise as
 * double, so the decision is the one the exact value would get. */
D4R_INLINE uint64_t d4r_round_dir(const D4rFormat* f, double s, int dir, int scale, int mode,
                                  int satfinite)
{
  int sign;
  uint64_t mant;
  int exp;
  d4r_split_f64(s, &sign, &mant, &exp);
  const int rel = sign ? -dir : dir;
  mant = (mant << 2) + (uint64_t)(int64_t)rel;
  return d4r_round(f, sign, mant, exp - 2 + scale, mode, satfinite);
}

D4R_INLINE int d4r_sign_of(double e) { return e > 0 ? 1 : (e < 0 ? -1 : 0); }

/* x + y exactly, rounded to f (x, y finite doubles). Exact zero: +0, or -0 in rm, unless both
 * addends are zeros of one sign (IEEE 754 6.3). */
D4R_INLINE uint64_t d4r_round_sum(const D4rFormat* f, double x, double y, int mode, int satfinite)
{
  const double s = x + y;
  if (s == 0) {
    int neg = mode == D4R_RM;
    if (x == 0 && y == 0 && d4r_signbit_f64(x) == d4r_signbit_f64(y)) {
      neg = d4r_signbit_f64(x);
    }
    return (uint64_t)neg << f->sign_shift;
  }
  if (d4r_isinf_f64(s)) {
    return d4r_overflow(f, d4r_signbit_f64(s), mode, satfinite);
  }
  const double bb = s - x;
  const double e = (x - (s - bb)) + (y - bb);
  return d4r_round_dir(f, s, d4r_sign_of(e), 0, mode, satfinite);
}

/* Encode a double (any value) to format f with mode. */
D4R_INLINE uint64_t d4r_encode_f64(const D4rFormat* f, double x, int mode, int satfinite)
{
  if (d4r_isnan_f64(x)) {
    return f->nan_code;
  }
  const int sign = d4r_signbit_f64(x);
  if (d4r_isinf_f64(x)) {
    if (satfinite || f->inf_code == 0) {
      return f->max_finite | ((uint64_t)sign << f->sign_shift);
    }
    return f->inf_code | ((uint64_t)sign << f->sign_shift);
  }
  int s;
  uint64_t mant;
  int exp;
  d4r_split_f64(x, &s, &mant, &exp);
  return d4r_round(f, s, mant, exp, mode, satfinite);
}

/* Exact decoders to double. */
D4R_INLINE double d4r_decode(const D4rFormat* f, uint64_t code)
{
  const int sign = (int)((code >> f->sign_shift) & 1);
  const uint64_t mag = code & ((1ull << f->sign_shift) - 1);
  double v;
  if (f->inf_code != 0 && mag == f->inf_code) {
    v = d4r_f64_bits(0x7ff0000000000000ull);
  } else if (mag > f->max_finite) {
    return d4r_nan_f64();
  } else {
    const uint64_t e = mag >> f->frac_bits;
    const uint64_t m = mag & ((1ull << f->frac_bits) - 1);
    const int scale = (e == 0 ? 1 : (int)e) - f->bias - f->frac_bits;
    const double sig = (double)(e == 0 ? m : (m | (1ull << f->frac_bits)));
    v = sig * d4r_pow2(scale); /* exact: sig has at most 24 bits, scale is a normal power */
  }
  return sign ? -v : v;
}

D4R_INLINE float d4r_ftz_f32(float x)
{
  const uint32_t u = d4r_bits_f32(x);
  if ((u & 0x7f800000u) == 0) {
    return d4r_f32_bits(u & 0x80000000u);
  }
  return x;
}

D4R_INLINE float d4r_sat_f32(float x)
{
  const uint32_t u = d4r_bits_f32(x);
  if ((u & 0x7fffffffu) > 0x7f800000u || (u >> 31)) {
    return 0.0f; /* NaN, negative values and -0.0 */
  }
  return u > 0x3f800000u ? 1.0f : x;
}

/* Finish an f32 result: .ftz (after rounding), then .sat. */
D4R_INLINE float d4r_finish_f32(uint32_t code, int ftz, int sat)
{
  float r = d4r_f32_bits(code);
  if (ftz) {
    r = d4r_ftz_f32(r);
  }
  return sat ? d4r_sat_f32(r) : r;
}

/* x = m * 2^e with |m| in [1, 2) (finite, nonzero x). */
D4R_INLINE double d4r_frexp1(double x, int* e)
{
  uint64_t u = d4r_bits_f64(x);
  const uint64_t sign = u & (1ull << 63);
  int be = (int)((u >> 52) & 0x7ff);
  uint64_t frac = u & ((1ull << 52) - 1);
  if (be == 0) {
    const int lead = 63 - __builtin_clzll(frac); /* bit index of the leading one */
    frac = (frac << (52 - lead)) & ((1ull << 52) - 1);
    be = lead - 52 + 1;
  }
  *e = be - 1023;
  return d4r_f64_bits(sign | (1023ull << 52) | frac);
}

#endif /* D4R_PTX_INTERNAL_H */
