// compiler/passes/fp8_convert ("fp8-cvt"): on tests/ptx/fp8_decode.sm_89.ptx every
// cvt.rn.f16x2.e4m3x2 becomes a scoped call of d4r_dec_e4m3x2 that passes the same b16 source and
// loads the result into the same destination, the helper is declared once before the bodies, the
// result prints and re-parses, every other instruction stays in place, "expect" refuses another
// count, and a module without conversions is left unchanged.

#include "compiler/passes/fp8_convert.hpp"
#include "compiler/passes/registry.hpp"

#include "test_compiler_pass_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace d4r::compiler;
using d4r::test::flatten_module;

constexpr const char* k_helper = "d4r_dec_e4m3x2";

bool is_decode(const ptx::Instruction& instruction)
{
  return instruction.opcode == "cvt" &&
         instruction.modifiers == std::vector<std::string>{"rn", "f16x2", "e4m3x2"};
}

bool is_helper_block(const ptx::Block& block)
{
  for (const ptx::Statement& statement : block.statements) {
    const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
    if (instruction != nullptr && d4r::test::callee_of(*instruction) == k_helper) {
      return true;
    }
  }
  return false;
}

std::unique_ptr<passes::Pass> make_fp8(std::map<std::string, std::string> parameters = {})
{
  passes::PassOptions options{"gfx1201", {}, std::move(parameters)};
  d4r::Expected<std::unique_ptr<passes::Pass>> pass = passes::make_pass("fp8-cvt", options);
  EXPECT_TRUE(pass.has_value()) << (pass ? "" : pass.error().message);
  return pass ? std::move(*pass) : nullptr;
}

// Each conversion as the pair (destination, source) in program order.
std::vector<std::string> decode_pairs(const ptx::Module& module)
{
  std::vector<std::string> pairs;
  d4r::test::count_instructions(module, [&](const ptx::Instruction& instruction) {
    if (is_decode(instruction) && instruction.operands.size() == 2) {
      pairs.push_back(ptx::print_operand(instruction.operands[0]) + " <- " +
                      ptx::print_operand(instruction.operands[1]));
    }
    return false;
  });
  return pairs;
}

// The same pairs read back from the rewritten call sequences: st.param.b16 source, ld.param.b32
// destination.
std::vector<std::string> call_pairs(const ptx::Module& module)
{
  std::vector<std::string> pairs;
  std::string source;
  d4r::test::count_instructions(module, [&](const ptx::Instruction& instruction) {
    if (instruction.modifiers == std::vector<std::string>{"param", "b16"} &&
        instruction.opcode == "st") {
      source = ptx::print_operand(instruction.operands[1]);
    }
    if (instruction.modifiers == std::vector<std::string>{"param", "b32"} &&
        instruction.opcode == "ld") {
      pairs.push_back(ptx::print_operand(instruction.operands[0]) + " <- " + source);
    }
    return false;
  });
  return pairs;
}

TEST(CompilerPassFp8Convert, RewritesEveryConversionOfTheCorpus)
{
  ptx::Module module = d4r::test::load_corpus_module("fp8_decode.sm_89.ptx");
  const ptx::Module before = module;
  std::vector<std::string> pairs = decode_pairs(module);
  ASSERT_FALSE(pairs.empty());
  ASSERT_EQ(d4r::test::count_calls(module, k_helper), 0);
  ASSERT_EQ(call_pairs(module), std::vector<std::string>{}) << "the fixture already uses .param";

  std::unique_ptr<passes::Pass> pass = make_fp8();
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->name(), "fp8-cvt");
  d4r::Expected<passes::PassResult> result = pass->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->rewrites, static_cast<int64_t>(pairs.size()));
  EXPECT_TRUE(decode_pairs(module).empty());
  EXPECT_EQ(d4r::test::count_calls(module, k_helper), static_cast<int64_t>(pairs.size()));
  EXPECT_EQ(call_pairs(module), pairs);

  d4r::test::DeclarationFacts facts = d4r::test::declaration_facts(module, k_helper);
  EXPECT_EQ(facts.count, 1);
  EXPECT_TRUE(facts.before_bodies);
  EXPECT_TRUE(facts.is_extern_declaration);

  std::vector<std::string> others;
  for (const std::string& line : flatten_module(before, [](const ptx::Block&) { return false; })) {
    if (!line.starts_with("cvt.rn.f16x2.e4m3x2 ")) {
      others.push_back(line);
    }
  }
  EXPECT_EQ(flatten_module(module, is_helper_block), others);
  d4r::test::expect_reparses(module);
}

TEST(CompilerPassFp8Convert, EmitsTheCallSequence)
{
  ptx::Module module = d4r::test::parse_text(R"(.version 8.0
.target sm_89
.address_size 64
.visible .entry k()
{
	.reg .b16 %rs<2>;
	.reg .b32 %r<40>;
	{cvt.rn.f16x2.e4m3x2 %r38, %rs1;}
	ret;
}
)");
  d4r::Expected<passes::PassResult> result = make_fp8()->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_EQ(result->rewrites, 1);
  std::vector<std::string> expected = {
      "function k",
      "st.param.b16 [d4r_arg0], %rs1",
      "call (d4r_ret0), d4r_dec_e4m3x2, (d4r_arg0)",
      "ld.param.b32 %r38, [d4r_ret0]",
      "ret",
  };
  EXPECT_EQ(flatten_module(module, [](const ptx::Block&) { return false; }), expected);
  std::string printed = d4r::test::collapse_spaces(ptx::print_module(module));
  EXPECT_NE(printed.find(".extern .func ( .param .b32 d4r_dec_e4m3x2_ret ) d4r_dec_e4m3x2( .param "
                         ".b16 d4r_dec_e4m3x2_param_0 );"),
            std::string::npos)
      << printed;
  d4r::test::expect_reparses(module);
}

TEST(CompilerPassFp8Convert, ExpectRefusesAnotherCount)
{
  ptx::Module module = d4r::test::load_corpus_module("fp8_decode.sm_89.ptx");
  const std::string count = std::to_string(decode_pairs(module).size());
  const std::string more = std::to_string(decode_pairs(module).size() + 1);
  ptx::Module copy = module;
  d4r::Expected<passes::PassResult> exact = make_fp8({{"expect", count}})->run(copy);
  ASSERT_TRUE(exact.has_value()) << exact.error().message;
  EXPECT_EQ(std::to_string(exact->rewrites), count);

  d4r::Expected<passes::PassResult> wrong = make_fp8({{"expect", more}})->run(module);
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().code, d4r::ErrorCode::rejected);
  EXPECT_NE(wrong.error().message.find("expected " + more), std::string::npos)
      << wrong.error().message;

  for (const char* bad : {"", "x", "-1", "3x"}) {
    passes::PassOptions options{"gfx1201", {}, {{"expect", bad}}};
    EXPECT_FALSE(passes::make_pass("fp8-cvt", options).has_value()) << "'" << bad << "'";
  }
  passes::PassOptions unknown{"gfx1201", {}, {{"kinds", "b16"}}};
  EXPECT_FALSE(passes::make_pass("fp8-cvt", unknown).has_value());
}

TEST(CompilerPassFp8Convert, ModuleWithoutConversionsIsUnchanged)
{
  ptx::Module module = d4r::test::load_corpus_module("surface_store.sm_86.ptx");
  const ptx::Module before = module;
  ASSERT_FALSE(module.items.empty());
  d4r::Expected<passes::PassResult> result = make_fp8()->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->rewrites, 0);
  EXPECT_FALSE(result->changed());
  EXPECT_TRUE(module == before);
  EXPECT_EQ(d4r::test::declaration_facts(module, k_helper).count, 0);
}

} // namespace
