// Per-instruction lowering. Most tests give an instruction constant inputs and read the value the
// kernel stores after the translator's O2 (with the support library linked, its calls fold too):
// that checks the PTX semantics without running anything. Others check the host IR verifies and
// calls the SIMT runtime, and that the AMDGPU code object holds the expected instructions.

#include "test_compiler_translate_support.hpp"

#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>

namespace d4r::compiler::translate::test {
namespace {

using Values = std::vector<std::string>;

// Stores the 32-bit register `reg` at out + 4 * index.
std::string store32(const std::string& reg, int index)
{
  return "  st.global.u32 [%rd1+" + std::to_string(4 * index) + "], " + reg + ";\n";
}

// The constants kernel `k` stores, translated for gfx1100 (the lowering is shared, so these must
// equal host_stores).
Values amdgpu_stores(const std::string& body)
{
  Expected<Translation> translation = translate_text(kernel_text(body), amdgpu_options("gfx1100"));
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return {};
  }
  EXPECT_EQ(verify_text(*translation->module), "");
  return stored_values(*translation->module, "k");
}

// Stores the 64-bit register `reg` at out + 8 * index.
std::string store64(const std::string& reg, int index)
{
  return "  st.global.u64 [%rd1+" + std::to_string(8 * index) + "], " + reg + ";\n";
}

// What an H200 computed (golden cases alu_int32_edges, alu_int64_edges): every division by zero
// gives all ones, quotient and remainder, signed and unsigned; INT_MIN / -1 is INT_MIN rem 0.
TEST(TranslateInteger, DivisionByZeroAndOverflowFollowNvidia)
{
  std::string body = "  mov.u32 %r1, 7;\n  mov.u32 %r2, 0;\n  mov.u32 %r3, -7;\n"
                     "  mov.u32 %r4, 0x80000000;\n  mov.u32 %r5, -1;\n"
                     "  div.u32 %r6, %r1, %r2;\n" + store32("%r6", 0) +
                     "  rem.u32 %r6, %r1, %r2;\n" + store32("%r6", 1) +
                     "  div.s32 %r6, %r3, %r2;\n" + store32("%r6", 2) +
                     "  div.s32 %r6, %r1, %r2;\n" + store32("%r6", 3) +
                     "  div.s32 %r6, %r4, %r5;\n" + store32("%r6", 4) +
                     "  rem.s32 %r6, %r4, %r5;\n" + store32("%r6", 5) +
                     "  div.s32 %r6, %r3, 2;\n" + store32("%r6", 6) +
                     "  rem.s32 %r6, %r3, 2;\n" + store32("%r6", 7) +
                     "  rem.s32 %r6, %r3, %r2;\n" + store32("%r6", 8) +
                     "  rem.s32 %r6, %r2, %r2;\n" + store32("%r6", 9) +
                     "  div.u32 %r6, %r4, %r5;\n" + store32("%r6", 10) +
                     "  rem.u32 %r6, %r4, %r5;\n" + store32("%r6", 11);
  Values expected{"FFFFFFFF", "FFFFFFFF", "FFFFFFFF", "FFFFFFFF", "80000000", "0",
                  "FFFFFFFD", "FFFFFFFF", "FFFFFFFF", "FFFFFFFF", "0",        "80000000"};
  EXPECT_EQ(host_stores(body), expected);
  EXPECT_EQ(amdgpu_stores(body), expected);
}

TEST(TranslateInteger, Division64ByZeroAndOverflowFollowNvidia)
{
  std::string body = "  mov.u64 %rd3, -3;\n  mov.u64 %rd4, 0;\n  mov.u64 %rd5, -1;\n"
                     "  mov.u64 %rd6, 0x8000000000000000;\n"
                     "  div.s64 %rd7, %rd3, %rd4;\n" + store64("%rd7", 0) +
                     "  rem.s64 %rd7, %rd3, %rd4;\n" + store64("%rd7", 1) +
                     "  div.u64 %rd7, %rd3, %rd4;\n" + store64("%rd7", 2) +
                     "  rem.u64 %rd7, %rd4, %rd4;\n" + store64("%rd7", 3) +
                     "  div.s64 %rd7, %rd6, %rd5;\n" + store64("%rd7", 4) +
                     "  rem.s64 %rd7, %rd6, %rd5;\n" + store64("%rd7", 5) +
                     "  div.s64 %rd7, %rd3, 2;\n" + store64("%rd7", 6);
  Values expected{"FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF",
                  "8000000000000000", "0",                "FFFFFFFFFFFFFFFF"};
  EXPECT_EQ(host_stores(body), expected);
  EXPECT_EQ(amdgpu_stores(body), expected);
}

// sad: c + |a - b| with the comparison after the sign and the sum modulo 2^n.
TEST(TranslateInteger, SumOfAbsoluteDifferences)
{
  std::string body = "  mov.u32 %r1, -5;\n  mov.u32 %r2, 3;\n"
                     "  sad.s32 %r3, %r1, %r2, 10;\n" + store32("%r3", 0) +
                     "  sad.u32 %r3, %r1, %r2, 10;\n" + store32("%r3", 1) +
                     "  sad.s32 %r3, 0x7fffffff, 0x80000000, 0;\n" + store32("%r3", 2) +
                     "  sad.u32 %r3, %r2, %r1, 0;\n" + store32("%r3", 3) +
                     "  sad.u64 %rd3, 1, 5, 0x100000000;\n" + store64("%rd3", 2) +
                     "  sad.s16 %rs1, -1, 1, 0;\n  st.global.u16 [%rd1+24], %rs1;\n";
  Values expected{"12", "2", "FFFFFFFF", "FFFFFFF8", "100000004", "2"};
  EXPECT_EQ(host_stores(body), expected);
  EXPECT_EQ(amdgpu_stores(body), expected);
}

// WARP_SZ, the ISA's predefined identifier, is 32 on both targets.
TEST(TranslateInteger, PredefinedWarpSize)
{
  std::string body = "  mov.u32 %r1, WARP_SZ;\n" + store32("%r1", 0) +
                     "  add.u32 %r2, %r1, WARP_SZ;\n" + store32("%r2", 1);
  Values expected{"20", "40"};
  EXPECT_EQ(host_stores(body), expected);
  EXPECT_EQ(amdgpu_stores(body), expected);
}

TEST(TranslateInteger, ShiftsClampTheirAmount)
{
  Values values = host_stores("  mov.u32 %r1, 1;\n  mov.u32 %r2, -8;\n  mov.u32 %r3, 40;\n"
                              "  shl.b32 %r4, %r1, 32;\n" + store32("%r4", 0) +
                              "  shr.s32 %r4, %r2, %r3;\n" + store32("%r4", 1) +
                              "  shr.u32 %r4, %r2, %r3;\n" + store32("%r4", 2) +
                              "  shl.b32 %r4, %r1, 31;\n" + store32("%r4", 3) +
                              "  shr.s32 %r4, %r2, 1;\n" + store32("%r4", 4));
  EXPECT_EQ(values, (Values{"0", "FFFFFFFF", "0", "80000000", "FFFFFFFC"}));
}

TEST(TranslateInteger, MultiplyForms)
{
  Values values = host_stores("  mov.u32 %r1, 0x80000001;\n  mov.u32 %r2, 6;\n"
                              "  mul.lo.s32 %r3, %r1, %r2;\n" + store32("%r3", 0) +
                              "  mul.hi.u32 %r3, %r1, %r2;\n" + store32("%r3", 1) +
                              "  mul.hi.s32 %r3, %r1, %r2;\n" + store32("%r3", 2) +
                              "  mad.lo.s32 %r3, %r1, %r2, 10;\n" + store32("%r3", 3) +
                              "  mul.wide.s32 %rd3, %r1, %r2;\n  st.global.u64 [%rd1+16], %rd3;\n"
                              "  mul.wide.u32 %rd3, %r1, %r2;\n  st.global.u64 [%rd1+24], %rd3;\n");
  EXPECT_EQ(values, (Values{"6", "3", "FFFFFFFD", "10", "FFFFFFFD00000006", "300000006"}));
}

TEST(TranslateInteger, BitFieldsAndPermutes)
{
  Values values = host_stores(
      "  mov.u32 %r1, 0xF0F0F0F0;\n  mov.u32 %r2, 0x00000F80;\n  mov.u32 %r3, 0x80000000;\n"
      "  bfe.u32 %r4, %r1, 4, 8;\n" + store32("%r4", 0) +
      "  bfe.s32 %r4, %r2, 7, 5;\n" + store32("%r4", 1) +
      "  bfe.u32 %r4, %r1, 4, 0;\n" + store32("%r4", 2) +
      "  bfe.s32 %r4, %r3, 31, 5;\n" + store32("%r4", 3) +
      "  bfe.u32 %r4, %r1, 40, 5;\n" + store32("%r4", 4) +
      "  bfi.b32 %r4, 0xff, 0, 8, 4;\n" + store32("%r4", 5) +
      "  prmt.b32 %r4, 0x33221100, 0x77665544, 0x5140;\n" + store32("%r4", 6) +
      "  prmt.b32 %r4, 0x83221100, 0x77665544, 0x000B;\n" + store32("%r4", 7) +
      "  prmt.b32.f4e %r4, 0x33221100, 0x77665544, 2;\n" + store32("%r4", 8) +
      "  lop3.b32 %r4, 0xF0, 0xCC, 0xAA, 0xEA;\n" + store32("%r4", 9) +
      "  popc.b32 %r4, %r1;\n" + store32("%r4", 10) +
      "  clz.b32 %r4, %r2;\n" + store32("%r4", 11) +
      "  brev.b32 %r4, 1;\n" + store32("%r4", 12) +
      "  bfind.u32 %r4, %r2;\n" + store32("%r4", 13) +
      "  bfind.u32 %r4, 0;\n" + store32("%r4", 14) +
      "  shf.l.wrap.b32 %r4, 0x80000000, 1, 1;\n" + store32("%r4", 15));
  EXPECT_EQ(values, (Values{"F", "FFFFFFFF", "0", "FFFFFFFF", "0", "F00", "55114400", "FF",
                            "55443322", "EA", "10", "14", "80000000", "B", "FFFFFFFF", "3"}));
}

TEST(TranslateInteger, IntegerConversionsAndSaturation)
{
  Values values = host_stores(
      "  mov.u32 %r1, 0x12345;\n  mov.u32 %r2, -5;\n  mov.u32 %r3, 300;\n"
      "  cvt.u16.u32 %rs1, %r1;\n  st.global.u16 [%rd1], %rs1;\n"
      "  cvt.s64.s32 %rd3, %r2;\n  st.global.u64 [%rd1+8], %rd3;\n"
      "  cvt.u64.u32 %rd3, %r2;\n  st.global.u64 [%rd1+16], %rd3;\n"
      "  cvt.sat.u8.s32 %r4, %r2;\n" + store32("%r4", 6) +
      "  cvt.sat.u8.s32 %r4, %r3;\n" + store32("%r4", 7) +
      "  cvt.sat.s8.s32 %r4, %r3;\n" + store32("%r4", 8) +
      "  cvt.s32.s16 %r4, 0x8000;\n" + store32("%r4", 9));
  EXPECT_EQ(values, (Values{"2345", "FFFFFFFFFFFFFFFB", "FFFFFFFB", "0", "FF", "7F",
                            "FFFF8000"}));
}

TEST(TranslateFloat, NaNResultsAreCanonical)
{
  Values values = host_stores(
      "  mov.f32 %f1, 0f7FC00001;\n  mov.f32 %f2, 0f3F800000;\n  mov.f32 %f3, 0f7F800000;\n"
      "  add.f32 %f4, %f1, %f2;\n  st.global.f32 [%rd1], %f4;\n"
      "  sub.rn.f32 %f4, %f3, %f3;\n  st.global.f32 [%rd1+4], %f4;\n"
      "  mul.ftz.f32 %f4, %f3, 0f00000000;\n  st.global.f32 [%rd1+8], %f4;\n"
      "  neg.f32 %f4, %f1;\n  st.global.f32 [%rd1+12], %f4;\n"
      "  abs.f32 %f4, 0fFFC00000;\n  st.global.f32 [%rd1+16], %f4;\n"
      "  add.f64 %fd1, 0d0000000000000000, 0dFFF4000000000000;\n  st.global.f64 [%rd1+24], %fd1;\n"
      "  mul.f64 %fd1, 0d0000000000000000, 0d7FF0000000000000;\n  st.global.f64 [%rd1+32], %fd1;\n");
  // neg/abs.f32 of a NaN give 0x7fffffff on an H200 (golden float_minmax_*); f64 arithmetic keeps
  // the first NaN operand, quieted, and makes 0xfff8000000000000 (double_arith_*).
  EXPECT_EQ(values, (Values{"7FFFFFFF", "7FFFFFFF", "7FFFFFFF", "7FFFFFFF", "7FFFFFFF",
                            "FFFC000000000000", "FFF8000000000000"}));
}

// Rules the random differential test found on the H200 (the rd_* golden cases record them): a
// guarded abs/neg.f32 keeps a NaN's bits, min/max of a register with itself is that register,
// testp.normal of a zero is true, bfe.s32 / bfi.b32 with immediates beyond the width fold as
// ptxas folds them (the register forms keep the ISA's).
TEST(TranslateFloat, RulesFromRandomDifferentialTesting)
{
  Values values = host_stores(
      "  setp.eq.u32 %p1, 1, 1;\n  mov.f32 %f1, 0f7FFF1586;\n  mov.f32 %f2, 0fFF924985;\n"
      "  mov.f32 %f4, 0f00000000;\n  @%p1 neg.f32 %f4, %f1;\n  st.global.f32 [%rd1], %f4;\n"
      "  @%p1 abs.f32 %f4, %f2;\n  st.global.f32 [%rd1+4], %f4;\n"
      "  neg.f32 %f4, %f1;\n  st.global.f32 [%rd1+8], %f4;\n"
      "  mov.f32 %f3, 0fFFA00000;\n  max.f32 %f4, %f3, %f3;\n  st.global.f32 [%rd1+12], %f4;\n"
      "  max.ftz.f32 %f4, %f3, %f3;\n  st.global.f32 [%rd1+16], %f4;\n"
      "  testp.normal.f32 %p2, 0f80000000;\n  selp.u32 %r1, 1, 0, %p2;\n"
      "  st.global.u32 [%rd1+20], %r1;\n"
      "  mov.u32 %r2, 0x0ec554a6;\n  bfe.s32 %r3, %r2, 35, 17;\n  st.global.u32 [%rd1+24], %r3;\n"
      "  mov.u32 %r4, 0xab07d8a7;\n  mov.u32 %r5, 0x807fffc0;\n"
      "  bfi.b32 %r6, %r4, %r5, 10, 33;\n  st.global.u32 [%rd1+28], %r6;\n"
      "  bfi.b32 %r6, %r4, %r5, 16, 40;\n  st.global.u32 [%rd1+32], %r6;\n");
  EXPECT_EQ(values, (Values{"FFFF1586", "7F924985", "7FFFFFFF", "FFA00000", "7FFFFFFF", "1",
                            "FFFFFFFF", "807FFFC0", "D8A7FFC0"}));
}

TEST(TranslateFloat, FlushToZeroAndSaturate)
{
  Values values = host_stores(
      "  mov.f32 %f1, 0f00000001;\n  mov.f32 %f2, 0f80000000;\n"
      "  add.ftz.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1], %f3;\n"
      "  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1+4], %f3;\n"
      "  mul.ftz.f32 %f3, 0f80800000, 0f3F000000;\n  st.global.f32 [%rd1+8], %f3;\n"
      "  add.sat.f32 %f3, 0f3F800000, 0f3F800000;\n  st.global.f32 [%rd1+12], %f3;\n"
      "  add.sat.f32 %f3, 0fBF800000, 0f00000000;\n  st.global.f32 [%rd1+16], %f3;\n"
      "  fma.rn.ftz.f32 %f3, %f1, 0f3F800000, 0f3F800000;\n  st.global.f32 [%rd1+20], %f3;\n");
  EXPECT_EQ(values, (Values{"0", "1", "80000000", "3F800000", "0", "3F800000"}));
}

TEST(TranslateFloat, CopysignTakesTheFirstOperandsSign)
{
  Values values = host_stores("  copysign.f32 %f1, 0fBF800000, 0f40000000;\n"
                              "  st.global.f32 [%rd1], %f1;\n"
                              "  copysign.f32 %f1, 0f3F800000, 0fC0000000;\n"
                              "  st.global.f32 [%rd1+4], %f1;\n");
  EXPECT_EQ(values, (Values{"C0000000", "40000000"}));
}

TEST(TranslateFloat, DirectedRoundingAndIntegralConversions)
{
  // 1 + (2^-24 + 2^-47): above half an ulp of 1.
  Values values = host_stores(
      "  mov.f32 %f1, 0f3F800000;\n  mov.f32 %f2, 0f33800001;\n"
      "  add.rn.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1], %f3;\n"
      "  add.rz.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1+4], %f3;\n"
      "  add.rm.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1+8], %f3;\n"
      "  add.rp.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1+12], %f3;\n"
      "  cvt.rzi.f32.f32 %f3, 0f40200000;\n  st.global.f32 [%rd1+16], %f3;\n"
      "  cvt.rni.f32.f32 %f3, 0f40200000;\n  st.global.f32 [%rd1+20], %f3;\n"
      "  cvt.rni.f32.f32 %f3, 0f40600000;\n  st.global.f32 [%rd1+24], %f3;\n"
      "  cvt.rzi.s32.f32 %r1, 0f7FC00000;\n" + store32("%r1", 7) +
      "  cvt.rmi.s32.f32 %r1, 0fC0200000;\n" + store32("%r1", 8) +
      "  cvt.rzi.u32.f32 %r1, 0fC0200000;\n" + store32("%r1", 9) +
      "  cvt.rn.f32.u64 %f3, 7;\n  st.global.f32 [%rd1+40], %f3;\n"
      "  cvt.rz.f32.s32 %f3, 0x01000003;\n  st.global.f32 [%rd1+44], %f3;\n"
      "  cvt.rn.f32.s32 %f3, 0x01000003;\n  st.global.f32 [%rd1+48], %f3;\n");
  EXPECT_EQ(values, (Values{"3F800001", "3F800000", "3F800000", "3F800001", "40000000", "40000000",
                            "40800000", "0", "FFFFFFFD", "0", "40E00000", "4B800001",
                            "4B800002"}));
}

TEST(TranslateFloat, HalfConversionsAndPacking)
{
  Values values = host_stores(
      "  cvt.rn.f16.f32 %rs1, 0f3F800000;\n  st.global.u16 [%rd1], %rs1;\n"
      "  mov.b16 %rs4, 0x3C00;\n  cvt.f32.f16 %f1, %rs4;\n  st.global.f32 [%rd1+4], %f1;\n"
      "  cvt.rn.f16x2.f32 %r1, 0f40000000, 0f3F800000;\n" + store32("%r1", 2) +
      "  mov.b32 {%rs2, %rs3}, %r1;\n  st.global.u16 [%rd1+12], %rs2;\n"
      "  st.global.u16 [%rd1+14], %rs3;\n"
      "  mov.b32 %r2, {%rs3, %rs2};\n" + store32("%r2", 4) +
      "  mov.b64 %rd3, {%r1, %r2};\n  st.global.u64 [%rd1+24], %rd3;\n");
  EXPECT_EQ(values, (Values{"3C00", "3F800000", "40003C00", "3C00", "4000", "3C004000",
                            "3C00400040003C00"}));
}

TEST(TranslateFloat, PackedHalfArithmetic)
{
  Values values = host_stores(
      "  fma.rn.f16x2 %r1, 0x40003C00, 0x40004000, 0x3C003800;\n" + store32("%r1", 0) +
      "  add.f16x2 %r1, 0x3C003C00, 0x3C004000;\n" + store32("%r1", 1) +
      "  mul.rn.bf16x2 %r1, 0x3F804000, 0x40004000;\n" + store32("%r1", 2));
  EXPECT_EQ(values, (Values{"45004100", "40004200", "40004080"}));
}

// On AMDGPU, f16x2 add/sub/mul/fma (round to nearest, nothing flushed) are the packed hardware
// operations on <2 x half> with PTX's NaN put in; LLVM folds them as IEEE binary16, which is what
// the hardware computes, and the values equal the host's software rounding: subnormals, zeros'
// signs, overflow, ties and NaNs (a NaN half is 0x7fff, the other half keeps its value).
TEST(TranslateFloat, PackedHalfArithmeticIsTheHardwaresOnAmdgpu)
{
  const uint32_t halves[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x3c01,
                             0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x3555, 0x1400,
                             0x5bff, 0x0200, 0xc001, 0x2e66};
  constexpr size_t k_count = std::size(halves);
  auto word = [&](size_t i) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%04X%04X", halves[(i * 7 + 3) % k_count], halves[i % k_count]);
    return std::string(text);
  };
  std::string body;
  int index = 0;
  for (size_t i = 0; i < 2 * k_count; ++i) {
    const std::string a = word(i), b = word(i * 3 + 1), c = word(i * 5 + 2);
    body += "  add.rn.f16x2 %r1, " + a + ", " + b + ";\n" + store32("%r1", index++);
    body += "  sub.f16x2 %r1, " + a + ", " + b + ";\n" + store32("%r1", index++);
    body += "  mul.rn.f16x2 %r1, " + a + ", " + b + ";\n" + store32("%r1", index++);
    body += "  fma.rn.f16x2 %r1, " + a + ", " + b + ", " + c + ";\n" + store32("%r1", index++);
  }
  Values host = host_stores(body);
  ASSERT_EQ(host.size(), static_cast<size_t>(index));
  EXPECT_EQ(amdgpu_stores(body), host);

  const std::string registers = "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n";
  const std::pair<const char*, const char*> forms[] = {
      {"add.rn.f16x2 %r1, %r2, %r3;", "v_pk_add_f16"},
      {"mul.rn.f16x2 %r1, %r2, %r3;", "v_pk_mul_f16"},
      {"fma.rn.f16x2 %r1, %r2, %r3, %r2;", "v_pk_fma_f16"}};
  for (const auto& [instruction, hardware] : forms) {
    SCOPED_TRACE(instruction);
    for (const char* target : {"gfx1100", "gfx1201"}) {
      std::string listing =
          amdgpu_disassembly(kernel_text(registers + "  " + instruction + "\n" + store32("%r1", 0)), target);
      EXPECT_NE(listing.find(hardware), std::string::npos) << target << "\n" << listing;
    }
  }
}

TEST(TranslateFloat, MinMaxAndComparisons)
{
  Values values = host_stores(
      "  mov.f32 %f1, 0f7FC00000;\n  mov.f32 %f2, 0f3F800000;\n"
      "  max.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1], %f3;\n"
      "  min.f32 %f3, 0f80000000, 0f00000000;\n  st.global.f32 [%rd1+4], %f3;\n"
      "  setp.lt.f32 %p1, %f1, %f2;\n  selp.u32 %r1, 1, 0, %p1;\n" + store32("%r1", 2) +
      "  setp.ltu.f32 %p1, %f1, %f2;\n  selp.u32 %r1, 1, 0, %p1;\n" + store32("%r1", 3) +
      "  setp.nan.f32 %p1, %f1, %f2;\n  selp.u32 %r1, 1, 0, %p1;\n" + store32("%r1", 4) +
      "  setp.lt.s32 %p2, -1, 1;\n  setp.lt.u32 %p3, -1, 1;\n"
      "  selp.u32 %r1, 1, 0, %p2;\n" + store32("%r1", 5) +
      "  selp.u32 %r1, 1, 0, %p3;\n" + store32("%r1", 6) +
      "  setp.gt.and.s32 %p4|%p5, 2, 1, %p2;\n"
      "  selp.u32 %r1, 1, 0, %p4;\n" + store32("%r1", 7) +
      "  selp.u32 %r1, 1, 0, %p5;\n" + store32("%r1", 8) +
      "  set.gt.u32.s32 %r1, 2, 1;\n" + store32("%r1", 9) +
      "  set.gt.f32.s32 %f3, 2, 1;\n  st.global.f32 [%rd1+40], %f3;\n"
      "  slct.u32.s32 %r1, 5, 6, -1;\n" + store32("%r1", 11) +
      "  not.pred %p6, %p2;\n  selp.u32 %r1, 1, 0, %p6;\n" + store32("%r1", 12));
  EXPECT_EQ(values,
            (Values{"3F800000", "80000000", "0", "1", "1", "1", "0", "1", "0", "FFFFFFFF",
                    "3F800000", "6", "0"}));
}

TEST(TranslateControl, GuardsLoopsAndScopes)
{
  Values values = host_stores(
      "  mov.u32 %r1, 0;\n  mov.u32 %r2, 1;\n"
      "$L_loop:\n  add.s32 %r1, %r1, %r2;\n  add.s32 %r2, %r2, 1;\n"
      "  setp.le.s32 %p1, %r2, 10;\n  @%p1 bra $L_loop;\n" + store32("%r1", 0) +
      "  setp.eq.s32 %p2, %r1, 55;\n  mov.u32 %r3, 7;\n  @!%p2 mov.u32 %r3, 8;\n"
      "  @%p2 add.s32 %r3, %r3, 100;\n" + store32("%r3", 1) +
      "  {\n  .reg .b32 %r<2>;\n  mov.u32 %r1, 99;\n  st.global.u32 [%rd1+8], %r1;\n  }\n" +
      store32("%r1", 3));
  EXPECT_EQ(values, (Values{"37", "6B", "63", "37"}));
}

// PTX register names need no '%' (nvcc's inline-asm scopes: ".reg .f16 low, high;").
TEST(TranslateControl, RegistersNamedWithoutPercent)
{
  Values values = host_stores("  {\n  .reg .f16 low, high;\n  mov.b32 {low, high}, 0x40003C00;\n"
                              "  mov.b16 %rs1, high;\n  mov.b16 %rs2, low;\n  }\n"
                              "  st.global.u16 [%rd1], %rs1;\n  st.global.u16 [%rd1+2], %rs2;\n");
  EXPECT_EQ(values, (Values{"4000", "3C00"}));
}

TEST(TranslateControl, FunctionCallsWithParamsAndRegisters)
{
  std::string text = ".version 8.0\n.target sm_86\n.address_size 64\n"
                     ".func (.param .b32 ret) add1(.param .b32 x)\n{\n  .reg .b32 %r<3>;\n"
                     "  ld.param.b32 %r1, [x];\n  add.s32 %r2, %r1, 1;\n"
                     "  st.param.b32 [ret], %r2;\n  ret;\n}\n"
                     ".func twice(.param .b32 x, .param .b64 p)\n{\n  .reg .b32 %r<3>;\n"
                     "  .reg .b64 %rd<2>;\n  ld.param.b32 %r1, [x];\n  ld.param.b64 %rd1, [p];\n"
                     "  shl.b32 %r2, %r1, 1;\n  st.global.u32 [%rd1], %r2;\n  ret;\n}\n"
                     ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n"
                     "  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, 41;\n"
                     "  {\n  .param .b32 param0;\n  st.param.b32 [param0], %r1;\n"
                     "  .param .b32 retval0;\n  call.uni (retval0), add1, (param0);\n"
                     "  ld.param.b32 %r2, [retval0];\n  }\n  st.global.u32 [%rd1], %r2;\n"
                     "  add.s64 %rd2, %rd1, 4;\n  call.uni twice, (%r2, %rd2);\n  ret;\n}\n";
  Expected<Translation> translation = translate_text(text, host_options());
  ASSERT_TRUE(translation) << translation.error().message;
  EXPECT_EQ(verify_text(*translation->module), "");
  EXPECT_EQ(stored_values(*translation->module, "k"), (Values{"2A", "54"}));
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> gpu = translate_text(text, amdgpu_options(target));
    ASSERT_TRUE(gpu) << gpu.error().message;
    EXPECT_EQ(stored_values(*gpu->module, "k"), (Values{"2A", "54"}));
  }
}

TEST(TranslateMemory, ConstLocalAndVectorAccesses)
{
  std::string text = ".version 8.0\n.target sm_86\n.address_size 64\n"
                     ".const .align 4 .u32 table[4] = {10, 20, 30, 40};\n"
                     ".global .align 4 .f32 scale = 0f40000000;\n"
                     ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<8>;\n"
                     "  .reg .b64 %rd<4>;\n  .local .align 16 .b8 stack[16];\n"
                     "  ld.param.u64 %rd1, [out];\n  ld.const.u32 %r1, [table+8];\n"
                     "  st.global.u32 [%rd1], %r1;\n"
                     "  st.local.v4.u32 [stack], {1, 2, 3, 4};\n"
                     "  ld.local.v2.u32 {%r2, %r3}, [stack+8];\n"
                     "  st.global.v2.u32 [%rd1+8], {%r3, %r2};\n"
                     "  mov.u64 %rd2, table;\n  ld.const.u32 %r4, [%rd2+12];\n"
                     "  st.global.u32 [%rd1+16], %r4;\n  ret;\n}\n";
  Expected<Translation> translation = translate_text(text, host_options());
  ASSERT_TRUE(translation) << translation.error().message;
  // The .const table's load does not fold to its initialiser (30): the host may overwrite a
  // module variable (module_translator.cpp; test_compiler_translate_module_vars).
  EXPECT_EQ(stored_values(*translation->module, "k"), (Values{"?", "?", "?"}))
      << ir_text(*translation->module);
  for (const char* target : k_targets) {
    Expected<Translation> gpu = translate_text(text, amdgpu_options(target));
    ASSERT_TRUE(gpu) << gpu.error().message;
    Expected<std::vector<std::byte>> object = code_object(*gpu, target);
    ASSERT_TRUE(object) << object.error().message;
  }
}

// Host IR of collective instructions calls the runtime with one site per instruction.
TEST(TranslateHost, CollectivesCallTheRuntime)
{
  std::string body = "  .shared .align 4 .b8 tile[128];\n"
                     "  mov.u32 %r1, %tid.x;\n  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, tile;\n"
                     "  add.s32 %r4, %r3, %r2;\n  st.shared.u32 [%r4], %r1;\n  bar.sync 0;\n"
                     "  shfl.sync.bfly.b32 %r5|%p1, %r1, 1, 31, -1;\n"
                     "  vote.sync.ballot.b32 %r6, %p1, -1;\n  activemask.b32 %r7;\n"
                     "  bar.warp.sync -1;\n  atom.shared.add.u32 %r8, [%r4], 1;\n"
                     "  atom.global.add.f32 %f1, [%rd1], 0f3F800000;\n"
                     "  red.global.max.s32 [%rd1+4], %r5;\n  membar.gl;\n"
                     "  atom.global.cas.b32 %r9, [%rd1+8], %r6, %r7;\n"
                     "  mov.u32 %r10, %laneid;\n  mov.u32 %r11, %lanemask_lt;\n"
                     "  add.s32 %r12, %r10, %r11;\n  add.s32 %r12, %r12, %r9;\n"
                     "  add.s32 %r12, %r12, %r8;\n  st.global.u32 [%rd1+12], %r12;\n";
  Expected<Translation> translation = translate_text(kernel_text(body), host_options());
  ASSERT_TRUE(translation) << translation.error().message;
  EXPECT_EQ(verify_text(*translation->module), "");
  std::string ir = ir_text(*translation->module);
  for (const char* call : {"@d4r_rt_barrier(ptr", "@d4r_rt_warp_exchange(ptr",
                           "@d4r_rt_warp_ballot(ptr", "@d4r_rt_warp_sync(ptr", "atomicrmw add",
                           "cmpxchg", "atomicrmw max"}) {
    EXPECT_NE(ir.find(call), std::string::npos) << call << "\n" << ir;
  }
  ASSERT_EQ(translation->kernels.size(), 1U);
  EXPECT_EQ(translation->kernels[0].static_shared_bytes, 128);
  EXPECT_FALSE(translation->kernels[0].uses_dynamic_shared);
  const llvm::Function* kernel = translation->module->getFunction("k");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->arg_size(), 2U);
}

// Before O2: special registers are loads at host_abi.hpp's offsets of the thread argument.
TEST(TranslateHost, SpecialRegistersReadTheThreadStruct)
{
  TranslateOptions options = host_options(false);
  Expected<Translation> translation = translate_text(
      kernel_text("  mov.u32 %r1, %tid.y;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %laneid;\n"
                  "  mov.u32 %r4, %nctaid.z;\n  add.s32 %r5, %r1, %r2;\n  add.s32 %r5, %r5, %r3;\n"
                  "  add.s32 %r5, %r5, %r4;\n  st.global.u32 [%rd1], %r5;\n"),
      options);
  ASSERT_TRUE(translation) << translation.error().message;
  EXPECT_EQ(verify_text(*translation->module), "");
  std::string ir = ir_text(*translation->module);
  for (const char* offset : {"ptr %1, i64 4", "ptr %1, i64 24", "ptr %1, i64 48", "ptr %1, i64 44"}) {
    EXPECT_NE(ir.find(offset), std::string::npos) << offset << "\n" << ir;
  }
}

// %is_explicit_cluster is the kernel's own declaration: 1 with .explicitcluster or
// .reqnctapercluster, 0 without (it read 0 everywhere before); in a .func it cannot be known.
TEST(TranslateHost, ExplicitClusterRegisterFollowsTheKernelsDeclaration)
{
  const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n";
  const std::string body = "{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [out];\n"
                           "mov.u32 %r1, %is_explicit_cluster;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
  const std::pair<const char*, const char*> kernels[] = {
      {"", "0"}, {" .explicitcluster", "1"}, {" .reqnctapercluster 2, 1, 1", "1"}};
  for (const auto& [directive, value] : kernels) {
    SCOPED_TRACE(directive);
    std::string text = head + ".visible .entry k(.param .u64 out)" + directive + "\n" + body;
    Expected<Translation> translation = translate_text(text, host_options());
    ASSERT_TRUE(translation) << translation.error().message;
    EXPECT_EQ(stored_values(*translation->module, "k"), std::vector<std::string>{value});
  }
  std::string in_func = head + ".func f(.param .u64 out)\n" + body +
                        ".visible .entry k(.param .u64 out)\n{\nret;\n}\n";
  Expected<Translation> translation = translate_text(in_func, host_options());
  ASSERT_FALSE(translation);
  EXPECT_NE(translation.error().message.find("unsupported: mov.u32"), std::string::npos)
      << translation.error().message;
}

TEST(TranslateHost, EveryShuffleAndVoteForm)
{
  std::string body;
  int index = 0;
  for (const char* mode : {"idx", "up", "down", "bfly"}) {
    body += std::string("  shfl.sync.") + mode + ".b32 %r2|%p1, %r1, 3, 0x1f, -1;\n" +
            store32("%r2", index++);
  }
  for (const char* mode : {"all", "any", "uni"}) {
    body += std::string("  vote.sync.") + mode + ".pred %p2, %p1, -1;\n"
            "  selp.u32 %r3, 1, 0, %p2;\n" + store32("%r3", index++);
  }
  body = "  mov.u32 %r1, %tid.x;\n" + body;
  for (TranslateOptions options : {host_options(), amdgpu_options("gfx1100"),
                                   amdgpu_options("gfx1201")}) {
    Expected<Translation> translation = translate_text(kernel_text(body), options);
    ASSERT_TRUE(translation) << translation.error().message;
    EXPECT_EQ(verify_text(*translation->module), "");
    if (options.kind == TargetKind::amdgpu) {
      Expected<std::vector<std::byte>> object = code_object(*translation, options.processor);
      ASSERT_TRUE(object) << object.error().message;
      EXPECT_NE(disassemble(*object, options.processor).find("ds_bpermute_b32"), std::string::npos);
    } else {
      std::string ir = ir_text(*translation->module);
      EXPECT_EQ(std::count(ir.begin(), ir.end(), '\n') > 0, true);
      size_t exchanges = 0;
      for (size_t at = ir.find("call i32 @d4r_rt_warp_exchange"); at != std::string::npos;
           at = ir.find("call i32 @d4r_rt_warp_exchange", at + 1)) {
        ++exchanges;
      }
      EXPECT_EQ(exchanges, 4U);
    }
  }
}

TEST(TranslateAmdgpu, CollectivesBecomeHardwareInstructions)
{
  std::string body = "  .shared .align 4 .b8 tile[128];\n"
                     "  mov.u32 %r1, %tid.x;\n  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, tile;\n"
                     "  add.s32 %r4, %r3, %r2;\n  st.shared.u32 [%r4], %r1;\n  bar.sync 0;\n"
                     "  ld.shared.u32 %r5, [%r4+4];\n"
                     "  shfl.sync.down.b32 %r6, %r5, 1, 31, -1;\n"
                     "  setp.ne.s32 %p1, %r6, 0;\n  vote.sync.ballot.b32 %r7, %p1, -1;\n"
                     "  atom.global.add.u32 %r8, [%rd1], %r7;\n"
                     "  mov.u32 %r9, %ntid.x;\n  mov.u32 %r10, %ctaid.x;\n"
                     "  mad.lo.s32 %r11, %r9, %r10, %r8;\n  st.global.u32 [%rd1+4], %r11;\n";
  for (const char* target : k_targets) {
    SCOPED_TRACE(target);
    Expected<Translation> translation = translate_text(kernel_text(body), amdgpu_options(target));
    ASSERT_TRUE(translation) << translation.error().message;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    ASSERT_TRUE(object) << object.error().message;
    std::string text = disassemble(*object, target);
    for (const char* instruction : {"s_barrier", "ds_store_b32", "ds_load_b32", "ds_bpermute_b32",
                                    "global_atomic_add_u32"}) {
      EXPECT_NE(text.find(instruction), std::string::npos) << instruction << "\n" << text;
    }
  }
}

TEST(TranslateAmdgpu, KernargLayoutFollowsThePtxParams)
{
  std::string text = ".version 8.0\n.target sm_86\n.address_size 64\n"
                     ".visible .entry layout(.param .u32 a, .param .u64 b, "
                     ".param .align 16 .b8 c[20], .param .u8 d, .param .f32 e, "
                     ".param .align 8 .b8 f[4])\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<3>;\n"
                     "  ld.param.u64 %rd1, [b];\n  ld.param.u32 %r1, [c+16];\n"
                     "  ld.param.u8 %r2, [d];\n  ld.param.u32 %r3, [f];\n"
                     "  add.s32 %r1, %r1, %r2;\n  add.s32 %r1, %r1, %r3;\n"
                     "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";
  Expected<Translation> translation = translate_text(text, amdgpu_options("gfx1201"));
  ASSERT_TRUE(translation) << translation.error().message;
  ASSERT_EQ(translation->kernels.size(), 1U);
  const KernelSignature& signature = translation->kernels[0];
  std::vector<int64_t> offsets;
  for (const KernelParam& param : signature.params) {
    offsets.push_back(param.offset);
  }
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 8, 16, 36, 40, 48}));
  EXPECT_EQ(signature.param_bytes, 52);
  Expected<std::vector<std::byte>> object = code_object(*translation, "gfx1201");
  ASSERT_TRUE(object) << object.error().message;
  std::string error;
  std::vector<NoteKernel> kernels = read_note_kernels(*object, error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(kernels.size(), 1U);
  ASSERT_EQ(kernels[0].args.size(), signature.params.size());
  for (size_t i = 0; i < signature.params.size(); ++i) {
    EXPECT_EQ(kernels[0].args[i].offset, signature.params[i].offset) << i;
    EXPECT_EQ(kernels[0].args[i].size, signature.params[i].size) << i;
  }
}

// %ntid and %nctaid are code object v5's hidden kernel arguments, which the runtime fills at
// every launch: each stored value is a load at the argument's offset from the implicit-argument
// pointer (block sizes u16 at 12/14/16, block counts u32 at 0/4/8), and the metadata places those
// arguments where that pointer points (AMDGPUUsage's v5 layout). No division of the grid size.
TEST(TranslateAmdgpu, BlockAndGridSizesAreTheHiddenKernelArguments)
{
  std::string body;
  const char* const registers[] = {"%ntid.x", "%ntid.y", "%ntid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z"};
  for (int i = 0; i < 6; ++i) {
    body += std::string("  mov.u32 %r1, ") + registers[i] + ";\n" + store32("%r1", i);
  }
  using Reads = std::vector<std::pair<uint64_t, unsigned>>; // (offset, bits)
  const Reads expected = {{12, 16}, {14, 16}, {16, 16}, {0, 32}, {4, 32}, {8, 32}};
  for (const char* target : k_targets) {
    SCOPED_TRACE(target);
    Expected<Translation> translation = translate_text(kernel_text(body), amdgpu_options(target));
    ASSERT_TRUE(translation) << translation.error().message;
    std::string ir = ir_text(*translation->module);
    EXPECT_EQ(occurrences(ir, "udiv"), 0) << ir;
    EXPECT_EQ(occurrences(ir, "llvm.amdgcn.dispatch.ptr"), 0) << ir;
    Reads read;
    for (const llvm::Instruction& instruction : llvm::instructions(*translation->module->getFunction("k"))) {
      const auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction);
      if (store == nullptr) {
        continue;
      }
      const llvm::Value* value = store->getValueOperand();
      if (const auto* widened = llvm::dyn_cast<llvm::ZExtInst>(value)) {
        value = widened->getOperand(0);
      }
      const auto* load = llvm::dyn_cast<llvm::LoadInst>(value);
      ASSERT_NE(load, nullptr) << ir;
      llvm::APInt offset(64, 0);
      const llvm::Value* base = load->getPointerOperand()->stripAndAccumulateConstantOffsets(
          translation->module->getDataLayout(), offset, true);
      const auto* call = llvm::dyn_cast<llvm::CallInst>(base);
      ASSERT_TRUE(call != nullptr && call->getCalledFunction() != nullptr &&
                  call->getCalledFunction()->getIntrinsicID() == llvm::Intrinsic::amdgcn_implicitarg_ptr)
          << ir;
      read.emplace_back(offset.getZExtValue(), load->getType()->getIntegerBitWidth());
    }
    EXPECT_EQ(read, expected);

    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    ASSERT_TRUE(object) << object.error().message;
    std::string error;
    std::vector<NoteKernel> kernels = read_note_kernels(*object, error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(kernels.size(), 1U);
    const std::map<std::string, int64_t>& hidden = kernels[0].hidden_offsets;
    ASSERT_TRUE(hidden.contains("hidden_block_count_x"));
    const int64_t start = hidden.at("hidden_block_count_x");
    EXPECT_GE(start, translation->kernels[0].param_bytes);
    const std::pair<const char*, int64_t> layout[] = {
        {"hidden_block_count_y", 4}, {"hidden_block_count_z", 8}, {"hidden_group_size_x", 12},
        {"hidden_group_size_y", 14}, {"hidden_group_size_z", 16}};
    for (const auto& [kind, at] : layout) {
      ASSERT_TRUE(hidden.contains(kind)) << kind;
      EXPECT_EQ(hidden.at(kind) - start, at) << kind;
    }
  }
}

TEST(TranslateHost, DynamicSharedFollowsTheStaticVariables)
{
  std::string text = ".version 8.0\n.target sm_86\n.address_size 64\n"
                     ".extern .shared .align 16 .b8 dyn[];\n"
                     ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n"
                     "  .reg .b64 %rd<3>;\n  .shared .align 4 .b8 fixed[20];\n"
                     "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, dyn;\n  mov.u32 %r2, fixed;\n"
                     "  st.global.u32 [%rd1], %r1;\n  st.global.u32 [%rd1+4], %r2;\n"
                     "  st.shared.u32 [dyn+4], %r2;\n  ret;\n}\n";
  Expected<Translation> translation = translate_text(text, host_options());
  ASSERT_TRUE(translation) << translation.error().message;
  ASSERT_EQ(translation->kernels.size(), 1U);
  EXPECT_EQ(translation->kernels[0].static_shared_bytes, 32);
  EXPECT_TRUE(translation->kernels[0].uses_dynamic_shared);
  Values values = stored_values(*translation->module, "k");
  ASSERT_EQ(values.size(), 3U);
  EXPECT_EQ(values[0], "20");
  EXPECT_EQ(values[1], "0");
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> gpu = translate_text(text, amdgpu_options(target));
    ASSERT_TRUE(gpu) << gpu.error().message;
    Expected<std::vector<std::byte>> object = code_object(*gpu, target);
    EXPECT_TRUE(object) << object.error().message;
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
