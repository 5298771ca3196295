/* approx.c: the approximate PTX instructions (ex2/lg2/sin/cos/rsqrt/sqrt/rcp .approx, tanh.approx,
 * div.approx, div.full, rsqrt.approx.f64, rcp.approx.ftz.f64). PTX only bounds their error (for
 * example ex2.approx.f32 2 ulp, sin/cos.approx.f32 2^-20.9 absolute in [-100pi, 100pi],
 * tanh.approx.f32 2^-11 relative), and NVIDIA's hardware results are not reproducible bit for bit,
 * so these are accurate implementations (evaluated in double, one final rounding: within about
 * 1 ulp of f32) that tests and goldens compare with a tolerance.
 * PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions
 * Special values follow the ISA's tables (ex2(-inf) = +0, lg2(+-0) = -inf, rsqrt(-0) = -inf, ...);
 * NaN results are the canonical 0x7fffffff. .ftz flushes subnormal inputs and results.
 * sin/cos reduce with a three-part pi/2 (Cody and Waite), exact for |x| < 2^20; beyond that the
 * result keeps its range [-1, 1] but loses accuracy (the ISA states no bound there).
 */
#include "d4r_ptx_internal.h"

D4R_INLINE double d4r_nearest_int(double y)
{
  /* round to nearest integer for |y| < 2^51, in the default rounding mode */
  const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
  if (d4r_fabs(y) >= 2251799813685248.0) {
    return y;
  }
  return (y + magic) - magic;
}

/* 2^y for a double y in [-1100, 1100] (finite); relative error about 2^-52. */
D4R_INLINE double d4r_exp2_d(double y)
{
  const double n = d4r_nearest_int(y);
  const double t = (y - n) * 0.69314718055994530942; /* |t| <= 0.347 */
  double p = 1.0 / 6227020800.0;                     /* 1/13! */
  p = p * t + 1.0 / 479001600.0;
  p = p * t + 1.0 / 39916800.0;
  p = p * t + 1.0 / 3628800.0;
  p = p * t + 1.0 / 362880.0;
  p = p * t + 1.0 / 40320.0;
  p = p * t + 1.0 / 5040.0;
  p = p * t + 1.0 / 720.0;
  p = p * t + 1.0 / 120.0;
  p = p * t + 1.0 / 24.0;
  p = p * t + 1.0 / 6.0;
  p = p * t + 0.5;
  p = p * t + 1.0;
  p = p * t + 1.0;
  int k = (int)n;
  /* scale in two steps so that 2^k stays a normal double */
  const int k1 = k / 2;
  return p * d4r_pow2(k1) * d4r_pow2(k - k1);
}

D4R_INLINE float d4r_in(float x, int ftz) { return ftz ? d4r_ftz_f32(x) : x; }
D4R_INLINE float d4r_out(double r, int ftz)
{
  const float f = (float)r;
  return ftz ? d4r_ftz_f32(f) : f;
}

D4R_API float __d4r_ptx_ex2_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x) {
    return d4r_nan_f32();
  }
  if (x >= 128.0f) {
    return d4r_f32_bits(0x7f800000u);
  }
  if (x < -160.0f) {
    return 0.0f;
  }
  return d4r_out(d4r_exp2_d(x), ftz);
}

/* natural log of a positive finite normal double */
D4R_INLINE double d4r_log2_d(double x)
{
  int e;
  double m = d4r_frexp1(x, &e);
  if (m > 1.41421356237309504880) {
    m *= 0.5;
    e += 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 23.0;
  p = p * s2 + 1.0 / 21.0;
  p = p * s2 + 1.0 / 19.0;
  p = p * s2 + 1.0 / 17.0;
  p = p * s2 + 1.0 / 15.0;
  p = p * s2 + 1.0 / 13.0;
  p = p * s2 + 1.0 / 11.0;
  p = p * s2 + 1.0 / 9.0;
  p = p * s2 + 1.0 / 7.0;
  p = p * s2 + 1.0 / 5.0;
  p = p * s2 + 1.0 / 3.0;
  p = p * s2 + 1.0;
  const double ln_m = 2.0 * s * p;
  return (double)e + ln_m * 1.44269504088896340736;
}

D4R_API float __d4r_ptx_lg2_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x || x < 0) {
    return d4r_nan_f32();
  }
  if (x == 0) {
    return d4r_f32_bits(0xff800000u);
  }
  if (x == d4r_f32_bits(0x7f800000u)) {
    return x;
  }
  return d4r_out(d4r_log2_d(x), ftz);
}

/* sin (which == 0) or cos (which == 1) of a finite f32 */
D4R_INLINE double d4r_sincos_d(double x, int which)
{
  const double k = d4r_nearest_int(x * 0.63661977236758134308);
  double r = x - k * 1.57079632673412561417e+00;
  r = r - k * 6.07710050630396597660e-11;
  r = r - k * 2.02226624871116645580e-21;
  const double r2 = r * r;
  double s = -1.0 / 1307674368000.0; /* -1/15! */
  s = s * r2 + 1.0 / 6227020800.0;
  s = s * r2 - 1.0 / 39916800.0;
  s = s * r2 + 1.0 / 362880.0;
  s = s * r2 - 1.0 / 5040.0;
  s = s * r2 + 1.0 / 120.0;
  s = s * r2 - 1.0 / 6.0;
  s = r + r * r2 * s;
  double c = 1.0 / 20922789888000.0; /* 1/16! */
  c = c * r2 - 1.0 / 87178291200.0;
  c = c * r2 + 1.0 / 479001600.0;
  c = c * r2 - 1.0 / 3628800.0;
  c = c * r2 + 1.0 / 40320.0;
  c = c * r2 - 1.0 / 720.0;
  c = c * r2 + 1.0 / 24.0;
  c = c * r2 - 0.5;
  c = 1.0 + r2 * c;
  /* quadrant of k (k may exceed the int range for huge x: its low bits come from fmod-free math) */
  const double k4 = k - 4.0 * d4r_nearest_int(k * 0.25 - 0.375);
  const int q = ((int)k4 + which) & 3;
  double v = (q == 0) ? s : (q == 1) ? c : (q == 2) ? -s : -c;
  if (v > 1.0) {
    v = 1.0;
  }
  if (v < -1.0) {
    v = -1.0;
  }
  return v;
}

D4R_API float __d4r_ptx_sin_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x || x - x != 0) {
    return d4r_nan_f32();
  }
  if (x == 0) {
    return x; /* keeps -0.0 */
  }
  return d4r_out(d4r_sincos_d(x, 0), ftz);
}

D4R_API float __d4r_ptx_cos_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x || x - x != 0) {
    return d4r_nan_f32();
  }
  return d4r_out(d4r_sincos_d(x, 1), ftz);
}

D4R_API float __d4r_ptx_rsqrt_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x || x < 0) {
    return d4r_nan_f32();
  }
  if (x == 0) {
    return d4r_f32_bits(d4r_bits_f32(x) | 0x7f800000u);
  }
  return d4r_out(1.0 / __builtin_sqrt((double)x), ftz);
}

D4R_API float __d4r_ptx_sqrt_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x || x < 0) {
    return d4r_nan_f32();
  }
  return d4r_out(__builtin_sqrt((double)x), ftz);
}

D4R_API float __d4r_ptx_rcp_approx_f32(float x, int ftz)
{
  x = d4r_in(x, ftz);
  if (x != x) {
    return d4r_nan_f32();
  }
  return d4r_out(1.0 / (double)x, ftz);
}

D4R_API float __d4r_ptx_tanh_approx_f32(float x)
{
  if (x != x) {
    return d4r_nan_f32();
  }
  const double ax = d4r_fabs(x);
  double t;
  if (ax < 0.03125) {
    const double x2 = ax * ax;
    double p = 62.0 / 2835.0;
    p = p * x2 - 17.0 / 315.0;
    p = p * x2 + 2.0 / 15.0;
    p = p * x2 - 1.0 / 3.0;
    t = ax + ax * x2 * p;
  } else if (ax > 20.0) {
    t = 1.0;
  } else {
    const double e = d4r_exp2_d(2.0 * ax * 1.44269504088896340736);
    t = 1.0 - 2.0 / (e + 1.0);
  }
  return (float)(x < 0 ? -t : (x == 0 ? (double)x : t));
}

D4R_API float __d4r_ptx_div_full_f32(float a, float b, int ftz)
{
  return __d4r_ptx_div_f32(a, b, D4R_RN, ftz);
}

D4R_API float __d4r_ptx_div_approx_f32(float a, float b, int ftz)
{
  a = d4r_in(a, ftz);
  b = d4r_in(b, ftz);
  const float ab = d4r_f32_bits(d4r_bits_f32(b) & 0x7fffffffu);
  if (ab > 8.50705917302346158659e+37f && ab < d4r_f32_bits(0x7f800000u)) {
    /* 2^126 < |b| < 2^128: the ISA says 0 (NaN for an infinite a) */
    if (a != a || a - a != 0) {
      return d4r_nan_f32();
    }
    return d4r_f32_bits((d4r_bits_f32(a) ^ d4r_bits_f32(b)) & 0x80000000u);
  }
  return __d4r_ptx_div_f32(a, b, D4R_RN, ftz);
}

D4R_API double __d4r_ptx_rsqrt_approx_f64(double x)
{
  if (d4r_isnan_f64(x) || x < 0) {
    return d4r_nan_result_f64(x, 0.0, 0.0);
  }
  return 1.0 / __builtin_sqrt(x);
}

/* rsqrt.approx.ftz.f64 as the H200 computes it (gap_rsqrt_f64_*): from the high word of x only
 * (a subnormal one is a zero of its sign), the result's low word zero (an f32-precision seed in
 * the 1.11.20 format, as rcp.approx.ftz.f64), an invalid result the NaN 0x7fffffff00000000. */
D4R_API double __d4r_ptx_rsqrt_approx_ftz_f64(double x)
{
  uint64_t hi = d4r_bits_f64(x) & 0xffffffff00000000ull;
  if (((hi >> 52) & 0x7ff) == 0) {
    hi &= 1ull << 63;
  }
  const double t = d4r_f64_bits(hi);
  if (d4r_isnan_f64(t) || (t < 0 && t != 0)) {
    return d4r_f64_bits(0x7fffffff00000000ull);
  }
  if (t == 0) {
    return d4r_f64_bits((hi & (1ull << 63)) | 0x7ff0000000000000ull);
  }
  return d4r_f64_bits(d4r_bits_f64(1.0 / __builtin_sqrt(t)) & 0xffffffff00000000ull);
}

D4R_API double __d4r_ptx_rcp_approx_ftz_f64(double x)
{
  uint64_t hi = d4r_bits_f64(x) & 0xffffffff00000000ull;
  if (((hi >> 52) & 0x7ff) == 0) {
    hi &= 1ull << 63; /* subnormal inputs flush to zero */
  }
  const double t = d4r_f64_bits(hi);
  if (d4r_isnan_f64(t)) {
    return d4r_f64_bits(0x7fffffff00000000ull);
  }
  uint64_t r = d4r_bits_f64(1.0 / t) & 0xffffffff00000000ull;
  if (((r >> 52) & 0x7ff) == 0) {
    r &= 1ull << 63;
  }
  return d4r_f64_bits(r);
}

/* ---- half precision: ex2.approx.f16, ex2.approx.ftz.bf16, tanh.approx.f16, tanh.approx.bf16 ----
 * (each half of the x2 forms alike). PTX bounds their relative error (ex2 2^-9.9 for f16, 2^-7 for
 * bf16; tanh 2^-10.987, 2^-8). ex2 is what the H200 computes on every one of the 65536 inputs of
 * each format (half_approx_exhaustive): 2^x rounded to f32, then truncated (toward zero) to the
 * half format, 1.0 for -2^-23 < x < 0, +inf from x >= 16 (f16) or 128 (bf16). tanh is the H200's
 * on every input too: x itself for |x| < 2^-8 + 2^-15 (the H200 keeps x up to there, where
 * tanh(x) already rounds below it), +-1 from |x| >= 8, else tanh(x) rounded to f32 and then
 * truncated (toward zero) to the half format, except on 48 f16 and 2 bf16 inputs (24 and 1
 * magnitudes, both signs), which take the H200's measured result from a table
 * (d4r_tanh_*_measured). Why: the H200's half result is its own tanh.approx.f32 of x (widened
 * exactly) truncated to the half format, on every input of both formats (tanh_halves_f32; ptxas
 * 13 emits MUFU.TANH.F16 / MUFU.TANH.BF16, the f32 unit's function with a half-format result).
 * That f32 approximation is within 2^-16.6 of tanh here but not tanh rounded; on those 50 inputs
 * (2^-20.9 to 2^-16.9 off) it lies on the other side of a half-format boundary, one unit off.
 * Without the table, exactness needs the hardware's f32 approximation itself. Rounding to
 * nearest once missed 22% of the f16 inputs and 3% of the bf16 ones.
 * Special values are exact: ex2(-inf) = +0, ex2(+-0) = 1, ex2(+inf) = +inf, tanh(+-0) = +-0,
 * tanh(+-inf) = +-1; NaN gives the canonical 0x7fff. The bf16 ex2 exists only with .ftz:
 * subnormal inputs (which give 1 anyway) and results flush to zero. */
D4R_INLINE uint16_t d4r_ex2_half(const D4rFormat* f, uint16_t h, double top)
{
  const double x = d4r_decode(f, h);
  if (d4r_isnan_f64(x)) {
    return 0x7fffu;
  }
  if (x >= top) {
    return (uint16_t)f->inf_code; /* 2^top is beyond the largest finite value */
  }
  if (x < -160.0) {
    return 0; /* far below the smallest subnormal of either format */
  }
  const float y = (x < 0 && x > -0x1p-23) ? 1.0f : (float)d4r_exp2_d(x);
  return (uint16_t)d4r_encode_f64(f, (double)y, D4R_RZ, 0);
}

D4R_API uint16_t __d4r_ptx_ex2_approx_f16(uint16_t h) { return d4r_ex2_half(&d4r_f16, h, 16.0); }

D4R_API uint16_t __d4r_ptx_ex2_approx_ftz_bf16(uint16_t h)
{
  const uint16_t r = d4r_ex2_half(&d4r_bf16, h, 128.0);
  return (r & 0x7f80u) == 0 ? 0 : r; /* a subnormal result (positive) flushes to +0 */
}

D4R_INLINE uint16_t d4r_tanh_half(const D4rFormat* f, uint16_t h)
{
  const double x = d4r_decode(f, h);
  if (d4r_isnan_f64(x)) {
    return 0x7fffu;
  }
  const double ax = d4r_fabs(x);
  if (ax < 0x1.02p-8) {
    return h; /* zeros and subnormals too */
  }
  if (ax >= 8.0) {
    return (uint16_t)d4r_encode_f64(f, x < 0 ? -1.0 : 1.0, D4R_RN, 0);
  }
  return (uint16_t)d4r_encode_f64(f, (double)__d4r_ptx_tanh_approx_f32((float)x), D4R_RZ, 0);
}

/* The magnitudes where the H200's tanh.approx.f16/.bf16 is not d4r_tanh_half's rule, and its
 * result there (a positive magnitude; tanh is odd and the H200 keeps it so: -x gives -result);
 * 0 elsewhere. Measured on the H200 (driver 580.159.04, CUDA 13): tests/golden/expected/
 * half_approx_exhaustive.out0 (f16, tanh of pattern i at element 2i + 1) and out1 (bf16, alike),
 * recorded from tests/ptx/isa/half_extras.cu. To regenerate: decompress those outputs (zstd -d),
 * compare each tanh element with d4r_tanh_half (without these tables) over the 65536 patterns;
 * the patterns that differ are the entries, all within 2^-8 <= |x| < 8 (and the test
 * half_approx_exhaustive, compared exactly, fails on any entry that is wrong or missing). The
 * same entries follow from tanh_halves_f32 (the H200's tanh.approx.f32 on these inputs, truncated
 * to the half format). */
D4R_INLINE uint16_t d4r_tanh_f16_measured(uint16_t magnitude)
{
  switch (magnitude) {
  case 0x29c6: return 0x29c5; case 0x2c95: return 0x2c93; case 0x2c96: return 0x2c94;
  case 0x2d3f: return 0x2d3b; case 0x2e39: return 0x2e34; case 0x2e9d: return 0x2e97;
  case 0x3064: return 0x305d; case 0x323f: return 0x322b; case 0x32ff: return 0x32e3;
  case 0x355b: return 0x352a; case 0x372d: return 0x36bb; case 0x3824: return 0x379d;
  case 0x399a: return 0x38d6; case 0x39f8: return 0x390f; case 0x3c8e: return 0x3a82;
  case 0x3c9d: return 0x3a8c; case 0x3cc9: return 0x3aa9; case 0x3db8: return 0x3b21;
  case 0x3de3: return 0x3b33; case 0x3e23: return 0x3b49; case 0x3eab: return 0x3b72;
  case 0x3ed6: return 0x3b7e; case 0x4080: return 0x3bd3; case 0x4429: return 0x3bfe;
  default: return 0;
  }
}

D4R_INLINE uint16_t d4r_tanh_bf16_measured(uint16_t magnitude)
{
  return magnitude == 0x3f3f ? 0x3f21 : 0; /* 0.74609375: the f16 0x39f8's value, alike */
}

D4R_API uint16_t __d4r_ptx_tanh_approx_f16(uint16_t h)
{
  const uint16_t measured = d4r_tanh_f16_measured(h & 0x7fffu);
  return measured ? (uint16_t)(measured | (h & 0x8000u)) : d4r_tanh_half(&d4r_f16, h);
}

D4R_API uint16_t __d4r_ptx_tanh_approx_bf16(uint16_t h)
{
  const uint16_t measured = d4r_tanh_bf16_measured(h & 0x7fffu);
  return measured ? (uint16_t)(measured | (h & 0x8000u)) : d4r_tanh_half(&d4r_bf16, h);
}
