// wgmma (lower_wgmma.cpp, wgmma_layout.hpp):
// - the layout functions: D and A-in-registers fragments against mma.sync's (mma_layout.hpp, whose
//   tests check them against the ISA's tables) warp by warp, each D element once; descriptor
//   fields; canonical shared-memory tiles map one element to one address, swizzled rows as the
//   ISA's 16-byte-chunk XOR pattern;
// - tests/ptx/isa/wgmma.cu and wgmma_b1.cu on the CPU executor with the inputs of the exact
//   golden cases (small integers, s8/u8, b1: any order of summation gives one answer), against a
//   reference computed here
//   from the case's inputs: the forms are read from the PTX itself, A and B from the image through
//   the descriptors, the A registers and the D registers placed by the ISA's formulas written
//   again here;
// - every kernel builds for gfx1100 and gfx1201; the forms it does not implement are rejected.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/ptx_build.hpp"
#include "compiler/translate/mma_layout.hpp"
#include "compiler/translate/wgmma_layout.hpp"
#include "test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace d4r::compiler {
namespace {

namespace fs = std::filesystem;
using translate::WgmmaPos;

const fs::path k_repo = fs::path(D4R_TEST_SOURCE_DIR).parent_path();

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WgmmaLayout, DIsMmaAccumulatorPerWarpAndCoversTheTileOnce)
{
  std::optional<translate::Fragment> c = translate::mma_fragment({16, 8, 16}, translate::MmaOperand::c, 32);
  ASSERT_TRUE(c);
  for (int n : {8, 24, 64, 256}) {
    std::set<std::pair<int, int>> seen;
    for (int thread = 0; thread < 128; ++thread) {
      for (int e = 0; e < n / 2; ++e) {
        WgmmaPos pos = translate::wgmma_d_position(thread, e);
        translate::MatrixPos mma = c->at(thread & 31, e % 4, 0);
        EXPECT_EQ(pos.row, 16 * (thread / 32) + mma.row);
        EXPECT_EQ(pos.col, 8 * (e / 4) + mma.col);
        EXPECT_TRUE(seen.insert({pos.row, pos.col}).second);
      }
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(64 * n));
  }
}

TEST(WgmmaLayout, RegisterAIsMmaAPerWarp)
{
  struct Kind {
    int bits;
    translate::MmaShape shape;
  };
  for (Kind kind : {Kind{16, {16, 8, 16}}, Kind{32, {16, 8, 8}}, Kind{8, {16, 8, 32}}}) {
    std::optional<translate::Fragment> a = translate::mma_fragment(kind.shape, translate::MmaOperand::a, kind.bits);
    ASSERT_TRUE(a);
    ASSERT_EQ(a->registers, 4);
    for (int thread = 0; thread < 128; ++thread) {
      for (int reg = 0; reg < 4; ++reg) {
        for (int sub = 0; sub < 32 / kind.bits; ++sub) {
          WgmmaPos pos = translate::wgmma_a_position(thread, reg, sub, kind.bits);
          translate::MatrixPos mma = a->at(thread & 31, reg, sub);
          EXPECT_EQ(pos, (WgmmaPos{16 * (thread / 32) + mma.row, mma.col}));
        }
      }
    }
  }
}

TEST(WgmmaLayout, DescriptorFields)
{
  uint64_t bits = 0x12aU | uint64_t{0x8} << 16 | uint64_t{0x40} << 32 | uint64_t{5} << 49 | uint64_t{2} << 62;
  translate::WgmmaDescriptor d = translate::wgmma_descriptor(bits | uint64_t{3} << 14 | uint64_t{1} << 46);
  EXPECT_EQ(d.start, 0x12a0U);
  EXPECT_EQ(d.lbo, 0x80U);
  EXPECT_EQ(d.sbo, 0x400U);
  EXPECT_EQ(d.base, 5U);
  EXPECT_EQ(d.mode, 2U);
}

// Canonical tiles (the strides CUTLASS's GMMA atoms give): every element of a 64 x K (K = 32
// bytes) operand at its own address, swizzled K-major rows permuting 16-byte chunks by
// chunk ^ (row % 8) (128 B), chunk ^ (row / 2 % 4) (64 B), chunk ^ (row / 4 % 2) (32 B).
TEST(WgmmaLayout, CanonicalTilesAreOneToOneAndSwizzleChunks)
{
  for (uint32_t mode = 0; mode < 4; ++mode) {
    for (bool mn_major : {false, true}) {
      int width = 1 << translate::wgmma_width_shift(mode);
      translate::WgmmaDescriptor d;
      d.start = 4096;
      d.mode = mode;
      if (!mn_major) {
        d.lbo = mode == 0 ? 128 : 16;
        d.sbo = mode == 0 ? 256 : 8 * static_cast<uint32_t>(width);
      } else {
        d.lbo = mode == 0 ? 8 * 128 : 2 * 8 * static_cast<uint32_t>(width);
        d.sbo = mode == 0 ? 128 : 8 * static_cast<uint32_t>(width);
      }
      std::set<uint32_t> addresses;
      for (int mn = 0; mn < 64; ++mn) {
        for (int k = 0; k < 16; ++k) {
          uint32_t address = translate::wgmma_address(d, mn, k, 2, mn_major);
          EXPECT_TRUE(addresses.insert(address).second) << mode << " " << mn << " " << k;
          EXPECT_EQ(address % 2, 0U);
          if (!mn_major && mode != 0) {
            uint32_t row = static_cast<uint32_t>(mn % 8);
            uint32_t chunk = static_cast<uint32_t>(2 * k / 16);
            uint32_t phase = (row * static_cast<uint32_t>(width) / 128) % (static_cast<uint32_t>(width) / 16);
            uint32_t want = 4096 + static_cast<uint32_t>(mn / 8) * d.sbo + row * static_cast<uint32_t>(width) +
                            16 * (chunk ^ phase) + static_cast<uint32_t>(2 * k % 16);
            EXPECT_EQ(address, want) << mode << " " << mn << " " << k;
          }
        }
      }
      if (mn_major || width <= 32) { // K-major rows wider than 32 bytes leave room for more K
        EXPECT_EQ(*addresses.rbegin() - *addresses.begin(), uint32_t{64 * 32 - 2});
      }
    }
  }
}

// One wgmma.mma_async of a kernel, as the PTX spells it.
struct Form {
  int n = 0;
  int k = 0;
  bool satfinite = false;
  std::string d, a, b;
  bool a_registers = false;
  std::vector<int> immediates; // scale-a, scale-b, [trans-a], trans-b
  int words() const { return d == "f16" ? n / 4 : n / 2; }
  int bits() const { return a == "f16" || a == "bf16" ? 16 : a == "tf32" || a == "b1" ? 32 : 8; } // b1: words
};

std::vector<Form> forms_of(const std::string& ptx, const std::string& kernel)
{
  size_t begin = ptx.find(".entry " + kernel + "(");
  size_t end = ptx.find(".entry ", begin + 1);
  std::string body = ptx.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  std::regex spelling(
      R"(wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)(\.satfinite)?\.(\w+)\.(\w+)\.(\w+)(?:\.and\.popc)? \{[^}]*\}, ([^;]*);)");
  std::vector<Form> forms;
  for (std::sregex_iterator it(body.begin(), body.end(), spelling), last; it != last; ++it) {
    const std::smatch& m = *it;
    Form form;
    form.n = std::stoi(m[1]);
    form.k = std::stoi(m[2]);
    form.satfinite = m[3].matched;
    form.d = m[4];
    form.a = m[5];
    form.b = m[6];
    std::string rest = m[7];
    form.a_registers = rest.starts_with("{");
    if (form.a_registers) {
      rest = rest.substr(rest.find('}') + 1);
    }
    std::stringstream items(rest);
    std::string item;
    int index = 0;
    while (std::getline(items, item, ',')) { // A (or nothing after {...}), B, scale-d, immediates
      if (index++ >= 3) {
        form.immediates.push_back(std::stoi(item));
      }
    }
    forms.push_back(form);
  }
  return forms;
}

template <typename T> T at(const std::vector<std::byte>& bytes, int64_t index)
{
  T value{};
  std::memcpy(&value, bytes.data() + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

double element_value(const std::string& type, uint32_t bits)
{
  if (type == "f16") {
    int exponent = (bits >> 10) & 31;
    double magnitude = exponent == 0 ? std::ldexp(bits & 1023, -24) : std::ldexp((bits & 1023) | 1024, exponent - 25);
    return (bits & 0x8000) != 0 ? -magnitude : magnitude;
  }
  if (type == "bf16") {
    return std::bit_cast<float>((bits & 0xffffU) << 16);
  }
  if (type == "tf32") {
    return std::bit_cast<float>(bits & 0xffffe000U);
  }
  if (type == "b1") { // a word of 32 elements, exact in a double
    return bits;
  }
  if (type == "s8") {
    return static_cast<int8_t>(bits & 0xff);
  }
  return bits & 0xff;
}

struct Run {
  std::vector<std::vector<std::byte>> inputs; // image, table, c32, c16, aregs
  std::vector<std::vector<std::byte>> outputs;
};

fs::path case_path(const std::string& name)
{
  fs::path recorded = k_repo / "tests/golden/cases" / (name + ".case");
  return fs::exists(recorded) ? recorded : fs::path(recorded.string() + ".pending");
}

std::optional<Run> run_case(const std::string& name, std::string* kernel)
{
  Expected<cpu::LaunchCase> parsed = cpu::read_launch_case(case_path(name));
  if (!parsed) {
    ADD_FAILURE() << parsed.error().message;
    return std::nullopt;
  }
  *kernel = parsed->kernel;
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
  cpu::LaunchShape shape{parsed->grid, parsed->block, parsed->dynamic_shared};
  Expected<cpu::LaunchStats> stats = (*executor)->launch(parsed->kernel, shape, host->params());
  if (!stats) {
    ADD_FAILURE() << stats.error().message;
    return std::nullopt;
  }
  Run run;
  for (const cpu::Param& param : parsed->params) {
    const cpu::Arg& arg = param.arg;
    if (arg.kind == cpu::ArgKind::buffer && arg.buffer.direction == cpu::Direction::in) {
      run.inputs.push_back(cpu::generate_fill(arg.buffer.fill, arg.buffer.type, arg.buffer.count));
    }
  }
  for (size_t i = 0; i < parsed->outputs.size(); ++i) {
    std::span<const std::byte> bytes = host->output_bytes(static_cast<int64_t>(i));
    run.outputs.emplace_back(bytes.begin(), bytes.end());
  }
  return run;
}

// Element (row, k) of A or (col, k) of B through a descriptor.
double shared_value(const Run& run, uint64_t descriptor, int mn, int k, const std::string& type, bool mn_major)
{
  translate::WgmmaDescriptor d = translate::wgmma_descriptor(descriptor);
  int bytes = type == "f16" || type == "bf16" ? 2 : type == "tf32" || type == "b1" ? 4 : 1;
  uint32_t address = translate::wgmma_address(d, mn, k, bytes, mn_major);
  uint32_t bits = 0;
  std::memcpy(&bits, run.inputs[0].data() + address, static_cast<size_t>(bytes));
  return element_value(type, bits);
}

// The whole exact check of one case: every D element of every form.
void check_exact_case(const std::string& name, const std::string& ptx_file = "wgmma.sm_90a.ptx")
{
  SCOPED_TRACE(name);
  std::string kernel;
  std::optional<Run> run = run_case(name, &kernel);
  ASSERT_TRUE(run);
  std::vector<Form> forms = forms_of(read_text(k_repo / "tests/ptx/isa" / ptx_file), kernel);
  ASSERT_GE(forms.size(), 5U);
  std::map<bool, int64_t> offset; // by "f16 D": the form's first word in c16/out16, else c32/out32
  int mismatches = 0;
  for (size_t f = 0; f < forms.size(); ++f) {
    const Form& form = forms[f];
    bool half = form.d == "f16";
    bool floats = form.d != "s32";
    int sa = floats ? form.immediates.at(0) : 1;
    int sb = floats ? form.immediates.at(1) : 1;
    bool trans_b = form.bits() == 16 && form.immediates.back() == 1;
    bool trans_a = form.bits() == 16 && !form.a_registers && form.immediates.at(2) == 1;
    uint64_t da = at<uint64_t>(run->inputs[1], static_cast<int64_t>(3 * f));
    uint64_t db = at<uint64_t>(run->inputs[1], static_cast<int64_t>(3 * f + 1));
    bool scale_d = at<uint64_t>(run->inputs[1], static_cast<int64_t>(3 * f + 2)) != 0;
    bool single_bit = form.a == "b1";
    int k_elements = single_bit ? 8 : form.k; // b1: a row of 256 is 8 words
    std::vector<std::vector<double>> a(64, std::vector<double>(static_cast<size_t>(k_elements)));
    for (int row = 0; row < 64; ++row) {
      for (int k = 0; k < k_elements && !form.a_registers; ++k) {
        a[row][k] = shared_value(*run, da, row, k, form.a, trans_a);
      }
    }
    if (form.a_registers) { // the ISA's figure: row 16w + g + 8 (r & 1), K q p + s, q = 4 (r >> 1) + t
      int per = 32 / form.bits();
      for (int thread = 0; thread < 128; ++thread) {
        for (int r = 0; r < 4; ++r) {
          uint32_t word = at<uint32_t>(run->inputs[4], static_cast<int64_t>(f) * 512 + thread * 4 + r);
          int lane = thread % 32;
          int row = 16 * (thread / 32) + lane / 4 + 8 * (r % 2);
          for (int s = 0; s < per; ++s) {
            uint32_t bits = form.bits() == 32 ? word : (word >> (s * form.bits())) & ((1U << form.bits()) - 1);
            a[row][(4 * (r / 2) + lane % 4) * per + s] = element_value(form.a, bits);
          }
        }
      }
    }
    int64_t base = offset[half];
    offset[half] += 128 * form.words();
    for (int thread = 0; thread < 128; ++thread) {
      for (int e = 0; e < form.n / 2; ++e) {
        int lane = thread % 32;
        int row = 16 * (thread / 32) + lane / 4 + 8 * ((e / 2) % 2);
        int col = 8 * (e / 4) + 2 * (lane % 4) + e % 2;
        double sum = 0;
        for (int k = 0; k < k_elements; ++k) {
          double b = shared_value(*run, db, col, k, form.b, trans_b);
          sum += single_bit ? std::popcount(static_cast<uint32_t>(a[row][k]) & static_cast<uint32_t>(b)) : a[row][k] * b;
        }
        sum *= sa * sb;
        int64_t word = base + thread * form.words() + (half ? e / 2 : e);
        double got = 0;
        if (half) {
          uint32_t bits = at<uint32_t>(run->inputs[3], word) >> (16 * (e % 2));
          sum += scale_d ? element_value("f16", bits & 0xffff) : 0;
          got = element_value("f16", (at<uint32_t>(run->outputs[1], word) >> (16 * (e % 2))) & 0xffff);
        } else if (floats) {
          sum += scale_d ? static_cast<double>(at<float>(run->inputs[2], word)) : 0.0;
          got = static_cast<double>(at<float>(run->outputs[0], word));
        } else {
          sum += scale_d ? at<int32_t>(run->inputs[2], word) : 0;
          if (form.satfinite) {
            sum = std::clamp(sum, -2147483648.0, 2147483647.0);
          } else {
            sum = static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(sum))));
          }
          got = at<int32_t>(run->outputs[0], word);
        }
        if (got != sum && ++mismatches < 10) {
          ADD_FAILURE() << "form " << f << " (m64n" << form.n << " " << form.d << "." << form.a
                        << ") thread " << thread << " element " << e << ": " << got << ", want " << sum;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(WgmmaRun, F16SmallIntegersAreTheExactProduct)
{
  check_exact_case("wgmma_f16_ints");
}

TEST(WgmmaRun, Bf16SmallIntegersAreTheExactProduct)
{
  check_exact_case("wgmma_bf16_ints");
}

TEST(WgmmaRun, Tf32SmallIntegersAreTheExactProduct)
{
  check_exact_case("wgmma_tf32_ints");
}

TEST(WgmmaRun, IntegersAreTheExactProduct)
{
  check_exact_case("wgmma_int8_sw32");
  check_exact_case("wgmma_int8_mixed");
}

// .b1 (m64nNk256 .and.popc, A from shared memory and registers, N 8 to 256, every swizzle): the
// random, sparse, all-ones (C at the s32 edges: wrapping), all-zeros and single-bit cases.
TEST(WgmmaRun, SingleBitsAreThePopcountOfTheAnd)
{
  for (const char* name : {"wgmma_b1_random", "wgmma_b1_none", "wgmma_b1_sw32", "wgmma_b1_sw64", "wgmma_b1_sw128",
                           "wgmma_b1_base_offset", "wgmma_b1_ones", "wgmma_b1_zeros", "wgmma_b1_single"}) {
    check_exact_case(name, "wgmma_b1.sm_90a.ptx");
  }
}

TEST(WgmmaBuild, EveryKernelBuildsForGfx11AndGfx12)
{
  const std::pair<const char*, const char*> kernels[] = {
      {"wgmma_f16", "wgmma"},          {"wgmma_bf16", "wgmma"},       {"wgmma_tf32", "wgmma"},
      {"wgmma_int8", "wgmma"},         {"wgmma_fp8", "wgmma_more"},   {"wgmma_sp", "wgmma_more"},
      {"wgmma_sp_tf32", "wgmma_sparse2"}, {"wgmma_sp_regs", "wgmma_sparse2"}, {"wgmma_b1", "wgmma_b1"},
      {"wgmma_sp_fp8", "wgmma_b1"}};
  for (const auto& [kernel, file] : kernels) {
    std::string text = read_text(k_repo / "tests/ptx/isa" / (std::string(file) + ".sm_90a.ptx"));
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

std::string translated(const std::string& body)
{
  for (translate::TargetKind kind : {translate::TargetKind::host, translate::TargetKind::amdgpu}) {
    translate::TranslateOptions options =
        kind == translate::TargetKind::host ? translate::test::host_options() : translate::test::amdgpu_options("gfx1201");
    Expected<translate::Translation> translation =
        translate::test::translate_text(translate::test::kernel_text(body), options);
    if (!translation) {
      return translation.error().message;
    }
  }
  return "(translated)";
}

TEST(WgmmaForms, TheImplementedFormsTranslate)
{
  const char* d4 = "{%f1, %f2, %f3, %f4}";
  EXPECT_EQ(translated("  wgmma.fence.sync.aligned;\n  wgmma.commit_group.sync.aligned;\n"
                       "  wgmma.wait_group.sync.aligned 1;"),
            "(translated)");
  EXPECT_EQ(translated(std::string("  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 ") + d4 +
                       ", %rd3, %rd4, %p1, -1, 1, 1, 0;"),
            "(translated)");
  EXPECT_EQ(translated(std::string("  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ") + d4 +
                       ", {%r1, %r2, %r3, %r4}, %rd4, 1, 1, -1, 1;"),
            "(translated)");
  EXPECT_EQ(translated(std::string("  wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 ") + d4 +
                       ", %rd3, %rd4, !%p1, 1, 1;"),
            "(translated)");
  EXPECT_EQ(translated("  wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.u8 {%r1, %r2, %r3, %r4}, "
                       "%rd3, %rd4, 0;"),
            "(translated)");
  EXPECT_EQ(translated("  wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r1, %r2}, %rd3, %rd4, %p1, "
                       "1, 1, 0, 0;"),
            "(translated)");
  EXPECT_EQ(translated(std::string("  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 ") + d4 +
                       ", %rd3, %rd4, %r1, 1, %p1, 1, -1, 1, 0;"),
            "(translated)");
  EXPECT_EQ(translated(std::string("  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 ") + d4 +
                       ", {%r1, %r2, %r3, %r4}, %rd4, %r5, 0, %p1, 1, 1, 1;"),
            "(translated)");
  EXPECT_EQ(translated(std::string("  wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 ") + d4 +
                       ", %rd3, %rd4, %r1, 1, %p1, 1, 1;"),
            "(translated)");
  EXPECT_EQ(translated("  wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.u8.s8 {%r1, %r2, %r3, %r4}, "
                       "%rd3, %rd4, %r5, 0, %p1;"),
            "(translated)");
  EXPECT_EQ(translated("  wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, "
                       "%rd3, %rd4, %p1;"),
            "(translated)");
  EXPECT_EQ(translated("  wgmma.mma_async.sync.aligned.m64n24k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4, %r5, "
                       "%r6, %r7, %r8, %r9, %r10, %r11, %r12}, {%r13, %r14, %r15, %r1}, %rd4, 1;"),
            "(translated)");
  for (const char* types : {"f32.e4m3.e4m3", "f32.e5m2.e4m3", "f32.e4m3.e5m2", "f32.e5m2.e5m2"}) {
    EXPECT_EQ(translated(std::string("  wgmma.mma_async.sync.aligned.m64n8k32.") + types + " " + d4 +
                         ", %rd3, %rd4, %p1, -1, 1;"),
              "(translated)")
        << types;
    EXPECT_EQ(translated(std::string("  wgmma.mma_async.sp.sync.aligned.m64n8k64.") + types + " " + d4 +
                         ", {%r1, %r2, %r3, %r4}, %rd4, %r5, 0, %p1, 1, -1;"),
              "(translated)")
        << types;
  }
  EXPECT_EQ(translated("  wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e4m3 {%r1, %r2}, {%r3, %r4, %r5, %r6}, "
                       "%rd4, %p1, 1, 1;"),
            "(translated)");
  EXPECT_EQ(translated("  wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e4m3.e4m3 {%r1, %r2}, %rd3, %rd4, %r5, 0, "
                       "%p1, 1, 1;"),
            "(translated)");
}

TEST(WgmmaForms, OtherFormsAreRejected)
{
  const std::string d4 = "{%f1, %f2, %f3, %f4}";
  auto rejected = [&](const std::string& line) {
    std::string message = translated("  " + line);
    EXPECT_NE(message.find("unsupported: wgmma"), std::string::npos) << line << ": " << message;
  };
  rejected("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 " + d4 + ", %rd3, %rd4, %p1, 1, 1, 0, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k32.satfinite.f32.e4m3.e4m3 " + d4 + ", %rd3, %rd4, %p1, 1, 1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k32.s32.e4m3.e4m3 {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1, 1, 1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k16.f32.e4m3.e4m3 " + d4 + ", %rd3, %rd4, %p1, 1, 1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.s8 " + d4 + ", %rd3, %rd4, %p1, 1, 1;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 " + d4 + ", %rd3, %rd4, %r1, 1, %p1, 1, 1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1 {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k256.satfinite.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1;");
  rejected("wgmma.mma_async.sync.aligned.m64n40k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k128.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1, 1, 1;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %r1, 0, %p1;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k512.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, %rd4, %r1, 0, %p1;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 " + d4 + ", %rd3, %rd4, %r1, 2, %p1, 1, 1;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd3, %rd4, %r1, 2, %p1, 1, 1, 0, 0;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd3, %rd4, %r1, 1, %p1;");
  rejected("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd3, %rd4, %r1, 0, %p1, 1, 1, 0, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd3, %rd4, %p1, 2, 1, 0, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd3, %rd4, %p1, 1, 1, 0, 2;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd3, %rd4, %p1, 1, 1, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 " + d4 + ", %rd3, %rd4, %p1, 1, 1, 0, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k16.satfinite.f32.f16.f16 " + d4 + ", %rd3, %rd4, %p1, 1, 1, 0, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r1, %r2}, %rd3, %rd4, %p1, 1, 1, 0, 0;");
  rejected("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd3, %rd4, %p1;");
  rejected("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 " + d4 + ", %rd3, %rd4, %p1, 1, 1, 0, 0;");
  rejected("wgmma.wait_group.sync.aligned %r1;");
  rejected("wgmma.fence.aligned;");
}

} // namespace
} // namespace d4r::compiler
