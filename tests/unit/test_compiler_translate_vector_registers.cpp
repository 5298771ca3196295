// Vector registers (.reg .v2/.v4, PTX ISA "Vectors"): each becomes its element registers before
// translation, element names (.x/.r ...) name them, and a whole-vector operand becomes the brace
// list of its elements. What they compute is checked on the H200 by the golden case
// vector_registers (tests/golden/cases/).

#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"
#include "compiler/translate/vector_registers.hpp"

#include "test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

namespace d4r::compiler::translate {
namespace {

using namespace test;

ptx::Module parse_ok(const std::string& text)
{
  Expected<ptx::Module> module = ptx::parse_module(text);
  EXPECT_TRUE(module) << module.error().message;
  return module ? std::move(*module) : ptx::Module{};
}

TEST(VectorRegisters, ExpandToElementRegistersAndBraceLists)
{
  ptx::Module module = parse_ok(kernel_text("  .reg .v4 .f32 %v;\n  .reg .v2 .b32 %w<2>;\n"
                                            "  ld.global.v4.f32 %v, [%rd2];\n"
                                            "  mov.b32 %w1.x, %v.r;\n  mov.b32 %w1.y, %v.a;\n"
                                            "  st.global.v2.b32 [%rd1], %w1;\n"));
  ASSERT_TRUE(has_vector_registers(module));
  Expected<ptx::Module> expanded = expand_vector_registers(module);
  ASSERT_TRUE(expanded) << expanded.error().message;
  EXPECT_FALSE(has_vector_registers(*expanded));
  std::string text = ptx::print_module(*expanded);
  for (const char* expected :
       {".reg .f32 %v.x;", ".reg .f32 %v.w;", ".reg .b32 %w0.y;", ".reg .b32 %w1.x;",
        "ld.global.v4.f32 \t{%v.x, %v.y, %v.z, %v.w}, [%rd2];", "mov.b32 \t%w1.x, %v.x;",
        "mov.b32 \t%w1.y, %v.w;", "st.global.v2.b32 \t[%rd1], {%w1.x, %w1.y};"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
  }
  EXPECT_EQ(text.find(".v4 .f32 %v"), std::string::npos) << text;
}

TEST(VectorRegisters, ElementsComputeLikeScalars)
{
  // %v.g and %v.y are one register; a sum of the elements folds to the constant it must be.
  std::vector<std::string> stored = host_stores(
      "  .reg .v4 .u32 %v;\n  .reg .v2 .u16 %h;\n"
      "  mov.u32 %v.x, 1;\n  mov.u32 %v.g, 20;\n  mov.u32 %v.z, 300;\n  mov.u32 %v.a, 4000;\n"
      "  add.u32 %r1, %v.r, %v.y;\n  add.u32 %r1, %r1, %v.b;\n  add.u32 %r1, %r1, %v.w;\n"
      "  st.global.u32 [%rd1], %r1;\n"
      "  mov.u16 %h.x, 7;\n  mov.u16 %h.y, 9;\n  mul.lo.u16 %rs1, %h.x, %h.g;\n"
      "  st.global.u16 [%rd1+4], %rs1;\n");
  EXPECT_EQ(stored, (std::vector<std::string>{"10E1", "3F"}));
}

TEST(VectorRegisters, WholeVectorLoadsAndStoresTranslateForAmdgpu)
{
  std::string text = kernel_text("  .reg .v4 .f32 %v;\n  ld.global.v4.f32 %v, [%rd2];\n"
                                 "  add.f32 %v.x, %v.x, %v.w;\n  st.global.v4.f32 [%rd1], %v;\n");
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> translation = translate_text(text, amdgpu_options(target));
    ASSERT_TRUE(translation) << target << ": " << translation.error().message;
    EXPECT_EQ(verify_text(*translation->module), "") << target;
  }
}

TEST(VectorRegisters, WhatCannotBeARegisterIsAnError)
{
  struct Bad {
    const char* body;
    const char* message;
  };
  const Bad cases[] = {
      {"  .reg .v4 .pred %vp;\n", "unsupported: register declaration .v4.pred %vp"},
      {"  .reg .v2 .f32 %q;\n  .reg .f32 %q;\n",
       "%q is declared both as a vector and as a scalar register"},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.body);
    Expected<Translation> translation = translate_text(kernel_text(bad.body), host_options());
    ASSERT_FALSE(translation);
    EXPECT_NE(translation.error().message.find(bad.message), std::string::npos)
        << translation.error().message;
  }
}

} // namespace
} // namespace d4r::compiler::translate
