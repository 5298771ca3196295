// mma.sp and mma.sp::ordered_metadata (compiler/translate/mma_sparse.cpp): the kernels of
// tests/ptx/isa/mma_sparse.cu run on the CPU executor with the inputs of their golden cases
// (tests/golden/cases/mma_sp_*.case, or .case.pending until the H200 recorded them) against a
// reference computed here from the PTX ISA's description, written again here (not taken from
// mma_layout.cpp or mma_sparse.cpp): the stored A elements sit as the dense A of half the K; with
// n = chunks / 4 lanes per row and s the sparsity selector, chunk q of row r has its metadata
// nibble in lane 4 (r % 8) + s n + q / 4, bits 16 (r / 8) + 4 (q % 4), for 16- and 32-bit
// elements, and in lane 4 (r % 8) + s n + 2 (q / 8) + r / 8, bits 4 (q % 8), for 8- and 4-bit ones
// (the H200's reading: the golden cases of both agree with it bit for bit); B, C and D as the dense
// shapes. Small integer floats (or any integer bits) make every reference exact. Then a sparse A never
// multiplies the zeros it leaves out (an infinite B there gives no NaN), undefined selectors are
// rejected, and every kernel builds for gfx1100 and gfx1201.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/ptx_build.hpp"
#include "compiler/translate/mma_sparse.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::compiler {
namespace {

namespace fs = std::filesystem;

const fs::path k_repo = fs::path(D4R_TEST_SOURCE_DIR).parent_path();

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CaseRun {
  std::vector<std::vector<std::byte>> inputs; // the in buffers, in order
  std::vector<std::byte> output;              // the one out buffer
};

std::optional<CaseRun> run_case(const std::string& name)
{
  fs::path path = k_repo / "tests/golden/cases" / (name + ".case");
  if (!fs::exists(path)) {
    path += ".pending";
  }
  Expected<cpu::LaunchCase> parsed = cpu::read_launch_case(path);
  if (!parsed) {
    ADD_FAILURE() << parsed.error().message;
    return std::nullopt;
  }
  PtxBuild build;
  build.entry = parsed->kernel;
  std::string log;
  Expected<translate::Translation> translation =
      translate_ptx(read_text(k_repo / parsed->ptx), build, translate::TargetKind::host, log);
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return std::nullopt;
  }
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  if (!executor) {
    ADD_FAILURE() << executor.error().message;
    return std::nullopt;
  }
  std::unique_ptr<cpu::HostLaunch> host = cpu::HostLaunch::create(*parsed);
  cpu::LaunchShape shape;
  shape.grid = parsed->grid;
  shape.block = parsed->block;
  Expected<cpu::LaunchStats> stats = (*executor)->launch(parsed->kernel, shape, host->params());
  if (!stats) {
    ADD_FAILURE() << stats.error().message;
    return std::nullopt;
  }
  CaseRun run;
  for (const cpu::Param& param : parsed->params) {
    const cpu::Arg& arg = param.arg;
    if (arg.kind == cpu::ArgKind::buffer && arg.buffer.direction == cpu::Direction::in) {
      run.inputs.push_back(cpu::generate_fill(arg.buffer.fill, arg.buffer.type, arg.buffer.count));
    }
  }
  std::span<const std::byte> bytes = host->output_bytes(0);
  run.output.assign(bytes.begin(), bytes.end());
  return run;
}

template <typename T> T at(const std::vector<std::byte>& bytes, int64_t index)
{
  T value{};
  std::memcpy(&value, bytes.data() + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

double f16_value(uint32_t bits)
{
  int exponent = static_cast<int>((bits >> 10) & 31);
  double magnitude = exponent == 0 ? std::ldexp(bits & 1023, -24)
                                   : std::ldexp((bits & 1023) | 1024, exponent - 25);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

// mma_sparse.cu's valid_metadata / tf32_metadata.
uint32_t kernel_metadata(uint32_t w, int kind) // 0: either order, 1: ascending, 2: tf32
{
  static const uint32_t k_pairs[12] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe, 0x1, 0x2, 0x6, 0x3, 0x7, 0xb};
  uint32_t m = 0;
  for (int i = 0; i < 8; ++i) {
    uint32_t nibble = kind == 2 ? (((w >> i) & 1) != 0 ? 0xeU : 0x4U)
                                : k_pairs[((w >> (4 * i)) & 15) % (kind == 1 ? 6 : 12)];
    m |= nibble << (4 * i);
  }
  return m;
}

// One mma.sp form of a kernel: K, element bits, stored elements per chunk of `width` columns,
// selector, which metadata the kernel made (kernel_metadata's kind).
struct SparseForm {
  int k;
  int bits;
  int width; // 4 (2:4), 2 (tf32 1:2), 8 (s4/u4 pairs)
  int selector;
  int metadata;
};

// A dense 16 x K from the lanes' stored elements (element(lane, reg, sub), p a register) and
// metadata words (meta(lane)), as the ISA places them.
std::vector<std::vector<double>> dense_a(const SparseForm& f, const std::function<double(int, int, int)>& element,
                                         const std::function<uint32_t(int)>& meta)
{
  int p = 32 / f.bits;
  int stored_per_chunk = f.width == 2 ? 1 : f.width == 4 ? 2 : 4;
  int chunks = f.k / f.width;
  int lanes_per_row = chunks / 4;
  std::vector<std::vector<double>> a(16, std::vector<double>(static_cast<size_t>(f.k), 0.0));
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane >> 2;
    int t = lane & 3;
    for (int reg = 0; reg < 16 * f.k / 2 / 32 / p; ++reg) {
      for (int sub = 0; sub < p; ++sub) {
        int row = g + 8 * (reg & 1);
        int stored = 4 * p * (reg >> 1) + p * t + sub; // column of the K/2 stored ones
        int q = stored / stored_per_chunk;
        int j = stored % stored_per_chunk;
        bool wide = f.bits >= 16;
        uint32_t word = meta(4 * (row % 8) + f.selector * lanes_per_row +
                             (wide ? q / 4 : 2 * (q / 8) + row / 8));
        uint32_t nibble = (word >> (wide ? 16 * (row / 8) + 4 * (q % 4) : 4 * (q % 8))) & 15;
        int col = f.width == 2   ? 2 * q + static_cast<int>((nibble & 3) >> 1)
                  : f.width == 4 ? 4 * q + static_cast<int>((nibble >> (2 * j)) & 3)
                                 : 8 * q + 2 * static_cast<int>((nibble >> (2 * (j / 2))) & 3) + j % 2;
        a[static_cast<size_t>(row)][static_cast<size_t>(col)] = element(lane, reg, sub);
      }
    }
  }
  return a;
}

// B (K x 8) of the dense shape: register reg of lane l holds rows 4p reg + p t + sub of column g.
std::vector<std::vector<double>> dense_b(const SparseForm& f, const std::function<double(int, int, int)>& element)
{
  int p = 32 / f.bits;
  std::vector<std::vector<double>> b(static_cast<size_t>(f.k), std::vector<double>(8, 0.0));
  for (int lane = 0; lane < 32; ++lane) {
    for (int reg = 0; reg < f.k * 8 / 32 / p; ++reg) {
      for (int sub = 0; sub < p; ++sub) {
        b[static_cast<size_t>(4 * p * reg + p * (lane & 3) + sub)][static_cast<size_t>(lane >> 2)] =
            element(lane, reg, sub);
      }
    }
  }
  return b;
}

// D element i of lane l: row g + 8 (i >= 2), column 2t + i % 2.
double d_element(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                 int k, int lane, int i, double c)
{
  int row = (lane >> 2) + 8 * (i >= 2 ? 1 : 0);
  int col = 2 * (lane & 3) + i % 2;
  double sum = c;
  for (int kk = 0; kk < k; ++kk) {
    sum += a[static_cast<size_t>(row)][static_cast<size_t>(kk)] * b[static_cast<size_t>(kk)][static_cast<size_t>(col)];
  }
  return sum;
}

TEST(TranslateMmaSparse, MetadataSlotsFollowTheSelector)
{
  using translate::SparseMetadataSlot;
  using translate::sparse_metadata_slot;
  // 16-bit elements, one lane per group (4 chunks a row): lane s, row g low, g + 8 high.
  EXPECT_EQ(sparse_metadata_slot(4, 16, 2, 3, 1), (SparseMetadataSlot{2, 4}));
  EXPECT_EQ(sparse_metadata_slot(4, 32, 0, 11, 3), (SparseMetadataSlot{0, 28}));
  // A pair (8 chunks): selector 1 is lanes 2 and 3, chunks 4..7 in the second.
  EXPECT_EQ(sparse_metadata_slot(8, 16, 1, 0, 5), (SparseMetadataSlot{3, 4}));
  EXPECT_EQ(sparse_metadata_slot(8, 16, 0, 9, 2), (SparseMetadataSlot{0, 24}));
  // 8-bit elements: a lane a row (g, then g + 8), 8 chunks a lane.
  EXPECT_EQ(sparse_metadata_slot(8, 8, 1, 9, 5), (SparseMetadataSlot{3, 20}));
  EXPECT_EQ(sparse_metadata_slot(16, 8, 0, 15, 13), (SparseMetadataSlot{3, 20}));
  EXPECT_EQ(sparse_metadata_slot(16, 4, 0, 2, 9), (SparseMetadataSlot{2, 4}));
  // All four (16 chunks) of 16-bit elements (no such shape, but the rule holds).
  EXPECT_EQ(sparse_metadata_slot(16, 16, 0, 15, 13), (SparseMetadataSlot{3, 20}));
  // Selectors the ISA leaves undefined.
  EXPECT_FALSE(sparse_metadata_slot(4, 16, 4, 0, 0));
  EXPECT_FALSE(sparse_metadata_slot(8, 8, 2, 0, 0));
  EXPECT_FALSE(sparse_metadata_slot(16, 8, 1, 0, 0));
}

TEST(TranslateMmaSparse, FloatFormsFollowTheIsaLayout)
{
  std::optional<CaseRun> run = run_case("mma_sp_float_ints");
  ASSERT_TRUE(run);
  // mma_sp_float's forms in order; f16 D in forms 6 and 10. Inputs: 0 f16, 1 bf16, 2 f32 words.
  struct Form {
    SparseForm sparse;
    int input;
    bool f16_d;
  };
  const Form forms[] = {
      {{16, 16, 4, 0, 0}, 0, false}, {{16, 16, 4, 1, 0}, 0, false}, {{16, 16, 4, 2, 0}, 0, false},
      {{16, 16, 4, 3, 1}, 0, false}, {{16, 16, 4, 0, 1}, 1, false}, {{16, 16, 4, 3, 0}, 1, false},
      {{16, 16, 4, 1, 1}, 0, true},  {{32, 16, 4, 0, 1}, 0, false}, {{32, 16, 4, 1, 0}, 0, false},
      {{32, 16, 4, 1, 1}, 1, false}, {{32, 16, 4, 0, 1}, 0, true},  {{8, 32, 2, 0, 2}, 2, false},
      {{8, 32, 2, 2, 2}, 2, false},  {{8, 32, 2, 3, 2}, 2, false},  {{16, 32, 2, 0, 2}, 2, false},
      {{16, 32, 2, 1, 2}, 2, false}};
  int mismatches = 0;
  for (int f = 0; f < 16; ++f) {
    const Form& form = forms[f];
    const std::vector<std::byte>& in = run->inputs[static_cast<size_t>(form.input)];
    auto element = [&](int lane, int reg, bool b_operand, int sub) {
      uint32_t word = at<uint32_t>(in, 8 * lane + (b_operand ? 4 : 0) + reg);
      if (form.input == 2) {
        return static_cast<double>(std::bit_cast<float>(word & 0xffffe000U));
      }
      uint32_t half = (word >> (16 * sub)) & 0xffff;
      return form.input == 0 ? f16_value(half) : static_cast<double>(std::bit_cast<float>(half << 16));
    };
    auto meta = [&](int lane) { return kernel_metadata(at<uint32_t>(run->inputs[3], lane), form.sparse.metadata); };
    auto a = dense_a(form.sparse, [&](int l, int r, int s) { return element(l, r, false, s); }, meta);
    auto b = dense_b(form.sparse, [&](int l, int r, int s) { return element(l, r, true, s); });
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < 4; ++i) {
        double c = at<float>(run->inputs[4], 4 * lane + i);
        double want = d_element(a, b, form.sparse.k, lane, i, c);
        double got = 0;
        if (form.f16_d) {
          uint32_t word = at<uint32_t>(run->output, 128 * f + 4 * lane + i / 2);
          got = f16_value((word >> (16 * (i % 2))) & 0xffff);
        } else {
          got = at<float>(run->output, 128 * f + 4 * lane + i);
        }
        if (got != want && ++mismatches < 20) {
          ADD_FAILURE() << "form " << f << " lane " << lane << " element " << i << ": " << got
                        << ", want " << want;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(TranslateMmaSparse, IntegerFormsFollowTheIsaLayout)
{
  for (const char* name : {"mma_sp_int_random", "mma_sp_int_saturate"}) {
    SCOPED_TRACE(name);
    std::optional<CaseRun> run = run_case(name);
    ASSERT_TRUE(run);
    // mma_sp_int's forms in order: sparse shape, A and B signedness, .satfinite.
    struct Form {
      SparseForm sparse;
      bool a_signed, b_signed, satfinite;
    };
    const Form forms[] = {
        {{32, 8, 4, 0, 1}, true, true, false},    {{32, 8, 4, 1, 0}, false, true, false},
        {{32, 8, 4, 1, 1}, true, false, true},    {{64, 8, 4, 0, 1}, false, false, false},
        {{64, 8, 4, 0, 0}, true, true, true},     {{64, 4, 8, 0, 1}, true, true, false},
        {{64, 4, 8, 1, 0}, false, true, false},   {{64, 4, 8, 1, 1}, false, false, true},
        {{128, 4, 8, 0, 1}, true, false, false},  {{128, 4, 8, 0, 0}, true, true, true},
        {{32, 8, 4, 0, 1}, false, false, false},  {{64, 8, 4, 0, 1}, false, true, true}};
    int mismatches = 0;
    for (int f = 0; f < 12; ++f) {
      const Form& form = forms[f];
      int bits = form.sparse.bits;
      auto element = [&](int lane, int reg, bool b_operand, int sub) {
        uint32_t word = at<uint32_t>(run->inputs[0], 8 * lane + (b_operand ? 4 : 0) + reg);
        uint32_t field = (word >> (bits * sub)) & ((1U << bits) - 1);
        bool is_signed = b_operand ? form.b_signed : form.a_signed;
        int64_t value = is_signed && (field >> (bits - 1)) != 0 ? static_cast<int64_t>(field) - (int64_t{1} << bits)
                                                                 : static_cast<int64_t>(field);
        return static_cast<double>(value);
      };
      auto meta = [&](int lane) { return kernel_metadata(at<uint32_t>(run->inputs[1], lane), form.sparse.metadata); };
      auto a = dense_a(form.sparse, [&](int l, int r, int s) { return element(l, r, false, s); }, meta);
      auto b = dense_b(form.sparse, [&](int l, int r, int s) { return element(l, r, true, s); });
      for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < 4; ++i) {
          double c = at<int32_t>(run->inputs[2], 4 * lane + i);
          auto exact = static_cast<int64_t>(d_element(a, b, form.sparse.k, lane, i, c));
          int32_t want = form.satfinite ? static_cast<int32_t>(std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX))
                                        : static_cast<int32_t>(static_cast<uint32_t>(exact));
          int32_t got = at<int32_t>(run->output, 128 * f + 4 * lane + i);
          if (got != want && ++mismatches < 20) {
            ADD_FAILURE() << "form " << f << " lane " << lane << " element " << i << ": " << got
                          << ", want " << want;
          }
        }
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

// Runs one mma.sp of `types` on every lane with A words `a`, B words `b`, C zero and metadata
// `meta`, selector 0, and returns lane 0's D words.
std::vector<uint32_t> run_one(const std::string& form, int a_regs, int b_regs, uint32_t a, uint32_t b,
                              uint32_t meta)
{
  auto list = [](const char* name, int n, int first) {
    std::string out = "{";
    for (int i = 0; i < n; ++i) {
      out += (i != 0 ? ", %" : "%") + std::string(name) + std::to_string(first + i);
    }
    return out + "}";
  };
  std::string ptx = ".version 8.5\n.target sm_90\n.address_size 64\n"
                    ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<32>;\n.reg .b64 %rd<2>;\n";
  for (int i = 0; i < a_regs; ++i) {
    ptx += "mov.b32 %r" + std::to_string(i) + ", " + std::to_string(a) + ";\n";
  }
  for (int i = 0; i < b_regs; ++i) {
    ptx += "mov.b32 %r" + std::to_string(8 + i) + ", " + std::to_string(b) + ";\n";
  }
  ptx += "mov.b32 %r16, 0;\nmov.b32 %r17, 0;\nmov.b32 %r18, 0;\nmov.b32 %r19, 0;\n";
  ptx += "mov.b32 %r20, " + std::to_string(meta) + ";\n";
  ptx += form + " " + list("r", 4, 24) + ", " + list("r", a_regs, 0) + ", " + list("r", b_regs, 8) +
         ", " + list("r", 4, 16) + ", %r20, 0;\n";
  ptx += "ld.param.u64 %rd0, [out];\nmov.u32 %r21, %laneid;\nshl.b32 %r21, %r21, 4;\n"
         "cvt.u64.u32 %rd1, %r21;\nadd.u64 %rd0, %rd0, %rd1;\n"
         "st.global.v4.b32 [%rd0], {%r24, %r25, %r26, %r27};\nret;\n}\n";
  PtxBuild build;
  build.entry = "k";
  std::string log;
  Expected<translate::Translation> translation = translate_ptx(ptx, build, translate::TargetKind::host, log);
  EXPECT_TRUE(translation) << translation.error().message << "\n" << ptx;
  if (!translation) {
    return {};
  }
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  EXPECT_TRUE(executor) << executor.error().message;
  std::vector<uint32_t> out(128, 0);
  uint64_t address = reinterpret_cast<uintptr_t>(out.data());
  std::vector<std::byte> params(8);
  std::memcpy(params.data(), &address, 8);
  cpu::LaunchShape shape;
  shape.block = {32, 1, 1};
  Expected<cpu::LaunchStats> stats = (*executor)->launch("k", shape, params);
  EXPECT_TRUE(stats) << stats.error().message;
  return {out.begin(), out.begin() + 4};
}

TEST(TranslateMmaSparse, TheLeftOutZerosAreNeverMultiplied)
{
  // A: 1.0 in every stored f16; B: +inf in every f16; metadata 0x4 per chunk (columns 0 and 1).
  // Each D element sums 8 products 1 * inf = +inf: no 0 * inf NaN from the columns left out.
  std::vector<uint32_t> d = run_one("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                    2, 2, 0x3c003c00U, 0x7c007c00U, 0x44444444U);
  ASSERT_EQ(d.size(), 4U);
  for (uint32_t word : d) {
    EXPECT_EQ(word, 0x7f800000U);
  }
  // Integers: stored s8 ones against B bytes 2; the left-out zeros would add nothing anyway, so
  // the check is the count: 16 stored elements a row, D = 16 * 2.
  d = run_one("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 2, 2,
              0x01010101U, 0x02020202U, 0x88888888U);
  ASSERT_EQ(d.size(), 4U);
  for (uint32_t word : d) {
    EXPECT_EQ(word, 32U);
  }
}

TEST(TranslateMmaSparse, UndefinedSelectorsAndFormsAreRejected)
{
  auto translates = [](const std::string& line) {
    std::string ptx = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
                      ".reg .b32 %r<32>;\n" + line + "\nret;\n}\n";
    PtxBuild build;
    build.entry = "k";
    std::string log;
    return translate_ptx(ptx, build, translate::TargetKind::host, log).has_value();
  };
  const std::string k16 = " {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r6, %r7}, {%r8, %r9, %r10, %r11}, %r12, ";
  const std::string k32 =
      " {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11}, {%r12, %r13, %r14, %r15}, %r16, ";
  EXPECT_TRUE(translates("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" + k16 + "3;"));
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" + k16 + "4;"));
  EXPECT_TRUE(translates("mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32" + k32 + "1;"));
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32" + k32 + "2;"));
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32" + k32 + "1;"));
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32" + k32 + "%r17;"));
  // No such shape or types: bf16 with an f16 accumulator, a .satfinite float form, b1.
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r0, %r1}, {%r4, %r5}, "
                          "{%r6, %r7}, {%r8, %r9}, %r12, 0;"));
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32" + k16 + "0;"));
  EXPECT_FALSE(translates("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" + k16.substr(0, 40) + "0;"));
}

TEST(TranslateMmaSparse, EveryKernelBuildsForGfx11AndGfx12)
{
  std::string text = read_text(k_repo / "tests/ptx/isa/mma_sparse.sm_90.ptx");
  for (const char* kernel : {"mma_sp_float", "mma_sp_int", "mma_sp_fp8"}) {
    for (const char* target : {"gfx1100", "gfx1201"}) {
      SCOPED_TRACE(std::string(kernel) + " " + target);
      PtxBuild build;
      build.entry = kernel;
      build.target = target;
      std::string log;
      Expected<std::vector<std::byte>> object = build_ptx_code_object(text, build, log);
      ASSERT_TRUE(object) << object.error().message << "\n" << log;
      EXPECT_GT(object->size(), 1000U);
    }
  }
}

} // namespace
} // namespace d4r::compiler
