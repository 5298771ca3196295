// kernels/support/convert.c: cvt. Exhaustive over every f16 and bf16 value for the widening
// conversions; narrowing f32/f64 -> f16/bf16 on a dense sweep plus every representable value, its
// neighbours and midpoints, against the search reference; float -> int and rint against the host
// (nearbyint under fesetround) with the ISA's saturation and NaN rules; int -> float against the
// host conversion under fesetround. Built with -frounding-math.

#include "test_kernels_ptx_support_common.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace {

using namespace d4r::test::ptx_support;

TEST(KernelsPtxSupportConvert, EveryF16WidensExactly)
{
  const NarrowFormat& fmt = f16_format();
  for (uint32_t h = 0; h < 65536; ++h) {
    const float got = __d4r_ptx_cvt_f32_f16(static_cast<uint16_t>(h), 0, 0);
    const double want = fmt.value[h];
    if (std::isnan(want)) {
      ASSERT_EQ(bits(got), 0x7fffffffu) << h;
      // f64: sign and payload kept, quieted (H200, rd_cvt_widen_*: 0x7fff -> 0x7ffffc0000000000).
      const uint64_t nan = static_cast<uint64_t>(h & 0x8000u) << 48 | 0x7ff8000000000000ull |
                           static_cast<uint64_t>(h & 0x03ffu) << 42;
      ASSERT_EQ(bits(__d4r_ptx_cvt_f64_f16(static_cast<uint16_t>(h), 0)), nan) << h;
    } else {
      ASSERT_EQ(bits(got), bits(static_cast<float>(want))) << h;
      ASSERT_EQ(bits(__d4r_ptx_cvt_f64_f16(static_cast<uint16_t>(h), 0)), bits(want)) << h;
    }
  }
}

TEST(KernelsPtxSupportConvert, EveryBf16WidensExactly)
{
  const NarrowFormat& fmt = bf16_format();
  for (uint32_t h = 0; h < 65536; ++h) {
    const float got = __d4r_ptx_cvt_f32_bf16(static_cast<uint16_t>(h));
    ASSERT_EQ(bits(got), h << 16); // a bit copy, NaN payloads included
    if (!std::isnan(fmt.value[h])) {
      ASSERT_EQ(static_cast<double>(got), fmt.value[h]) << h;
      ASSERT_EQ(bits(__d4r_ptx_cvt_f64_bf16(static_cast<uint16_t>(h))), bits(fmt.value[h]));
    }
  }
}

// Values that decide the narrowing: every value of the target, the f32 neighbours of it and of
// the midpoints, plus a strided sweep of every f32 bit pattern.
std::vector<float> narrowing_inputs(const NarrowFormat& fmt)
{
  std::vector<float> in;
  for (uint32_t c = 0; c < 0x8000u; ++c) {
    const double v = fmt.value[c];
    if (std::isnan(v) || std::isinf(v)) {
      continue;
    }
    const double next = c < fmt.max_code ? fmt.value[c + 1] : v * 2;
    const float fv = static_cast<float>(v);
    const float mid = static_cast<float>((v + next) / 2);
    for (float x : {fv, mid}) {
      for (int d = -2; d <= 2; ++d) {
        const float y = f32(bits(x) + static_cast<uint32_t>(d));
        in.push_back(y);
        in.push_back(-y);
      }
    }
  }
  for (uint64_t u = 0; u < 0x100000000ull; u += 8191) {
    in.push_back(f32(static_cast<uint32_t>(u)));
  }
  return in;
}

void check_narrow(bool bf16)
{
  const NarrowFormat& fmt = bf16 ? bf16_format() : f16_format();
  int64_t failures = 0;
  int64_t checked = 0;
  for (float x : narrowing_inputs(fmt)) {
    for (int m = 0; m < 4; ++m) {
      for (int satfinite = 0; satfinite < 2; ++satfinite) {
        const uint32_t want = std::isnan(x) ? 0x7fffu : reference_round(fmt, x, m, satfinite);
        const uint16_t got = bf16 ? __d4r_ptx_cvt_bf16_f32_ex(x, m, 0, 0, satfinite)
                                  : __d4r_ptx_cvt_f16_f32_ex(x, m, 0, 0, 0, satfinite);
        const uint16_t got64 = bf16 ? __d4r_ptx_cvt_bf16_f64(x, m) : __d4r_ptx_cvt_f16_f64(x, m, 0);
        ++checked;
        // f64 -> f16 keeps the NaN's sign and payload (cvt_f64_random: 0xfff4.. -> 0xff00);
        // f64 -> bf16 and f32 -> f16/bf16 give the canonical NaN.
        const uint32_t want64 =
            std::isnan(x) && !bf16
                ? ((bits(x) >> 31) << 15) | 0x7e00u | ((bits(x) & 0x7fffffu) >> 13)
                : want;
        if ((got != want || (!satfinite && got64 != want64)) && failures++ < 10) {
          ADD_FAILURE() << (bf16 ? "bf16" : "f16") << " mode " << m << " satfinite " << satfinite
                        << std::hexfloat << " x " << x << std::hex << " got " << got << "/"
                        << got64 << " want " << want;
        }
      }
    }
  }
  EXPECT_EQ(failures, 0) << "of " << checked;
  std::printf("%s narrowing: %lld checks\n", bf16 ? "bf16" : "f16", static_cast<long long>(checked));
}

TEST(KernelsPtxSupportConvert, F32ToF16EveryModeAgainstSearch) { check_narrow(false); }
TEST(KernelsPtxSupportConvert, F32ToBf16EveryModeAgainstSearch) { check_narrow(true); }

TEST(KernelsPtxSupportConvert, F16FlagsSatReluFtz)
{
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(2.0f, 0, 0, 1), 0x3c00u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(-2.0f, 0, 0, 1), 0u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(0x7fc00000u), 0, 0, 1), 0u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(0x7fc00001u), 0, 0, 0), 0x7fffu);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32_ex(-3.0f, 0, 0, 0, 1, 0), 0u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32_ex(f32(0xffc00000u), 0, 0, 0, 1, 0), 0x7fffu);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32_ex(1e6f, 0, 0, 0, 0, 1), 0x7bffu);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32_ex(f32(0xff800000u), 0, 0, 0, 0, 1), 0xfbffu);
  // rp of the smallest positive f32 subnormal is the smallest f16 subnormal, with .ftz too (the
  // H200 does not flush the input: rd_cvt_ftz_*), and rm of its negation -0x0001.
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(1u), 3, 0, 0), 1u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(1u), 3, 1, 0), 1u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(0x80000002u), 2, 1, 0), 0x8001u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(2u), 0, 1, 0), 0u);
  // f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is above the midpoint (f32 would make it a tie).
  EXPECT_EQ(__d4r_ptx_cvt_f16_f64(1.0 + 0x1p-11 + 0x1p-40, 0, 0), 0x3c01u);
}

TEST(KernelsPtxSupportConvert, F64ToF32EveryMode)
{
  Rng rng;
  int64_t failures = 0;
  for (int i = 0; i < 1000000; ++i) {
    const double x = interesting_f64(rng);
    for (int m = 0; m < 4; ++m) {
      const float want = under_mode(k_modes[m], [&] {
        volatile double v = x;
        return static_cast<float>(v);
      });
      const float got = __d4r_ptx_cvt_f32_f64(x, m, 0, 0);
      // NaN: sign and the payload's top bits, quieted (cvt_f64_random: 0xfff4.. -> 0xffe00000).
      const uint32_t want_bits =
          std::isnan(want) ? static_cast<uint32_t>(((bits(x) >> 63) << 31) | 0x7fc00000u |
                                                   ((bits(x) & 0xfffffffffffffull) >> 29))
                           : bits(want);
      if (bits(got) != want_bits && failures++ < 10) {
        ADD_FAILURE() << "mode " << m << std::hexfloat << " x " << x << " got " << got;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(KernelsPtxSupportConvert, RintEveryMode)
{
  Rng rng;
  int64_t failures = 0;
  for (int i = 0; i < 500000; ++i) {
    float x = interesting_f32(rng);
    if (i & 1) {
      x = std::ldexp(std::round(std::ldexp(x, 2)), -2);
    }
    const double xd = (i & 2) ? static_cast<double>(x) : interesting_f64(rng);
    for (int m = 0; m < 4; ++m) {
      const double want_d = under_mode(k_modes[m], [&] { return std::nearbyint(xd); });
      // cvt.rXi.f64.f64 quiets the NaN, sign and payload kept (cvt_f64_random).
      const uint64_t wbd = std::isnan(want_d) ? bits(xd) | 0x0008000000000000ull : bits(want_d);
      if (bits(__d4r_ptx_cvt_rint_f64(xd, m)) != wbd && failures++ < 10) {
        ADD_FAILURE() << "mode " << m << std::hexfloat << " xd " << xd;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  // every f16 and bf16, through the f32 reference (integral values are representable)
  for (uint32_t h = 0; h < 65536; ++h) {
    for (int m = 0; m < 4; ++m) {
      const double v = f16_format().value[h];
      const double vb = bf16_format().value[h];
      const uint16_t r = __d4r_ptx_cvt_rint_f16(static_cast<uint16_t>(h), m);
      const uint16_t rb = __d4r_ptx_cvt_rint_bf16(static_cast<uint16_t>(h), m);
      if (std::isnan(v)) {
        ASSERT_EQ(r, 0x7fffu);
      } else {
        const double want = under_mode(k_modes[m], [&] { return std::nearbyint(v); });
        ASSERT_EQ(bits(f16_format().value[r]), bits(want)) << h << " mode " << m;
      }
      if (std::isnan(vb)) {
        ASSERT_EQ(rb, 0x7fffu);
      } else {
        const double want = under_mode(k_modes[m], [&] { return std::nearbyint(vb); });
        ASSERT_EQ(bits(bf16_format().value[rb]), bits(want)) << h << " mode " << m;
      }
    }
  }
}

TEST(KernelsPtxSupportConvert, IntToFloatEveryMode)
{
  Rng rng;
  int64_t failures = 0;
  for (int i = 0; i < 500000; ++i) {
    const uint64_t u = rng.next() >> (rng.next() % 64);
    const int64_t s = static_cast<int64_t>((rng.next() & 1) ? u : ~u);
    for (int m = 0; m < 4; ++m) {
      const float fs = under_mode(k_modes[m], [&] { volatile int64_t v = s; return static_cast<float>(v); });
      const float fu = under_mode(k_modes[m], [&] { volatile uint64_t v = u; return static_cast<float>(v); });
      const double ds = under_mode(k_modes[m], [&] { volatile int64_t v = s; return static_cast<double>(v); });
      const double du = under_mode(k_modes[m], [&] { volatile uint64_t v = u; return static_cast<double>(v); });
      const int32_t s32 = static_cast<int32_t>(s);
      // f16 from an integer: exact in double below 2^53; above, far beyond f16's range, where the
      // f32 result of the same mode overflows the same way.
      const bool small = s > -(1ll << 53) && s < (1ll << 53);
      const float fs32 = under_mode(k_modes[m], [&] { volatile int32_t v = s32; return static_cast<float>(v); });
      bool ok = bits(__d4r_ptx_cvt_f32_s64(s, m)) == bits(fs) &&
                bits(__d4r_ptx_cvt_f32_u64(u, m)) == bits(fu) &&
                bits(__d4r_ptx_cvt_f64_s64(s, m)) == bits(ds) &&
                bits(__d4r_ptx_cvt_f64_u64(u, m)) == bits(du) &&
                bits(__d4r_ptx_cvt_f32_s32(s32, m)) == bits(fs32) &&
                __d4r_ptx_cvt_f16_s64(s, m) == reference_round(f16_format(), small ? static_cast<double>(s) : static_cast<double>(fs), m, false);
      if (!ok && failures++ < 10) {
        ADD_FAILURE() << "mode " << m << " s " << s << " u " << u;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

// NaN bit patterns an H200 wrote (tests/golden/expected/cvt_f32_*, cvt_f64_*, lowering_support.hpp).
TEST(KernelsPtxSupportConvert, NanPayloadsFromH200)
{
  EXPECT_EQ(bits(__d4r_ptx_cvt_f64_f32(f32(0x7fc00001u), 0, 0)), 0x7ff8000020000000ull);
  EXPECT_EQ(bits(__d4r_ptx_cvt_f64_f32(f32(0x7f800001u), 0, 0)), 0x7ff8000020000000ull);
  EXPECT_EQ(bits(__d4r_ptx_cvt_f64_f32(f32(0xffffffffu), 0, 0)), 0xffffffffe0000000ull);
  EXPECT_EQ(bits(__d4r_ptx_cvt_f64_f32(f32(0xffc00000u), 1, 0)), 0x7fffffffe0000000ull); // .ftz
  for (int m = 0; m < 4; ++m) {
    EXPECT_EQ(bits(__d4r_ptx_cvt_f32_f64(f64(0xfff8000000000000ull), m, 0, 0)), 0xffc00000u);
    EXPECT_EQ(bits(__d4r_ptx_cvt_f32_f64(f64(0xfff4000000000000ull), m, 1, 0)), 0xffe00000u);
    EXPECT_EQ(bits(__d4r_ptx_cvt_f32_f64(f64(0xffffffffffffffffull), m, 0, 0)), 0xffffffffu);
    EXPECT_EQ(bits(__d4r_ptx_cvt_rint_f64(f64(0xfff4000000000000ull), m)), 0xfffc000000000000ull);
  }
  EXPECT_EQ(__d4r_ptx_cvt_f16_f64(f64(0xfff4000000000000ull), 0, 0), 0xff00u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f64(f64(0x7ff8000000000000ull), 0, 0), 0x7e00u);
  EXPECT_EQ(__d4r_ptx_cvt_f16_f32(f32(0xffc00000u), 0, 0, 0), 0x7fffu);
  EXPECT_EQ(bits(__d4r_ptx_cvt_f32_f16(0xfe00u, 0, 0)), 0x7fffffffu);
}

} // namespace
