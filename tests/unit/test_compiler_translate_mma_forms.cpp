// The warp matrix forms beyond mma.m16n8k16 (tests/ptx/isa/matrix_more.cu: wmma, the other mma
// shapes and types, movmatrix, stmatrix): every kernel builds an AMDGPU code object for gfx1100
// and gfx1201, and runs on the CPU executor with the inputs of its golden case
// (tests/golden/cases/mat_*.case, or .case.pending until the H200 recorded it) against a
// reference computed here:
// - wmma: D = A * B + C from the matrices in memory, with the kernel's leading dimensions and
//   layouts, so the test knows nothing of our fragment layout (only memory is observable);
// - mma: D from the per-thread fragments as the PTX ISA's formulas place them (9.7.14.5, written
//   again here from the ISA's tables, not taken from mma_layout.cpp);
// - movmatrix/stmatrix: the ISA's element placement.
// Inputs are small integers (floats) or any bits (integers), so every reference is exact.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/ptx_build.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cmath>
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

// A case run on the executor: its input buffers (generated from the case's fills) and outputs.
struct CaseRun {
  std::vector<std::vector<std::byte>> inputs; // the in buffers, in order
  std::vector<std::vector<std::byte>> outputs;
  int32_t scalar = 0;                         // the last s32 scalar param, if any
};

fs::path case_path(const std::string& name)
{
  fs::path recorded = k_repo / "tests/golden/cases" / (name + ".case");
  return fs::exists(recorded) ? recorded : fs::path(recorded.string() + ".pending");
}

std::optional<CaseRun> run_case(const std::string& name)
{
  Expected<cpu::LaunchCase> parsed = cpu::read_launch_case(case_path(name));
  if (!parsed) {
    ADD_FAILURE() << parsed.error().message;
    return std::nullopt;
  }
  const cpu::LaunchCase& launch_case = *parsed;
  PtxBuild build;
  build.entry = launch_case.kernel;
  std::string log;
  Expected<translate::Translation> translation =
      translate_ptx(read_text(k_repo / launch_case.ptx), build, translate::TargetKind::host, log);
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return std::nullopt;
  }
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  if (!executor) {
    ADD_FAILURE() << executor.error().message;
    return std::nullopt;
  }
  std::unique_ptr<cpu::HostLaunch> host = cpu::HostLaunch::create(launch_case);
  cpu::LaunchShape shape;
  shape.grid = launch_case.grid;
  shape.block = launch_case.block;
  Expected<cpu::LaunchStats> stats = (*executor)->launch(launch_case.kernel, shape, host->params());
  if (!stats) {
    ADD_FAILURE() << stats.error().message;
    return std::nullopt;
  }
  CaseRun run;
  for (const cpu::Param& param : launch_case.params) {
    const cpu::Arg& arg = param.arg;
    if (arg.kind == cpu::ArgKind::buffer && arg.buffer.direction == cpu::Direction::in) {
      run.inputs.push_back(cpu::generate_fill(arg.buffer.fill, arg.buffer.type, arg.buffer.count));
    }
    if (arg.kind == cpu::ArgKind::scalar) {
      run.scalar = static_cast<int32_t>(arg.scalar.bits);
    }
  }
  for (size_t i = 0; i < launch_case.outputs.size(); ++i) {
    std::span<const std::byte> bytes = host->output_bytes(static_cast<int64_t>(i));
    run.outputs.emplace_back(bytes.begin(), bytes.end());
  }
  return run;
}

template <typename T> T at(const std::vector<std::byte>& bytes, int64_t index)
{
  T value{};
  std::memcpy(&value, bytes.data() + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

double f16_value(uint16_t bits)
{
  int exponent = (bits >> 10) & 31;
  double magnitude = exponent == 0 ? std::ldexp(bits & 1023, -24)
                                   : std::ldexp((bits & 1023) | 1024, exponent - 25);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

double bf16_value(uint16_t bits)
{
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

// Element (row, col) of a matrix at `base` (element index) with leading dimension `ld`.
struct Matrix {
  std::function<double(int64_t)> element;
  int64_t base = 0;
  int64_t ld = 40;
  bool row_major = true;
  double operator()(int r, int c) const
  {
    return element(base + (row_major ? r * ld + c : c * ld + r));
  }
};

struct Tile {
  int m, n, k;
  bool a_row, b_row, c_row, d_row;
};

// D = A B + C as the kernel stores it: d[index] for every element of the M x N tile.
std::vector<double> reference_tile(const Tile& tile, Matrix a, Matrix b, Matrix c)
{
  a.row_major = tile.a_row;
  b.row_major = tile.b_row;
  c.row_major = tile.c_row;
  std::vector<double> d(static_cast<size_t>(tile.m * tile.n));
  for (int r = 0; r < tile.m; ++r) {
    for (int col = 0; col < tile.n; ++col) {
      double sum = c(r, col);
      for (int k = 0; k < tile.k; ++k) {
        sum += a(r, k) * b(k, col);
      }
      size_t index = static_cast<size_t>(tile.d_row ? r * tile.n + col : col * tile.m + r);
      d[index] = sum;
    }
  }
  return d;
}

// The four layout pairs of shape_all in matrix_more.cu, in order: (A row, B col, C row, D row),
// (row, row, col, row), (col, col, row, col), (col, row, col, col).
std::vector<Tile> four_tiles(int m, int n, int k)
{
  return {Tile{m, n, k, true, false, true, true}, Tile{m, n, k, true, true, false, true},
          Tile{m, n, k, false, false, true, false}, Tile{m, n, k, false, true, false, false}};
}

int g_mismatches = 0;

void expect_tile(const std::vector<double>& want, const std::function<double(int64_t)>& got,
                 int64_t base, const std::string& what)
{
  for (size_t i = 0; i < want.size(); ++i) {
    double value = got(base + static_cast<int64_t>(i));
    if (value != want[i] && ++g_mismatches < 20) {
      ADD_FAILURE() << what << " element " << i << ": " << value << ", want " << want[i];
    }
  }
}

TEST(TranslateMmaForms, WmmaF16MatchesTheMatrixProduct)
{
  std::optional<CaseRun> run = run_case("mat_wmma_f16_ints");
  ASSERT_TRUE(run);
  auto half_of = [&](int input) {
    return [&, input](int64_t i) { return f16_value(at<uint16_t>(run->inputs[static_cast<size_t>(input)], i)); };
  };
  auto f32_in = [&](int64_t i) { return static_cast<double>(at<float>(run->inputs[2], i)); };
  auto out = [&](int64_t i) { return static_cast<double>(at<float>(run->outputs[0], i)); };
  auto outh = [&](int64_t i) { return f16_value(at<uint16_t>(run->outputs[1], i)); };
  g_mismatches = 0;
  struct Shape {
    int m, n, k;
  };
  const Shape shapes[] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  for (int w = 0; w < 2; ++w) {
    int64_t in = 2048 * w;
    Matrix a{half_of(0), in};
    Matrix b{half_of(1), in};
    Matrix c{f32_in, in};
    Matrix ch{half_of(3), in};
    for (int s = 0; s < 3; ++s) {
      const Shape& shape = shapes[s];
      std::vector<Tile> tiles = four_tiles(shape.m, shape.n, shape.k);
      for (int i = 0; i < 4; ++i) {
        expect_tile(reference_tile(tiles[static_cast<size_t>(i)], a, b, c), out,
                    3584 * w + 1024 * s + 256 * i, "f32 tile " + std::to_string(i));
      }
      expect_tile(reference_tile(tiles[0], a, b, ch), outh, 1536 * w + 512 * s, "f16 tile 0");
      expect_tile(reference_tile(tiles[3], a, b, ch), outh, 1536 * w + 512 * s + 256, "f16 tile 3");
    }
    // Shared memory: m16n16k16 (A col, B row, C row, D row); generic: m32n8k16 (row, col, col, col).
    expect_tile(reference_tile(Tile{16, 16, 16, false, true, true, true}, a, b, c), out,
                3584 * w + 3072, "shared tile");
    expect_tile(reference_tile(Tile{32, 8, 16, true, false, false, false}, a, b, c), out,
                3584 * w + 3328, "generic tile");
  }
  EXPECT_EQ(g_mismatches, 0);
}

TEST(TranslateMmaForms, WmmaBf16MatchesTheMatrixProduct)
{
  std::optional<CaseRun> run = run_case("mat_wmma_bf16_ints");
  ASSERT_TRUE(run);
  auto bf = [&](int input) {
    return [&, input](int64_t i) { return bf16_value(at<uint16_t>(run->inputs[static_cast<size_t>(input)], i)); };
  };
  auto f32_in = [&](int64_t i) { return static_cast<double>(at<float>(run->inputs[2], i)); };
  auto out = [&](int64_t i) { return static_cast<double>(at<float>(run->outputs[0], i)); };
  g_mismatches = 0;
  const int shapes[3][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  for (int w = 0; w < 2; ++w) {
    for (int s = 0; s < 3; ++s) {
      std::vector<Tile> tiles = four_tiles(shapes[s][0], shapes[s][1], shapes[s][2]);
      for (int i = 0; i < 4; ++i) {
        expect_tile(reference_tile(tiles[static_cast<size_t>(i)], Matrix{bf(0), 2048 * w},
                                   Matrix{bf(1), 2048 * w}, Matrix{f32_in, 2048 * w}),
                    out, 3072 * w + 1024 * s + 256 * i, "tile " + std::to_string(i));
      }
    }
  }
  EXPECT_EQ(g_mismatches, 0);
}

int64_t wrap_or_clamp(int64_t sum, bool satfinite)
{
  if (satfinite) {
    return std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
  }
  return static_cast<int32_t>(static_cast<uint32_t>(sum));
}

TEST(TranslateMmaForms, WmmaIntegersMatchTheMatrixProduct)
{
  std::optional<CaseRun> run = run_case("mat_wmma_int8");
  ASSERT_TRUE(run);
  g_mismatches = 0;
  const int shapes[3][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  for (int w = 0; w < 2; ++w) {
    for (int u = 0; u < 2; ++u) {
      auto byte_of = [&](int input) {
        return [&, input, u](int64_t i) {
          int8_t v = at<int8_t>(run->inputs[static_cast<size_t>(input)], i);
          return static_cast<double>(u != 0 ? static_cast<uint8_t>(v) : v);
        };
      };
      auto c_in = [&](int64_t i) { return static_cast<double>(at<int32_t>(run->inputs[2], i)); };
      for (int s = 0; s < 3; ++s) {
        int m = shapes[s][0];
        int n = shapes[s][1];
        // int_shape: (A row, B col), (col, row) .satfinite, (row, row) .satfinite, (col, col);
        // C row-major, D column-major.
        const bool layouts[4][3] = {{true, false, false}, {false, true, true}, {true, true, true},
                                    {false, false, false}};
        for (int i = 0; i < 4; ++i) {
          Tile tile{m, n, 16, layouts[i][0], layouts[i][1], true, false};
          std::vector<double> want = reference_tile(tile, Matrix{byte_of(0), 2048 * w},
                                                    Matrix{byte_of(1), 2048 * w}, Matrix{c_in, 2048 * w});
          for (double& v : want) {
            v = static_cast<double>(wrap_or_clamp(static_cast<int64_t>(v), layouts[i][2]));
          }
          expect_tile(want, [&](int64_t e) { return static_cast<double>(at<int32_t>(run->outputs[0], e)); },
                      6144 * w + 3072 * u + 1024 * s + m * n * i, "int tile " + std::to_string(i));
        }
      }
    }
  }
  EXPECT_EQ(g_mismatches, 0);
}

TEST(TranslateMmaForms, WmmaTf32AndF64MatchTheMatrixProduct)
{
  std::optional<CaseRun> run = run_case("mat_wmma_tf32_f64");
  ASSERT_TRUE(run);
  auto f32_in = [&](int input) {
    return [&, input](int64_t i) { return static_cast<double>(at<float>(run->inputs[static_cast<size_t>(input)], i)); };
  };
  auto f64_in = [&](int input) {
    return [&, input](int64_t i) { return at<double>(run->inputs[static_cast<size_t>(input)], i); };
  };
  g_mismatches = 0;
  for (int w = 0; w < 2; ++w) {
    std::vector<Tile> tf32 = four_tiles(16, 16, 8);
    std::vector<Tile> f64 = four_tiles(8, 8, 4);
    for (int i = 0; i < 4; ++i) {
      int64_t in = 2048 * w;
      expect_tile(reference_tile(tf32[static_cast<size_t>(i)], Matrix{f32_in(0), in}, Matrix{f32_in(1), in},
                                 Matrix{f32_in(2), in}),
                  [&](int64_t e) { return static_cast<double>(at<float>(run->outputs[0], e)); },
                  1024 * w + 256 * i, "tf32 tile " + std::to_string(i));
      expect_tile(reference_tile(f64[static_cast<size_t>(i)], Matrix{f64_in(3), in}, Matrix{f64_in(4), in},
                                 Matrix{f64_in(5), in}),
                  [&](int64_t e) { return at<double>(run->outputs[1], e); }, 256 * w + 64 * i,
                  "f64 tile " + std::to_string(i));
    }
  }
  EXPECT_EQ(g_mismatches, 0);
}

// Element e of a packed stream of `bits`-bit elements (low bits first), signed or not.
int64_t packed(const std::vector<std::byte>& words, int64_t word_base, int64_t e, int bits, bool is_signed)
{
  uint32_t word = at<uint32_t>(words, word_base + e * bits / 32);
  uint32_t raw = (word >> (e * bits % 32)) & ((1U << bits) - 1U);
  if (is_signed && bits > 1 && (raw >> (bits - 1)) != 0) {
    return static_cast<int64_t>(raw) - (int64_t{1} << bits);
  }
  return raw;
}

TEST(TranslateMmaForms, WmmaSubByteMatchesTheMatrixProduct)
{
  std::optional<CaseRun> run = run_case("mat_wmma_sub_byte");
  ASSERT_TRUE(run);
  g_mismatches = 0;
  for (int w = 0; w < 2; ++w) {
    int64_t words = 512 * w;
    for (int kind = 0; kind < 4; ++kind) { // s4, u4, b1 xor, b1 and
      bool b1 = kind >= 2;
      int k_len = b1 ? 128 : 32;
      int ld = b1 ? 256 : 64;
      int bits = b1 ? 1 : 4;
      std::vector<double> want(64);
      for (int r = 0; r < 8; ++r) {
        for (int col = 0; col < 8; ++col) {
          // C: row-major (s4/u4) or column-major (b1), leading dimension 40; D likewise, ld 8.
          int64_t c_index = b1 ? col * 40 + r : r * 40 + col;
          int64_t sum = at<int32_t>(run->inputs[2], 2048 * w + c_index);
          for (int k = 0; k < k_len; ++k) {
            int64_t a = packed(run->inputs[0], words, r * ld + k, bits, kind == 0);
            int64_t b = packed(run->inputs[1], words, col * ld + k, bits, kind == 0);
            sum += kind == 2 ? (a ^ b) : a * b;
          }
          want[static_cast<size_t>(b1 ? col * 8 + r : r * 8 + col)] = static_cast<double>(static_cast<int32_t>(sum));
        }
      }
      expect_tile(want, [&](int64_t e) { return static_cast<double>(at<int32_t>(run->outputs[0], e)); },
                  256 * w + 64 * kind, "kind " + std::to_string(kind));
    }
  }
  EXPECT_EQ(g_mismatches, 0);
}

// The PTX ISA's per-thread fragments (9.7.14.5), written from its tables: with g = lane >> 2,
// t = lane % 4 and p elements a register, A register j of m16n8kK holds row g (j even) or g + 8
// (j odd) at columns (j / 2) * 4p + t p + i; m8n8kK A is row g, columns t p + i; B register j holds
// rows j * 4p + t p + i of column g; C element i is row g (+ 8 for i >= 2), column 2t + i % 2.
struct IsaForm {
  int m, k, bits;
  bool a_signed, b_signed, satfinite;
  int op; // 0 multiply, 1 b1 and, 2 b1 xor
};

std::vector<int64_t> isa_reference(const IsaForm& f, const std::function<uint32_t(int, int)>& a_reg,
                                   const std::function<uint32_t(int, int)>& b_reg,
                                   const std::function<int64_t(int, int)>& c_elem)
{
  int p = 32 / f.bits;
  std::vector<std::vector<int64_t>> a(static_cast<size_t>(f.m), std::vector<int64_t>(static_cast<size_t>(f.k)));
  std::vector<std::vector<int64_t>> b(static_cast<size_t>(f.k), std::vector<int64_t>(8));
  auto element = [&](uint32_t word, int i, bool is_signed) {
    uint32_t raw = f.bits == 32 ? word : (word >> (i * f.bits)) & ((1U << f.bits) - 1U);
    if (is_signed && f.bits > 1 && (raw >> (f.bits - 1)) != 0) {
      return static_cast<int64_t>(raw) - (int64_t{1} << f.bits);
    }
    return static_cast<int64_t>(raw);
  };
  int a_regs = f.m * f.k / (32 * p);
  int b_regs = f.k * 8 / (32 * p);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane >> 2;
    int t = lane % 4;
    for (int j = 0; j < a_regs; ++j) {
      for (int i = 0; i < p; ++i) {
        int row = f.m == 16 ? g + 8 * (j % 2) : g;
        int col = (f.m == 16 ? (j / 2) : j) * 4 * p + t * p + i;
        a[static_cast<size_t>(row)][static_cast<size_t>(col)] = element(a_reg(lane, j), i, f.a_signed);
      }
    }
    for (int j = 0; j < b_regs; ++j) {
      for (int i = 0; i < p; ++i) {
        b[static_cast<size_t>(j * 4 * p + t * p + i)][static_cast<size_t>(g)] = element(b_reg(lane, j), i, f.b_signed);
      }
    }
  }
  std::vector<int64_t> d; // lane-major, C elements per lane
  int c_count = f.m * 8 / 32;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < c_count; ++i) {
      int row = (lane >> 2) + 8 * (i >= 2 ? 1 : 0);
      int col = 2 * (lane % 4) + i % 2;
      int64_t sum = c_elem(lane, i);
      for (int k = 0; k < f.k; ++k) {
        int64_t x = a[static_cast<size_t>(row)][static_cast<size_t>(k)];
        int64_t y = b[static_cast<size_t>(k)][static_cast<size_t>(col)];
        sum += f.op == 0 ? x * y : f.op == 1 ? (x & y) : (x ^ y);
      }
      d.push_back(wrap_or_clamp(sum, f.satfinite));
    }
  }
  return d;
}

TEST(TranslateMmaForms, MmaIntegerFormsFollowTheIsaFragments)
{
  std::optional<CaseRun> run = run_case("mat_mma_int");
  ASSERT_TRUE(run);
  const IsaForm forms[] = {
      {8, 16, 8, true, true, false, 0},    {8, 16, 8, false, true, false, 0},
      {8, 16, 8, false, false, true, 0},   {8, 32, 4, true, true, false, 0},
      {8, 32, 4, false, true, true, 0},    {8, 128, 1, false, false, false, 2},
      {8, 128, 1, false, false, false, 1}, {16, 16, 8, true, true, false, 0},
      {16, 16, 8, true, false, true, 0},   {16, 32, 8, true, true, false, 0},
      {16, 32, 8, false, false, true, 0},  {16, 32, 4, true, false, false, 0},
      {16, 64, 4, true, true, false, 0},   {16, 64, 4, false, false, true, 0},
      {16, 128, 1, false, false, false, 1}, {16, 256, 1, false, false, false, 2}};
  int mismatches = 0;
  for (int block = 0; block < 2; ++block) {
    for (int f = 0; f < 16; ++f) {
      auto word = [&](int64_t index) { return at<uint32_t>(run->inputs[0], 512 * block + index); };
      std::vector<int64_t> want = isa_reference(
          forms[f], [&](int lane, int j) { return word(8 * lane + j); },
          [&](int lane, int j) { return word(256 + 4 * lane + j); },
          [&](int lane, int i) { return static_cast<int64_t>(at<int32_t>(run->inputs[1], 128 * block + 4 * lane + i)); });
      int per_lane = forms[f].m * 8 / 32;
      for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < per_lane; ++i) {
          int32_t got = at<int32_t>(run->outputs[0], 2048 * block + 128 * f + 4 * lane + i);
          if (got != want[static_cast<size_t>(lane * per_lane + i)] && ++mismatches < 20) {
            ADD_FAILURE() << "form " << f << " lane " << lane << " element " << i << ": " << got
                          << ", want " << want[static_cast<size_t>(lane * per_lane + i)];
          }
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// The same fragments for the floating-point forms: element i of A register j of lane l is
// a_elem(l, j, i), p elements a register; D as doubles, lane-major.
std::vector<double> isa_float_reference(int m, int k, int p,
                                        const std::function<double(int, int, int)>& a_elem,
                                        const std::function<double(int, int, int)>& b_elem,
                                        const std::function<double(int, int)>& c_elem)
{
  std::vector<std::vector<double>> a(static_cast<size_t>(m), std::vector<double>(static_cast<size_t>(k)));
  std::vector<std::vector<double>> b(static_cast<size_t>(k), std::vector<double>(8));
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane >> 2;
    int t = lane % 4;
    for (int j = 0; j < m * k / (32 * p); ++j) {
      for (int i = 0; i < p; ++i) {
        int row = m == 16 ? g + 8 * (j % 2) : g;
        int col = (m == 16 ? j / 2 : j) * 4 * p + t * p + i;
        a[static_cast<size_t>(row)][static_cast<size_t>(col)] = a_elem(lane, j, i);
      }
    }
    for (int j = 0; j < k * 8 / (32 * p); ++j) {
      for (int i = 0; i < p; ++i) {
        b[static_cast<size_t>(j * 4 * p + t * p + i)][static_cast<size_t>(g)] = b_elem(lane, j, i);
      }
    }
  }
  std::vector<double> d;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < m * 8 / 32; ++i) {
      int row = (lane >> 2) + 8 * (i >= 2 ? 1 : 0);
      int col = 2 * (lane % 4) + i % 2;
      double sum = c_elem(lane, i);
      for (int kk = 0; kk < k; ++kk) {
        sum += a[static_cast<size_t>(row)][static_cast<size_t>(kk)] * b[static_cast<size_t>(kk)][static_cast<size_t>(col)];
      }
      d.push_back(sum);
    }
  }
  return d;
}

TEST(TranslateMmaForms, MmaFloatFormsFollowTheIsaFragments)
{
  std::optional<CaseRun> run = run_case("mat_mma_float");
  ASSERT_TRUE(run);
  const std::vector<std::byte>& h = run->inputs[0];
  const std::vector<std::byte>& f = run->inputs[1];
  const std::vector<std::byte>& dbl = run->inputs[2];
  auto half_at = [&](int64_t word, int i) { return f16_value(at<uint16_t>(h, 2 * word + i)); };
  auto f32_at = [&](int64_t index) { return static_cast<double>(at<float>(f, index)); };
  // bf16 words made in the kernel from pairs of f32 integers (their high halves).
  auto bf16_at = [&](int64_t first, int i) {
    return bf16_value(static_cast<uint16_t>(at<uint32_t>(f, first + i) >> 16));
  };
  int mismatches = 0;
  auto check = [&](const std::vector<double>& want, const std::function<double(int64_t)>& got,
                   int per_lane, int64_t stride, const char* what) {
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < per_lane; ++i) {
        double value = got(stride * lane + i);
        double expected = want[static_cast<size_t>(lane * per_lane + i)];
        if (value != expected && ++mismatches < 20) {
          ADD_FAILURE() << what << " lane " << lane << " element " << i << ": " << value << ", want " << expected;
        }
      }
    }
  };
  auto out = [&](int64_t base) {
    return [&, base](int64_t i) { return static_cast<double>(at<float>(run->outputs[0], base + i)); };
  };
  auto out_half = [&](int64_t base) { // f16x2 D words stored at out (as u32) + base + 8 lane
    return [&, base](int64_t i) {
      int64_t lane = i / 8;
      int64_t e = i % 8;
      return f16_value(at<uint16_t>(run->outputs[0], 2 * (base + 8 * lane + e / 2) + e % 2));
    };
  };
  auto outd = [&](int64_t base) { return [&, base](int64_t i) { return at<double>(run->outputs[1], base + i); }; };
  auto fc = [&](int offset) {
    return [&, offset](int lane, int i) { return f32_at(512 + 8 * lane + offset + i); };
  };
  check(isa_float_reference(16, 8, 2, [&](int l, int j, int i) { return half_at(8 * l + j, i); },
                            [&](int l, int j, int i) { return half_at(256 + 4 * l + j, i); }, fc(0)),
        out(0), 4, 8, "m16n8k8 f16");
  check(isa_float_reference(16, 8, 2, [&](int l, int j, int i) { return half_at(8 * l + j, i); },
                            [&](int l, int j, int i) { return half_at(256 + 4 * l + j, i); },
                            [&](int l, int i) { return half_at(512 + 8 * l + i / 2, i % 2); }),
        out_half(256), 4, 8, "m16n8k8 f16 C/D");
  check(isa_float_reference(16, 8, 2, [&](int l, int j, int i) { return bf16_at(8 * l + 2 * j, i); },
                            [&](int l, int j, int i) { return bf16_at(256 + 4 * l + 2 * j, i); }, fc(0)),
        out(512), 4, 8, "m16n8k8 bf16");
  check(isa_float_reference(16, 8, 1, [&](int l, int j, int) { return f32_at(8 * l + j); },
                            [&](int l, int j, int) { return f32_at(256 + 4 * l + j); }, fc(0)),
        out(768), 4, 8, "m16n8k8 tf32");
  check(isa_float_reference(16, 4, 1, [&](int l, int j, int) { return f32_at(8 * l + 4 + j); },
                            [&](int l, int j, int) { return f32_at(256 + 4 * l + 2 + j); }, fc(4)),
        out(1024), 4, 8, "m16n8k4 tf32");
  auto da = [&](int l, int j, int) { return at<double>(dbl, 8 * l + j); };
  auto db = [&](int l, int j, int) { return at<double>(dbl, 256 + 4 * l + j); };
  auto dc = [&](int l, int i) { return at<double>(dbl, 512 + 4 * l + i); };
  check(isa_float_reference(8, 4, 1, da, db, dc), outd(0), 2, 4, "m8n8k4 f64");
  check(isa_float_reference(16, 4, 1, da, db, dc), outd(128), 4, 4, "m16n8k4 f64");
  check(isa_float_reference(16, 8, 1, da, db, dc), outd(256), 4, 4, "m16n8k8 f64");
  check(isa_float_reference(16, 16, 1, da, db, dc), outd(384), 4, 4, "m16n8k16 f64");
  EXPECT_EQ(mismatches, 0);
}

// mma.m8n8k4.row.col.f32.f16.f16.f32 (PTX ISA 9.7.14.5.1): computation q = (L % 16) / 4 on
// lanes 4q.. and 16 + 4q.. (hi = 4 for the latter); A row-major: A_q[L%4 + hi][i]; B column-major:
// B_q[i][L%4 + hi]; C/D f32: row (L & 1) + (i & 2) + hi, column (i & 4) + (L & 2) + (i & 1).
TEST(TranslateMmaForms, MmaM8n8k4F16FollowsTheQuadPairFragments)
{
  std::optional<CaseRun> run = run_case("mat_mma_m8n8k4_f16");
  ASSERT_TRUE(run);
  auto half_at = [&](int64_t word, int i) { return f16_value(at<uint16_t>(run->inputs[0], 2 * word + i)); };
  double a[4][8][4] = {};
  double b[4][4][8] = {};
  for (int lane = 0; lane < 32; ++lane) {
    int q = (lane % 16) / 4;
    int hi = lane >= 16 ? 4 : 0;
    for (int i = 0; i < 4; ++i) {
      a[q][lane % 4 + hi][i] = half_at(8 * lane + i / 2, i % 2);
      b[q][i][lane % 4 + hi] = half_at(256 + 4 * lane + i / 2, i % 2);
    }
  }
  int mismatches = 0;
  for (int lane = 0; lane < 32; ++lane) {
    int q = (lane % 16) / 4;
    int hi = lane >= 16 ? 4 : 0;
    for (int i = 0; i < 8; ++i) {
      int row = (lane & 1) + (i & 2) + hi;
      int col = (i & 4) + (lane & 2) + (i & 1);
      double want = at<float>(run->inputs[1], 512 + 8 * lane + i);
      for (int k = 0; k < 4; ++k) {
        want += a[q][row][k] * b[q][k][col];
      }
      double got = at<float>(run->outputs[0], 8 * lane + i);
      if (got != want && ++mismatches < 20) {
        ADD_FAILURE() << "lane " << lane << " element " << i << ": " << got << ", want " << want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// The other layouts of mma.m8n8k4 f16 (A column-major: A_q[i%4 + hi][L%4]; B row-major:
// B_q[L%4][i + hi]), whose registers hold elements of two rows (columns): fetched element by
// element. C is zero.
TEST(TranslateMmaForms, MmaM8n8k4F16ColumnMajorAAndRowMajorB)
{
  std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3;
  ld.b32 %r2, [%rd4];
  ld.b32 %r3, [%rd4+4];
  ld.b32 %r4, [%rd4+8];
  ld.b32 %r5, [%rd4+12];
  mov.f32 %f1, 0f00000000;
  mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r2, %r3}, {%r4, %r5}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};
  mul.wide.u32 %rd5, %r1, 32;
  add.s64 %rd6, %rd1, %rd5;
  st.f32 [%rd6], %f9;
  st.f32 [%rd6+4], %f10;
  st.f32 [%rd6+8], %f11;
  st.f32 [%rd6+12], %f12;
  st.f32 [%rd6+16], %f13;
  st.f32 [%rd6+20], %f14;
  st.f32 [%rd6+24], %f15;
  st.f32 [%rd6+28], %f16;
  ret;
}
)";
  PtxBuild build;
  std::string log;
  Expected<translate::Translation> translation = translate_ptx(text, build, translate::TargetKind::host, log);
  ASSERT_TRUE(translation) << translation.error().message;
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  ASSERT_TRUE(executor) << executor.error().message;
  // Small integers -3..3 as f16 bits, two a word.
  const uint16_t k_small[7] = {0xc200, 0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000, 0x4200};
  std::vector<uint16_t> in(32 * 8);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = k_small[(i * 5 + i / 7) % 7];
  }
  std::vector<float> out(32 * 8, -1.0f);
  std::vector<std::byte> params(16);
  void* out_pointer = out.data();
  const void* in_pointer = in.data();
  std::memcpy(params.data(), &out_pointer, 8);
  std::memcpy(params.data() + 8, &in_pointer, 8);
  cpu::LaunchShape shape;
  shape.block = {32, 1, 1};
  Expected<cpu::LaunchStats> stats = (*executor)->launch("k", shape, params);
  ASSERT_TRUE(stats) << stats.error().message;
  double a[4][8][4] = {};
  double b[4][4][8] = {};
  for (int lane = 0; lane < 32; ++lane) {
    int q = (lane % 16) / 4;
    int hi = lane >= 16 ? 4 : 0;
    for (int i = 0; i < 4; ++i) {
      a[q][i % 4 + hi][lane % 4] = f16_value(in[static_cast<size_t>(8 * lane + i)]);
      b[q][lane % 4][i + hi] = f16_value(in[static_cast<size_t>(8 * lane + 4 + i)]);
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    int q = (lane % 16) / 4;
    int hi = lane >= 16 ? 4 : 0;
    for (int i = 0; i < 8; ++i) {
      int row = (lane & 1) + (i & 2) + hi;
      int col = (i & 4) + (lane & 2) + (i & 1);
      double want = 0;
      for (int k = 0; k < 4; ++k) {
        want += a[q][row][k] * b[q][k][col];
      }
      EXPECT_EQ(out[static_cast<size_t>(8 * lane + i)], want) << "lane " << lane << " element " << i;
    }
  }
}

// mma_m8n8k4_more: col.row f32 C/D, row.row f16 C/D, col.col f16 C with f32 D, from the ISA's
// quad-pair formulas (9.7.14.5.1; MmaM8n8k4F16FollowsTheQuadPairFragments has them in words).
TEST(TranslateMmaForms, MmaM8n8k4OtherLayoutsAndAccumulators)
{
  std::optional<CaseRun> run = run_case("mat_mma_m8n8k4_more");
  ASSERT_TRUE(run);
  auto half_at = [&](int64_t word, int i) { return f16_value(at<uint16_t>(run->inputs[0], 2 * word + i)); };
  struct Layouts {
    bool a_row, b_row;
  };
  // Block q's A (8x4) and B (4x8) as the lanes' registers hold them in `layouts`.
  auto matrices = [&](Layouts layouts, double (&a)[4][8][4], double (&b)[4][4][8]) {
    for (int lane = 0; lane < 32; ++lane) {
      int q = (lane % 16) / 4;
      int hi = lane >= 16 ? 4 : 0;
      for (int i = 0; i < 4; ++i) {
        double av = half_at(8 * lane + i / 2, i % 2);
        double bv = half_at(256 + 4 * lane + i / 2, i % 2);
        if (layouts.a_row) {
          a[q][lane % 4 + hi][i] = av;
        } else {
          a[q][i % 4 + hi][lane % 4] = av;
        }
        if (layouts.b_row) {
          b[q][lane % 4][i + hi] = bv;
        } else {
          b[q][i][lane % 4 + hi] = bv;
        }
      }
    }
  };
  // (row, col) of accumulator element i of lane `lane` in block q's 8x8.
  auto f32_pos = [](int lane, int i) {
    return std::pair<int, int>{(lane & 1) + (i & 2) + (lane >= 16 ? 4 : 0), (i & 4) + (lane & 2) + (i & 1)};
  };
  auto f16_pos = [](int lane, int i) { return std::pair<int, int>{lane % 4 + (lane >= 16 ? 4 : 0), i}; };
  struct Form {
    Layouts layouts;
    bool c_f16, d_f16;
  };
  const Form forms[3] = {{{false, true}, false, false}, {{true, true}, true, true}, {{false, false}, true, false}};
  int mismatches = 0;
  for (int f = 0; f < 3; ++f) {
    double a[4][8][4] = {};
    double b[4][4][8] = {};
    matrices(forms[f].layouts, a, b);
    double c[4][8][8] = {};
    for (int lane = 0; lane < 32; ++lane) {
      int q = (lane % 16) / 4;
      for (int i = 0; i < 8; ++i) {
        auto [r, col] = forms[f].c_f16 ? f16_pos(lane, i) : f32_pos(lane, i);
        c[q][r][col] = forms[f].c_f16 ? half_at(512 + 4 * lane + i / 2, i % 2)
                                      : static_cast<double>(at<float>(run->inputs[1], 512 + 8 * lane + i));
      }
    }
    for (int lane = 0; lane < 32; ++lane) {
      int q = (lane % 16) / 4;
      for (int i = 0; i < 8; ++i) {
        auto [r, col] = forms[f].d_f16 ? f16_pos(lane, i) : f32_pos(lane, i);
        double want = c[q][r][col];
        for (int k = 0; k < 4; ++k) {
          want += a[q][r][k] * b[q][k][col];
        }
        double got = forms[f].d_f16
                         ? f16_value(at<uint16_t>(run->outputs[1], 2 * (4 * lane + i / 2) + i % 2))
                         : static_cast<double>(at<float>(run->outputs[0], (f == 2 ? 256 : 0) + 8 * lane + i));
        if (got != want && ++mismatches < 20) {
          ADD_FAILURE() << "form " << f << " lane " << lane << " element " << i << ": " << got << ", want " << want;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(TranslateMmaForms, MovmatrixAndStmatrixPlaceElementsAsTheIsa)
{
  std::optional<CaseRun> run = run_case("mat_movmatrix_stmatrix");
  ASSERT_TRUE(run);
  auto w = [&](int64_t i) { return at<uint32_t>(run->inputs[0], i); };
  auto half = [&](uint32_t word, int j) { return static_cast<uint16_t>(word >> (16 * j)); };
  int mismatches = 0;
  auto check = [&](int64_t index, uint32_t want) {
    uint32_t got = at<uint32_t>(run->outputs[0], index);
    if (got != want && ++mismatches < 20) {
      ADD_FAILURE() << "word " << index << ": " << std::hex << got << ", want " << want;
    }
  };
  // movmatrix: M[r][c] is half c % 2 of lane 4r + c/2's word; lane t gets M[2(t%4) + j][t/4].
  for (int t = 0; t < 32; ++t) {
    uint32_t want = 0;
    for (int j = 0; j < 2; ++j) {
      int r = 2 * (t % 4) + j;
      int c = t / 4;
      want |= static_cast<uint32_t>(half(w(4 * (4 * r + c / 2)), c % 2)) << (16 * j);
    }
    check(t, want);
  }
  // stmatrix into rows R(l) = (5l + 3) % 32 of a 32 x 8 b16 table (0xffff elsewhere).
  const int counts[6] = {1, 2, 4, 1, 2, 4};
  for (int k = 0; k < 6; ++k) {
    std::vector<uint16_t> table(32 * 8, 0xffff);
    bool trans = k >= 3;
    for (int j = 0; j < counts[k]; ++j) {
      for (int t = 0; t < 32; ++t) {
        for (int e = 0; e < 2; ++e) {
          uint16_t value = half(w(4 * t + j), e);
          int row = t / 4;
          int col = 2 * (t % 4) + e;
          int lane = 8 * j + (trans ? col : row);
          int at_col = trans ? row : col;
          table[static_cast<size_t>(((5 * lane + 3) % 32) * 8 + at_col)] = value;
        }
      }
    }
    for (int i = 0; i < 128; ++i) {
      check(32 + 128 * k + i, static_cast<uint32_t>(table[static_cast<size_t>(2 * i)]) |
                                  static_cast<uint32_t>(table[static_cast<size_t>(2 * i + 1)]) << 16);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// PTX before ISA 6.3 wrote wmma without .aligned (wmma.load.a.sync.row.m16n16k16.f16): the
// same kernels without it translate, and give the same results (mat_wmma_f16_ints' inputs).
TEST(TranslateMmaForms, WmmaWithoutAlignedTranslates)
{
  std::string text = read_text(k_repo / "tests/ptx/isa/matrix_more.sm_90.ptx");
  size_t removed = 0;
  for (size_t at = text.find("wmma."); at != std::string::npos; at = text.find("wmma.", at + 1)) {
    size_t aligned = text.find(".aligned", at);
    size_t end = text.find_first_of(" \t", at);
    if (aligned != std::string::npos && aligned < end) {
      text.erase(aligned, 8);
      ++removed;
    }
  }
  EXPECT_GT(removed, 100U);
  for (const char* kernel : {"wmma_f16", "wmma_int8", "wmma_sub_byte"}) {
    SCOPED_TRACE(kernel);
    PtxBuild build;
    build.entry = kernel;
    std::string log;
    Expected<translate::Translation> translation =
        translate_ptx(text, build, translate::TargetKind::host, log);
    EXPECT_TRUE(translation) << translation.error().message;
  }
}

TEST(TranslateMmaForms, EveryKernelBuildsForGfx11AndGfx12)
{
  std::string text = read_text(k_repo / "tests/ptx/isa/matrix_more.sm_90.ptx");
  for (const char* kernel : {"wmma_f16", "wmma_bf16", "wmma_int8", "wmma_tf32_f64", "wmma_sub_byte",
                             "mma_int", "mma_float", "mma_m8n8k4_f16", "mma_m8n8k4_more",
                             "mma_fp8", "movmatrix_stmatrix"}) {
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
