// min/max.f32 as the translator lowers them without the support library: against a constant, a
// compare (or a class test, for a zero) and a select (lowering_support.hpp min_max_with_constant),
// run on the CPU executor for thousands of inputs; the post-pipeline rewrite of minnum/maxnum
// against a zero (min_max_zeros.hpp), evaluated by LLVM's constant folder; and on AMDGPU, the
// hardware's min/max for two registers with no clamp bit formed from fminf(fmaxf(x, 0), 1). The
// reference is PTX's rule written here: .ftz flushes the operands, one NaN gives the other
// operand, two give 0x7fffffff, and -0.0 < +0.0.

#include "compiler/translate/min_max_zeros.hpp"
#include "tests/unit/test_compiler_ir_function_pass.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_kernels_ptx_support_common.hpp"

#include <gtest/gtest.h>

#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

using namespace d4r::test::ptx_support;

float flush(float x)
{
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

uint32_t ptx_min_max(float a, float b, bool is_max, bool ftz)
{
  if (ftz) {
    a = flush(a);
    b = flush(b);
  }
  if (std::isnan(a) && std::isnan(b)) {
    return 0x7fffffffu;
  }
  if (std::isnan(a) || std::isnan(b)) {
    return bits(std::isnan(a) ? b : a);
  }
  if (a == 0.0f && b == 0.0f) { // -0 < +0
    const bool a_negative = std::signbit(a);
    return bits(is_max ? (a_negative ? b : a) : (a_negative ? a : b));
  }
  return bits(is_max ? std::max(a, b) : std::min(a, b));
}

constexpr std::array<uint32_t, 12> k_constants = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbfc00000u, 0x00000001u, 0x807fffffu,
    0x7f800000u, 0xff800000u, 0x7f7fffffu, 0x00800000u, 0x3effffffu, 0xc2c80000u,
};
constexpr int k_forms = static_cast<int>(k_constants.size()) * 2 * 2 * 2; // c, max, ftz, c first

int form_index(size_t c, bool is_max, bool ftz, bool constant_first)
{
  return ((static_cast<int>(c) * 2 + (is_max ? 1 : 0)) * 2 + (ftz ? 1 : 0)) * 2 + (constant_first ? 1 : 0);
}

// Thread i reads an f32 at in + 4 i and writes every form's result to out + 4 (k_forms i + form).
std::string constants_kernel()
{
  std::string body = "  mov.u32 %r1, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mad.lo.u32 %r1, %r3, 256, %r1;\n"
                     "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
                     "  mul.wide.u32 %rd5, %r1, " + std::to_string(4 * k_forms) + ";\n"
                     "  add.s64 %rd6, %rd1, %rd5;\n  ld.global.f32 %f1, [%rd4];\n";
  for (size_t c = 0; c < k_constants.size(); ++c) {
    char literal[16];
    std::snprintf(literal, sizeof literal, "0f%08X", k_constants[c]);
    for (bool is_max : {false, true}) {
      for (bool ftz : {false, true}) {
        for (bool constant_first : {false, true}) {
          std::string sources = constant_first ? std::string(literal) + ", %f1" : "%f1, " + std::string(literal);
          body += std::string("  ") + (is_max ? "max" : "min") + (ftz ? ".ftz" : "") + ".f32 %f2, " + sources + ";\n";
          body += "  st.global.f32 [%rd6+" + std::to_string(4 * form_index(c, is_max, ftz, constant_first)) +
                  "], %f2;\n";
        }
      }
    }
  }
  return kernel_text(body);
}

TEST(TranslateMinMax, AgainstAConstantFollowsPtxOnEveryInput)
{
  constexpr uint32_t k_blocks = 16;
  constexpr size_t k_inputs = k_blocks * 256;
  std::vector<float> in(k_inputs);
  Rng rng;
  for (size_t i = 0; i < k_inputs; ++i) {
    in[i] = interesting_f32(rng);
  }
  in[0] = 0.0f; // the cases that decide the zeros' order and the NaN rule, whatever the generator does
  in[1] = -0.0f;
  in[2] = f32(0x7fc00000u);
  in[3] = f32(0xff800001u);
  in[4] = f32(0x80000001u);
  std::vector<uint32_t> out(k_inputs * k_forms);
  ASSERT_TRUE(run_host_blocks(constants_kernel(), k_blocks, out.data(), in.data()));
  int failures = 0;
  for (size_t i = 0; i < k_inputs; ++i) {
    for (size_t c = 0; c < k_constants.size(); ++c) {
      for (bool is_max : {false, true}) {
        for (bool ftz : {false, true}) {
          for (bool constant_first : {false, true}) {
            const uint32_t got = out[i * k_forms + static_cast<size_t>(form_index(c, is_max, ftz, constant_first))];
            const uint32_t want = ptx_min_max(in[i], f32(k_constants[c]), is_max, ftz);
            if (got != want && failures++ < 20) {
              ADD_FAILURE() << (is_max ? "max" : "min") << (ftz ? ".ftz" : "") << " of " << std::hex
                            << bits(in[i]) << " and " << k_constants[c] << ": got " << got << ", want " << want;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

// @f's value with every instruction folded to a constant, or null.
llvm::Constant* folded_result(llvm::Function& function)
{
  llvm::DenseMap<llvm::Value*, llvm::Constant*> values;
  const llvm::DataLayout& layout = function.getParent()->getDataLayout();
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&instruction)) {
      llvm::Value* value = ret->getReturnValue();
      return values.contains(value) ? values[value] : llvm::dyn_cast<llvm::Constant>(value);
    }
    llvm::Instruction* copy = instruction.clone();
    for (llvm::Use& operand : copy->operands()) {
      if (values.contains(operand.get())) {
        operand.set(values[operand.get()]);
      }
    }
    llvm::Constant* folded = llvm::ConstantFoldInstruction(copy, layout);
    copy->deleteValue();
    if (folded == nullptr) {
      return nullptr;
    }
    values[&instruction] = folded;
  }
  return nullptr;
}

TEST(OrderZerosInMinMax, RewrittenCallsGivePtxResults)
{
  constexpr std::array<uint32_t, 10> k_inputs = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u,
                                                 0x00000001u, 0x80000001u, 0x7f800000u, 0xff800000u,
                                                 0x7fc00000u, 0xffc00000u};
  int failures = 0;
  for (uint32_t x : k_inputs) {
    for (uint32_t zero : {0x00000000u, 0x80000000u}) {
      for (bool is_max : {false, true}) {
        for (bool zero_first : {false, true}) {
          char x_text[32];
          char zero_text[32];
          std::snprintf(x_text, sizeof x_text, "0x%016llX",
                        static_cast<unsigned long long>(bits(static_cast<double>(f32(x)))));
          std::snprintf(zero_text, sizeof zero_text, "%s", zero == 0 ? "0.0" : "-0.0");
          // x reaches the call through a bit cast, so that the call is not folded before the rewrite.
          const std::string name = is_max ? "maxnum" : "minnum";
          const std::string operands = zero_first ? std::string("float ") + zero_text + ", float %x"
                                                  : std::string("float %x, float ") + zero_text;
          const std::string text = "define float @f() {\n  %x = bitcast i32 " + std::to_string(x) +
                                   " to float\n  %r = call float @llvm." + name + ".f32(" + operands +
                                   ")\n  ret float %r\n}\ndeclare float @llvm." + name + ".f32(float, float)\n";
          llvm::LLVMContext context;
          llvm::SMDiagnostic diagnostic;
          std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(text, diagnostic, context);
          ASSERT_NE(module, nullptr) << diagnostic.getMessage().str();
          llvm::Function& function = *module->getFunction("f");
          EXPECT_EQ(order_zeros_in_min_max(function), 1u);
          auto* result = llvm::dyn_cast_or_null<llvm::ConstantFP>(folded_result(function));
          ASSERT_NE(result, nullptr) << text;
          const uint32_t got = static_cast<uint32_t>(result->getValueAPF().bitcastToAPInt().getZExtValue());
          const uint32_t want = ptx_min_max(f32(x), f32(zero), is_max, false);
          if (got != want && failures++ < 20) {
            ADD_FAILURE() << name << " of " << std::hex << x << " and " << zero << ": got " << got
                          << ", want " << want;
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(OrderZerosInMinMax, LeavesOtherOperandsAlone)
{
  FunctionPassRun run = run_function_pass(
      "define float @f(float %x, float %y) {\n"
      "  %a = call float @llvm.maxnum.f32(float %x, float 1.0)\n"
      "  %b = call float @llvm.minnum.f32(float %a, float %y)\n"
      "  %c = call float @llvm.maxnum.f32(float %b, float 0.0)\n"
      "  ret float %c\n}\n"
      "declare float @llvm.maxnum.f32(float, float)\ndeclare float @llvm.minnum.f32(float, float)\n",
      order_zeros_in_min_max);
  EXPECT_EQ(run.count, 1u);
  EXPECT_TRUE(has(run.ir, "@llvm.maxnum.f32(float %x, float 1.0")) << run.ir;
  EXPECT_TRUE(has(run.ir, "@llvm.minnum.f32(float %a, float %y)")) << run.ir;
  EXPECT_TRUE(has(run.ir, "@llvm.is.fpclass.f32(float %b")) << run.ir;
}

// nvcc's fminf(fmaxf(x, 0.0f), 1.0f) and a min/max of two loaded values.
std::string registers_kernel()
{
  return kernel_text("  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 8;\n  add.s64 %rd4, %rd2, %rd3;\n"
                     "  add.s64 %rd5, %rd1, %rd3;\n  ld.global.f32 %f1, [%rd4];\n  ld.global.f32 %f2, [%rd4+4];\n"
                     "  mov.f32 %f3, 0f00000000;\n  mov.f32 %f4, 0f3F800000;\n"
                     "  max.f32 %f5, %f1, %f3;\n  min.f32 %f6, %f5, %f4;\n"
                     "  max.f32 %f7, %f1, %f2;\n  min.f32 %f8, %f1, %f2;\n"
                     "  st.global.f32 [%rd5], %f6;\n  st.global.f32 [%rd5+4], %f7;\n  st.global.f32 [%rd5+8], %f8;\n");
}

TEST(TranslateMinMax, AmdgpuUsesTheHardwareMinMaxAndNoClamp)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    const std::string isa = amdgpu_disassembly(registers_kernel(), target);
    const std::string max = std::string(target) == "gfx1100" ? "max_f32" : "max_num_f32";
    const std::string min = std::string(target) == "gfx1100" ? "min_f32" : "min_num_f32";
    EXPECT_GE(occurrences(isa, max), 1) << target << "\n" << isa;
    EXPECT_GE(occurrences(isa, min), 1) << target << "\n" << isa;
    EXPECT_EQ(occurrences(isa, " clamp"), 0) << target << "\n" << isa;
    EXPECT_EQ(occurrences(isa, "v_cmp_gt_i32") + occurrences(isa, "v_cmp_lt_i32"), 0)
        << target << ": the support library's integer ordering\n" << isa;
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
