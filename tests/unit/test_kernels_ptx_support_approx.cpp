// kernels/support/approx.c: the .approx instructions against libm in double, with tolerances well
// inside PTX's stated bounds (ex2/lg2/rsqrt/rcp/sqrt/div: 2 ulp; sin/cos: 2^-20.9 absolute in
// [-100pi, 100pi]; tanh: 2^-11 relative), plus the special values of the ISA's tables.

#include "test_kernels_ptx_support_common.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace d4r::test::ptx_support;

// Distance in f32 ulps between the library result and the double reference.
double ulps(float got, double want)
{
  if (std::isnan(want)) {
    return bits(got) == 0x7fffffffu ? 0 : 1e9;
  }
  if (std::isinf(want) || std::fabs(want) > 3.4028234663852886e38) {
    return static_cast<float>(want) == got ? 0 : 1e9;
  }
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(static_cast<float>(want)), -126) - 23);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

TEST(KernelsPtxSupportApprox, WithinOneUlpOfLibm)
{
  Rng rng;
  double worst[6] = {};
  for (int i = 0; i < 200000; ++i) {
    const float x = interesting_f32(rng);
    const float y = interesting_f32(rng);
    const double dx = x;
    if (x > -149 && x < 128) {
      worst[0] = std::max(worst[0], ulps(__d4r_ptx_ex2_approx_f32(x, 0), std::exp2(dx)));
    }
    if (x > 0) {
      worst[1] = std::max(worst[1], std::fabs(static_cast<double>(__d4r_ptx_lg2_approx_f32(x, 0)) - std::log2(dx)) /
                                        std::max(1.0, std::fabs(std::log2(dx))) * 0x1p23);
    }
    if (x > 0) {
      worst[2] = std::max(worst[2], ulps(__d4r_ptx_rsqrt_approx_f32(x, 0), 1.0 / std::sqrt(dx)));
      worst[2] = std::max(worst[2], ulps(__d4r_ptx_sqrt_approx_f32(x, 0), std::sqrt(dx)));
    }
    if (x != 0 && std::isfinite(x)) {
      worst[3] = std::max(worst[3], ulps(__d4r_ptx_rcp_approx_f32(x, 0), 1.0 / dx));
    }
    if (std::isfinite(x) && std::isfinite(y) && y != 0 && std::fabs(y) < 0x1p126f) {
      worst[4] = std::max(worst[4], ulps(__d4r_ptx_div_approx_f32(x, y, 0), dx / static_cast<double>(y)));
    }
    const double t = std::tanh(dx);
    if (std::isfinite(x) && t != 0) {
      worst[5] = std::max(worst[5], std::fabs((static_cast<double>(__d4r_ptx_tanh_approx_f32(x)) - t) / t) * 0x1p23);
    }
  }
  EXPECT_LE(worst[0], 1.0) << "ex2";
  EXPECT_LE(worst[1], 1.0) << "lg2";
  EXPECT_LE(worst[2], 1.0) << "rsqrt/sqrt";
  EXPECT_LE(worst[3], 1.0) << "rcp";
  EXPECT_LE(worst[4], 0.5) << "div";
  EXPECT_LE(worst[5], 2.0) << "tanh";
}

TEST(KernelsPtxSupportApprox, SinCosInTheStatedRange)
{
  double worst = 0;
  for (int i = 0; i <= 2000000; ++i) {
    const float x = static_cast<float>((i - 1000000) * (100 * M_PI / 1000000));
    worst = std::max(worst, std::fabs(static_cast<double>(__d4r_ptx_sin_approx_f32(x, 0)) - std::sin(static_cast<double>(x))));
    worst = std::max(worst, std::fabs(static_cast<double>(__d4r_ptx_cos_approx_f32(x, 0)) - std::cos(static_cast<double>(x))));
  }
  EXPECT_LE(worst, 0x1p-24);
  EXPECT_LE(std::fabs(__d4r_ptx_sin_approx_f32(1e30f, 0)), 1.0f); // out of range: still bounded
}

TEST(KernelsPtxSupportApprox, SpecialValues)
{
  const float inf = f32(0x7f800000u);
  EXPECT_EQ(bits(__d4r_ptx_ex2_approx_f32(-inf, 0)), 0u);
  EXPECT_EQ(__d4r_ptx_ex2_approx_f32(inf, 0), inf);
  EXPECT_EQ(__d4r_ptx_lg2_approx_f32(0.0f, 0), -inf);
  EXPECT_EQ(bits(__d4r_ptx_lg2_approx_f32(-1.0f, 0)), 0x7fffffffu);
  EXPECT_EQ(__d4r_ptx_lg2_approx_f32(f32(1u), 1), -inf); // ftz: the subnormal is 0
  EXPECT_EQ(__d4r_ptx_rsqrt_approx_f32(-0.0f, 0), -inf);
  EXPECT_EQ(bits(__d4r_ptx_rsqrt_approx_f32(inf, 0)), 0u);
  EXPECT_EQ(__d4r_ptx_rcp_approx_f32(-0.0f, 0), -inf);
  EXPECT_EQ(bits(__d4r_ptx_rcp_approx_f32(-inf, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_sin_approx_f32(-0.0f, 0)), 0x80000000u);
  EXPECT_EQ(bits(__d4r_ptx_sin_approx_f32(inf, 0)), 0x7fffffffu);
  EXPECT_EQ(bits(__d4r_ptx_div_approx_f32(1.0f, 0x1.8p126f, 0)), 0u);
  EXPECT_EQ(bits(__d4r_ptx_div_approx_f32(inf, 0x1.8p126f, 0)), 0x7fffffffu);
  EXPECT_EQ(__d4r_ptx_tanh_approx_f32(-inf), -1.0f);
  EXPECT_EQ(bits(__d4r_ptx_rcp_approx_ftz_f64(2.0)), bits(0.5));
  EXPECT_EQ(bits(__d4r_ptx_rcp_approx_ftz_f64(f64(0x7ff8000000000001ull))), 0x7fffffff00000000ull);
  // rsqrt.approx.ftz.f64 (the H200, gap_rsqrt_f64_special): the high word only, low word 0.
  EXPECT_EQ(bits(__d4r_ptx_rsqrt_approx_ftz_f64(4.0)), bits(0.5));
  EXPECT_EQ(bits(__d4r_ptx_rsqrt_approx_ftz_f64(2.0)), 0x3fe6a09e00000000ull);
  EXPECT_EQ(bits(__d4r_ptx_rsqrt_approx_ftz_f64(f64(0x7ff0000000000001ull))), 0u); // +inf's high word
  EXPECT_EQ(bits(__d4r_ptx_rsqrt_approx_ftz_f64(-1.0)), 0x7fffffff00000000ull);
  EXPECT_EQ(bits(__d4r_ptx_rsqrt_approx_ftz_f64(f64(0x8000000000000001ull))), 0xfff0000000000000ull);
}

} // namespace
