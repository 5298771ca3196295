// mma.sync m16n8k16 translated for the host and run on the CPU executor: exact results for integer
// inputs in every supported form (f16, bf16, e4m3, e5m2 inputs; f32 and f16 accumulators), and the
// NVIDIA goldens of the mma_tile corpus (tests/golden/cases/corpus_gemm_*) within each case's
// tolerance, reporting how many outputs are bit-exact.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/expected_output.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/translate/mma_layout.hpp"
#include "test_compiler_translate_support.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

// A small integer (|v| <= 15) in the element format: f16, bf16, e4m3 or e5m2 bits.
uint32_t encode(const std::string& type, int value)
{
  if (value == 0) {
    return 0;
  }
  uint32_t sign = value < 0 ? 1U : 0U;
  int n = std::abs(value);
  int e = 0;
  while ((2 << e) <= n) {
    ++e;
  }
  uint32_t rest = static_cast<uint32_t>(n - (1 << e));
  if (type == "f16") {
    return sign << 15 | static_cast<uint32_t>(e + 15) << 10 | rest << (10 - e);
  }
  if (type == "bf16") {
    return sign << 15 | static_cast<uint32_t>(e + 127) << 7 | rest << (7 - e);
  }
  if (type == "e4m3") {
    return sign << 7 | static_cast<uint32_t>(e + 7) << 3 | rest << (3 - e);
  }
  return sign << 7 | static_cast<uint32_t>(e + 15) << 2 | rest << (2 - e); // e5m2: |v| <= 7
}

uint32_t f16_of(float value)
{
  return encode("f16", static_cast<int>(value));
}

struct RunForm {
  std::string in_type;
  bool c_f32;
  bool d_f32;
};

// One lane's words in memory: A, B, C (per the PTX fragment layout), 10 words a lane.
constexpr int k_words = 10;

std::string run_kernel(const RunForm& form)
{
  int bits = form.in_type == "e4m3" || form.in_type == "e5m2" ? 8 : 16;
  int a_words = bits == 8 ? 2 : 4;
  int b_words = bits == 8 ? 1 : 2;
  std::string body = "  mov.u32 %r15, %tid.x;\n  mul.wide.u32 %rd3, %r15, 40;\n  add.s64 %rd4, %rd2, %rd3;\n"
                     "  mul.wide.u32 %rd5, %r15, 16;\n  add.s64 %rd6, %rd1, %rd5;\n";
  for (int i = 0; i < 10; ++i) {
    body += "  ld.global.b32 %r" + std::to_string(i + 1) + ", [%rd4+" + std::to_string(4 * i) + "];\n";
  }
  auto list = [](int first, int count) {
    std::string text = "{";
    for (int i = 0; i < count; ++i) {
      text += (i != 0 ? ", %r" : "%r") + std::to_string(first + i);
    }
    return text + "}";
  };
  std::string d = form.d_f32 ? "{%f1, %f2, %f3, %f4}" : "{%r11, %r12}";
  body += "  mov.b32 %f5, %r7;\n  mov.b32 %f6, %r8;\n  mov.b32 %f7, %r9;\n  mov.b32 %f8, %r10;\n";
  std::string c = form.c_f32 ? "{%f5, %f6, %f7, %f8}" : "{%r7, %r8}";
  body += "  mma.sync.aligned.m16n8k16.row.col." + std::string(form.d_f32 ? "f32." : "f16.") + form.in_type +
          "." + form.in_type + "." + (form.c_f32 ? "f32 " : "f16 ") + d + ", " + list(1, a_words) + ", " +
          list(5 - (a_words == 2 ? 2 : 0), b_words) + ", " + c + ";\n";
  if (form.d_f32) {
    for (int i = 0; i < 4; ++i) {
      body += "  st.global.f32 [%rd6+" + std::to_string(4 * i) + "], %f" + std::to_string(i + 1) + ";\n";
    }
  } else {
    body += "  st.global.b32 [%rd6], %r11;\n  st.global.b32 [%rd6+4], %r12;\n";
  }
  return kernel_text(body);
}

TEST(TranslateMmaRun, IntegerInputsGiveExactResults)
{
  for (const RunForm& form : {RunForm{"f16", true, true}, RunForm{"bf16", true, true}, RunForm{"e4m3", true, true},
                              RunForm{"e5m2", true, true}, RunForm{"f16", false, false},
                              RunForm{"f16", true, false}, RunForm{"e4m3", false, false}}) {
    SCOPED_TRACE(form.in_type + (form.c_f32 ? " c f32" : " c f16") + (form.d_f32 ? " d f32" : " d f16"));
    int bits = form.in_type == "e4m3" || form.in_type == "e5m2" ? 8 : 16;
    int limit = form.in_type == "e5m2" ? 3 : 4;
    std::mt19937 random(static_cast<uint32_t>(bits + form.in_type.size()));
    std::uniform_int_distribution<int> small(-limit, limit);
    int a[16][16];
    int b[16][8];
    int c[16][8];
    for (auto& row : a) { for (int& x : row) { x = small(random); } }
    for (auto& row : b) { for (int& x : row) { x = small(random); } }
    for (auto& row : c) { for (int& x : row) { x = small(random) * 8; } }
    std::vector<uint32_t> in(32 * k_words, 0);
    int per = 32 / bits;
    MmaLayoutSpec a_spec{MmaLayout::ptx, MmaOperand::a, bits};
    MmaLayoutSpec b_spec{MmaLayout::ptx, MmaOperand::b, bits};
    int a_words = mma_layout_words(a_spec);
    int b_words = mma_layout_words(b_spec);
    for (int lane = 0; lane < 32; ++lane) {
      uint32_t* words = &in[static_cast<size_t>(lane * k_words)];
      for (int w = 0; w < a_words; ++w) {
        for (int s = 0; s < per; ++s) {
          MatrixPos pos = mma_layout_position(a_spec, lane, w, s);
          words[w] |= encode(form.in_type, a[pos.row][pos.col]) << (bits * s);
        }
      }
      for (int w = 0; w < b_words; ++w) {
        for (int s = 0; s < per; ++s) {
          MatrixPos pos = mma_layout_position(b_spec, lane, w, s);
          words[a_words + w] |= encode(form.in_type, b[pos.row][pos.col]) << (bits * s);
        }
      }
      for (int i = 0; i < 4; ++i) {
        MatrixPos pos = mma_layout_position({MmaLayout::ptx, MmaOperand::c, 32}, lane, i, 0);
        float value = static_cast<float>(c[pos.row][pos.col]);
        if (form.c_f32) {
          std::memcpy(&words[6 + i], &value, 4);
        } else {
          words[6 + i / 2] |= f16_of(value) << (16 * (i % 2));
        }
      }
    }
    Expected<Translation> translation = translate_text(run_kernel(form), host_options());
    ASSERT_TRUE(translation) << translation.error().message;
    Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
    ASSERT_TRUE(executor) << executor.error().message;
    std::vector<uint32_t> out(32 * 4, 0xcdcdcdcdU);
    std::array<uint64_t, 2> params{reinterpret_cast<uint64_t>(out.data()), reinterpret_cast<uint64_t>(in.data())};
    Expected<cpu::LaunchStats> stats = (*executor)->launch(
        "k", cpu::LaunchShape{{1, 1, 1}, {32, 1, 1}, 0},
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(params.data()), sizeof(params)));
    ASSERT_TRUE(stats) << stats.error().message;
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < 4; ++i) {
        MatrixPos pos = mma_layout_position({MmaLayout::ptx, MmaOperand::c, 32}, lane, i, 0);
        int expected = c[pos.row][pos.col];
        for (int k = 0; k < 16; ++k) {
          expected += a[pos.row][k] * b[k][pos.col];
        }
        uint32_t word = out[static_cast<size_t>(lane * 4 + (form.d_f32 ? i : i / 2))];
        if (form.d_f32) {
          float got = 0;
          std::memcpy(&got, &word, 4);
          EXPECT_EQ(got, static_cast<float>(expected)) << "lane " << lane << " d" << i;
        } else {
          EXPECT_EQ((word >> (16 * (i % 2))) & 0xffffU, f16_of(static_cast<float>(expected)))
              << "lane " << lane << " d" << i;
        }
      }
    }
  }
}

// Kernel `k(out, in)` of `text` translated for the host and run by one warp; false (a test
// failure) when it does not translate, load or run.
bool run_warp(const std::string& text, void* out, const void* in)
{
  Expected<Translation> translation = translate_text(text, host_options());
  EXPECT_TRUE(translation) << translation.error().message;
  if (!translation) {
    return false;
  }
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  EXPECT_TRUE(executor) << executor.error().message;
  if (!executor) {
    return false;
  }
  std::array<uint64_t, 2> params{reinterpret_cast<uint64_t>(out), reinterpret_cast<uint64_t>(in)};
  Expected<cpu::LaunchStats> stats = (*executor)->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {32, 1, 1}, 0},
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(params.data()), sizeof(params)));
  EXPECT_TRUE(stats) << stats.error().message;
  return stats.has_value();
}

// D (f32) of m16n8k16 e4m3 with A and B given as FP8 codes and C as f32 values, run on the host.
std::vector<float> run_fp8_codes(const uint8_t (&a)[16][16], const uint8_t (&b)[16][8], const float (&c)[16][8])
{
  std::vector<uint32_t> in(32 * k_words, 0);
  MmaLayoutSpec a_spec{MmaLayout::ptx, MmaOperand::a, 8};
  MmaLayoutSpec b_spec{MmaLayout::ptx, MmaOperand::b, 8};
  int a_words = mma_layout_words(a_spec);
  for (int lane = 0; lane < 32; ++lane) {
    uint32_t* words = &in[static_cast<size_t>(lane * k_words)];
    for (int s = 0; s < 4; ++s) {
      for (int w = 0; w < a_words; ++w) {
        MatrixPos pos = mma_layout_position(a_spec, lane, w, s);
        words[w] |= static_cast<uint32_t>(a[pos.row][pos.col]) << (8 * s);
      }
      MatrixPos pos = mma_layout_position(b_spec, lane, 0, s);
      words[a_words] |= static_cast<uint32_t>(b[pos.row][pos.col]) << (8 * s);
    }
    for (int i = 0; i < 4; ++i) {
      MatrixPos pos = mma_layout_position({MmaLayout::ptx, MmaOperand::c, 32}, lane, i, 0);
      std::memcpy(&words[6 + i], &c[pos.row][pos.col], 4);
    }
  }
  std::vector<float> d(16 * 8, -1.0F);
  std::vector<float> out(32 * 4, 0.0F);
  if (!run_warp(run_kernel({"e4m3", true, true}), out.data(), in.data())) {
    return d;
  }
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      MatrixPos pos = mma_layout_position({MmaLayout::ptx, MmaOperand::c, 32}, lane, i, 0);
      d[static_cast<size_t>(pos.row * 8 + pos.col)] = out[static_cast<size_t>(lane * 4 + i)];
    }
  }
  return d;
}

// The H200 (ptxas for sm_90) runs an FP8 m16n8k16 as two f16 tensor-core steps, the elements
// k % 4 < 2 first, each truncating its terms toward zero to 2^(E - 25) and rounding its sum toward
// zero to f32, then adds C rounded to nearest (mma_fragments.hpp mma_fp8_sum; every mat_mma_fp8_*
// golden bit for bit). Column 0 of B is 16, 2^-8, 2^-8, 1, 2^-8, 2^-9, then zeros.
TEST(TranslateMmaRun, Fp8SumsAreTwoTruncatingF16Steps)
{
  uint8_t a[16][16] = {};
  uint8_t b[16][8] = {};
  float c[16][8] = {};
  constexpr uint8_t k_one = 0x38;   // 1
  constexpr uint8_t k_16 = 0x58;    // 16
  constexpr uint8_t k_2m8 = 0x02;   // 2^-8
  constexpr uint8_t k_2m9 = 0x01;   // 2^-9
  constexpr uint8_t k_3x2m9 = 0x03; // 3 * 2^-9
  const uint8_t column[6] = {k_16, k_2m8, k_2m8, k_one, k_2m8, k_2m9};
  for (int k = 0; k < 6; ++k) {
    b[k][0] = column[k];
  }
  // Row 0: 256 + 2^-17 (k = 0, 1) rounds to 256 in the first step, + 3 * 2^-17 (k = 2) to 256
  // again in the second, where the exact sum 256 + 2^-15 is an f32.
  a[0][0] = k_16;
  a[0][1] = k_2m9;
  a[0][2] = k_3x2m9;
  // Row 1: the same terms with 3 * 2^-17 at k = 4: one step, 256 + 2^-15.
  a[1][0] = k_16;
  a[1][1] = k_2m9;
  a[1][4] = k_3x2m9;
  // Row 2: 1 + 2^-17 (second step), then C = 3 * 2^-24 added to nearest, ties to even: + 2^-22.
  a[2][2] = k_2m9;
  a[2][3] = k_one;
  c[2][0] = 0x3p-24F;
  // Row 3: 256 + 2^-15 - 2^-18 in one step: -2^-18 is below the quantum 2^-17 and truncates to 0
  // (the exact sum would round toward zero to 256).
  a[3][0] = k_16;
  a[3][1] = k_2m9;
  a[3][4] = k_3x2m9;
  a[3][5] = 0x81; // -2^-9
  std::vector<float> d = run_fp8_codes(a, b, c);
  std::vector<float> expected(16 * 8, 0.0F);
  expected[0] = 256.0F;
  expected[8] = 256.0F + 0x1p-15F;
  expected[16] = 1.0F + 0x1p-17F + 0x1p-22F;
  expected[24] = 256.0F + 0x1p-15F;
  for (size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(d[i], expected[i]) << "row " << i / 8 << " column " << i % 8;
  }
}

// D of mma.m16n8k4 tf32 (f32 C and D) for A, B and C given as f32 bits, run on the host. The
// fragments as the PTX ISA lays them out: lane l (g = l / 4, t = l % 4) holds a0 = A[g][t],
// a1 = A[g + 8][t], b0 = B[t][g] and c0..c3 = C[g][2t], C[g][2t + 1], C[g + 8][2t], C[g + 8][2t + 1].
std::vector<uint32_t> run_tf32_m16n8k4(const uint32_t (&a)[16][4], const uint32_t (&b)[4][8],
                                       const uint32_t (&c)[16][8])
{
  constexpr int k_lane_words = 7;
  std::vector<uint32_t> in(32 * k_lane_words, 0);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4;
    int t = lane % 4;
    uint32_t* words = &in[static_cast<size_t>(lane * k_lane_words)];
    words[0] = a[g][t];
    words[1] = a[g + 8][t];
    words[2] = b[t][g];
    words[3] = c[g][2 * t];
    words[4] = c[g][2 * t + 1];
    words[5] = c[g + 8][2 * t];
    words[6] = c[g + 8][2 * t + 1];
  }
  std::string body = "  mov.u32 %r15, %tid.x;\n  mul.wide.u32 %rd3, %r15, 28;\n  add.s64 %rd4, %rd2, %rd3;\n"
                     "  mul.wide.u32 %rd5, %r15, 16;\n  add.s64 %rd6, %rd1, %rd5;\n";
  for (int i = 0; i < k_lane_words; ++i) {
    body += "  ld.global.b32 %r" + std::to_string(i + 1) + ", [%rd4+" + std::to_string(4 * i) + "];\n";
  }
  body += "  mov.b32 %f5, %r4;\n  mov.b32 %f6, %r5;\n  mov.b32 %f7, %r6;\n  mov.b32 %f8, %r7;\n"
          "  mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, "
          "{%f5, %f6, %f7, %f8};\n";
  for (int i = 0; i < 4; ++i) {
    body += "  st.global.f32 [%rd6+" + std::to_string(4 * i) + "], %f" + std::to_string(i + 1) + ";\n";
  }
  std::vector<uint32_t> d(16 * 8, 0xcdcdcdcdU);
  std::vector<uint32_t> out(32 * 4, 0);
  if (!run_warp(kernel_text(body), out.data(), in.data())) {
    return d;
  }
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4;
    int t = lane % 4;
    const uint32_t* mine = &out[static_cast<size_t>(lane * 4)];
    d[static_cast<size_t>(g * 8 + 2 * t)] = mine[0];
    d[static_cast<size_t>(g * 8 + 2 * t + 1)] = mine[1];
    d[static_cast<size_t>((g + 8) * 8 + 2 * t)] = mine[2];
    d[static_cast<size_t>((g + 8) * 8 + 2 * t + 1)] = mine[3];
  }
  return d;
}

// A subnormal tf32 factor counts with the exponent -126 in the tensor cores' estimate of the
// largest term, not with its own: row 5 of a random program (version 3 seed 4, slot 82) on an
// H100, where (1.5 * 2^-134) * (-1.9453 * 2^125) is the largest product. Its value's exponent
// puts E at -9 and the sum at 0x3b90d8aa; the H100 wrote 0x3b90d8c0, the sum on the grid
// 2^(-1 - 25) that E = -126 + 125 gives.
TEST(TranslateMmaRun, ASubnormalTf32FactorCountsWithTheSmallestNormalExponent)
{
  uint32_t a[16][4] = {};
  uint32_t b[4][8] = {};
  uint32_t c[16][8] = {};
  const uint32_t row[4] = {0x80000000, 0x00005f00, 0x8000df00, 0x40007fff};
  const uint32_t column[4] = {0x38000200, 0x3c00fe01, 0xfe790782, 0xba272242};
  for (int k = 0; k < 4; ++k) {
    a[5][k] = row[k];
    b[k][0] = column[k];
  }
  c[5][0] = 0x80000000;
  std::vector<uint32_t> d = run_tf32_m16n8k4(a, b, c);
  EXPECT_EQ(d[5 * 8], 0x3b90d8c0U) << std::hex << d[5 * 8];
  // Every other element is a sum of zero products and a +0 C.
  for (size_t i = 0; i < d.size(); ++i) {
    if (i != 5 * 8) {
      EXPECT_EQ(d[i] & 0x7fffffffU, 0U) << "element " << i;
    }
  }
}

// A sum that truncates to zero is +0 whatever its sign: element (8, 6) of a random program
// (version 3 seed 295, slot 62) on an H100, where the only product is 2^-136 (a subnormal tf32)
// times -1.54 * 2^-39 and C is +0. Rounding -1.54 * 2^-175 toward zero would keep the sign (-0).
TEST(TranslateMmaRun, ASumBelowTheSmallestSubnormalIsPositiveZero)
{
  uint32_t a[16][4] = {};
  uint32_t b[4][8] = {};
  uint32_t c[16][8] = {};
  a[8][0] = 0x00003c00;
  b[0][6] = 0xac453800;
  std::vector<uint32_t> d = run_tf32_m16n8k4(a, b, c);
  EXPECT_EQ(d[8 * 8 + 6], 0U) << std::hex << d[8 * 8 + 6];
}

// The tensor cores truncate no term finer than 2^-158, however small the largest term is: element
// (11, 1) of warp 3 of golden case mma_subnormal_tiny on an H100. Its products are -99.33, 4.53,
// 1.79 and 0.014 times 2^-149 (E = -143): truncated on the grid 2^(E - 25) = 2^-168 they sum to
// -92.997 * 2^-149, which rounds toward zero to -92 * 2^-149; on the grid 2^-158 the positive
// ones lose enough that the sum is -93.004 * 2^-149, the H100's -93 * 2^-149 (0x8000005d).
TEST(TranslateMmaRun, NoTermIsTruncatedFinerThanTwoToTheMinus158)
{
  uint32_t a[16][4] = {};
  uint32_t b[4][8] = {};
  uint32_t c[16][8] = {};
  const uint32_t row[4] = {0x19124000, 0x1b1da000, 0x1bff6000, 0x181ae000};
  const uint32_t column[4] = {0x9eade000, 0x1a6b6000, 0x18e60000, 0x1941a000};
  for (int k = 0; k < 4; ++k) {
    a[11][k] = row[k];
    b[k][1] = column[k];
  }
  c[11][1] = 0x80000000;
  std::vector<uint32_t> d = run_tf32_m16n8k4(a, b, c);
  EXPECT_EQ(d[11 * 8 + 1], 0x8000005dU) << std::hex << d[11 * 8 + 1];
}

std::vector<std::byte> read_bytes(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string bytes = text.str();
  std::vector<std::byte> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

int64_t ulp_distance(uint32_t x, uint32_t y)
{
  auto ordered = [](uint32_t v) {
    return (v & 0x80000000U) != 0 ? -static_cast<int64_t>(v & 0x7fffffffU) : static_cast<int64_t>(v);
  };
  return std::llabs(ordered(x) - ordered(y));
}

TEST(TranslateMmaRun, GoldenGemmCasesWithinTheirTolerance)
{
  const fs::path golden = fs::path(D4R_PTX_DIR).parent_path() / "golden";
  int64_t total = 0;
  int64_t exact = 0;
  for (const char* name : {"corpus_gemm_f16_ints", "corpus_gemm_f16_random", "corpus_gemm_e4m3"}) {
    SCOPED_TRACE(name);
    Expected<cpu::LaunchCase> parsed = cpu::read_launch_case(golden / "cases" / (std::string(name) + ".case"));
    ASSERT_TRUE(parsed) << parsed.error().message;
    const fs::path repo = fs::path(D4R_PTX_DIR).parent_path().parent_path();
    std::vector<std::byte> ptx = read_bytes(repo / parsed->ptx);
    Expected<Translation> translation =
        translate_text(std::string(reinterpret_cast<const char*>(ptx.data()), ptx.size()), host_options());
    ASSERT_TRUE(translation) << translation.error().message;
    Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
    ASSERT_TRUE(executor) << executor.error().message;
    std::unique_ptr<cpu::HostLaunch> host = cpu::HostLaunch::create(*parsed);
    cpu::LaunchShape shape{parsed->grid, parsed->block, static_cast<uint32_t>(parsed->dynamic_shared)};
    Expected<cpu::LaunchStats> stats = (*executor)->launch(parsed->kernel, shape, host->params());
    ASSERT_TRUE(stats) << stats.error().message;
    Expected<std::vector<std::byte>> recorded = cpu::read_expected_output(golden / "expected", name, 0);
    ASSERT_TRUE(recorded) << recorded.error().message;
    const std::vector<std::byte>& expected = *recorded;
    std::span<const std::byte> got = host->output_bytes(0);
    Expected<void> same = cpu::compare_output(*parsed, 0, expected, got);
    EXPECT_TRUE(same) << same.error().message;
    ASSERT_EQ(got.size(), expected.size());
    int64_t case_exact = 0;
    int64_t worst = 0;
    for (size_t i = 0; i + 4 <= got.size(); i += 4) {
      uint32_t x = 0;
      uint32_t y = 0;
      std::memcpy(&x, got.data() + i, 4);
      std::memcpy(&y, expected.data() + i, 4);
      case_exact += x == y ? 1 : 0;
      worst = std::max(worst, ulp_distance(x, y));
    }
    int64_t count = static_cast<int64_t>(got.size() / 4);
    std::cout << name << ": " << case_exact << "/" << count << " bit-exact, worst " << worst << " ulp\n";
    total += count;
    exact += case_exact;
  }
  std::cout << "mma goldens: " << exact << "/" << total << " bit-exact\n";
}

} // namespace
} // namespace d4r::compiler::translate::test
