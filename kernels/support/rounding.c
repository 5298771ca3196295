/* rounding.c: PTX floating-point arithmetic with an explicit rounding mode, exact in every mode
 * (add/sub/mul/fma/div/sqrt/rcp .rn/.rz/.rm/.rp for f32, f64, f16, bf16), plus .ftz, .sat and
 * min/max. PTX ISA, floating-point instructions:
 * https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions
 *
 * No instruction here depends on a rounding mode other than the default round-to-nearest-even, so
 * the FP environment is never changed. The method, per operation:
 *   f32 add/sub/fma: the product of two f32 is exact in double; the sum of two doubles is s + e
 *     exactly (TwoSum, s the sum rounded to nearest); d4r_round_dir encodes s with the sign of e.
 *   f32 mul: exact in double, encoded once.
 *   f32 div/sqrt: q rounded to nearest in double and the exact residual a - q*b (a - q*q) by FMA,
 *     whose sign says on which side of q the exact quotient lies.
 *   .rn f32 add/sub/mul/div/sqrt: double then one conversion; double rounding is innocuous because
 *     53 >= 2*24 + 2 (Figueroa, "When is double rounding innocuous?", 1995).
 *   f64 add/sub: TwoSum; mul: TwoProduct by FMA, scaled by 2^600 per operand near underflow where
 *     the error would not be representable; div/sqrt: operands scaled to [1, 2) (sqrt: [1, 4)),
 *     residual by FMA, then encoded with the scale; fma: a 128-bit integer implementation for the
 *     directed modes, the hardware FMA for rn.
 *   f16/bf16: the same through double (products of two f16/bf16 are exact there).
 * NaN results follow d4r_ptx_support.h ("NaN rules"): f32, f16 and bf16 results are the canonical
 * NaNs whatever the inputs were; f64 results propagate the first NaN operand, quieted
 * (d4r_nan_result_f64).
 */
#include "d4r_ptx_internal.h"

/* ---- f32 ---- */

D4R_API float __d4r_ptx_ftz_f32(float x) { return d4r_ftz_f32(x); }
D4R_API float __d4r_ptx_sat_f32(float x) { return d4r_sat_f32(x); }

D4R_API double __d4r_ptx_sat_f64(double x)
{
  if (d4r_isnan_f64(x) || d4r_signbit_f64(x)) {
    return 0.0;
  }
  return x > 1.0 ? 1.0 : x;
}

D4R_API float __d4r_ptx_add_f32(float a, float b, int mode, int ftz, int sat)
{
  if (ftz) {
    a = d4r_ftz_f32(a);
    b = d4r_ftz_f32(b);
  }
  const double da = a;
  const double db = b;
  const double s = da + db;
  uint32_t code;
  if (d4r_isnan_f64(s)) {
    code = D4R_F32_NAN;
  } else if (d4r_isinf_f64(s)) {
    code = d4r_bits_f32((float)s); /* only from infinite operands */
  } else if (mode == D4R_RN && s != 0) {
    code = d4r_bits_f32((float)s);
  } else {
    code = (uint32_t)d4r_round_sum(&d4r_f32, da, db, mode, 0);
  }
  return d4r_finish_f32(code, ftz, sat);
}

D4R_API float __d4r_ptx_sub_f32(float a, float b, int mode, int ftz, int sat)
{
  /* a - b is a + (-b) exactly, NaN operands included (they give the canonical NaN). */
  return __d4r_ptx_add_f32(a, d4r_f32_bits(d4r_bits_f32(b) ^ 0x80000000u), mode, ftz, sat);
}

D4R_API float __d4r_ptx_mul_f32(float a, float b, int mode, int ftz, int sat)
{
  if (ftz) {
    a = d4r_ftz_f32(a);
    b = d4r_ftz_f32(b);
  }
  const double p = (double)a * (double)b; /* exact */
  uint32_t code;
  if (d4r_isnan_f64(p)) {
    code = D4R_F32_NAN;
  } else if (p == 0 || d4r_isinf_f64(p)) {
    code = d4r_bits_f32((float)p);
  } else if (mode == D4R_RN) {
    code = d4r_bits_f32((float)p);
  } else {
    code = (uint32_t)d4r_round_dir(&d4r_f32, p, 0, 0, mode, 0);
  }
  return d4r_finish_f32(code, ftz, sat);
}

D4R_API float __d4r_ptx_fma_f32(float a, float b, float c, int mode, int ftz, int sat)
{
  if (ftz) {
    a = d4r_ftz_f32(a);
    b = d4r_ftz_f32(b);
    c = d4r_ftz_f32(c);
  }
  const double p = (double)a * (double)b; /* exact */
  const double dc = c;
  const double s = p + dc;
  uint32_t code;
  if (d4r_isnan_f64(s)) {
    code = D4R_F32_NAN;
  } else if (d4r_isinf_f64(s)) {
    code = d4r_bits_f32((float)s); /* only from infinite operands */
  } else {
    code = (uint32_t)d4r_round_sum(&d4r_f32, p, dc, mode, 0);
  }
  return d4r_finish_f32(code, ftz, sat);
}

D4R_API float __d4r_ptx_div_f32(float a, float b, int mode, int ftz)
{
  if (ftz) {
    a = d4r_ftz_f32(a);
    b = d4r_ftz_f32(b);
  }
  const double da = a;
  const double db = b;
  const double q = da / db;
  uint32_t code;
  if (d4r_isnan_f64(q)) {
    code = D4R_F32_NAN;
  } else if (q == 0 || d4r_isinf_f64(q) || mode == D4R_RN) {
    /* zeros and infinities come only from zero or infinite operands: exact */
    code = d4r_bits_f32((float)q);
  } else {
    const double r = __builtin_fma(-q, db, da); /* exact residual */
    const int dir = d4r_sign_of(r) * (db < 0 ? -1 : 1);
    code = (uint32_t)d4r_round_dir(&d4r_f32, q, dir, 0, mode, 0);
  }
  return d4r_finish_f32(code, ftz, 0);
}

D4R_API float __d4r_ptx_rcp_f32(float a, int mode, int ftz)
{
  return __d4r_ptx_div_f32(1.0f, a, mode, ftz);
}

D4R_API float __d4r_ptx_sqrt_f32(float a, int mode, int ftz)
{
  if (ftz) {
    a = d4r_ftz_f32(a);
  }
  const double da = a;
  if (d4r_isnan_f64(da) || da < 0) {
    return d4r_nan_f32();
  }
  if (da == 0 || d4r_isinf_f64(da)) {
    return a;
  }
  const double q = __builtin_sqrt(da);
  uint32_t code;
  if (mode == D4R_RN) {
    code = d4r_bits_f32((float)q);
  } else {
    const double r = __builtin_fma(-q, q, da);
    code = (uint32_t)d4r_round_dir(&d4r_f32, q, d4r_sign_of(r), 0, mode, 0);
  }
  return d4r_finish_f32(code, ftz, 0);
}

/* min/max (PTX ISA, min): min_num unless nan; -0.0 < +0.0; NaN results canonical (two NaN
 * operands, or .NaN with one). */
D4R_INLINE float d4r_minmax_f32(float a, float b, int ftz, int nan, int is_max)
{
  if (ftz) {
    a = d4r_ftz_f32(a);
    b = d4r_ftz_f32(b);
  }
  const int a_nan = a != a;
  const int b_nan = b != b;
  if ((a_nan && b_nan) || (nan && (a_nan || b_nan))) {
    return d4r_nan_f32();
  }
  if (a_nan) {
    return b;
  }
  if (b_nan) {
    return a;
  }
  /* Compare as sign-magnitude integers mapped to a total order, so -0.0 < +0.0. */
  const uint32_t ua = d4r_bits_f32(a);
  const uint32_t ub = d4r_bits_f32(b);
  const int32_t ka = (ua >> 31) ? -(int32_t)(ua & 0x7fffffffu) - 1 : (int32_t)ua;
  const int32_t kb = (ub >> 31) ? -(int32_t)(ub & 0x7fffffffu) - 1 : (int32_t)ub;
  const int a_less = ka < kb;
  return (a_less != is_max) ? a : b;
}

D4R_API float __d4r_ptx_min_f32(float a, float b, int ftz, int nan)
{
  return d4r_minmax_f32(a, b, ftz, nan, 0);
}

D4R_API float __d4r_ptx_max_f32(float a, float b, int ftz, int nan)
{
  return d4r_minmax_f32(a, b, ftz, nan, 1);
}

/* f64 min/max: one NaN operand gives the other operand; two give a, quieted (the f64 rule). */
D4R_INLINE double d4r_minmax_f64(double a, double b, int is_max)
{
  const int a_nan = d4r_isnan_f64(a);
  const int b_nan = d4r_isnan_f64(b);
  if (a_nan && b_nan) {
    return d4r_nan_result_f64(a, b, 0.0);
  }
  if (a_nan) {
    return b;
  }
  if (b_nan) {
    return a;
  }
  const uint64_t ua = d4r_bits_f64(a);
  const uint64_t ub = d4r_bits_f64(b);
  const int64_t ka = (ua >> 63) ? -(int64_t)(ua & ~(1ull << 63)) - 1 : (int64_t)ua;
  const int64_t kb = (ub >> 63) ? -(int64_t)(ub & ~(1ull << 63)) - 1 : (int64_t)ub;
  return ((ka < kb) != is_max) ? a : b;
}

D4R_API double __d4r_ptx_min_f64(double a, double b) { return d4r_minmax_f64(a, b, 0); }
D4R_API double __d4r_ptx_max_f64(double a, double b) { return d4r_minmax_f64(a, b, 1); }

/* ---- f64 ---- */

D4R_INLINE double d4r_f64_overflow(int sign, int mode)
{
  return d4r_f64_bits(d4r_overflow(&d4r_f64, sign, mode, 0));
}

D4R_API double __d4r_ptx_add_f64(double a, double b, int mode)
{
  const double s = a + b;
  if (d4r_isnan_f64(s)) {
    return d4r_nan_result_f64(a, b, 0.0);
  }
  if (d4r_isinf_f64(a) || d4r_isinf_f64(b)) {
    return s;
  }
  if (mode == D4R_RN && s != 0) {
    return s;
  }
  return d4r_f64_bits(d4r_round_sum(&d4r_f64, a, b, mode, 0));
}

D4R_API double __d4r_ptx_sub_f64(double a, double b, int mode)
{
  if (d4r_isnan_f64(a) || d4r_isnan_f64(b)) {
    return d4r_nan_result_f64(a, b, 0.0); /* b's NaN keeps its sign: not negated */
  }
  return __d4r_ptx_add_f64(a, -b, mode);
}

D4R_API double __d4r_ptx_mul_f64(double a, double b, int mode)
{
  const double p = a * b;
  if (d4r_isnan_f64(p)) {
    return d4r_nan_result_f64(a, b, 0.0);
  }
  if (mode == D4R_RN || a == 0 || b == 0 || d4r_isinf_f64(a) || d4r_isinf_f64(b)) {
    return p;
  }
  const int sign = d4r_signbit_f64(a) ^ d4r_signbit_f64(b);
  if (d4r_isinf_f64(p)) {
    return d4r_f64_overflow(sign, mode);
  }
  if (d4r_fabs(p) >= d4r_pow2(-969)) {
    const double e = __builtin_fma(a, b, -p); /* exact */
    return d4r_f64_bits(d4r_round_dir(&d4r_f64, p, d4r_sign_of(e), 0, mode, 0));
  }
  /* Near underflow both |a| and |b| are below 2^105: scale each by 2^600 exactly. */
  const double as = a * d4r_pow2(600);
  const double bs = b * d4r_pow2(600);
  const double ps = as * bs;
  const double es = __builtin_fma(as, bs, -ps);
  return d4r_f64_bits(d4r_round_dir(&d4r_f64, ps, d4r_sign_of(es), -1200, mode, 0));
}

D4R_API double __d4r_ptx_div_f64(double a, double b, int mode)
{
  const double q = a / b;
  if (d4r_isnan_f64(q)) {
    return d4r_nan_result_f64(a, b, 0.0);
  }
  if (mode == D4R_RN || a == 0 || b == 0 || d4r_isinf_f64(a) || d4r_isinf_f64(b)) {
    return q;
  }
  int ea;
  int eb;
  const double ma = d4r_frexp1(a, &ea);
  const double mb = d4r_frexp1(b, &eb);
  const double qs = ma / mb;
  const double r = __builtin_fma(-qs, mb, ma); /* exact */
  const int dir = d4r_sign_of(r) * (mb < 0 ? -1 : 1);
  return d4r_f64_bits(d4r_round_dir(&d4r_f64, qs, dir, ea - eb, mode, 0));
}

D4R_API double __d4r_ptx_rcp_f64(double a, int mode) { return __d4r_ptx_div_f64(1.0, a, mode); }

D4R_API double __d4r_ptx_sqrt_f64(double a, int mode)
{
  if (d4r_isnan_f64(a) || a < 0) {
    return d4r_nan_result_f64(a, 0.0, 0.0);
  }
  if (mode == D4R_RN || a == 0 || d4r_isinf_f64(a)) {
    return __builtin_sqrt(a);
  }
  int e;
  double m = d4r_frexp1(a, &e);
  if (e & 1) {
    m *= 2.0;
    e -= 1;
  }
  const double q = __builtin_sqrt(m);
  const double r = __builtin_fma(-q, q, m);
  return d4r_f64_bits(d4r_round_dir(&d4r_f64, q, d4r_sign_of(r), e / 2, mode, 0));
}

/* fma.{rz,rm,rp}.f64 in 128-bit integer arithmetic. */
typedef unsigned __int128 d4r_u128;

D4R_INLINE int d4r_clz128(d4r_u128 x)
{
  const uint64_t hi = (uint64_t)(x >> 64);
  return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)x);
}

/* x >> n with the shifted-out bits jammed into bit 0 (n >= 0). */
D4R_INLINE d4r_u128 d4r_shr_jam(d4r_u128 x, int n)
{
  if (n == 0) {
    return x;
  }
  if (n >= 128) {
    return x != 0;
  }
  const d4r_u128 lost = x & ((((d4r_u128)1) << n) - 1);
  return (x >> n) | (lost != 0);
}

D4R_INLINE double d4r_fma_f64_soft(double a, double b, double c, int mode)
{
  int sa;
  int sb;
  int sc;
  uint64_t ma;
  uint64_t mb;
  uint64_t mc;
  int ea;
  int eb;
  int ec;
  d4r_split_f64(a, &sa, &ma, &ea);
  d4r_split_f64(b, &sb, &mb, &eb);
  d4r_split_f64(c, &sc, &mc, &ec);
  const int sp = sa ^ sb;
  /* Both terms as X * 2^x with X's leading one at bit 125 (X = 0 for a zero term). */
  d4r_u128 p = (d4r_u128)ma * mb;
  int ep = ea + eb;
  d4r_u128 cc = mc;
  if (p != 0) {
    const int sh = d4r_clz128(p) - 2;
    p <<= sh;
    ep -= sh;
  }
  if (cc != 0) {
    const int sh = d4r_clz128(cc) - 2;
    cc <<= sh;
    ec -= sh;
  }
  if (p == 0) {
    ep = ec;
  }
  if (cc == 0) {
    ec = ep;
  }
  int ex = ep > ec ? ep : ec;
  p = d4r_shr_jam(p, ex - ep);
  cc = d4r_shr_jam(cc, ex - ec);
  d4r_u128 sum;
  int sign;
  if (sp == sc) {
    sum = p + cc;
    sign = sp;
  } else if (p >= cc) {
    sum = p - cc;
    sign = sp;
  } else {
    sum = cc - p;
    sign = sc;
  }
  if (sum == 0) {
    const int neg = (p == 0 && cc == 0 && sp == sc) ? sp : (mode == D4R_RM);
    return neg ? -0.0 : 0.0;
  }
  /* Down to 64 bits with a sticky bit; at least 10 bits stay below the last place. */
  const int nb = 128 - d4r_clz128(sum);
  if (nb > 62) {
    sum = d4r_shr_jam(sum, nb - 62);
    ex += nb - 62;
  }
  return d4r_f64_bits(d4r_round(&d4r_f64, sign, (uint64_t)sum, ex, mode, 0));
}

D4R_API double __d4r_ptx_fma_f64(double a, double b, double c, int mode)
{
  const double r = __builtin_fma(a, b, c);
  if (d4r_isnan_f64(r)) {
    return d4r_nan_result_f64(a, b, c);
  }
  if (mode == D4R_RN || d4r_isinf_f64(a) || d4r_isinf_f64(b) || d4r_isinf_f64(c)) {
    return r;
  }
  return d4r_fma_f64_soft(a, b, c, mode);
}

/* ---- f16 / bf16 (through double: the product of two is exact, sums go through TwoSum) ---- */

D4R_INLINE uint16_t d4r_ftz_16(uint16_t h)
{
  return (h & 0x7c00u) == 0 ? (uint16_t)(h & 0x8000u) : h;
}

D4R_INLINE uint16_t d4r_sat_16(const D4rFormat* f, uint16_t h)
{
  const uint16_t mag = h & 0x7fffu;
  if ((h & 0x8000u) || mag > f->inf_code) {
    return 0; /* negative, -0.0, NaN */
  }
  const uint16_t one = (uint16_t)((uint64_t)f->bias << f->frac_bits);
  return mag > one ? one : h;
}

/* Round x * y + z exactly to f; y == 1 for add (x * 1 is exact and keeps x's sign). */
D4R_INLINE uint16_t d4r_fma_16(const D4rFormat* f, uint16_t a, uint16_t b, uint16_t c, int mode,
                               int is_mul)
{
  const double x = d4r_decode(f, a);
  const double y = d4r_decode(f, b);
  const double p = x * y;
  const double z = is_mul ? 0.0 : d4r_decode(f, c);
  const double s = p + z;
  if (d4r_isnan_f64(s)) {
    return (uint16_t)f->nan_code;
  }
  if (d4r_isinf_f64(s)) {
    return (uint16_t)d4r_encode_f64(f, s, mode, 0);
  }
  if (is_mul) {
    return (uint16_t)d4r_encode_f64(f, p, mode, 0); /* exact product, zeros keep their sign */
  }
  return (uint16_t)d4r_round_sum(f, p, z, mode, 0);
}

/* .ftz flushes a result that is tiny after rounding as IEEE 754 defines it: rounded to f16's
 * precision with an unbounded exponent, below the smallest normal 2^-14. An H200 gives 0 for
 * mul.rn.ftz.f16 0x0400 * 0x3bff (exactly 2^-14 - 2^-25, which has 11 bits: tiny; random
 * differential testing, r508, r1394), yet 0x0400 for fma.rn.ftz.f16 0x0400 * 0x845d + 0x0400
 * (2^-14 minus 1.09 * 2^-28, which rounds to 2^-14: not tiny; version 2, r1213, r443, r1520).
 * Rounding the exact x * y + z scaled by 2^16 to f16 gives that precision near 2^-14 (4.0 is
 * 0x4400); the product of two halves is exact in double and TwoSum gives the sum's remainder. */
D4R_INLINE int d4r_f16_tiny_after_rounding(uint16_t a, uint16_t b, uint16_t c, int mode, int is_mul)
{
  const double p = d4r_decode(&d4r_f16, a) * d4r_decode(&d4r_f16, b);
  const double z = is_mul ? 0.0 : d4r_decode(&d4r_f16, c);
  const double s = p + z;
  if (s == 0 || d4r_isnan_f64(s) || d4r_isinf_f64(s)) {
    return 0;
  }
  const double bb = s - p;
  const double e = (p - (s - bb)) + (z - bb);
  const uint64_t scaled = d4r_round_dir(&d4r_f16, s, d4r_sign_of(e), 16, mode, 0);
  return (scaled & 0x7fffu) < 0x4400u;
}

#if defined(__AMDGCN__)
/* Round to nearest on AMDGPU: v_fma_f16 / v_add_f16 / v_mul_f16 are IEEE binary16 operations that
 * round once to nearest even and keep subnormals (kernels run with the f16/f64 denormal mode on,
 * LLVM's default), which is exactly what d4r_fma_16 computes for D4R_RN; only a NaN result
 * differs (the hardware keeps an input's payload), hence the canonical NaN. fma(a, 1, c) folds to
 * an add (exact: a * 1 = a, signed zeros included); mul is a real multiply, since fma(a, b, +0)
 * would turn a -0 product into +0. This replaces ~300 instructions of double arithmetic per
 * element (the fp8_decode corpus kernel is almost only f16x2 add/fma). The host keeps the software
 * path: the golden vectors and the exhaustive tests check it there, and generic x86-64 has no
 * binary16 arithmetic. */
D4R_INLINE uint16_t d4r_f16_rn_hw(uint16_t a, uint16_t b, uint16_t c, int is_mul)
{
  _Float16 x, y, z;
  __builtin_memcpy(&x, &a, sizeof x);
  __builtin_memcpy(&y, &b, sizeof y);
  __builtin_memcpy(&z, &c, sizeof z);
  const _Float16 r = is_mul ? x * y : __builtin_fmaf16(x, y, z);
  uint16_t bits;
  __builtin_memcpy(&bits, &r, sizeof bits);
  return r != r ? (uint16_t)d4r_f16.nan_code : bits;
}
#endif

D4R_INLINE uint16_t d4r_f16_op(uint16_t a, uint16_t b, uint16_t c, int mode, int ftz, int sat,
                               int is_mul)
{
  if (ftz) {
    a = d4r_ftz_16(a);
    b = d4r_ftz_16(b);
    c = d4r_ftz_16(c);
  }
#if defined(__AMDGCN__)
  uint16_t r = mode == D4R_RN ? d4r_f16_rn_hw(a, b, c, is_mul)
                              : d4r_fma_16(&d4r_f16, a, b, c, mode, is_mul);
#else
  uint16_t r = d4r_fma_16(&d4r_f16, a, b, c, mode, is_mul);
#endif
  if (ftz) {
    r = d4r_ftz_16(r);
    if ((r & 0x7fffu) == 0x0400u && d4r_f16_tiny_after_rounding(a, b, c, mode, is_mul)) {
      r &= 0x8000u;
    }
  }
  return sat ? d4r_sat_16(&d4r_f16, r) : r;
}

D4R_API uint16_t __d4r_ptx_add_f16(uint16_t a, uint16_t b, int mode, int ftz, int sat)
{
  return d4r_f16_op(a, 0x3c00u, b, mode, ftz, sat, 0);
}

D4R_API uint16_t __d4r_ptx_sub_f16(uint16_t a, uint16_t b, int mode, int ftz, int sat)
{
  return d4r_f16_op(a, 0x3c00u, (uint16_t)(b ^ 0x8000u), mode, ftz, sat, 0);
}

D4R_API uint16_t __d4r_ptx_mul_f16(uint16_t a, uint16_t b, int mode, int ftz, int sat)
{
  return d4r_f16_op(a, b, 0, mode, ftz, sat, 1);
}

D4R_API uint16_t __d4r_ptx_fma_f16(uint16_t a, uint16_t b, uint16_t c, int mode, int ftz, int sat)
{
  return d4r_f16_op(a, b, c, mode, ftz, sat, 0);
}

D4R_API uint16_t __d4r_ptx_add_bf16(uint16_t a, uint16_t b, int mode)
{
  return d4r_fma_16(&d4r_bf16, a, 0x3f80u, b, mode, 0);
}

D4R_API uint16_t __d4r_ptx_sub_bf16(uint16_t a, uint16_t b, int mode)
{
  return d4r_fma_16(&d4r_bf16, a, 0x3f80u, (uint16_t)(b ^ 0x8000u), mode, 0);
}

D4R_API uint16_t __d4r_ptx_mul_bf16(uint16_t a, uint16_t b, int mode)
{
  return d4r_fma_16(&d4r_bf16, a, b, 0, mode, 1);
}

D4R_API uint16_t __d4r_ptx_fma_bf16(uint16_t a, uint16_t b, uint16_t c, int mode, int relu)
{
  uint16_t r = d4r_fma_16(&d4r_bf16, a, b, c, mode, 0);
  if (relu && (r & 0x8000u) && (r & 0x7fffu) <= 0x7f80u) {
    r = 0;
  }
  return r;
}
