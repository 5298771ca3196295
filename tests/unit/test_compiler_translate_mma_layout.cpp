// The mma lane maps (compiler/translate/mma_layout.hpp) against a host model written here from the
// documents, independently of mma_layout.cpp:
// - PTX fragments of mma.m16n8k16 (PTX ISA 9.7.14.5.8 / 9.7.14.5.9, row/col formulas with groupID
//   and threadID_in_group);
// - gfx11 WMMA (RDNA3 ISA 7.9; GPUOpen "How to accelerate AI applications on RDNA 3 using WMMA":
//   a_frag[k] = A[lane % 16][k], b_frag[k] = B[k][lane % 16], c_frag[e] = C[2e + lane / 16][lane % 16]);
// - gfx12 WMMA (RDNA4 ISA 7.9; GPUOpen "Using the Matrix Cores of AMD RDNA 4 architecture GPUs":
//   8 elements per lane, K = 8 * (lane / 16) + e, c_frag[e] = C[8 * (lane / 16) + e][lane % 16]).
// For random integer matrices: PTX fragments -> remap -> WMMA model -> inverse remap must equal
// C + A * B computed directly, and the portable rows/cols gathers must hold the right rows and
// columns. Elements are small signed integers stored in the element's bits, so the arithmetic is
// exact and only the data movement is under test.

#include "compiler/translate/mma_layout.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace d4r::compiler::translate {
namespace {

constexpr int k_lanes = 32;
using Lanes = std::vector<std::vector<uint32_t>>; // [lane][word]

struct Problem {
  std::array<std::array<int, 16>, 16> a{}; // M x K
  std::array<std::array<int, 8>, 16> b{};  // K x N
  std::array<std::array<int, 8>, 16> c{};  // M x N
};

Problem random_problem(uint32_t seed)
{
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> small(-8, 8);
  Problem p;
  for (auto& row : p.a) { for (int& x : row) { x = small(random); } }
  for (auto& row : p.b) { for (int& x : row) { x = small(random); } }
  for (auto& row : p.c) { for (int& x : row) { x = small(random) * 100; } }
  return p;
}

uint32_t put(uint32_t word, int bits, int sub, int value)
{
  uint32_t mask = bits == 32 ? 0xffffffffU : ((1U << bits) - 1U);
  return word | ((static_cast<uint32_t>(value) & mask) << (bits * sub));
}

int get(uint32_t word, int bits, int sub)
{
  if (bits == 32) {
    return static_cast<int32_t>(word);
  }
  uint32_t raw = (word >> (bits * sub)) & ((1U << bits) - 1U);
  uint32_t sign = 1U << (bits - 1);
  return static_cast<int>(raw ^ sign) - static_cast<int>(sign);
}

// PTX fragments, from the ISA formulas (i: the element index in fragment order).
Lanes ptx_a(const Problem& p, int bits)
{
  int per = 32 / bits;
  Lanes lanes(k_lanes, std::vector<uint32_t>(static_cast<size_t>(8 / per), 0));
  for (int lane = 0; lane < k_lanes; ++lane) {
    int group = lane >> 2;
    int tig = lane % 4;
    for (int i = 0; i < 8; ++i) {
      int row = 0;
      int col = 0;
      if (bits == 16) {
        row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
        col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      } else {
        row = i < 4 ? group : group + 8;
        col = tig * 4 + (i & 3);
      }
      uint32_t& word = lanes[static_cast<size_t>(lane)][static_cast<size_t>(i / per)];
      word = put(word, bits, i % per, p.a[static_cast<size_t>(row)][static_cast<size_t>(col)]);
    }
  }
  return lanes;
}

Lanes ptx_b(const Problem& p, int bits)
{
  int per = 32 / bits;
  Lanes lanes(k_lanes, std::vector<uint32_t>(static_cast<size_t>(4 / per), 0));
  for (int lane = 0; lane < k_lanes; ++lane) {
    int group = lane >> 2;
    int tig = lane % 4;
    for (int i = 0; i < 4; ++i) {
      int row = bits == 16 ? tig * 2 + (i & 1) + (i >= 2 ? 8 : 0) : tig * 4 + i;
      uint32_t& word = lanes[static_cast<size_t>(lane)][static_cast<size_t>(i / per)];
      word = put(word, bits, i % per, p.b[static_cast<size_t>(row)][static_cast<size_t>(group)]);
    }
  }
  return lanes;
}

// C/D (f32 elements; integers here): row = groupID (+8 for c2, c3), col = tig * 2 + (i & 1).
Lanes ptx_c(const std::array<std::array<int, 8>, 16>& c)
{
  Lanes lanes(k_lanes, std::vector<uint32_t>(4, 0));
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int i = 0; i < 4; ++i) {
      int row = (lane >> 2) + (i >= 2 ? 8 : 0);
      int col = (lane % 4) * 2 + (i & 1);
      lanes[static_cast<size_t>(lane)][static_cast<size_t>(i)] =
          static_cast<uint32_t>(c[static_cast<size_t>(row)][static_cast<size_t>(col)]);
    }
  }
  return lanes;
}

Lanes remap_words(const MmaWordRemap& remap, const Lanes& source)
{
  Lanes out(k_lanes, std::vector<uint32_t>(static_cast<size_t>(remap.words), 0));
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int word = 0; word < remap.words; ++word) {
      const MmaWordSource& from = remap.sources[static_cast<size_t>(lane * remap.words + word)];
      out[static_cast<size_t>(lane)][static_cast<size_t>(word)] =
          from.lane < 0 ? 0U : source[static_cast<size_t>(from.lane)][static_cast<size_t>(from.word)];
    }
  }
  return out;
}

// The WMMA 16x16x16 model: D = A * B + C in the family's lane layout (A/B elements of `bits`).
Lanes wmma_model(bool gfx11, int bits, const Lanes& a, const Lanes& b, const Lanes& c)
{
  int per = 32 / bits;
  auto a_at = [&](int m, int k) {
    int lane = gfx11 ? m : m + 16 * (k / 8);
    int index = gfx11 ? k : k % 8;
    return get(a[static_cast<size_t>(lane)][static_cast<size_t>(index / per)], bits, index % per);
  };
  auto b_at = [&](int k, int n) {
    int lane = gfx11 ? n : n + 16 * (k / 8);
    int index = gfx11 ? k : k % 8;
    return get(b[static_cast<size_t>(lane)][static_cast<size_t>(index / per)], bits, index % per);
  };
  auto d_slot = [&](int m, int n) {
    return gfx11 ? std::pair{n + 16 * (m % 2), m / 2} : std::pair{n + 16 * (m / 8), m % 8};
  };
  Lanes d(k_lanes, std::vector<uint32_t>(8, 0));
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n) {
      auto [lane, word] = d_slot(m, n);
      int sum = static_cast<int32_t>(c[static_cast<size_t>(lane)][static_cast<size_t>(word)]);
      for (int k = 0; k < 16; ++k) {
        sum += a_at(m, k) * b_at(k, n);
      }
      d[static_cast<size_t>(lane)][static_cast<size_t>(word)] = static_cast<uint32_t>(sum);
    }
  }
  return d;
}

std::array<std::array<int, 8>, 16> reference(const Problem& p)
{
  std::array<std::array<int, 8>, 16> d = p.c;
  for (size_t m = 0; m < 16; ++m) {
    for (size_t n = 0; n < 8; ++n) {
      for (size_t k = 0; k < 16; ++k) {
        d[m][n] += p.a[m][k] * p.b[k][n];
      }
    }
  }
  return d;
}

struct Family {
  MmaLayout layout;
  int bits;
};

class MmaLaneMaps : public ::testing::TestWithParam<Family> {};

TEST_P(MmaLaneMaps, RemapThroughWmmaModelEqualsTheProduct)
{
  const Family family = GetParam();
  bool gfx11 = family.layout == MmaLayout::gfx11;
  std::optional<MmaWordRemap> to_a = mma_word_remap({family.layout, MmaOperand::a, family.bits},
                                                    {MmaLayout::ptx, MmaOperand::a, family.bits});
  std::optional<MmaWordRemap> to_b = mma_word_remap({family.layout, MmaOperand::b, family.bits},
                                                    {MmaLayout::ptx, MmaOperand::b, family.bits});
  std::optional<MmaWordRemap> to_c =
      mma_word_remap({family.layout, MmaOperand::c, 32}, {MmaLayout::ptx, MmaOperand::c, 32});
  std::optional<MmaWordRemap> back =
      mma_word_remap({MmaLayout::ptx, MmaOperand::c, 32}, {family.layout, MmaOperand::c, 32});
  ASSERT_TRUE(to_a && to_b && to_c && back);
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    Problem p = random_problem(seed);
    Lanes a = remap_words(*to_a, ptx_a(p, family.bits));
    Lanes b = remap_words(*to_b, ptx_b(p, family.bits));
    Lanes c = remap_words(*to_c, ptx_c(p.c));
    if (gfx11) { // the RDNA3 A/B operands repeat lanes 0-15 in lanes 16-31
      for (size_t lane = 0; lane < 16; ++lane) {
        ASSERT_EQ(a[lane], a[lane + 16]);
        ASSERT_EQ(b[lane], b[lane + 16]);
      }
    }
    Lanes d = remap_words(*back, wmma_model(gfx11, family.bits, a, b, c));
    ASSERT_EQ(d, ptx_c(reference(p))) << "seed " << seed;
  }
}

// lower_mma.cpp's mma chains take an earlier WMMA's accumulator as C instead of remapping its D to
// the PTX layout and back: that is exact only if the round trip gives every element of columns
// 0..7 back to the lane and word it came from, and zero (nothing read) only to columns 8..15.
TEST_P(MmaLaneMaps, AnAccumulatorRemappedToPtxAndBackIsItselfInColumnsZeroToSeven)
{
  const MmaLayout family = GetParam().layout;
  std::optional<MmaWordRemap> to_c =
      mma_word_remap({family, MmaOperand::c, 32}, {MmaLayout::ptx, MmaOperand::c, 32});
  std::optional<MmaWordRemap> back =
      mma_word_remap({MmaLayout::ptx, MmaOperand::c, 32}, {family, MmaOperand::c, 32});
  ASSERT_TRUE(to_c && back);
  int kept = 0;
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int word = 0; word < to_c->words; ++word) {
      SCOPED_TRACE("lane " + std::to_string(lane) + " word " + std::to_string(word));
      MatrixPos position = mma_layout_position({family, MmaOperand::c, 32}, lane, word, 0);
      const MmaWordSource& ptx = to_c->sources[static_cast<size_t>(lane * to_c->words + word)];
      if (position.col >= 8) {
        EXPECT_EQ(ptx.lane, -1) << "columns 8..15 are not in the PTX fragment";
        continue;
      }
      ASSERT_GE(ptx.lane, 0);
      const MmaWordSource& round_trip = back->sources[static_cast<size_t>(ptx.lane * back->words + ptx.word)];
      EXPECT_EQ(round_trip, (MmaWordSource{lane, word}));
      ++kept;
    }
  }
  EXPECT_EQ(kept, 16 * 8) << "every element of the 16 x 8 accumulator";
}

INSTANTIATE_TEST_SUITE_P(Families, MmaLaneMaps,
                         ::testing::Values(Family{MmaLayout::gfx11, 16}, Family{MmaLayout::gfx12, 16},
                                           Family{MmaLayout::gfx12, 8}),
                         [](const ::testing::TestParamInfo<Family>& param_info) {
                           return std::string(param_info.param.layout == MmaLayout::gfx11 ? "gfx11" : "gfx12") +
                                  "_" + std::to_string(param_info.param.bits) + "bit";
                         });

// Each 8-bit element widened to 16 bits in place (lower_mma.cpp's FP8 decode on gfx11): word
// 2w + h of the result holds bytes 2h and 2h + 1 of word w.
Lanes widened(const Lanes& bytes)
{
  Lanes out(bytes.size());
  for (size_t lane = 0; lane < bytes.size(); ++lane) {
    for (uint32_t word : bytes[lane]) {
      for (int half = 0; half < 2; ++half) {
        out[lane].push_back(put(put(0, 16, 0, get(word, 8, 2 * half)), 16, 1, get(word, 8, 2 * half + 1)));
      }
    }
  }
  return out;
}

// RDNA3 has no FP8 WMMA: the FP8 fragments are widened in the PTX layout and moved to the f16
// WMMA's (mma_layout.hpp ptx_widened -> gfx11), which then gives the product.
TEST(MmaLaneMaps, WidenedFp8ThroughTheGfx11F16WmmaEqualsTheProduct)
{
  std::optional<MmaWordRemap> to_a =
      mma_word_remap({MmaLayout::gfx11, MmaOperand::a, 16}, {MmaLayout::ptx_widened, MmaOperand::a, 16});
  std::optional<MmaWordRemap> to_b =
      mma_word_remap({MmaLayout::gfx11, MmaOperand::b, 16}, {MmaLayout::ptx_widened, MmaOperand::b, 16});
  std::optional<MmaWordRemap> to_c =
      mma_word_remap({MmaLayout::gfx11, MmaOperand::c, 32}, {MmaLayout::ptx, MmaOperand::c, 32});
  std::optional<MmaWordRemap> back =
      mma_word_remap({MmaLayout::ptx, MmaOperand::c, 32}, {MmaLayout::gfx11, MmaOperand::c, 32});
  ASSERT_TRUE(to_a && to_b && to_c && back);
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    Problem p = random_problem(seed);
    Lanes a = remap_words(*to_a, widened(ptx_a(p, 8)));
    Lanes b = remap_words(*to_b, widened(ptx_b(p, 8)));
    Lanes c = remap_words(*to_c, ptx_c(p.c));
    Lanes d = remap_words(*back, wmma_model(true, 16, a, b, c));
    ASSERT_EQ(d, ptx_c(reference(p))) << "seed " << seed;
  }
}

TEST(MmaLaneMaps, PortableGatherHoldsRowsAndColumns)
{
  for (int bits : {16, 8}) {
    Problem p = random_problem(static_cast<uint32_t>(bits));
    std::optional<MmaWordRemap> rows =
        mma_word_remap({MmaLayout::rows, MmaOperand::a, bits}, {MmaLayout::ptx, MmaOperand::a, bits});
    std::optional<MmaWordRemap> cols =
        mma_word_remap({MmaLayout::cols, MmaOperand::b, bits}, {MmaLayout::ptx, MmaOperand::b, bits});
    ASSERT_TRUE(rows && cols);
    Lanes a = remap_words(*rows, ptx_a(p, bits));
    Lanes b = remap_words(*cols, ptx_b(p, bits));
    int per = 32 / bits;
    int width = 16 / per;
    for (int lane = 0; lane < k_lanes; ++lane) {
      for (int k = 0; k < 16; ++k) {
        for (int half = 0; half < 2; ++half) {
          size_t word = static_cast<size_t>(half * width + k / per);
          EXPECT_EQ(get(a[static_cast<size_t>(lane)][word], bits, k % per),
                    p.a[static_cast<size_t>((lane >> 2) + 8 * half)][static_cast<size_t>(k)]);
          EXPECT_EQ(get(b[static_cast<size_t>(lane)][word], bits, k % per),
                    p.b[static_cast<size_t>(k)][static_cast<size_t>(2 * (lane & 3) + half)]);
        }
      }
    }
  }
}

TEST(MmaLaneMaps, LayoutsThatDoNotExistHaveNoRemap)
{
  EXPECT_FALSE(mma_word_remap({MmaLayout::gfx11, MmaOperand::a, 8}, {MmaLayout::ptx, MmaOperand::a, 8}));
  EXPECT_FALSE(mma_word_remap({MmaLayout::gfx12, MmaOperand::a, 16}, {MmaLayout::ptx, MmaOperand::a, 8}));
  EXPECT_EQ(mma_layout_words({MmaLayout::ptx, MmaOperand::a, 16}), 4);
  EXPECT_EQ(mma_layout_words({MmaLayout::ptx, MmaOperand::b, 8}), 1);
  EXPECT_EQ(mma_layout_words({MmaLayout::gfx12, MmaOperand::a, 8}), 2);
  EXPECT_EQ(mma_layout_words({MmaLayout::ptx_widened, MmaOperand::a, 16}), 4);
  EXPECT_EQ(mma_layout_words({MmaLayout::ptx_widened, MmaOperand::b, 16}), 2);
}

} // namespace
} // namespace d4r::compiler::translate
