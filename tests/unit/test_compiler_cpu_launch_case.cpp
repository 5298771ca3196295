// compiler/cpu/launch_case: the golden-vector case format (tests/golden/README.md), its input
// generator and the output comparison; and the checked-in cases against their expected files.

#include "compiler/cpu/expected_output.hpp"
#include "compiler/cpu/launch_case.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace {

using namespace d4r::compiler::cpu;
namespace fs = std::filesystem;

const fs::path k_golden_dir = fs::path(D4R_TEST_SOURCE_DIR) / "golden";

LaunchCase parse_ok(const std::string& text)
{
  d4r::Expected<LaunchCase> parsed = parse_launch_case(text, "t");
  EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : LaunchCase{};
}

std::string parse_error(const std::string& text)
{
  d4r::Expected<LaunchCase> parsed = parse_launch_case(text, "t");
  EXPECT_FALSE(parsed.has_value()) << "parsed: " << text;
  return parsed ? std::string() : parsed.error().message;
}

template <typename T> T element(const std::vector<std::byte>& bytes, size_t index)
{
  T value{};
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

const std::string k_head = "ptx = tests/ptx/isa/x.ptx\nkernel = k\n";

TEST(LaunchCase, ParsesEveryKindOfParam)
{
  const LaunchCase c = parse_ok(
      "# comment\n"
      "ptx    = tests/ptx/isa/alu_int.sm_90.ptx   # trailing comment\n"
      "kernel = int_arith32\n"
      "grid   = 4 2 1\n"
      "block  = 128 1 1\n"
      "dynamic_shared = 1024\n"
      "param  = buffer in s32 16 random seed=7 and=0xff or=0x100\n"
      "param  = buffer out f32 8\n"
      "param  = u8 200\n"
      "param  = struct 24 8\n"
      "field  = 0 texture u8x4 8 4 filter=linear address=border normalized=0 random seed=3\n"
      "field  = 8 surface f16x2 5 3\n"
      "field  = 16 f32 0f3F800000\n"
      "field  = 20 s32 -3\n"
      "param  = buffer inout u64 2 list 1 18446744073709551615\n"
      "compare = out0 ulp 4\n"
      "compare = out2 none\n");
  EXPECT_EQ(c.ptx, "tests/ptx/isa/alu_int.sm_90.ptx");
  EXPECT_EQ(c.kernel, "int_arith32");
  EXPECT_EQ(c.grid, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(c.dynamic_shared, 1024u);
  ASSERT_EQ(c.params.size(), 5u);
  EXPECT_EQ(c.params[0].arg.buffer.fill.and_mask, 0xffu);
  EXPECT_EQ(c.params[2].arg.scalar.bits, 200u);
  ASSERT_TRUE(c.params[3].is_struct);
  ASSERT_EQ(c.params[3].fields.size(), 4u);
  EXPECT_EQ(c.params[3].fields[0].arg.image.filter, 1);
  EXPECT_EQ(c.params[3].fields[0].arg.image.address, 3);
  EXPECT_EQ(c.params[3].fields[2].arg.scalar.bits, 0x3F800000u);
  EXPECT_EQ(c.params[3].fields[3].arg.scalar.bits, 0xFFFFFFFDu);
  // Outputs in order of appearance: the out buffer, the surface, the inout buffer.
  ASSERT_EQ(c.outputs.size(), 3u);
  EXPECT_EQ(c.outputs[0].bytes, 32);
  EXPECT_EQ(c.outputs[0].compare.kind, CompareKind::ulp);
  EXPECT_EQ(c.outputs[1].bytes, 5 * 3 * 4);
  EXPECT_EQ(c.outputs[1].type, ElementType::f16);
  EXPECT_EQ(c.outputs[2].compare.kind, CompareKind::none);
  int64_t total = 0;
  const std::vector<ParamSlot> slots = param_layout(c, &total);
  ASSERT_EQ(slots.size(), 5u);
  EXPECT_EQ(slots[0].offset, 0);
  EXPECT_EQ(slots[1].offset, 8);
  EXPECT_EQ(slots[2].offset, 16);
  EXPECT_EQ(slots[3].offset, 24); // the u8 at 16, then the struct aligned to 8
  EXPECT_EQ(slots[4].offset, 48);
  EXPECT_EQ(total, 56);
}

TEST(LaunchCase, ValuesOfEachType)
{
  const LaunchCase c = parse_ok(k_head +
                                "param = f16 1.5\nparam = bf16 -2\nparam = f64 0d3FF0000000000000\n"
                                "param = f16 65520\nparam = f16 6e-8\nparam = f32 -0\nparam = s8 -128\n"
                                "param = u16 0xffff\nparam = f16 0x7e01\nparam = s64 -9223372036854775808\n");
  const std::vector<uint64_t> want = {0x3e00, 0xc000, 0x3FF0000000000000ull, 0x7c00, 0x0001, 0x80000000u,
                                      0x80, 0xffff, 0x7e01, 0x8000000000000000ull};
  ASSERT_EQ(c.params.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(c.params[i].arg.scalar.bits, want[i]) << "param " << i;
  }
}

TEST(LaunchCase, RandomFillIsSplitMix64)
{
  Fill fill;
  fill.kind = FillKind::random;
  fill.seed = 0;
  const std::vector<std::byte> bytes = generate_fill(fill, ElementType::u64, 3);
  // The reference outputs of splitmix64 seeded with 0.
  EXPECT_EQ(element<uint64_t>(bytes, 0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(element<uint64_t>(bytes, 1), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(element<uint64_t>(bytes, 2), 0x06C45D188009454Full);
  // Narrow types keep the low bits of each draw.
  const std::vector<std::byte> narrow = generate_fill(fill, ElementType::u16, 2);
  EXPECT_EQ(element<uint16_t>(narrow, 0), 0xCDAF);
  EXPECT_EQ(element<uint16_t>(narrow, 1), 0x65F4);
}

TEST(LaunchCase, FillsAreDeterministicAndSeeded)
{
  for (const char* kind : {"random seed=5", "floats seed=5", "range -3 7 seed=5", "ints -3 7 seed=5"}) {
    const LaunchCase c = parse_ok(k_head + "param = buffer in f32 4096 " + kind + "\n");
    const Fill& fill = c.params[0].arg.buffer.fill;
    const std::vector<std::byte> a = generate_fill(fill, ElementType::f32, 4096);
    EXPECT_EQ(a, generate_fill(fill, ElementType::f32, 4096)) << kind;
    Fill other = fill;
    other.seed = 6;
    EXPECT_NE(a, generate_fill(other, ElementType::f32, 4096)) << kind;
  }
}

TEST(LaunchCase, FloatsCoverTheEdges)
{
  const LaunchCase c = parse_ok(k_head + "param = buffer in f32 4096 floats seed=1\n");
  const std::vector<std::byte> bytes = generate_fill(c.params[0].arg.buffer.fill, ElementType::f32, 4096);
  std::set<std::string> seen;
  for (size_t i = 0; i < 4096; ++i) {
    const float value = element<float>(bytes, i);
    const uint32_t bits = element<uint32_t>(bytes, i);
    if (std::isnan(value)) {
      seen.insert((bits & 0x400000u) != 0 ? "qnan" : "snan");
    } else if (std::isinf(value)) {
      seen.insert(value > 0 ? "+inf" : "-inf");
    } else if (value == 0) {
      seen.insert(std::signbit(value) ? "-0" : "+0");
    } else if (std::fpclassify(value) == FP_SUBNORMAL) {
      seen.insert("subnormal");
    } else if (value == std::floor(value) && std::fabs(value) < 1000) {
      seen.insert("integer");
    }
  }
  for (const char* want : {"qnan", "snan", "+inf", "-inf", "+0", "-0", "subnormal", "integer"}) {
    EXPECT_TRUE(seen.count(want)) << want;
  }
}

TEST(LaunchCase, StructuredFills)
{
  const LaunchCase c = parse_ok(k_head +
                                "param = buffer in u16 5 iota 65534 1\n"
                                "param = buffer in s32 6 list 1 -2 3 repeat=2\n"
                                "param = buffer in f16 2 const 1\n"
                                "param = buffer in s8 1000 range -3 3 seed=9\n"
                                "param = buffer in f32 1000 range 0.25 0.5 seed=9\n");
  const std::vector<std::byte> iota = generate_fill(c.params[0].arg.buffer.fill, ElementType::u16, 5);
  EXPECT_EQ(element<uint16_t>(iota, 0), 65534);
  EXPECT_EQ(element<uint16_t>(iota, 2), 0); // wraps at the width
  const std::vector<std::byte> list = generate_fill(c.params[1].arg.buffer.fill, ElementType::s32, 6);
  const int32_t want[] = {1, 1, -2, -2, 3, 3};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(element<int32_t>(list, i), want[i]);
  }
  const std::vector<std::byte> half = generate_fill(c.params[2].arg.buffer.fill, ElementType::f16, 2);
  EXPECT_EQ(element<uint16_t>(half, 1), 0x3c00);
  const std::vector<std::byte> ints = generate_fill(c.params[3].arg.buffer.fill, ElementType::s8, 1000);
  std::set<int> values;
  for (size_t i = 0; i < 1000; ++i) {
    values.insert(element<int8_t>(ints, i));
  }
  EXPECT_EQ(values, (std::set<int>{-3, -2, -1, 0, 1, 2, 3}));
  const std::vector<std::byte> reals = generate_fill(c.params[4].arg.buffer.fill, ElementType::f32, 1000);
  for (size_t i = 0; i < 1000; ++i) {
    EXPECT_GE(element<float>(reals, i), 0.25f);
    EXPECT_LE(element<float>(reals, i), 0.5f);
  }
}

TEST(LaunchCase, RejectsBadCases)
{
  const std::pair<std::string, std::string> cases[] = {
      {"kernel = k\n", "`ptx` and `kernel` are required"},
      {k_head + "colour = red\n", "unknown key `colour`"},
      {k_head + "grid = 1 2\n", "expected three numbers"},
      {k_head + "param = buffer in q32 4 iota\n", "unknown element type `q32`"},
      {k_head + "param = buffer out u32 4 iota\n", "an out buffer takes no fill"},
      {k_head + "param = buffer in u32 4 random\n", "this fill needs seed=N"},
      {k_head + "param = buffer in u32 4 floats seed=1\n", "`floats` needs a float element type"},
      {k_head + "param = buffer in u32 4\n", "missing fill"},
      {k_head + "param = u8 256\n", "out of range"},
      {k_head + "param = f16 0f3F800000\n", "does not match type f16"},
      {k_head + "field = 0 u32 1\n", "`field` must follow a `param = struct`"},
      {k_head + "param = struct 8 8\nfield = 6 u32 1\n", "misaligned or past the struct's end"},
      {k_head + "param = struct 8 8\nfield = 0 u64 1\nfield = 4 u32 1\n", "overlaps another field"},
      {k_head + "param = texture u8x4 4 4 address=wrap random seed=1\n", "wrap and mirror need normalized=1"},
      {k_head + "param = texture u8x3 4 4 random seed=1\n", "unknown image format `u8x3`"},
      {k_head + "param = surface u8x4 4 4 filter=linear\n", "a surface has no option"},
      {k_head + "param = buffer out u32 4\ncompare = out1 exact\n", "the case has 1 outputs"},
      {k_head + "param = buffer out u32 4\ncompare = out0 ulp 2\n", "`ulp` needs a float output"},
      {k_head + "no equals sign\n", "expected `key = value`"},
      {k_head + "expect = crash\n", "`expect` is `complete` or `trap`"},
      {k_head + "global = g u32 4\n", "expected `global = NAME TYPE COUNT FILL`"},
      {k_head + "global = g q8 4 iota\n", "unknown element type `q8`"},
      {k_head + "global = g u32 0 iota\n", "out of range"},
      {k_head + "global = g u32 1 const 1\nglobal = g u8 1 const 2\n", "global g is written twice"},
  };
  for (const auto& [text, message] : cases) {
    const std::string error = parse_error(text);
    EXPECT_NE(error.find(message), std::string::npos) << "got: " << error;
    EXPECT_EQ(error.rfind("golden case t: line ", 0), 0u) << error;
  }
}

// `global` lines: module variables the host writes before the launch; no param, no output.
TEST(LaunchCase, GlobalsAreWrittenVariables)
{
  const LaunchCase c = parse_ok(k_head + "global = d_table u32 3 iota 5 2\n"
                                         "global = k_scale f32 2 list 0.5 -3\n"
                                         "param = buffer out u32 4\n");
  ASSERT_EQ(c.globals.size(), 2u);
  EXPECT_EQ(c.globals[0].name, "d_table");
  EXPECT_EQ(c.globals[0].type, ElementType::u32);
  EXPECT_EQ(c.globals[0].count, 3);
  const std::vector<std::byte> table = generate_fill(c.globals[0].fill, c.globals[0].type, 3);
  EXPECT_EQ(element<uint32_t>(table, 2), 9u);
  EXPECT_EQ(c.globals[1].name, "k_scale");
  const std::vector<std::byte> scale = generate_fill(c.globals[1].fill, c.globals[1].type, 2);
  EXPECT_EQ(element<float>(scale, 1), -3.0f);
  EXPECT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.outputs.size(), 1u);
}

TEST(LaunchCase, ExpectsCompletionUnlessTold)
{
  EXPECT_EQ(parse_ok(k_head).expect, Expect::complete);
  EXPECT_EQ(parse_ok(k_head + "expect = trap\n").expect, Expect::trap);
  EXPECT_EQ(parse_ok(k_head + "expect = complete\n").expect, Expect::complete);
}

TEST(LaunchCase, ComparesExactlyOrWithinUlp)
{
  LaunchCase c = parse_ok(k_head + "param = buffer out f32 3\nparam = buffer out f32 3\ncompare = out1 ulp 1\n");
  const float want[] = {1.0f, -0.0f, NAN};
  float got[] = {1.0f, -0.0f, NAN};
  const auto bytes = [](const float* values) {
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(values), 3 * sizeof(float));
  };
  EXPECT_TRUE(compare_output(c, 0, bytes(want), bytes(got)).has_value());
  got[0] = std::nextafter(1.0f, 2.0f);
  uint32_t payload = 0x7fc00001u;
  std::memcpy(&got[2], &payload, sizeof(payload));
  const d4r::Expected<void> exact = compare_output(c, 0, bytes(want), bytes(got));
  ASSERT_FALSE(exact.has_value());
  EXPECT_NE(exact.error().message.find("out0 (buffer out f32 3): 2 of 3 elements differ: [0] expected 0x3f800000 "
                                       "got 0x3f800001"),
            std::string::npos)
      << exact.error().message;
  // ulp 1: one step and any NaN payload are equal; +0 vs -0 is one step apart.
  EXPECT_TRUE(compare_output(c, 1, bytes(want), bytes(got)).has_value());
  got[0] = std::nextafter(got[0], 2.0f);
  EXPECT_FALSE(compare_output(c, 1, bytes(want), bytes(got)).has_value());
  EXPECT_FALSE(compare_output(c, 1, bytes(want), bytes(want).first(8)).has_value());
}

TEST(LaunchCase, HostLaunchOwnsBuffersAndImages)
{
  const LaunchCase c = parse_ok(k_head +
                                "param = buffer in u32 4 iota 10\n"
                                "param = buffer out u16 3\n"
                                "param = struct 16 8\n"
                                "field = 0 surface f32x4 3 2\n"
                                "field = 8 s32 -1\n");
  const std::unique_ptr<HostLaunch> launch = HostLaunch::create(c);
  const std::span<const std::byte> params = launch->params();
  ASSERT_EQ(params.size(), 32u);
  uint64_t input = 0;
  std::memcpy(&input, params.data(), 8);
  EXPECT_EQ(reinterpret_cast<const uint32_t*>(input)[3], 13u);
  uint64_t output = 0;
  std::memcpy(&output, params.data() + 8, 8);
  EXPECT_EQ(reinterpret_cast<const std::byte*>(output), launch->output_bytes(0).data());
  for (std::byte b : launch->output_bytes(0)) {
    EXPECT_EQ(b, std::byte{0xCD});
  }
  uint64_t handle = 0;
  std::memcpy(&handle, params.data() + 16, 8);
  const d4r_host_image* image = reinterpret_cast<const d4r_host_image*>(handle);
  EXPECT_EQ(image->width, 3u);
  EXPECT_EQ(image->height, 2u);
  EXPECT_EQ(image->pitch, 48u);
  EXPECT_EQ(image->format, d4r_image_f32);
  EXPECT_EQ(image->channels, 4u);
  EXPECT_EQ(image->data, reinterpret_cast<const uint8_t*>(launch->output_bytes(1).data()));
  EXPECT_EQ(launch->output_bytes(1).size(), 96u);
  int32_t scalar = 0;
  std::memcpy(&scalar, params.data() + 24, 4);
  EXPECT_EQ(scalar, -1);
}

// Every checked-in case parses, names a PTX file that exists, and has one expected file per output
// of the right size (the files were recorded on an NVIDIA GPU by tools/golden/record.sh).
TEST(LaunchCase, CheckedInCasesMatchTheirExpectedFiles)
{
  int cases = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_golden_dir / "cases")) {
    if (entry.path().extension() != ".case") {
      continue;
    }
    cases += 1;
    d4r::Expected<LaunchCase> parsed = read_launch_case(entry.path());
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    EXPECT_TRUE(fs::exists(fs::path(D4R_TEST_SOURCE_DIR).parent_path() / parsed->ptx)) << parsed->ptx;
    EXPECT_FALSE(parsed->outputs.empty()) << parsed->name;
    const bool trap = parsed->expect == Expect::trap;
    EXPECT_EQ(fs::exists(k_golden_dir / "expected" / (parsed->name + ".trap")), trap) << parsed->name;
    for (size_t i = 0; i < parsed->outputs.size(); ++i) {
      const fs::path directory = k_golden_dir / "expected";
      const int64_t index = static_cast<int64_t>(i);
      // A launch that traps has no outputs to record.
      if (trap) {
        EXPECT_FALSE(has_expected_output(directory, parsed->name, index)) << parsed->name << " out" << i;
        continue;
      }
      d4r::Expected<std::vector<std::byte>> expected = read_expected_output(directory, parsed->name, index);
      ASSERT_TRUE(expected.has_value()) << expected.error().message;
      EXPECT_EQ(static_cast<int64_t>(expected->size()), parsed->outputs[i].bytes) << parsed->name << " out" << i;
    }
  }
  EXPECT_GE(cases, 60);
}

// Large recordings are kept as one ZSTD frame (`zstd -19`); the reader prefers the plain file,
// decodes the frame to the size it states and refuses a frame that states none or is cut short.
TEST(ExpectedOutput, ReadsPlainAndCompressedRecordings)
{
  const fs::path directory = fs::temp_directory_path() / ("d4r-expected-" + std::to_string(::getpid()));
  fs::create_directories(directory);
  std::string words(100000, '\0');
  for (size_t i = 0; i < words.size(); ++i) {
    words[i] = static_cast<char>((i * 7) % 251);
  }
  std::string packed(ZSTD_compressBound(words.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), words.data(), words.size(), 19));
  ASSERT_FALSE(ZSTD_isError(packed.size()));
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(directory / name, std::ios::binary) << bytes;
  };
  write("big.out0.bin.zst", packed);
  write("small.out0.bin", "abcd");
  write("small.out0.bin.zst", packed); // the plain file wins
  write("cut.out0.bin.zst", packed.substr(0, packed.size() / 2));
  write("junk.out0.bin.zst", "not a frame");

  d4r::Expected<std::vector<std::byte>> big = read_expected_output(directory, "big", 0);
  ASSERT_TRUE(big.has_value()) << big.error().message;
  ASSERT_EQ(big->size(), words.size());
  EXPECT_EQ(std::memcmp(big->data(), words.data(), words.size()), 0);
  d4r::Expected<std::vector<std::byte>> small = read_expected_output(directory, "small", 0);
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->size(), 4U);
  EXPECT_TRUE(has_expected_output(directory, "big", 0));
  EXPECT_FALSE(has_expected_output(directory, "big", 1));
  d4r::Expected<std::vector<std::byte>> missing = read_expected_output(directory, "big", 1);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, d4r::ErrorCode::not_found);
  for (const char* name : {"cut", "junk"}) {
    d4r::Expected<std::vector<std::byte>> bad = read_expected_output(directory, name, 0);
    ASSERT_FALSE(bad.has_value()) << name;
    EXPECT_EQ(bad.error().code, d4r::ErrorCode::corrupt) << name << ": " << bad.error().message;
  }
  fs::remove_all(directory);
}

} // namespace
