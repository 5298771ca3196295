// kernels/support/rounding.c: PTX arithmetic with a rounding mode, checked bit for bit against the
// host FPU under fesetround (this file is built with -frounding-math) on millions of random and
// edge inputs, for every mode, f32 and f64; .ftz and .sat against their definitions; f16/bf16
// against f32 arithmetic narrowed by a search-based reference; min/max against the ISA's rules.

#include "test_kernels_ptx_support_common.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

namespace {

using namespace d4r::test::ptx_support;

constexpr int k_count = 200000;

// Host result under mode m (FE_*), computed with the mode set.
template <typename F> auto under_mode(int mode, F f)
{
  // The volatile store pins the operation between the two calls: GCC otherwise moves FP
  // arithmetic across fesetround (GCC bug 34678), even with -frounding-math.
  std::fesetround(mode);
  volatile auto r = f();
  std::fesetround(FE_TONEAREST);
  return static_cast<decltype(f())>(r);
}

float canonical_expected(float e) { return std::isnan(e) ? f32(0x7fffffffu) : e; }
// f64 NaN results (lowering_support.hpp, evidence double_arith_*): the first NaN operand quieted,
// else 0xfff8000000000000.
double f64_nan_expected(double e, std::initializer_list<double> operands)
{
  if (!std::isnan(e)) {
    return e;
  }
  for (double x : operands) {
    if (std::isnan(x)) {
      return f64(bits(x) | 0x0008000000000000ull);
    }
  }
  return f64(0xfff8000000000000ull);
}

float ftz_ref(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
float sat_ref(float x)
{
  if (std::isnan(x) || std::signbit(x)) {
    return 0.0f;
  }
  return x > 1.0f ? 1.0f : x;
}

struct F32Case {
  const char* name;
  int arity;
};

// The three-operand f32 ops dispatched by name (volatile keeps the host op after fesetround).
float host_f32(const std::string& op, float a, float b, float c)
{
  volatile float va = a;
  volatile float vb = b;
  volatile float vc = c;
  if (op == "add") {
    return va + vb;
  }
  if (op == "sub") {
    return va - vb;
  }
  if (op == "mul") {
    return va * vb;
  }
  if (op == "fma") {
    return std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc));
  }
  if (op == "div") {
    return va / vb;
  }
  if (op == "rcp") {
    return 1.0f / va;
  }
  return std::sqrt(static_cast<float>(va));
}

float lib_f32(const std::string& op, float a, float b, float c, int mode, int ftz, int sat)
{
  if (op == "add") {
    return __d4r_ptx_add_f32(a, b, mode, ftz, sat);
  }
  if (op == "sub") {
    return __d4r_ptx_sub_f32(a, b, mode, ftz, sat);
  }
  if (op == "mul") {
    return __d4r_ptx_mul_f32(a, b, mode, ftz, sat);
  }
  if (op == "fma") {
    return __d4r_ptx_fma_f32(a, b, c, mode, ftz, sat);
  }
  if (op == "div") {
    return __d4r_ptx_div_f32(a, b, mode, ftz);
  }
  if (op == "rcp") {
    return __d4r_ptx_rcp_f32(a, mode, ftz);
  }
  return __d4r_ptx_sqrt_f32(a, mode, ftz);
}

// Inputs: random, plus b chosen near a (cancellation) and c near -a*b (fma cancellation).
void inputs(Rng& rng, float& a, float& b, float& c)
{
  a = interesting_f32(rng);
  b = interesting_f32(rng);
  c = interesting_f32(rng);
  const uint64_t pick = rng.next() & 7u;
  if (pick == 0) {
    b = -f32(bits(a) + static_cast<uint32_t>(rng.next() & 3u));
  } else if (pick == 1) {
    c = -static_cast<float>(static_cast<double>(a) * static_cast<double>(b));
  } else if (pick == 2) {
    c = f32(bits(c) & 0x807fffffu);
  }
}

void check_f32_op(const std::string& op, bool with_flags)
{
  Rng rng;
  int64_t failures = 0;
  int64_t checked = 0;
  for (int i = 0; i < k_count; ++i) {
    float a;
    float b;
    float c;
    inputs(rng, a, b, c);
    for (int m = 0; m < 4; ++m) {
      for (int flags = 0; flags < (with_flags ? 4 : 1); ++flags) {
        const int ftz = flags & 1;
        const int sat = (flags >> 1) & 1;
        const float ia = ftz ? ftz_ref(a) : a;
        const float ib = ftz ? ftz_ref(b) : b;
        const float ic = ftz ? ftz_ref(c) : c;
        float expected = canonical_expected(
            under_mode(k_modes[m], [&] { return host_f32(op, ia, ib, ic); }));
        if (ftz) {
          expected = ftz_ref(expected);
        }
        if (sat) {
          expected = sat_ref(expected);
        }
        const float got = lib_f32(op, a, b, c, m, ftz, sat);
        ++checked;
        if (bits(got) != bits(expected) && failures++ < 10) {
          ADD_FAILURE() << op << " mode " << m << " ftz " << ftz << " sat " << sat << " a "
                        << std::hexfloat << a << " b " << b << " c " << c << ": got " << got
                        << " expected " << expected;
        }
      }
    }
  }
  EXPECT_EQ(failures, 0) << "of " << checked;
  std::printf("%s: %lld checks\n", op.c_str(), static_cast<long long>(checked));
}

TEST(KernelsPtxSupportRounding, AddF32EveryModeAndFlag) { check_f32_op("add", true); }
TEST(KernelsPtxSupportRounding, SubF32EveryModeAndFlag) { check_f32_op("sub", true); }
TEST(KernelsPtxSupportRounding, MulF32EveryModeAndFlag) { check_f32_op("mul", true); }
TEST(KernelsPtxSupportRounding, FmaF32EveryModeAndFlag) { check_f32_op("fma", true); }
TEST(KernelsPtxSupportRounding, DivF32EveryMode) { check_f32_op("div", false); }
TEST(KernelsPtxSupportRounding, RcpF32EveryMode) { check_f32_op("rcp", false); }
TEST(KernelsPtxSupportRounding, SqrtF32EveryMode) { check_f32_op("sqrt", false); }

TEST(KernelsPtxSupportRounding, SignedZerosOfExactSums)
{
  EXPECT_EQ(bits(__d4r_ptx_add_f32(1.0f, -1.0f, 0, 0, 0)), 0u);
  EXPECT_EQ(bits(__d4r_ptx_add_f32(1.0f, -1.0f, 1, 0, 0)), 0u);
  EXPECT_EQ(bits(__d4r_ptx_add_f32(1.0f, -1.0f, 2, 0, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_add_f32(1.0f, -1.0f, 3, 0, 0)), 0u);
  EXPECT_EQ(bits(__d4r_ptx_add_f32(-0.0f, -0.0f, 3, 0, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_add_f32(0.0f, -0.0f, 2, 0, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_fma_f32(2.0f, 3.0f, -6.0f, 2, 0, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_add_f64(1.0, -1.0, 2)), 0x8000000000000000ull);
  EXPECT_EQ(bits(__d4r_ptx_add_f64(1.0, -1.0, 3)), 0ull);
  // .ftz keeps the sign of a flushed result; rp of a tiny positive product flushes to +0.
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0x1p-100f, -0x1p-40f, 0, 1, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0x1p-100f, 0x1p-60f, 3, 0, 0)), 0x00000001u);
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0x1p-100f, 0x1p-60f, 3, 1, 0)), 0u);
  // Overflow: rz and the direction away from infinity give FLT_MAX.
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0x1p100f, 0x1p100f, 1, 0, 0)), 0x7f7fffffu);
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0x1p100f, -0x1p100f, 3, 0, 0)), 0xff7fffffu);
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0x1p100f, -0x1p100f, 2, 0, 0)), 0xff800000u);
  // NaN results are canonical.
  EXPECT_EQ(bits(__d4r_ptx_add_f32(f32(0xffc00001u), 1.0f, 0, 0, 0)), 0x7fffffffu);
  EXPECT_EQ(bits(__d4r_ptx_mul_f32(0.0f, f32(0x7f800000u), 1, 0, 0)), 0x7fffffffu);
  EXPECT_EQ(bits(__d4r_ptx_sat_f32(f32(0xffc00001u))), 0u);
}

// f64: the same comparison for add/sub/mul/fma/div/sqrt/rcp.
double host_f64(const std::string& op, double a, double b, double c)
{
  volatile double va = a;
  volatile double vb = b;
  if (op == "add") {
    return va + vb;
  }
  if (op == "mul") {
    return va * vb;
  }
  if (op == "fma") {
    return std::fma(static_cast<double>(va), static_cast<double>(vb), c);
  }
  if (op == "div") {
    return va / vb;
  }
  if (op == "rcp") {
    return 1.0 / va;
  }
  return std::sqrt(static_cast<double>(va));
}

double lib_f64(const std::string& op, double a, double b, double c, int mode)
{
  if (op == "add") {
    return __d4r_ptx_add_f64(a, b, mode);
  }
  if (op == "mul") {
    return __d4r_ptx_mul_f64(a, b, mode);
  }
  if (op == "fma") {
    return __d4r_ptx_fma_f64(a, b, c, mode);
  }
  if (op == "div") {
    return __d4r_ptx_div_f64(a, b, mode);
  }
  if (op == "rcp") {
    return __d4r_ptx_rcp_f64(a, mode);
  }
  return __d4r_ptx_sqrt_f64(a, mode);
}

void check_f64_op(const std::string& op, int count)
{
  Rng rng;
  int64_t failures = 0;
  int64_t checked = 0;
  for (int i = 0; i < count; ++i) {
    double a = interesting_f64(rng);
    double b = interesting_f64(rng);
    double c = interesting_f64(rng);
    const uint64_t pick = rng.next() & 7u;
    if (pick == 0) {
      b = -f64(bits(a) + (rng.next() & 3u));
    } else if (pick == 1) {
      c = -(a * b);
    } else if (pick == 2) {
      a = f64(bits(a) & 0x800fffffffffffffull); // subnormal
    }
    for (int m = 0; m < 4; ++m) {
      const double host = under_mode(k_modes[m], [&] { return host_f64(op, a, b, c); });
      const double expected = op == "fma"                  ? f64_nan_expected(host, {a, b, c})
                              : op == "rcp" || op == "sqrt" ? f64_nan_expected(host, {a})
                                                            : f64_nan_expected(host, {a, b});
      const double got = lib_f64(op, a, b, c, m);
      ++checked;
      if (bits(got) != bits(expected) && failures++ < 10) {
        ADD_FAILURE() << op << " mode " << m << std::hexfloat << " a " << a << " b " << b << " c "
                      << c << ": got " << got << " expected " << expected;
      }
    }
  }
  EXPECT_EQ(failures, 0) << "of " << checked;
  std::printf("%s f64: %lld checks\n", op.c_str(), static_cast<long long>(checked));
}

TEST(KernelsPtxSupportRounding, AddF64EveryMode) { check_f64_op("add", k_count); }
TEST(KernelsPtxSupportRounding, MulF64EveryMode) { check_f64_op("mul", k_count); }
TEST(KernelsPtxSupportRounding, FmaF64EveryMode) { check_f64_op("fma", k_count / 2); }
TEST(KernelsPtxSupportRounding, DivF64EveryMode) { check_f64_op("div", k_count); }
TEST(KernelsPtxSupportRounding, RcpF64EveryMode) { check_f64_op("rcp", k_count / 2); }
TEST(KernelsPtxSupportRounding, SqrtF64EveryMode) { check_f64_op("sqrt", k_count); }

// f16 and bf16: the exact result is bracketed by the double operation rounded down and up on the
// host (lo <= x <= hi, adjacent doubles or equal); every grid point and midpoint of f16/bf16 is a
// double, so the reference rounding of x follows from lo and hi alone.
double half_host(const std::string& op, double a, double b, double c, int mode)
{
  return under_mode(mode, [&] {
    volatile double va = a;
    volatile double vb = b;
    if (op == "add") {
      return va + vb;
    }
    if (op == "mul") {
      return va * vb;
    }
    return std::fma(static_cast<double>(va), static_cast<double>(vb), c);
  });
}

uint32_t reference_bracket(const NarrowFormat& fmt, double lo, double hi, int mode)
{
  if (lo == hi) {
    return reference_round(fmt, lo, mode, false);
  }
  const int down = lo < 0 ? 3 : 2; // rz of the value: toward zero
  if (mode == 2 || (mode == 1 && down == 2)) {
    return reference_round(fmt, lo, 2, false);
  }
  if (mode == 3 || mode == 1) {
    return reference_round(fmt, hi, 3, false);
  }
  // rn: lo a midpoint means x is above it.
  const double g1 = fmt.value[reference_round(fmt, lo, 2, false)];
  const double g2 = fmt.value[reference_round(fmt, lo, 3, false)];
  const bool lo_is_mid = g1 != g2 && !std::isinf(g1) && !std::isinf(g2) && lo - g1 == g2 - lo;
  return reference_round(fmt, lo_is_mid ? hi : lo, 0, false);
}

void check_half_op(bool bf16, const std::string& op)
{
  const NarrowFormat& fmt = bf16 ? bf16_format() : f16_format();
  Rng rng;
  int64_t failures = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint16_t ha = static_cast<uint16_t>(rng.next());
    const uint16_t hb = static_cast<uint16_t>(rng.next());
    uint16_t hc = static_cast<uint16_t>(rng.next());
    if ((i & 3) == 0) {
      hc = static_cast<uint16_t>(hc & 0x83ffu); // subnormal addend
    }
    const double a = fmt.value[ha];
    const double b = op == "add" ? fmt.value[hb] : fmt.value[hb];
    const double c = fmt.value[hc];
    for (int m = 0; m < 4; ++m) {
      const double lo = half_host(op, a, b, c, FE_DOWNWARD);
      const double hi = half_host(op, a, b, c, FE_UPWARD);
      uint32_t expected = 0x7fffu;
      if (!std::isnan(lo)) {
        expected = std::isinf(lo) && lo == hi ? reference_round(fmt, lo, m, false)
                                              : reference_bracket(fmt, lo, hi, m);
        if (lo == 0 && hi == 0) {
          // exact zero: the library's sign rules (checked elsewhere); take the host's under m
          const double z = half_host(op, a, b, c, k_modes[m]);
          expected = std::signbit(z) ? 0x8000u : 0u;
        }
      }
      uint16_t got;
      if (bf16) {
        got = op == "add"   ? __d4r_ptx_add_bf16(ha, hb, m)
              : op == "mul" ? __d4r_ptx_mul_bf16(ha, hb, m)
                            : __d4r_ptx_fma_bf16(ha, hb, hc, m, 0);
      } else {
        got = op == "add"   ? __d4r_ptx_add_f16(ha, hb, m, 0, 0)
              : op == "mul" ? __d4r_ptx_mul_f16(ha, hb, m, 0, 0)
                            : __d4r_ptx_fma_f16(ha, hb, hc, m, 0, 0);
      }
      if (got != expected && failures++ < 10) {
        ADD_FAILURE() << (bf16 ? "bf16 " : "f16 ") << op << " mode " << m << std::hex << " a "
                      << ha << " b " << hb << " c " << hc << ": got " << got << " expected "
                      << expected;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(KernelsPtxSupportRounding, F16AddMulFma)
{
  check_half_op(false, "add");
  check_half_op(false, "mul");
  check_half_op(false, "fma");
}

// .ftz on f16 arithmetic flushes a result that is tiny after rounding with an unbounded exponent
// (IEEE 754's definition): the H200 gives 0x0000 for mul.rn.ftz.f16 0x0400 * 0x3bff (random
// differential testing, r508 slot 62), whose exact value 2^-14 - 2^-25 has 11 bits and so stays
// below 2^-14, yet 0x0400 for fma.rn.ftz.f16 0x0400 * 0x845d + 0x0400 (generator version 2, r1213
// slot 19), whose exact value 2^-14 - 1.09 * 2^-28 rounds to 2^-14 at 11 bits. Without .ftz both
// are 0x0400. A normal result is kept.
TEST(KernelsPtxSupportRounding, F16FtzFlushesTinyAfterRounding)
{
  EXPECT_EQ(__d4r_ptx_mul_f16(0x0400u, 0x3bffu, 0, 1, 0), 0x0000u);
  EXPECT_EQ(__d4r_ptx_mul_f16(0x8400u, 0x3bffu, 0, 1, 0), 0x8000u);
  EXPECT_EQ(__d4r_ptx_mul_f16(0x0400u, 0x3bffu, 0, 0, 0), 0x0400u);
  EXPECT_EQ(__d4r_ptx_mul_f16(0x0400u, 0x3bffu, 3, 1, 0), 0x0000u); // rp rounds up to 0x0400 too
  EXPECT_EQ(__d4r_ptx_fma_f16(0x0400u, 0x3bffu, 0x0000u, 0, 1, 0), 0x0000u);
  EXPECT_EQ(__d4r_ptx_mul_f16(0x0400u, 0x3c00u, 0, 1, 0), 0x0400u);
  EXPECT_EQ(__d4r_ptx_mul_f16(0x0401u, 0x3bffu, 0, 1, 0), 0x0400u); // exact value >= 2^-14
  EXPECT_EQ(__d4r_ptx_fma_f16(0x0400u, 0x845du, 0x0400u, 0, 1, 0), 0x0400u);
  EXPECT_EQ(__d4r_ptx_fma_f16(0x8400u, 0x845du, 0x8400u, 0, 1, 0), 0x8400u);
  EXPECT_EQ(__d4r_ptx_fma_f16(0x0400u, 0x845du, 0x0400u, 1, 1, 0), 0x0000u); // rz: 0x03ff, tiny
  // r443 slot 62: fma.rn.ftz.sat.f16x2, low half 0x0400 * 0x86eb + 0x0400.
  EXPECT_EQ(__d4r_ptx_fma_f16(0x0400u, 0x86ebu, 0x0400u, 0, 1, 1), 0x0400u);
}

TEST(KernelsPtxSupportRounding, Bf16AddMulFma)
{
  check_half_op(true, "add");
  check_half_op(true, "mul");
  check_half_op(true, "fma");
}

TEST(KernelsPtxSupportRounding, MinMaxFollowTheIsa)
{
  const float nan = f32(0x7fc00000u);
  EXPECT_EQ(bits(__d4r_ptx_min_f32(-0.0f, 0.0f, 0, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_min_f32(0.0f, -0.0f, 0, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_max_f32(-0.0f, 0.0f, 0, 0)), 0u);
  EXPECT_EQ(bits(__d4r_ptx_max_f32(0.0f, -0.0f, 0, 0)), 0u);
  EXPECT_EQ(__d4r_ptx_min_f32(nan, 2.0f, 0, 0), 2.0f);
  EXPECT_EQ(__d4r_ptx_max_f32(2.0f, nan, 0, 0), 2.0f);
  EXPECT_EQ(bits(__d4r_ptx_min_f32(nan, 2.0f, 0, 1)), 0x7fffffffu);
  EXPECT_EQ(bits(__d4r_ptx_max_f32(nan, nan, 0, 0)), 0x7fffffffu);
  EXPECT_EQ(bits(__d4r_ptx_min_f32(f32(1u), 1.0f, 1, 0)), 0u); // ftz: the subnormal is +0
  Rng rng;
  for (int i = 0; i < 100000; ++i) {
    const float a = interesting_f32(rng);
    const float b = interesting_f32(rng);
    if (std::isnan(a) || std::isnan(b) || a == b) {
      continue;
    }
    ASSERT_EQ(__d4r_ptx_min_f32(a, b, 0, 0), std::fmin(a, b));
    ASSERT_EQ(__d4r_ptx_max_f32(a, b, 0, 0), std::fmax(a, b));
    ASSERT_EQ(__d4r_ptx_min_f64(a, b), std::fmin(static_cast<double>(a), b));
  }
}

// NaN bit patterns an H200 wrote (tests/golden/expected/double_arith_*, lowering_support.hpp).
TEST(KernelsPtxSupportRounding, F64NanRulesFromH200)
{
  const double q = f64(0x7ff8000000000000ull);
  const double s = f64(0x7ff0000000000001ull);
  const double inf = f64(0x7ff0000000000000ull);
  for (int m = 0; m < 4; ++m) {
    EXPECT_EQ(bits(__d4r_ptx_add_f64(s, q, m)), 0x7ff8000000000001ull); // first NaN, quieted
    EXPECT_EQ(bits(__d4r_ptx_add_f64(q, s, m)), 0x7ff8000000000000ull);
    EXPECT_EQ(bits(__d4r_ptx_sub_f64(1.0, f64(0xfff8000000000005ull), m)), 0xfff8000000000005ull);
    EXPECT_EQ(bits(__d4r_ptx_mul_f64(0.0, inf, m)), 0xfff8000000000000ull); // invalid
    EXPECT_EQ(bits(__d4r_ptx_fma_f64(1.0, 2.0, f64(0x7ff8000000000005ull), m)), 0x7ff8000000000005ull);
    EXPECT_EQ(bits(__d4r_ptx_fma_f64(0.0, inf, q, m)), 0x7ff8000000000000ull);
    EXPECT_EQ(bits(__d4r_ptx_sqrt_f64(-1.0, m)), 0xfff8000000000000ull);
    EXPECT_EQ(bits(__d4r_ptx_rcp_f64(s, m)), 0x7ff8000000000001ull);
  }
  EXPECT_EQ(bits(__d4r_ptx_min_f64(f64(0xffffffffffffffffull), q)), 0xffffffffffffffffull);
  EXPECT_EQ(bits(__d4r_ptx_max_f64(s, q)), 0x7ff8000000000001ull);
  EXPECT_EQ(__d4r_ptx_min_f64(q, 2.0), 2.0);
}

} // namespace
