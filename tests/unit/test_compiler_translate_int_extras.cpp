// The integer instructions beyond stage 1 (lower_bits.cpp: dp4a, dp2a; lower_arith.cpp: mul24,
// mad24; lower_carry.cpp: the carry chains): every form translates for the host and links for the
// six AMDGPU targets, constants fold to the values the ISA defines (the NVIDIA goldens int_dot_*
// and int_carry_* check the rest bit for bit through the CPU executor), and malformed forms fail
// with a message instead of a crash.

#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

using Values = std::vector<std::string>;

// %r1..%r4, %rd3 and %rd4 loaded from in + 32 * %tid.x, so that nothing folds and the values
// live in vector registers on AMDGPU (uniform values take the scalar unit, which has no 24-bit
// multiply or dot instruction).
const std::string k_loads = "  mov.u32 %r15, %tid.x;\n  mul.wide.u32 %rd15, %r15, 32;\n"
                            "  add.s64 %rd2, %rd2, %rd15;\n"
                            "  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];\n"
                            "  ld.global.v2.u64 {%rd3, %rd4}, [%rd2+16];\n";

std::string store32(const std::string& reg, int index)
{
  return "  st.global.u32 [%rd1+" + std::to_string(4 * index) + "], " + reg + ";\n";
}

std::string store64(const std::string& reg, int index)
{
  return "  st.global.u64 [%rd1+" + std::to_string(8 * index) + "], " + reg + ";\n";
}

// One line per form, each result stored: "OP %r5, %r1, %r2{, %r3};".
std::string forms_body(const std::vector<std::string>& forms, bool three)
{
  std::string body = k_loads;
  int index = 0;
  for (const std::string& form : forms) {
    body += "  " + form + " %r5, %r1, %r2" + (three ? ", %r3;\n" : ";\n") + store32("%r5", index++);
  }
  return body;
}

const std::vector<std::string> k_dot_forms = {
    "dp4a.u32.u32",      "dp4a.s32.s32",      "dp4a.s32.u32",      "dp4a.u32.s32",
    "dp2a.lo.u32.u32",   "dp2a.hi.u32.u32",   "dp2a.lo.s32.s32",   "dp2a.hi.s32.s32",
    "dp2a.lo.s32.u32",   "dp2a.hi.s32.u32",   "dp2a.lo.u32.s32",   "dp2a.hi.u32.s32",
    "mad24.lo.u32",      "mad24.lo.s32",      "mad24.hi.u32",      "mad24.hi.s32",
    "mad24.hi.sat.s32"};
const std::vector<std::string> k_mul24_forms = {"mul24.lo.u32", "mul24.lo.s32", "mul24.hi.u32",
                                                "mul24.hi.s32"};

// Every carry form: 32-bit chains through add, sub and mad, 64-bit add and sub chains.
const std::string k_carry_body = k_loads +
    "  add.cc.u32 %r5, %r1, %r2;\n  addc.cc.u32 %r6, %r2, %r3;\n  addc.u32 %r7, %r3, 0;\n" +
    store32("%r5", 0) + store32("%r6", 1) + store32("%r7", 2) +
    "  sub.cc.s32 %r5, %r1, %r2;\n  subc.cc.s32 %r6, %r2, %r3;\n  subc.s32 %r7, 0, 0;\n" +
    store32("%r5", 3) + store32("%r6", 4) + store32("%r7", 5) +
    "  mad.lo.cc.u32 %r5, %r1, %r2, %r3;\n  madc.hi.cc.u32 %r6, %r1, %r2, %r4;\n"
    "  madc.lo.cc.s32 %r7, %r1, %r3, %r4;\n  mad.hi.cc.s32 %r8, %r2, %r3, %r1;\n"
    "  madc.u32 %r9, %r1, %r2, 0;\n  madc.hi.u32 %r10, %r3, %r4, %r1;\n" +
    store32("%r5", 6) + store32("%r6", 7) + store32("%r7", 8) + store32("%r8", 9) +
    store32("%r9", 10) + store32("%r10", 11) +
    "  add.cc.u64 %rd5, %rd3, %rd4;\n  addc.cc.s64 %rd6, %rd4, %rd3;\n  addc.u64 %rd7, 0, 0;\n"
    "  sub.cc.u64 %rd8, %rd3, %rd4;\n  subc.cc.u64 %rd9, %rd4, %rd3;\n  subc.s64 %rd10, 0, 0;\n"
    "  mad.lo.cc.u64 %rd11, %rd3, %rd4, %rd5;\n  madc.hi.u64 %rd12, %rd3, %rd4, %rd6;\n" +
    store64("%rd5", 6) + store64("%rd6", 7) + store64("%rd7", 8) + store64("%rd8", 9) +
    store64("%rd9", 10) + store64("%rd10", 11) + store64("%rd11", 12) + store64("%rd12", 13);

void expect_translates_everywhere(const std::string& body)
{
  Expected<Translation> host = translate_text(kernel_text(body), host_options());
  ASSERT_TRUE(host.has_value()) << host.error().message;
  EXPECT_EQ(verify_text(*host->module), "");
  for (const char* target : k_targets) {
    Expected<Translation> translation = translate_text(kernel_text(body), amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << target << ": " << translation.error().message;
    EXPECT_EQ(verify_text(*translation->module), "") << target;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    EXPECT_TRUE(object.has_value()) << target << ": " << object.error().message;
  }
}

TEST(TranslateIntExtras, DotAndMul24FormsTranslateEverywhere)
{
  expect_translates_everywhere(forms_body(k_dot_forms, true));
  expect_translates_everywhere(forms_body(k_mul24_forms, false));
}

TEST(TranslateIntExtras, CarryFormsTranslateEverywhere)
{
  expect_translates_everywhere(k_carry_body);
  // The flag is one i1 slot that mem2reg removes: nothing of it is left in memory.
  Expected<Translation> host = translate_text(kernel_text(k_carry_body), host_options());
  ASSERT_TRUE(host.has_value()) << host.error().message;
  std::string ir = ir_text(*host->module);
  EXPECT_EQ(occurrences(ir, "alloca"), 0) << ir;
  EXPECT_GE(occurrences(ir, "@llvm.uadd.with.overflow.i32"), 1) << ir;
  EXPECT_GE(occurrences(ir, "@llvm.uadd.with.overflow.i64"), 1) << ir; // sub: a + ~b + 1
}

TEST(TranslateIntExtras, AmdgpuUsesCarryInstructions)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_carry_body), target);
    EXPECT_GE(occurrences(text, "v_add_co_ci_u32"), 1) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "v_sub_co_ci_u32"), 1) << target << "\n" << text;
  }
}

// dp4a: LLVM matches u32.u32 and s32.s32 from the plain IR; the mixed forms call sudot4. mul24
// and mul24.hi become the 24-bit multiplies.
TEST(TranslateIntExtras, AmdgpuUsesDotAndMul24Instructions)
{
  std::vector<std::string> dp4a(k_dot_forms.begin(), k_dot_forms.begin() + 4);
  Expected<Translation> gpu = translate_text(kernel_text(forms_body(dp4a, true)),
                                             amdgpu_options("gfx1100"));
  ASSERT_TRUE(gpu.has_value()) << gpu.error().message;
  std::string ir = ir_text(*gpu->module);
  // dp4a.s32.u32 and dp4a.u32.s32: the sign flags in operand order (a, b), clamp off.
  EXPECT_EQ(occurrences(ir, "@llvm.amdgcn.sudot4(i1 true, i32 %"), 1) << ir;
  EXPECT_EQ(occurrences(ir, "@llvm.amdgcn.sudot4(i1 false, i32 %"), 1) << ir;
  EXPECT_EQ(occurrences(ir, ", i1 true, i32 %"), 1) << ir;
  EXPECT_EQ(occurrences(ir, ", i1 false)"), 2) << ir;
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(forms_body(dp4a, true)), target);
    EXPECT_EQ(occurrences(text, "v_dot4_u32_u8"), 1) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "v_dot4_i32_iu8"), 3) << target << "\n" << text;
    text = amdgpu_disassembly(kernel_text(forms_body(k_mul24_forms, false)), target);
    EXPECT_GE(occurrences(text, "v_mul_u32_u24"), 1) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "v_mul_i32_i24"), 1) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "v_mul_hi_u32_u24"), 1) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "v_mul_hi_i32_i24"), 1) << target << "\n" << text;
  }
}

// Values the ISA defines, folded by the optimiser on the host.
TEST(TranslateIntExtras, DotProductsFold)
{
  std::string body = "  mov.u32 %r1, 0xff80017f;\n  mov.u32 %r2, 0x80ff7f02;\n  mov.u32 %r3, 10;\n"
                     "  dp4a.u32.u32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 0) +
                     "  dp4a.s32.s32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 1) +
                     "  dp4a.s32.u32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 2) +
                     "  dp2a.lo.s32.u32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 3) +
                     "  dp2a.hi.u32.s32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 4);
  // Bytes of a (low first): 0x7f, 0x01, 0x80, 0xff; of b: 0x02, 0x7f, 0xff, 0x80.
  // u.u: 127*2 + 1*127 + 128*255 + 255*128 + 10 = 65671 = 0x10087.
  // s.s: 127*2 + 1*127 + (-128)(-1) + (-1)(-128) + 10 = 647 = 0x287.
  // s.u: 254 + 127 + (-128)(255) + (-1)(128) + 10 = -32377 = 0xffff8187.
  // dp2a.lo s.u: halves 0x017f, 0xff80 (-128); bytes 0x02, 0x7f: 383*2 - 128*127 + 10 = -15480.
  // dp2a.hi u.s: halves 383, 65408; bytes 0xff (-1), 0x80 (-128): -383 - 8372224 + 10.
  EXPECT_EQ(host_stores(body),
            (Values{"10087", "287", "FFFF8187", "FFFFC388", "FF803E8B"}));
}

TEST(TranslateIntExtras, Mul24Folds)
{
  std::string body = "  mov.u32 %r1, 0x12800000;\n  mov.u32 %r2, 0x7fffff;\n  mov.u32 %r3, 5;\n"
                     "  mul24.lo.u32 %r5, %r1, %r2;\n" + store32("%r5", 0) +
                     "  mul24.hi.u32 %r5, %r1, %r2;\n" + store32("%r5", 1) +
                     "  mul24.lo.s32 %r5, %r1, %r2;\n" + store32("%r5", 2) +
                     "  mul24.hi.s32 %r5, %r1, %r2;\n" + store32("%r5", 3) +
                     "  mad24.hi.s32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 4) +
                     "  mad24.lo.u32 %r5, %r1, %r2, %r3;\n" + store32("%r5", 5);
  // Bits 31..24 of a are ignored; its low 24 bits are 0x800000 (-2^23 signed). Unsigned:
  // 0x800000 * 0x7fffff = 0x3fffff800000; signed: -2^23 * (2^23 - 1), 48 bits 0xc00000800000.
  EXPECT_EQ(host_stores(body), (Values{"FF800000", "3FFFFF80", "800000", "C0000080", "C0000085",
                                       "FF800005"}));
}

TEST(TranslateIntExtras, Mad24SatClampsToTheS32Range)
{
  std::string body = "  mov.u32 %r1, 0x7fffff;\n  mov.u32 %r2, 0x7fffffff;\n"
                     "  mov.u32 %r3, 0x800000;\n  mov.u32 %r4, 0x80000000;\n"
                     "  mad24.hi.sat.s32 %r5, %r1, %r1, %r2;\n" + store32("%r5", 0) +
                     "  mad24.hi.s32 %r5, %r1, %r1, %r2;\n" + store32("%r5", 1) +
                     "  mad24.hi.sat.s32 %r5, %r1, %r3, %r4;\n" + store32("%r5", 2) +
                     "  mad24.hi.s32 %r5, %r1, %r3, %r4;\n" + store32("%r5", 3);
  // (2^23 - 1)^2 = 0x3fffff000001: bits 47..16 = 0x3fffff00, + INT_MAX overflows; with .sat
  // INT_MAX. (2^23 - 1) * -2^23 = -0x3fffff800000: bits 47..16 = 0xc0000080 (negative),
  // + INT_MIN underflows; with .sat INT_MIN.
  EXPECT_EQ(host_stores(body), (Values{"7FFFFFFF", "BFFFFEFF", "80000000", "40000080"}));
}

TEST(TranslateIntExtras, CarryChainsFold)
{
  std::string body =
      "  mov.u32 %r1, 0xffffffff;\n  mov.u32 %r2, 1;\n"
      "  add.cc.u32 %r5, %r1, %r2;\n  addc.cc.u32 %r6, %r1, 0;\n  addc.u32 %r7, 0, 0;\n" +
      store32("%r5", 0) + store32("%r6", 1) + store32("%r7", 2) +
      "  sub.cc.u32 %r5, 0, %r2;\n  subc.cc.u32 %r6, %r2, 1;\n  subc.u32 %r7, 0, 0;\n" +
      store32("%r5", 3) + store32("%r6", 4) + store32("%r7", 5) +
      "  mad.lo.cc.u32 %r5, %r1, %r1, %r1;\n  madc.hi.u32 %r6, %r1, %r1, 0;\n" +
      store32("%r5", 6) + store32("%r6", 7) +
      "  addc.u32 %r7, 5, 6;\n" + store32("%r7", 8) +
      "  mov.u64 %rd5, -1;\n  add.cc.u64 %rd6, %rd5, %rd5;\n  addc.u64 %rd7, 0, 0;\n" +
      store64("%rd6", 5) + store64("%rd7", 6);
  // 0xffffffff + 1 = 0 carry 1; 0xffffffff + 0 + 1 = 0 carry 1; 0 + 0 + 1 = 1.
  // 0 - 1 = 0xffffffff borrow 1; 1 - (1 + 1) = 0xffffffff borrow 1; 0 - (0 + 1) = 0xffffffff.
  // (2^32 - 1)^2 = 0xfffffffe00000001: lo 1 + 0xffffffff = 0 carry 1; hi 0xfffffffe + 0 + 1.
  // The last madc.hi had no .cc: the flag is still 1 from mad.lo.cc, 5 + 6 + 1 = 12.
  EXPECT_EQ(host_stores(body),
            (Values{"0", "0", "1", "FFFFFFFF", "FFFFFFFF", "FFFFFFFF", "0", "FFFFFFFF", "C",
                    "FFFFFFFFFFFFFFFE", "1"}));
}

// A flag the function never set reads 0; a guarded .cc writes it only when it runs.
TEST(TranslateIntExtras, CarryFlagStartsClearAndFollowsGuards)
{
  std::string body = "  addc.u32 %r5, 7, 8;\n" + store32("%r5", 0) +
                     "  mov.u32 %r1, 0xffffffff;\n  setp.eq.u32 %p1, %r1, 0;\n"
                     "  @%p1 add.cc.u32 %r6, %r1, %r1;\n  addc.u32 %r7, 0, 0;\n" +
                     store32("%r7", 1) +
                     "  @!%p1 add.cc.u32 %r6, %r1, %r1;\n  addc.u32 %r7, 0, 0;\n" +
                     store32("%r7", 2);
  EXPECT_EQ(host_stores(body), (Values{"F", "0", "1"}));
}

void expect_error(const std::string& line, const std::string& message)
{
  Expected<Translation> translation = translate_text(kernel_text(k_loads + line), host_options());
  ASSERT_FALSE(translation.has_value()) << line;
  EXPECT_NE(translation.error().message.find(message), std::string::npos)
      << line << ": " << translation.error().message;
}

TEST(TranslateIntExtras, MalformedFormsAreRejected)
{
  expect_error("  dp4a.u16.u32 %r5, %r1, %r2, %r3;", "dp4a takes .atype.btype");
  expect_error("  dp4a.u32 %r5, %r1, %r2, %r3;", "unsupported: dp4a.u32");
  expect_error("  dp4a.lo.u32.u32 %r5, %r1, %r2, %r3;", "dp4a takes .atype.btype");
  expect_error("  dp4a.u32.u32 %r5, %r1, %r2;", "dp4a takes 4 operands");
  expect_error("  dp2a.u32.u32 %r5, %r1, %r2, %r3;", "dp2a takes .lo or .hi");
  expect_error("  dp2a.lo.hi.u32.u32 %r5, %r1, %r2, %r3;", "dp2a takes .lo or .hi");
  expect_error("  dp2a.lo.f32.u32 %r5, %r1, %r2, %r3;", "dp2a takes .lo or .hi");
  expect_error("  mul24.u32 %r5, %r1, %r2;", "mul24 takes .lo or .hi");
  expect_error("  mul24.lo.u64 %rd5, %rd3, %rd4;", "mul24 takes .lo or .hi");
  expect_error("  mul24.lo.f32 %r5, %r1, %r2;", "mul24 takes .lo or .hi");
  expect_error("  mad24.lo.u32 %r5, %r1, %r2;", "mad24 takes 4 operands");
  expect_error("  mad24.lo.sat.s32 %r5, %r1, %r2, %r3;", ".sat is only mad24.hi.sat.s32");
  expect_error("  mad24.hi.sat.u32 %r5, %r1, %r2, %r3;", ".sat is only mad24.hi.sat.s32");
  expect_error("  mul24.hi.sat.s32 %r5, %r1, %r2;", ".sat is only mad24.hi.sat.s32");
  expect_error("  add.cc.u16 %rs1, %rs2, %rs3;", "add with a carry takes .u32, .s32, .u64 or .s64");
  expect_error("  add.cc.f32 %f1, %f2, %f3;", "add with a carry takes");
  expect_error("  addc.b32 %r5, %r1, %r2;", "addc with a carry takes");
  expect_error("  add.cc.sat.s32 %r5, %r1, %r2;", "unsupported: add.cc.sat.s32");
  expect_error("  mad.wide.cc.u32 %rd5, %r1, %r2, %rd3;", "unsupported: mad.wide.cc.u32");
  expect_error("  madc.lo.cc.u32 %r5, %r1, %r2;", "madc takes 4 operands");
  expect_error("  subc.lo.u32 %r5, %r1, %r2;", "unsupported: subc.lo.u32");
  expect_error("  mul.lo.cc.u32 %r5, %r1, %r2;", "unsupported: mul.lo.cc.u32");
}

} // namespace
} // namespace d4r::compiler::translate::test
