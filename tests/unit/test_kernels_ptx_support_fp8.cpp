// kernels/support/fp8.c: every one of the 65536 e4m3x2 and e5m2x2 pairs decoded (both halves, the
// byte order, .relu) against decoding by formula; encoding from a dense f32 sweep (every f32
// neighbour of every fp8 value and midpoint, plus a strided sweep of all f32 bit patterns) and from
// every f16 value, against a search over all 256 codes.

#include "test_kernels_ptx_support_common.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace d4r::test::ptx_support;

uint16_t f16_bits_of(double v)
{
  // The f16 code of an exactly representable value, by search.
  const NarrowFormat& f = f16_format();
  for (uint32_t c = 0; c < 65536; ++c) {
    if (f.value[c] == v && std::signbit(f.value[c]) == std::signbit(v)) {
      return static_cast<uint16_t>(c);
    }
  }
  return 0xffffu;
}

void check_decode(bool e4m3)
{
  const NarrowFormat& fmt = e4m3 ? e4m3_format() : e5m2_format();
  uint16_t table[256];
  for (uint32_t b = 0; b < 256; ++b) {
    table[b] = std::isnan(fmt.value[b]) ? 0x7fffu : f16_bits_of(fmt.value[b]);
  }
  for (uint32_t pair = 0; pair < 65536; ++pair) {
    for (int relu = 0; relu < 2; ++relu) {
      const uint32_t got = e4m3 ? __d4r_ptx_cvt_f16x2_e4m3x2(static_cast<uint16_t>(pair), relu)
                                : __d4r_ptx_cvt_f16x2_e5m2x2(static_cast<uint16_t>(pair), relu);
      uint16_t hi = table[pair >> 8];
      uint16_t lo = table[pair & 0xffu];
      if (relu) {
        hi = (hi & 0x8000u) && hi != 0x7fffu ? 0 : hi;
        lo = (lo & 0x8000u) && lo != 0x7fffu ? 0 : lo;
      }
      ASSERT_EQ(got, (static_cast<uint32_t>(hi) << 16) | lo) << std::hex << pair << " relu " << relu;
    }
  }
}

TEST(KernelsPtxSupportFp8, DecodeEveryE4m3Pair) { check_decode(true); }
TEST(KernelsPtxSupportFp8, DecodeEveryE5m2Pair) { check_decode(false); }

TEST(KernelsPtxSupportFp8, DecodeKnownValues)
{
  EXPECT_EQ(__d4r_ptx_cvt_f16x2_e4m3x2(0x7e01u, 0), (0x5f00u << 16) | 0x1800u); // 448, 2^-9
  EXPECT_EQ(__d4r_ptx_cvt_f16x2_e5m2x2(0x7b7cu, 0), (0x7b00u << 16) | 0x7c00u);  // 57344, inf
  EXPECT_EQ(__d4r_ptx_cvt_f16x2_e4m3x2(0xff7fu, 0), 0x7fff7fffu);                // NaNs
}

uint8_t reference_encode(const NarrowFormat& fmt, double x, int relu)
{
  if (std::isnan(x)) {
    return 0x7f;
  }
  uint8_t r = static_cast<uint8_t>(reference_round(fmt, x, 0, true));
  if (relu && (r & 0x80u)) {
    r = 0;
  }
  return r;
}

std::vector<float> encode_inputs(const NarrowFormat& fmt)
{
  std::vector<float> in;
  for (uint32_t c = 0; c <= fmt.max_code; ++c) {
    const double v = fmt.value[c];
    const double next = c < fmt.max_code ? fmt.value[c + 1] : v * 1.25;
    for (double x : {v, (v + next) / 2, next * 1.5}) {
      const float fx = static_cast<float>(x);
      for (int d = -3; d <= 3; ++d) {
        const float y = f32(bits(fx) + static_cast<uint32_t>(d));
        in.push_back(y);
        in.push_back(-y);
      }
    }
  }
  for (uint64_t u = 0; u < 0x100000000ull; u += 1021) {
    in.push_back(f32(static_cast<uint32_t>(u)));
  }
  in.push_back(f32(0x7f800000u));
  in.push_back(f32(0xff800000u));
  in.push_back(f32(0x7fc00000u));
  in.push_back(f32(0xffc00000u));
  return in;
}

void check_encode(bool e4m3)
{
  const NarrowFormat& fmt = e4m3 ? e4m3_format() : e5m2_format();
  int64_t failures = 0;
  const std::vector<float> in = encode_inputs(fmt);
  for (size_t i = 0; i < in.size(); ++i) {
    const float a = in[i];
    const float b = in[(i * 7919) % in.size()];
    for (int relu = 0; relu < 2; ++relu) {
      const uint16_t got = e4m3 ? __d4r_ptx_cvt_e4m3x2_f32(a, b, 1, relu)
                                : __d4r_ptx_cvt_e5m2x2_f32(a, b, 1, relu);
      const uint16_t want = static_cast<uint16_t>((reference_encode(fmt, a, relu) << 8) |
                                                  reference_encode(fmt, b, relu));
      if (got != want && failures++ < 10) {
        ADD_FAILURE() << (e4m3 ? "e4m3" : "e5m2") << " relu " << relu << std::hexfloat << " a "
                      << a << " b " << b << std::hex << " got " << got << " want " << want;
      }
    }
  }
  EXPECT_EQ(failures, 0) << "of " << in.size() * 2;
}

TEST(KernelsPtxSupportFp8, EncodeE4m3FromF32) { check_encode(true); }
TEST(KernelsPtxSupportFp8, EncodeE5m2FromF32) { check_encode(false); }

TEST(KernelsPtxSupportFp8, EncodeFromEveryF16)
{
  const NarrowFormat& h = f16_format();
  for (uint32_t v = 0; v < 65536; ++v) {
    const uint32_t other = (v * 40503u) & 0xffffu;
    const uint32_t pair = (v << 16) | other;
    for (int relu = 0; relu < 2; ++relu) {
      ASSERT_EQ(__d4r_ptx_cvt_e4m3x2_f16x2(pair, 1, relu),
                (reference_encode(e4m3_format(), h.value[v], relu) << 8) |
                    reference_encode(e4m3_format(), h.value[other], relu))
          << std::hex << pair;
      ASSERT_EQ(__d4r_ptx_cvt_e5m2x2_f16x2(pair, 1, relu),
                (reference_encode(e5m2_format(), h.value[v], relu) << 8) |
                    reference_encode(e5m2_format(), h.value[other], relu))
          << std::hex << pair;
    }
  }
}

TEST(KernelsPtxSupportFp8, SatfiniteAndByteOrder)
{
  EXPECT_EQ(__d4r_ptx_cvt_e4m3x2_f32(1000.0f, -1000.0f, 1, 0), 0x7efeu); // a -> high byte
  EXPECT_EQ(__d4r_ptx_cvt_e4m3x2_f32(f32(0x7f800000u), 1.0f, 1, 0), 0x7e38u);
  EXPECT_EQ(__d4r_ptx_cvt_e5m2x2_f32(f32(0xff800000u), 1e9f, 1, 0), 0xfb7bu);
  EXPECT_EQ(__d4r_ptx_cvt_e5m2x2_f32(f32(0x7fc00000u), -1.0f, 1, 1), 0x7f00u);
  EXPECT_EQ(__d4r_ptx_cvt_e4m3x2_f32(464.0f, 0x1p-10f, 1, 0), 0x7e00u); // tie to even; 2^-10 -> 0
}

} // namespace
