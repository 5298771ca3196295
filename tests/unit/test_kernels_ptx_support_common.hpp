#pragma once
// Shared by the test_kernels_ptx_support_*.cpp tests: bit casts, a deterministic generator of
// interesting f32/f64 inputs, and a reference rounder for the narrow formats written differently
// from the library (search over every code of the format instead of bit arithmetic).

#include "kernels/support/d4r_ptx_support.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace d4r::test::ptx_support {

inline uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
inline uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }
inline float f32(uint32_t u) { return std::bit_cast<float>(u); }
inline double f64(uint64_t u) { return std::bit_cast<double>(u); }

constexpr int k_modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

// f() computed under the rounding mode `mode` (FE_*).
template <typename F> auto under_mode(int mode, F f)
{
  // The volatile store pins the operation between the two calls: GCC otherwise moves FP
  // arithmetic across fesetround (GCC bug 34678), even with -frounding-math.
  std::fesetround(mode);
  volatile auto r = f();
  std::fesetround(FE_TONEAREST);
  return static_cast<decltype(f())>(r);
}

// PTX's cvt.rXi.<T>.<float> of x in mode 0..3 (rni, rzi, rmi, rpi), sign-extended to 64 bits: the
// value rounded to an integer, clamped to T's range; NaN gives 0, or 1 << (width - 1) with
// `nan_big` (an f64 source or a 64-bit destination; PTX ISA, cvt, Integer Notes).
template <typename T> uint64_t reference_int(double x, int mode, bool nan_big)
{
  constexpr int width = static_cast<int>(sizeof(T) * 8);
  if (std::isnan(x)) {
    // sign-extended like the library's signed results
    return nan_big ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<T>(1ull << (width - 1)))) : 0;
  }
  const double r = under_mode(k_modes[mode], [&] { return std::nearbyint(x); });
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (r <= lo) {
    return static_cast<uint64_t>(static_cast<int64_t>(std::numeric_limits<T>::min()));
  }
  if (r >= hi) {
    return static_cast<uint64_t>(static_cast<int64_t>(std::numeric_limits<T>::max()));
  }
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<T>(r)));
}

// Deterministic xorshift.
struct Rng {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  uint64_t next()
  {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
};

// A random f32 that hits every class: random bits, small exponent spreads, subnormals, specials.
inline float interesting_f32(Rng& rng)
{
  const uint64_t r = rng.next();
  const uint32_t kind = static_cast<uint32_t>(r >> 60);
  uint32_t u = static_cast<uint32_t>(r);
  switch (kind) {
  case 0: return f32(u & 0x807fffffu);                                       // subnormal / zero
  case 1: return f32((u & 0x80ffffffu) | 0x3f000000u);                        // near 1
  case 2: return f32((u & 0x807fffffu) | ((120u + ((u >> 23) & 15u)) << 23)); // narrow spread
  case 3: return f32((u & 0x80000000u) | (0x7f7fffffu - (u & 0xffu)));        // near FLT_MAX
  case 4: return f32((u & 0x80000000u) | 0x7f800000u | ((u & 1u) ? 0x400000u : 0)); // inf / NaN
  case 5: return f32((u & 0x80000fffu) | (((u >> 12) & 0xffu) << 23));        // short mantissas
  default: return f32(u);
  }
}

inline double interesting_f64(Rng& rng)
{
  const uint64_t r = rng.next();
  const uint64_t u = rng.next();
  switch (r >> 60) {
  case 0: return f64(u & 0x800fffffffffffffull);
  case 1: return f64((u & 0x801fffffffffffffull) | 0x3fe0000000000000ull);
  case 2: return f64((u & 0x800fffffffffffffull) | ((1010ull + ((u >> 52) & 31u)) << 52));
  case 3: return f64((u & 0x8000000000000000ull) | (0x7fefffffffffffffull - (u & 0xffu)));
  case 4: return f64((u & 0x800fffffffffffffull) | (((u >> 52) & 0x3fu) << 52)); // tiny normals
  case 5: return f64((u & 0x8000000000ffffffull) | (((u >> 40) & 0x7ffull) << 52));
  case 6: return f64((u & 0x8000000000000000ull) | 0x7ff0000000000000ull | ((u & 1u) << 51));
  default: return f64(u);
  }
}

// A narrow format described by its decoded values, for a reference by exhaustive search.
struct NarrowFormat {
  int bits;               // 8 or 16
  double max_finite = 0;
  bool has_inf;
  uint32_t max_code = 0;      // the code of the largest finite value
  std::vector<double> value; // value[code] (NaN for NaN codes)
};

// mode: 0 rn, 1 rz, 2 rm, 3 rp. Reference rounding of a finite or infinite x (not NaN) by search
// over the non-negative codes; returns the code. satfinite clamps |x| to the largest finite value
// first (PTX: "greater than MAX_NORM -> MAX_NORM").
inline uint32_t reference_round(const NarrowFormat& f, double x, int mode, bool satfinite)
{
  const uint32_t sign_bit = 1u << (f.bits - 1);
  const bool neg = std::signbit(x);
  double a = std::fabs(x);
  if (satfinite || !f.has_inf) {
    a = std::min(a, f.max_finite);
  }
  // Codes 0 .. max_code hold increasing finite values: binary search for the last one <= a.
  const uint32_t max_code = f.max_code;
  const auto first = f.value.begin();
  const auto last = first + static_cast<std::ptrdiff_t>(max_code) + 1;
  const uint32_t below = std::isinf(a) ? max_code
                                       : static_cast<uint32_t>(std::upper_bound(first, last, a) - first) - 1;
  const uint32_t inf_code = max_code + 1;  // the infinity code follows the largest finite one
  if (std::isinf(a)) {
    return (neg ? sign_bit : 0) | inf_code;
  }
  const double lo = f.value[below];
  // The next value up: the next code, or (past the largest finite) a virtual value one ulp above,
  // standing for infinity.
  const double hi = below < max_code ? f.value[below + 1]
                                     : f.value[max_code] + (f.value[max_code] - f.value[max_code - 1]);
  const uint32_t hi_code = below + 1;
  if (lo == a) {
    return (neg ? sign_bit : 0) | below;
  }
  bool up = false; // toward larger magnitude
  const int effective = (mode == 2) ? (neg ? 3 : 1) : (mode == 3) ? (neg ? 1 : 3) : mode;
  if (effective == 0) {
    const double mid = lo + (hi - lo) / 2;
    up = a > mid || (a == mid && (hi_code & 1u) == 0);
  } else if (effective == 3) {
    up = true;
  }
  uint32_t code = up ? hi_code : below;
  return (neg ? sign_bit : 0) | code;
}

inline NarrowFormat make_format(int bits, int frac_bits, int bias, bool has_inf, bool e4m3)
{
  NarrowFormat f;
  f.bits = bits;
  f.has_inf = has_inf;
  const uint32_t n = 1u << bits;
  f.value.resize(n);
  const int exp_bits = bits - 1 - frac_bits;
  const uint32_t exp_max = (1u << exp_bits) - 1;
  for (uint32_t c = 0; c < n; ++c) {
    const uint32_t e = (c >> frac_bits) & exp_max;
    const uint32_t m = c & ((1u << frac_bits) - 1);
    const bool neg = (c >> (bits - 1)) & 1u;
    double v;
    if (e4m3 && e == exp_max && m == (1u << frac_bits) - 1) {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (!e4m3 && e == exp_max) {
      v = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    } else if (e == 0) {
      v = std::ldexp(static_cast<double>(m), 1 - bias - frac_bits);
    } else {
      v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -frac_bits), static_cast<int>(e) - bias);
    }
    f.value[c] = neg ? -v : v;
    if (!std::isnan(v) && !std::isinf(v) && !neg && v >= f.max_finite) {
      f.max_finite = v;
      f.max_code = c;
    }
  }
  return f;
}

inline const NarrowFormat& f16_format()
{
  static const NarrowFormat f = make_format(16, 10, 15, true, false);
  return f;
}
inline const NarrowFormat& bf16_format()
{
  static const NarrowFormat f = make_format(16, 7, 127, true, false);
  return f;
}
inline const NarrowFormat& e4m3_format()
{
  static const NarrowFormat f = make_format(8, 3, 7, false, true);
  return f;
}
inline const NarrowFormat& e5m2_format()
{
  static const NarrowFormat f = make_format(8, 2, 15, true, false);
  return f;
}

} // namespace d4r::test::ptx_support
