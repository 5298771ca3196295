// The "roundf" pass (compiler/passes/roundf_idiom.cpp): corpus kernels before and after, the exact
// new instructions, errors with their line, and the exactness argument checked bit for bit.

#include "compiler/passes/roundf_idiom.hpp"

#include "compiler/passes/registry.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace ptx = d4r::compiler::ptx;
namespace passes = d4r::compiler::passes;

std::string read_corpus(const std::string& name)
{
  std::ifstream in(fs::path(D4R_TEST_SOURCE_DIR) / "ptx" / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void collect(const ptx::Block& block, std::vector<const ptx::Instruction*>& out)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* nested = std::get_if<ptx::Block>(&statement.value)) {
      collect(*nested, out);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      out.push_back(instruction);
    }
  }
}

std::vector<const ptx::Instruction*> instructions(const ptx::Module& module)
{
  std::vector<const ptx::Instruction*> out;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function != nullptr && function->body) {
      collect(*function->body, out);
    }
  }
  return out;
}

// The printer separates opcode and operands by " \t": compare with single spaces, no ';'.
std::string normalise(const std::string& text)
{
  std::string out;
  for (char c : text) {
    c = c == '\t' ? ' ' : c;
    if (c == ' ' && !out.empty() && out.back() == ' ') {
      continue;
    }
    out.push_back(c);
  }
  if (!out.empty() && out.back() == ';') {
    out.pop_back();
  }
  return out;
}

int64_t count_text(const ptx::Module& module, const std::string& prefix)
{
  int64_t count = 0;
  for (const ptx::Instruction* instruction : instructions(module)) {
    count += normalise(ptx::print_instruction(*instruction)).starts_with(prefix) ? 1 : 0;
  }
  return count;
}

bool mentions_temporaries(const ptx::Instruction& instruction)
{
  const std::string text = ptx::print_instruction(instruction);
  return text.find("%rq") != std::string::npos || text.find("%pq") != std::string::npos;
}

const ptx::Function& only_function(const ptx::Module& module)
{
  for (const ptx::Item& item : module.items) {
    if (const auto* function = std::get_if<ptx::Function>(&item.value)) {
      return *function;
    }
  }
  ADD_FAILURE() << "no function";
  std::abort();
}

d4r::Expected<passes::PassResult> run_roundf(ptx::Module& module, passes::PassOptions options = {})
{
  d4r::Expected<std::unique_ptr<passes::Pass>> pass = passes::make_pass("roundf", options);
  if (!pass) {
    return std::unexpected(pass.error());
  }
  EXPECT_EQ((*pass)->name(), "roundf");
  return (*pass)->run(module);
}

TEST(CompilerPassRoundf, RewritesTexFilter)
{
  d4r::Expected<ptx::Module> parsed = ptx::parse_module(read_corpus("tex_filter.sm_86.ptx"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  const ptx::Module before = *parsed;
  ptx::Module module = *parsed;
  const int64_t idioms = count_text(before, "add.rz.ftz.f32");
  ASSERT_EQ(idioms, 3); // tests/ptx/README.md
  ASSERT_EQ(count_text(before, "cvt.rzi.f32.f32"), idioms);

  d4r::Expected<passes::PassResult> result = run_roundf(module);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->rewrites, idioms);
  EXPECT_EQ(count_text(module, "add.rz"), 0);
  EXPECT_EQ(count_text(module, "cvt.rzi.f32.f32 %f"), 0); // the old truncations of d are gone
  // Two instructions become seven.
  EXPECT_EQ(static_cast<int64_t>(instructions(module).size()),
            static_cast<int64_t>(instructions(before).size()) + 5 * idioms);

  // Every other instruction is unchanged and in order.
  std::vector<std::string> kept_before;
  for (const ptx::Instruction* instruction : instructions(before)) {
    if (instruction->opcode != "cvt" || instruction->modifiers.front() != "rzi") {
      if (instruction->opcode != "add" || instruction->modifiers.front() != "rz") {
        kept_before.push_back(ptx::print_instruction(*instruction));
      }
    }
  }
  std::vector<std::string> kept_after;
  for (const ptx::Instruction* instruction : instructions(module)) {
    if (!mentions_temporaries(*instruction)) {
      kept_after.push_back(ptx::print_instruction(*instruction));
    }
  }
  EXPECT_EQ(kept_after, kept_before);

  // Print -> parse round trip.
  d4r::Expected<ptx::Module> reparsed = ptx::parse_module(ptx::print_module(module));
  ASSERT_TRUE(reparsed) << reparsed.error().message;
  EXPECT_EQ(*reparsed, module);
}

TEST(CompilerPassRoundf, EmitsTheExactSequenceAndDeclarations)
{
  d4r::Expected<ptx::Module> parsed = ptx::parse_module(read_corpus("tex_filter.sm_86.ptx"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ptx::Module module = *parsed;
  ASSERT_TRUE(run_roundf(module));
  const ptx::Function& function = only_function(module);
  const std::vector<ptx::Statement>& body = function.body->statements;

  // The declarations come right before the first original .reg (%p<17>).
  size_t first_reg = body.size();
  for (size_t i = 0; i < body.size() && first_reg == body.size(); ++i) {
    const auto* variable = std::get_if<ptx::Variable>(&body[i].value);
    if (variable != nullptr && variable->space == ".reg") {
      first_reg = i;
    }
  }
  ASSERT_LT(first_reg + 2, body.size());
  EXPECT_EQ(ptx::print_variable(std::get<ptx::Variable>(body[first_reg].value)),
            ".reg .pred %pq<4>");
  EXPECT_EQ(ptx::print_variable(std::get<ptx::Variable>(body[first_reg + 1].value)),
            ".reg .f32 %rq<13>");
  EXPECT_EQ(std::get<ptx::Variable>(body[first_reg + 2].value).name, "%p");

  // The first idiom: add.rz.ftz.f32 %f173, %f170, %f172; cvt.rzi.f32.f32 %f174, %f173.
  std::vector<std::string> printed;
  for (const ptx::Instruction* instruction : instructions(module)) {
    printed.push_back(ptx::print_instruction(*instruction));
  }
  const std::vector<std::string> expected = {
      "copysign.f32 %f172, %f170, %f171",         "cvt.rzi.ftz.f32.f32 %rq1, %f170",
      "sub.ftz.f32 %rq2, %f170, %rq1",            "abs.ftz.f32 %rq3, %rq2",
      "setp.ge.ftz.f32 %pq1, %rq3, 0f3F000000",   "add.ftz.f32 %rq4, %f172, %f172",
      "add.ftz.f32 %rq4, %rq1, %rq4",             "selp.f32 %f174, %rq4, %rq1, %pq1",
      "div.rn.ftz.f32 %f161, %f174, %f21"};
  size_t start = 0;
  while (start < printed.size() && normalise(printed[start]) != expected[0]) {
    ++start;
  }
  ASSERT_LT(start + expected.size(), printed.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(normalise(printed[start + i]), expected[i]);
  }
  // Each idiom has its own predicate, written by one setp and read by one selp.
  for (const std::string predicate : {"%pq1,", "%pq2,", "%pq3,"}) {
    EXPECT_EQ(count_text(module, "setp.ge.ftz.f32 " + predicate), 1) << predicate;
  }
}

TEST(CompilerPassRoundf, RewritesEveryKernelOfTheLargestModule)
{
  d4r::Expected<ptx::Module> parsed = ptx::parse_module(read_corpus("texture_layers.sm_86.ptx"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ptx::Module module = *parsed;
  const int64_t before = static_cast<int64_t>(instructions(module).size());
  d4r::Expected<passes::PassResult> result = run_roundf(module);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->rewrites, 88); // tests/ptx/README.md
  EXPECT_EQ(count_text(module, "add.rz"), 0);
  EXPECT_EQ(static_cast<int64_t>(instructions(module).size()), before + 5 * 88);
  d4r::Expected<ptx::Module> reparsed = ptx::parse_module(ptx::print_module(module));
  ASSERT_TRUE(reparsed) << reparsed.error().message;
  EXPECT_EQ(*reparsed, module);
}

passes::PassOptions kernel_options(const std::string& kernel)
{
  passes::PassOptions options;
  options.kernels = {kernel};
  return options;
}

TEST(CompilerPassRoundf, KeepsNonFtzAndHonoursKernels)
{
  d4r::Expected<ptx::Module> parsed = ptx::parse_module(read_corpus("sr_module.ptx"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ptx::Module module = *parsed;
  d4r::Expected<passes::PassResult> idle = run_roundf(module, kernel_options("d4r_test_layer"));
  ASSERT_TRUE(idle) << idle.error().message;
  EXPECT_FALSE(idle->changed());
  EXPECT_EQ(module, *parsed);

  d4r::Expected<passes::PassResult> result = run_roundf(module, kernel_options("d4r_test_simple"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->rewrites, 1);
  EXPECT_EQ(count_text(module, "cvt.rzi.f32.f32 %rq1, %f1"), 1); // no .ftz added
  EXPECT_EQ(count_text(module, "setp.ge.f32 %pq1, %rq3, 0f3F000000"), 1);
}

std::string replace_line(std::string text, const std::string& from, const std::string& to)
{
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::string run_expecting_error(const std::string& text)
{
  d4r::Expected<ptx::Module> parsed = ptx::parse_module(text);
  EXPECT_TRUE(parsed) << parsed.error().message;
  if (!parsed) {
    return {};
  }
  d4r::Expected<passes::PassResult> result = run_roundf(*parsed);
  EXPECT_FALSE(result);
  return result ? std::string() : result.error().message;
}

TEST(CompilerPassRoundf, LoneAddRzIsAnErrorNamingTheLine)
{
  const std::string text = read_corpus("tex_filter.sm_86.ptx");
  // Line 207 is the first cvt.rzi (tests/ptx/tex_filter.sm_86.ptx); its add.rz is on line 206.
  const std::string lone = replace_line(text, "\tcvt.rzi.f32.f32 \t%f174, %f173;\n", "\n");
  const std::string message = run_expecting_error(lone);
  EXPECT_NE(message.find("hiluma_engine_output_filter:206:"), std::string::npos) << message;
  EXPECT_NE(message.find("lone add.rz"), std::string::npos) << message;

  // A truncation of another register does not complete the idiom either.
  const std::string other =
      replace_line(text, "cvt.rzi.f32.f32 \t%f174, %f173;", "cvt.rzi.f32.f32 \t%f174, %f170;");
  EXPECT_NE(run_expecting_error(other).find(":206: "), std::string::npos);
}

TEST(CompilerPassRoundf, RefusesWhatTheArgumentDoesNotCover)
{
  const std::string text = read_corpus("tex_filter.sm_86.ptx");
  // s is not copysign(x, 0.5).
  const std::string not_half = replace_line(text, "copysign.f32 \t%f172, %f170, %f171;",
                                            "mul.ftz.f32 \t%f172, %f170, %f171;");
  EXPECT_NE(run_expecting_error(not_half).find("copysign"), std::string::npos);
  // The constant is not 0.5.
  const std::string not_point_five =
      replace_line(text, "mov.f32 \t%f171, 0f3F000000;", "mov.f32 \t%f171, 0f3F000001;");
  EXPECT_NE(run_expecting_error(not_point_five).find("copysign"), std::string::npos);
  // d is read after the idiom.
  const std::string reused = replace_line(text, "div.rn.ftz.f32 \t%f161, %f174, %f21;",
                                          "div.rn.ftz.f32 \t%f161, %f173, %f21;");
  EXPECT_NE(run_expecting_error(reused).find("%f173 is used outside"), std::string::npos);
  // Unknown parameters are refused by the factory.
  passes::PassOptions options;
  options.parameters["mode"] = "x";
  EXPECT_FALSE(passes::make_pass("roundf", options));
}

// --- The exactness argument, on the host ------------------------------------------------------

// The translation's default (rewrite_proven_roundf_idioms): every idiom it can prove is rewritten
// as the pass rewrites it, what it cannot prove stays an add.rz, and nothing fails.
TEST(CompilerPassRoundf, TheTranslationsDefaultRewritesWhatItProvesAndKeepsTheRest)
{
  const std::string text = read_corpus("tex_filter.sm_86.ptx");
  d4r::Expected<ptx::Module> whole = ptx::parse_module(text);
  ASSERT_TRUE(whole) << whole.error().message;
  const int64_t idioms = count_text(*whole, "add.rz");
  ASSERT_GT(idioms, 1);
  EXPECT_EQ(passes::rewrite_proven_roundf_idioms(*whole), idioms);
  EXPECT_EQ(count_text(*whole, "add.rz"), 0);
  EXPECT_EQ(count_text(*whole, "cvt.rzi.ftz.f32.f32 %rq"), idioms);

  // The same module with its first idiom broken (d read again later): the other idioms are
  // rewritten, the broken one stays as it was.
  const std::string reused = replace_line(text, "div.rn.ftz.f32 \t%f161, %f174, %f21;",
                                          "div.rn.ftz.f32 \t%f161, %f173, %f21;");
  d4r::Expected<ptx::Module> partial = ptx::parse_module(reused);
  ASSERT_TRUE(partial) << partial.error().message;
  EXPECT_EQ(passes::rewrite_proven_roundf_idioms(*partial), idioms - 1);
  EXPECT_EQ(count_text(*partial, "add.rz.ftz.f32 %f173, %f170, %f172"), 1);

  // A body that already has the pass's register names is left alone.
  const std::string named = replace_line(text, ".reg .pred \t%p<", ".reg .f32 \t%rq<4>;\n\t.reg .pred \t%p<");
  d4r::Expected<ptx::Module> clash = ptx::parse_module(named);
  ASSERT_TRUE(clash) << clash.error().message;
  EXPECT_EQ(passes::rewrite_proven_roundf_idioms(*clash), 0);
  EXPECT_EQ(count_text(*clash, "add.rz"), idioms);
}

float flush(float value, bool ftz)
{
  return ftz && std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0F, value) : value;
}

// What the PTX idiom computes: copysign, add.rz[.ftz], cvt.rzi (no .ftz on the cvt).
float original(float x, bool ftz)
{
  const float s = std::copysign(0.5F, x);
  const int mode = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  volatile float a = flush(x, ftz);
  volatile float b = s;
  volatile float d = a + b;
  std::fesetround(mode);
  return std::trunc(flush(d, ftz));
}

// What the replacement computes, in the default rounding mode.
float replacement(float x, bool ftz)
{
  const float s = std::copysign(0.5F, x);
  const float t = flush(std::trunc(flush(x, ftz)), ftz);
  const float u = flush(flush(x, ftz) - t, ftz);
  const float a = flush(std::fabs(u), ftz);
  const bool p = a >= 0.5F;
  const float w = flush(s + s, ftz);
  const float v = flush(t + w, ftz);
  return p ? v : t;
}

bool same_bits(float a, float b)
{
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b);
  }
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

std::vector<float> probe_values()
{
  std::vector<float> values = {0.0F, 0.49999997F, 0.5F, 1.5F, 2.5F, 8388607.5F, 8388608.0F,
                               16777216.0F, 1e30F, std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::min(),
                               std::numeric_limits<float>::denorm_min(), 1e-40F,
                               std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN()};
  for (int k = 0; k < 600; ++k) {
    const float tie = static_cast<float>(k) + 0.5F;
    values.push_back(tie);
    values.push_back(std::nextafter(tie, 0.0F));
    values.push_back(std::nextafter(tie, 1e9F));
    values.push_back(static_cast<float>(k));
  }
  for (float big = 4194304.0F; big < 33554432.0F; big *= 2.0F) {
    for (float delta : {-1.5F, -1.0F, -0.5F, 0.0F, 0.5F, 1.0F, 1.5F}) {
      values.push_back(big + delta);
    }
  }
  std::mt19937 random(20240611);
  for (int i = 0; i < 4000; ++i) {
    values.push_back(std::bit_cast<float>(static_cast<uint32_t>(random())));
  }
  const size_t positive = values.size();
  for (size_t i = 0; i < positive; ++i) {
    values.push_back(-values[i]);
  }
  return values;
}

TEST(CompilerPassRoundf, HostEmulationReallyRoundsTowardZero)
{
  // Without a working FE_TOWARDZERO the comparison below would prove nothing.
  EXPECT_EQ(original(0.49999997F, true), 0.0F);
  volatile float x = 0.49999997F;
  EXPECT_EQ(std::trunc(x + 0.5F), 1.0F); // the round-to-nearest result the .rz avoids
}

TEST(CompilerPassRoundf, ReplacementAgreesBitForBit)
{
  const std::vector<float> values = probe_values();
  ASSERT_GT(values.size(), 2000U);
  int64_t compared = 0;
  for (const bool ftz : {true, false}) {
    for (const float x : values) {
      const float want = original(x, ftz);
      const float got = replacement(x, ftz);
      ASSERT_TRUE(same_bits(want, got)) << "x=" << x << " (0x" << std::hex
                                        << std::bit_cast<uint32_t>(x) << ") ftz=" << ftz
                                        << " original=" << want << " replacement=" << got;
      ++compared;
    }
  }
  EXPECT_EQ(compared, static_cast<int64_t>(2 * values.size()));
  // And it is round-half-away: spot values.
  EXPECT_EQ(replacement(2.5F, true), 3.0F);
  EXPECT_EQ(replacement(-2.5F, true), -3.0F);
  EXPECT_EQ(replacement(0.49999997F, true), 0.0F);
  EXPECT_TRUE(std::signbit(replacement(-0.25F, true)));
}

} // namespace
