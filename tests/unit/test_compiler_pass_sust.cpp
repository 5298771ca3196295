// compiler/passes/surface_store ("sust") and registry: on tests/ptx/surface_store.sm_86.ptx (one
// kernel per store kind) every selected store becomes a scoped call of its d4r_sust_* helper with
// the operands passed in order, each helper is declared once before the bodies, the result prints
// and re-parses, every other instruction stays in place, "kinds" and "kernels" select what is
// rewritten, and a module without stores is left unchanged.

#include "compiler/passes/registry.hpp"
#include "compiler/passes/surface_store.hpp"

#include "test_compiler_pass_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace d4r::compiler;
using d4r::test::flatten_module;

struct Kind {
  const char* spelling; // opcode with modifiers, as printed
  const char* helper;
  const char* selector;
};

constexpr std::array<Kind, 4> k_kinds = {
    Kind{"sust.b.2d.v2.b16.zero", "d4r_sust_v2b16", "b16"},
    Kind{"sust.b.2d.v4.b16.zero", "d4r_sust_v4b16", "b16"},
    Kind{"sust.p.2d.v4.b32.zero", "d4r_sust_p_v4b32", "p"},
    Kind{"sust.b.2d.b32.zero", "d4r_sust_b32", "b32"},
};

std::string spelling_of(const ptx::Instruction& instruction)
{
  std::string text = instruction.opcode;
  for (const std::string& modifier : instruction.modifiers) {
    text += "." + modifier;
  }
  return text;
}

int64_t count_spelling(const ptx::Module& module, const std::string& spelling)
{
  return d4r::test::count_instructions(
      module, [&](const ptx::Instruction& i) { return spelling_of(i) == spelling; });
}

bool is_helper_block(const ptx::Block& block)
{
  for (const ptx::Statement& statement : block.statements) {
    const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
    if (instruction != nullptr && d4r::test::callee_of(*instruction).starts_with("d4r_sust_")) {
      return true;
    }
  }
  return false;
}

std::unique_ptr<passes::Pass> make_sust(std::map<std::string, std::string> parameters = {},
                                        std::vector<std::string> kernels = {})
{
  passes::PassOptions options{"gfx1101", std::move(kernels), std::move(parameters)};
  d4r::Expected<std::unique_ptr<passes::Pass>> pass = passes::make_pass("sust", options);
  EXPECT_TRUE(pass.has_value()) << (pass ? "" : pass.error().message);
  return pass ? std::move(*pass) : nullptr;
}

// The instructions a selected store leaves out of the flattened list.
std::vector<std::string> without_stores(const ptx::Module& module, const std::string& selectors)
{
  std::vector<std::string> out;
  for (const std::string& line : flatten_module(module, [](const ptx::Block&) { return false; })) {
    bool selected = false;
    for (const Kind& kind : k_kinds) {
      selected = selected || (line.starts_with(std::string(kind.spelling) + " ") &&
                              selectors.find(kind.selector) != std::string::npos);
    }
    if (!selected) {
      out.push_back(line);
    }
  }
  return out;
}

TEST(CompilerPassSust, RewritesAllFourKindsOfTheCorpus)
{
  ptx::Module module = d4r::test::load_corpus_module("surface_store.sm_86.ptx");
  const ptx::Module before = module;
  std::map<std::string, int64_t> stores;
  int64_t total = 0;
  for (const Kind& kind : k_kinds) {
    stores[kind.spelling] = count_spelling(module, kind.spelling);
    EXPECT_GT(stores[kind.spelling], 0) << kind.spelling;
    EXPECT_EQ(d4r::test::count_calls(module, kind.helper), 0) << kind.helper;
    total += stores[kind.spelling];
  }
  std::unique_ptr<passes::Pass> pass = make_sust();
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->name(), "sust");
  d4r::Expected<passes::PassResult> result = pass->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->rewrites, total);
  EXPECT_TRUE(result->changed());
  for (const Kind& kind : k_kinds) {
    EXPECT_EQ(count_spelling(module, kind.spelling), 0) << kind.spelling;
    EXPECT_EQ(d4r::test::count_calls(module, kind.helper), stores[kind.spelling]) << kind.helper;
    d4r::test::DeclarationFacts facts = d4r::test::declaration_facts(module, kind.helper);
    EXPECT_EQ(facts.count, 1) << kind.helper;
    EXPECT_TRUE(facts.before_bodies) << kind.helper;
    EXPECT_TRUE(facts.is_extern_declaration) << kind.helper;
  }
  EXPECT_EQ(flatten_module(module, is_helper_block), without_stores(before, "b16,p,b32"));
  d4r::test::expect_reparses(module);
}

// The exact call sequence of store_rg16f's "sust.b.2d.v2.b16.zero [%rd1, {%r12, %r2}], {%rs1,
// %rs2}".
TEST(CompilerPassSust, EmitsTheCallSequenceWithOperandsInOrder)
{
  ptx::Module module = d4r::test::parse_text(R"(.version 8.0
.target sm_86
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred %p<2>;
	.reg .b16 %rs<3>;
	.reg .b32 %r<13>;
	.reg .b64 %rd<2>;
	@!%p1 sust.b.2d.v2.b16.zero [%rd1, {%r12, %r2}], {%rs1, %rs2};
	ret;
}
)");
  d4r::Expected<passes::PassResult> result = make_sust()->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_EQ(result->rewrites, 1);
  std::vector<std::string> lines = flatten_module(module, [](const ptx::Block&) { return false; });
  std::vector<std::string> expected = {
      "function k",
      "st.param.b64 [d4r_arg0], %rd1",
      "st.param.b32 [d4r_arg1], %r12",
      "st.param.b32 [d4r_arg2], %r2",
      "st.param.b16 [d4r_arg3], %rs1",
      "st.param.b16 [d4r_arg4], %rs2",
      "@!%p1 call d4r_sust_v2b16, (d4r_arg0, d4r_arg1, d4r_arg2, d4r_arg3, d4r_arg4)",
      "ret",
  };
  EXPECT_EQ(lines, expected);
  std::string printed = ptx::print_module(module);
  EXPECT_NE(d4r::test::collapse_spaces(printed).find(
                ".extern .func d4r_sust_v2b16( .param .b64 d4r_sust_v2b16_param_0, .param .b32 "
                "d4r_sust_v2b16_param_1, .param .b32 d4r_sust_v2b16_param_2, .param .b16 "
                "d4r_sust_v2b16_param_3, .param .b16 d4r_sust_v2b16_param_4 );"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("call.uni"), std::string::npos) << printed;
  d4r::test::expect_reparses(module);
}

TEST(CompilerPassSust, KindsSelectWhatIsRewritten)
{
  for (const char* selectors : {"p", "b16", "b32", "b32, p", ""}) {
    ptx::Module module = d4r::test::load_corpus_module("surface_store.sm_86.ptx");
    const ptx::Module before = module;
    d4r::Expected<passes::PassResult> result = make_sust({{"kinds", selectors}})->run(module);
    ASSERT_TRUE(result.has_value()) << result.error().message;
    int64_t expected_rewrites = 0;
    for (const Kind& kind : k_kinds) {
      bool selected = std::string(selectors).find(kind.selector) != std::string::npos;
      int64_t stores = count_spelling(before, kind.spelling);
      expected_rewrites += selected ? stores : 0;
      EXPECT_EQ(count_spelling(module, kind.spelling), selected ? 0 : stores)
          << selectors << ": " << kind.spelling;
      EXPECT_EQ(d4r::test::count_calls(module, kind.helper), selected ? stores : 0)
          << selectors << ": " << kind.helper;
      EXPECT_EQ(d4r::test::declaration_facts(module, kind.helper).count, selected ? 1 : 0)
          << selectors << ": " << kind.helper;
    }
    EXPECT_EQ(result->rewrites, expected_rewrites) << selectors;
    EXPECT_EQ(flatten_module(module, is_helper_block), without_stores(before, selectors))
        << selectors;
    d4r::test::expect_reparses(module);
  }
}

TEST(CompilerPassSust, KernelsSelectTheEntries)
{
  ptx::Module module = d4r::test::load_corpus_module("surface_store.sm_86.ptx");
  d4r::Expected<passes::PassResult> result = make_sust({}, {"store_rg16f"})->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->rewrites, 1);
  EXPECT_EQ(count_spelling(module, "sust.b.2d.v2.b16.zero"), 0);
  EXPECT_EQ(count_spelling(module, "sust.b.2d.v4.b16.zero"), 1);
  EXPECT_EQ(d4r::test::declaration_facts(module, "d4r_sust_v2b16").count, 1);
  EXPECT_EQ(d4r::test::declaration_facts(module, "d4r_sust_v4b16").count, 0);
}

TEST(CompilerPassSust, SecondRunIsUnchangedAndDeclaresOnce)
{
  ptx::Module module = d4r::test::load_corpus_module("surface_store.sm_86.ptx");
  std::unique_ptr<passes::Pass> pass = make_sust();
  ASSERT_TRUE(pass->run(module).has_value());
  const ptx::Module once = module;
  d4r::Expected<passes::PassResult> again = pass->run(module);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(again->rewrites, 0);
  EXPECT_FALSE(again->changed());
  EXPECT_TRUE(module == once);
}

TEST(CompilerPassSust, ModuleWithoutStoresIsUnchanged)
{
  ptx::Module module = d4r::test::load_corpus_module("mma_tile.sm_86.ptx");
  const ptx::Module before = module;
  ASSERT_FALSE(module.items.empty());
  d4r::Expected<passes::PassResult> result = make_sust()->run(module);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->rewrites, 0);
  EXPECT_FALSE(result->changed());
  EXPECT_TRUE(module == before);
}

TEST(CompilerPassSust, RejectsASurfaceReferenceAndBadParameters)
{
  ptx::Module module = d4r::test::parse_text(R"(.version 8.0
.target sm_86
.address_size 64
.global .surfref surf;
.visible .entry k()
{
	.reg .b32 %r<4>;
	sust.b.2d.b32.zero [surf, {%r1, %r2}], {%r3};
	ret;
}
)");
  d4r::Expected<passes::PassResult> result = make_sust()->run(module);
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message.find("function k"), std::string::npos) << result.error().message;

  passes::PassOptions bad_kind{"gfx1101", {}, {{"kinds", "b16,v8"}}};
  d4r::Expected<std::unique_ptr<passes::Pass>> pass = passes::make_pass("sust", bad_kind);
  ASSERT_FALSE(pass.has_value());
  EXPECT_EQ(pass.error().code, d4r::ErrorCode::invalid_argument);
  EXPECT_NE(pass.error().message.find("'v8'"), std::string::npos) << pass.error().message;

  passes::PassOptions bad_key{"gfx1101", {}, {{"kind", "b16"}}};
  EXPECT_FALSE(passes::make_pass("sust", bad_key).has_value());
}

TEST(CompilerPassRegistry, KnowsItsPassesByName)
{
  std::vector<std::string_view> names = passes::pass_names();
  for (std::string_view name : {"sust", "fp8-cvt"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    d4r::Expected<std::unique_ptr<passes::Pass>> pass = passes::make_pass(name, {});
    ASSERT_TRUE(pass.has_value()) << name << ": " << pass.error().message;
    EXPECT_EQ((*pass)->name(), name);
  }
  d4r::Expected<std::unique_ptr<passes::Pass>> unknown = passes::make_pass("no-such-pass", {});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, d4r::ErrorCode::invalid_argument);
  EXPECT_NE(unknown.error().message.find("no-such-pass"), std::string::npos);
}

} // namespace
