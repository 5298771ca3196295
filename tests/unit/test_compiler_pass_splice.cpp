// The "splice" pass (compiler/passes/splice.cpp) on a small hand-written kernel shaped like the
// enc0 tail of the contract: cut found, arguments found, declaration added, and every refusal.

#include "compiler/passes/splice.hpp"

#include "compiler/passes/registry.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace {

namespace ptx = d4r::compiler::ptx;
namespace passes = d4r::compiler::passes;

constexpr const char* k_kernel = R"(.version 8.0
.target sm_86
.address_size 64

.visible .entry enc0(
	.param .align 8 .b8 enc0_param_0[64]
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [enc0_param_0+40];
	ld.param.v2.u32 	{%r1, %r2}, [enc0_param_0+8];
	ld.param.u64 	%rd2, [enc0_param_0];
	mov.u32 	%r3, %tid.x;
	setp.gt.u32 	%p1, %r3, 31;
	@%p1 bra 	$L__BB0_2;
	shl.b32 	%r4, %r3, 2;
	bar.warp.sync 	-1;
$L__BB0_2:
	add.s32 	%r5, %r3, %r1;
	bar.warp.sync 	-1;
	mul.lo.s32 	%r6, %r5, %r2;
	st.global.u32 	[%rd1], %r6;
	bar.warp.sync 	-1;
	add.s32 	%r7, %r6, 1;
$L__BB0_3:
	st.global.u32 	[%rd2], %r7;
	ret;

}
)";

using Parameters = std::map<std::string, std::string>;

Parameters good_parameters()
{
  return {{"cut_after", "bar.warp.sync -1"},
          {"occurrence", "last"},
          {"expect", "mul.lo.s32 %r0, %r0, %r0; st.global.u32 [%rd0], %r0; bar.warp.sync -1;"},
          {"function", "d4r_enc0_tail"},
          {"arguments", "ld.param.u64 [+40]; ld.param.v2.u32 [+8] {0}; ld.param.v2.u32 [+8] {1}; %r3"}};
}

d4r::Expected<passes::PassResult> run_splice(ptx::Module& module, const Parameters& parameters)
{
  passes::PassOptions options;
  options.parameters = parameters;
  d4r::Expected<std::unique_ptr<passes::Pass>> pass = passes::make_pass("splice", options);
  if (!pass) {
    return std::unexpected(pass.error());
  }
  EXPECT_EQ((*pass)->name(), "splice");
  return (*pass)->run(module);
}

ptx::Module parse_kernel(const std::string& text = k_kernel)
{
  d4r::Expected<ptx::Module> parsed = ptx::parse_module(text);
  EXPECT_TRUE(parsed) << parsed.error().message;
  return parsed ? *parsed : ptx::Module{};
}

std::vector<std::string> body_instructions(const ptx::Module& module, const std::string& name)
{
  std::vector<std::string> out;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr || function->name != name || !function->body) {
      continue;
    }
    for (const ptx::Statement& statement : function->body->statements) {
      if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
        std::string text = ptx::print_instruction(*instruction);
        std::erase(text, '\t');
        out.push_back(text);
      }
    }
  }
  return out;
}

TEST(CompilerPassSplice, ReplacesTheTailAfterTheLastSync)
{
  ptx::Module module = parse_kernel();
  const std::vector<std::string> before = body_instructions(module, "enc0");
  d4r::Expected<passes::PassResult> result = run_splice(module, good_parameters());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->rewrites, 1);

  const std::vector<std::string> after = body_instructions(module, "enc0");
  // Everything up to the third sync (13 instructions) stays; the three after it are replaced.
  ASSERT_EQ(before.size(), 16U);
  ASSERT_EQ(after.size(), 15U);
  EXPECT_EQ(std::vector<std::string>(after.begin(), after.begin() + 13),
            std::vector<std::string>(before.begin(), before.begin() + 13));
  EXPECT_EQ(after[12], "bar.warp.sync -1;");
  EXPECT_EQ(after[13], "call.uni d4r_enc0_tail, (%rd1, %r1, %r2, %r3);");
  EXPECT_EQ(after[14], "ret;");

  // The declaration comes before the kernel, its parameters typed from the registers.
  const auto* declaration = std::get_if<ptx::Function>(&module.items[3].value);
  ASSERT_NE(declaration, nullptr);
  EXPECT_EQ(declaration->name, "d4r_enc0_tail");
  EXPECT_EQ(declaration->linkage, ".extern");
  EXPECT_FALSE(declaration->body);
  ASSERT_EQ(declaration->params.size(), 4U);
  EXPECT_EQ(declaration->params[0].type, ".b64");
  EXPECT_EQ(declaration->params[1].type, ".b32");
  EXPECT_EQ(declaration->params[3].type, ".b32");

  d4r::Expected<ptx::Module> reparsed = ptx::parse_module(ptx::print_module(module));
  ASSERT_TRUE(reparsed) << reparsed.error().message;
  EXPECT_EQ(*reparsed, module);
}

TEST(CompilerPassSplice, OccurrenceByNumber)
{
  ptx::Module module = parse_kernel();
  Parameters parameters = good_parameters();
  parameters["occurrence"] = "2";
  parameters["expect"] = "add.s32 %r0, %r0, %r0; bar.warp.sync -1";
  d4r::Expected<passes::PassResult> result = run_splice(module, parameters);
  ASSERT_TRUE(result) << result.error().message;
  const std::vector<std::string> after = body_instructions(module, "enc0");
  ASSERT_EQ(after.size(), 12U);
  EXPECT_EQ(after[9], "bar.warp.sync -1;");
  EXPECT_EQ(after[10], "call.uni d4r_enc0_tail, (%rd1, %r1, %r2, %r3);");
}

std::string refusal(const Parameters& parameters, const std::string& text = k_kernel)
{
  ptx::Module module = parse_kernel(text);
  d4r::Expected<passes::PassResult> result = run_splice(module, parameters);
  EXPECT_FALSE(result);
  return result ? std::string() : result.error().message;
}

TEST(CompilerPassSplice, RefusesACutThatIsNotUniqueOrMissing)
{
  Parameters parameters = good_parameters();
  parameters.erase("occurrence");
  EXPECT_NE(refusal(parameters).find("not unique (3 found)"), std::string::npos);
  parameters["occurrence"] = "4";
  EXPECT_NE(refusal(parameters).find("occurrence 4 requested, 3 found"), std::string::npos);
  parameters["cut_after"] = "bar.warp.sync 0";
  parameters["expect"] = "bar.warp.sync 0";
  EXPECT_NE(refusal(parameters).find("not found"), std::string::npos);
}

TEST(CompilerPassSplice, RefusesADifferentSequence)
{
  Parameters parameters = good_parameters();
  parameters["expect"] = "mul.lo.u32 %r0, %r0, %r0; st.global.u32 [%rd0], %r0; bar.warp.sync -1;";
  const std::string message = refusal(parameters);
  EXPECT_NE(message.find("instruction 2 before the cut"), std::string::npos) << message;
  EXPECT_NE(message.find("expected 'mul.lo.u32"), std::string::npos) << message;
}

TEST(CompilerPassSplice, RefusesArgumentsNotFoundOrAmbiguous)
{
  Parameters parameters = good_parameters();
  parameters["arguments"] = "ld.param.u64 [+48]";
  EXPECT_NE(refusal(parameters).find("matches 0 instructions"), std::string::npos);
  parameters["arguments"] = "ld.param.u64 [+40]; ld.param.v2.u32 [+8]"; // a vector without {I}
  EXPECT_NE(refusal(parameters).find("not the register asked for"), std::string::npos);
  parameters["arguments"] = "%p1";
  EXPECT_NE(refusal(parameters).find("has type .pred"), std::string::npos);
  parameters["arguments"] = "%q9";
  EXPECT_NE(refusal(parameters).find("not a declared register"), std::string::npos);

  std::string twice = k_kernel;
  twice.replace(twice.find("ld.param.u64 \t%rd2, [enc0_param_0];"),
                std::string("ld.param.u64 \t%rd2, [enc0_param_0];").size(),
                "ld.param.u64 \t%rd2, [enc0_param_0+40];");
  parameters["arguments"] = "ld.param.u64 [+40]";
  EXPECT_NE(refusal(parameters, twice).find("matches 2 instructions"), std::string::npos);
}

TEST(CompilerPassSplice, RefusesABranchIntoTheDroppedTail)
{
  std::string text = k_kernel;
  text.replace(text.find("@%p1 bra \t$L__BB0_2;"), std::string("@%p1 bra \t$L__BB0_2;").size(),
               "@%p1 bra \t$L__BB0_3;");
  const std::string message = refusal(good_parameters(), text);
  EXPECT_NE(message.find("branches to $L__BB0_3"), std::string::npos) << message;
}

TEST(CompilerPassSplice, RefusesBadParametersAndConflictingDeclarations)
{
  for (const char* key : {"cut_after", "expect", "function"}) {
    Parameters parameters = good_parameters();
    parameters.erase(key);
    EXPECT_NE(refusal(parameters).find(std::string("missing parameter '") + key),
              std::string::npos);
  }
  Parameters parameters = good_parameters();
  parameters["expect"] = "st.global.u32 [%rd0], %r0;";
  EXPECT_NE(refusal(parameters).find("must end with the cut"), std::string::npos);
  parameters = good_parameters();
  parameters["occurrence"] = "0";
  EXPECT_NE(refusal(parameters).find("occurrence '0'"), std::string::npos);
  parameters = good_parameters();
  parameters["function"] = "bad name";
  EXPECT_NE(refusal(parameters).find("not a PTX identifier"), std::string::npos);
  parameters = good_parameters();
  parameters["colour"] = "red";
  EXPECT_NE(refusal(parameters).find("unknown parameter 'colour'"), std::string::npos);

  std::string declared = k_kernel;
  declared.replace(declared.find(".visible .entry"), 0,
                   ".extern .func d4r_enc0_tail(.param .b64 a);\n");
  EXPECT_NE(refusal(good_parameters(), declared).find("declared with 1 parameters"),
            std::string::npos);
}

} // namespace

namespace {

// Head mode, as the contract's dec0 head: a range that starts at one instruction and ends at
// another is replaced by one call, and the kernel goes on after it.
Parameters head_parameters()
{
  return {{"cut_after", "mov.u32 %r3, %tid.x"},
          {"replace_through", "mul.lo.s32 %r6, %r5, %r2"},
          {"expect", "mov.u32 %r0, %tid.x; setp.gt.u32 %p0, %r0, 31;"},
          {"function", "d4r_dec0_head"},
          {"arguments", "ld.param.u64 [+40]; ld.param.v2.u32 [+8] {1}"}};
}

TEST(CompilerPassSplice, HeadModeReplacesARangeAndKeepsTheRest)
{
  ptx::Module module = parse_kernel();
  const std::vector<std::string> before = body_instructions(module, "enc0");
  // The label the range holds must not be branched to from outside it: the kernel's only branch
  // is inside the range too.
  d4r::Expected<passes::PassResult> result = run_splice(module, head_parameters());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->rewrites, 1);
  const std::vector<std::string> after = body_instructions(module, "enc0");
  // 3 instructions before the range stay, 8 (mov .. mul) become one call, 5 after it stay.
  ASSERT_EQ(before.size(), 16U);
  ASSERT_EQ(after.size(), 3U + 1U + 5U);
  EXPECT_EQ(std::vector<std::string>(after.begin(), after.begin() + 3),
            std::vector<std::string>(before.begin(), before.begin() + 3));
  EXPECT_EQ(after[3], "call.uni d4r_dec0_head, (%rd1, %r2);");
  EXPECT_EQ(std::vector<std::string>(after.begin() + 4, after.end()),
            std::vector<std::string>(before.begin() + 11, before.end()));
  d4r::Expected<ptx::Module> reparsed = ptx::parse_module(ptx::print_module(module));
  ASSERT_TRUE(reparsed) << reparsed.error().message;
  EXPECT_EQ(*reparsed, module);
}

TEST(CompilerPassSplice, HeadModeRefusesMismatchesAndBranchesIntoTheRange)
{
  {
    Parameters parameters = head_parameters();
    parameters["expect"] = "mov.u32 %r0, %tid.x; add.s32 %r0, %r0, %r0;";
    ptx::Module module = parse_kernel();
    d4r::Expected<passes::PassResult> result = run_splice(module, parameters);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("of the replaced range"), std::string::npos)
        << result.error().message;
  }
  {
    Parameters parameters = head_parameters();
    parameters["replace_through"] = "mul.lo.s32 %r9, %r9, %r9";
    ptx::Module module = parse_kernel();
    d4r::Expected<passes::PassResult> result = run_splice(module, parameters);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("not found"), std::string::npos) << result.error().message;
  }
  {
    // A range that holds $L__BB0_2 while the branch to it stays outside must be refused.
    Parameters parameters = head_parameters();
    parameters["cut_after"] = "shl.b32 %r4, %r3, 2";
    parameters["expect"] = "shl.b32 %r0, %r0, 2;";
    parameters["replace_through"] = "add.s32 %r5, %r3, %r1";
    ptx::Module module = parse_kernel();
    d4r::Expected<passes::PassResult> result = run_splice(module, parameters);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("replaced range"), std::string::npos) << result.error().message;
  }
  {
    Parameters parameters = head_parameters();
    parameters["expect"] = "setp.gt.u32 %p0, %r0, 31;"; // does not start with the first replaced
    ptx::Module module = parse_kernel();
    EXPECT_FALSE(run_splice(module, parameters));
  }
}

} // namespace
