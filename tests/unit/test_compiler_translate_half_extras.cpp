// The half-precision forms issue 11 found missing (lower_float.cpp, lower_compare.cpp,
// lower_convert.cpp; kernels/support/minmax.c and approx.c): min/max on f16/bf16/f16x2/bf16x2
// with .ftz/.NaN/.xorsign.abs (and the f32 .xorsign.abs), ex2.approx/tanh.approx on halves,
// setp/set on packed halves, fma.rn.oob, cvt .sat to f16 from integers, f16 <-> bf16,
// bf16 <-> f64, cvt.rXi.sat.f16.f16 and cvt to .tf32. The forms translate for the host, gfx1100
// and gfx1201 and the forms ptxas 13 rejects are "unsupported"; values worked by hand from the
// PTX ISA's rules run on the CPU executor (the golden cases half_* compare every form with an
// H200).

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

const char* const k_accepted[] = {
    "  min.ftz.NaN.xorsign.abs.f16 %rs1, %rs2, %rs3;",
    "  max.NaN.xorsign.abs.bf16 %rs1, %rs2, %rs3;",
    "  min.ftz.xorsign.abs.f16x2 %r1, %r2, %r3;",
    "  max.NaN.bf16x2 %r1, %r2, %r3;",
    "  max.ftz.NaN.xorsign.abs.f32 %f1, %f2, %f3;",
    "  ex2.approx.f16 %rs1, %rs2;",
    "  ex2.approx.ftz.bf16x2 %r1, %r2;",
    "  tanh.approx.bf16 %rs1, %rs2;",
    "  tanh.approx.f16x2 %r1, %r2;",
    "  setp.ltu.ftz.f16x2 %p1|%p2, %r2, %r3;",
    "  setp.ge.xor.bf16x2 %p1|%p2, %r2, %r3, !%p3;",
    "  setp.lt.f16x2 %p1, %r2, %r3;",
    "  set.lt.and.ftz.f16x2.f16x2 %r1, %r2, %r3, %p3;",
    "  set.num.s32.bf16x2 %r1, %r2, %r3;",
    "  fma.rn.oob.relu.bf16x2 %r1, %r2, %r3, %r4;",
    "  fma.rn.oob.sat.f16 %rs1, %rs2, %rs3, %rs4;",
    "  cvt.rm.sat.f16.s64 %rs1, %rd3;",
    "  cvt.rz.bf16.f16 %rs1, %rs2;",
    "  cvt.f16.bf16 %rs1, %rs2;",
    "  cvt.rp.bf16.f64 %rs1, %fd2;",
    "  cvt.f64.bf16 %fd1, %rs2;",
    "  cvt.rpi.sat.f16.f16 %rs1, %rs2;",
    "  cvt.rna.satfinite.tf32.f32 %r1, %f2;",
    "  cvt.rz.relu.tf32.f32 %r1, %f2;",
};

// Forms ptxas 13 rejects for sm_90, or that PTX defines only for sm_100: the first token is the
// spelling reported as unsupported.
const char* const k_rejected[] = {
    "  min.xorsign.f16 %rs1, %rs2, %rs3;", // .xorsign needs .abs
    "  min.abs.f16 %rs1, %rs2, %rs3;",
    "  min.abs.f32 %f1, %f2, %f3;", // sm_100's three-operand form
    "  min.xorsign.abs.f64 %fd1, %fd2, %fd3;",
    "  min.ftz.bf16 %rs1, %rs2, %rs3;",
    "  ex2.approx.ftz.f16 %rs1, %rs2;",
    "  ex2.approx.bf16 %rs1, %rs2;",
    "  tanh.approx.ftz.f16x2 %r1, %r2;",
    "  fma.rn.oob.ftz.f16 %rs1, %rs2, %rs3, %rs4;",
    "  fma.rz.oob.f16 %rs1, %rs2, %rs3, %rs4;",
    "  fma.rn.oob.f32 %f1, %f2, %f3, %f4;",
    "  setp.lt.ftz.bf16x2 %p1|%p2, %r2, %r3;",
    "  setp.lt.and.f16x2 %p1, %r2, %r3, %p3;",
    "  set.lt.f16x2.bf16x2 %r1, %r2, %r3;",
    "  set.lt.f16.f16x2 %rs1, %r2, %r3;",
    "  cvt.rn.sat.bf16.s32 %rs1, %r2;",
    "  cvt.rni.sat.bf16.bf16 %rs1, %rs2;",
    "  cvt.rn.ftz.bf16.f16 %rs1, %rs2;",
    "  cvt.rn.satfinite.tf32.f32 %r1, %f2;",
    "  cvt.rna.relu.tf32.f32 %r1, %f2;",
    "  cvt.rn.tf32.f16 %r1, %rs2;",
};

std::vector<TranslateOptions> targets()
{
  return {host_options(), amdgpu_options("gfx1100"), amdgpu_options("gfx1201")};
}

std::string target_name(const TranslateOptions& options)
{
  return options.kind == TargetKind::host ? "host" : options.processor;
}

// "  min.abs.f16 %rs1, ..." -> "min.abs.f16".
std::string spelling(const std::string& body)
{
  size_t start = body.find_first_not_of(' ');
  return body.substr(start, body.find(' ', start) - start);
}

TEST(TranslateHalfExtras, ImplementedFormsTranslate)
{
  for (const char* body : k_accepted) {
    for (const TranslateOptions& options : targets()) {
      Expected<Translation> translation = translate_text(kernel_text(body), options);
      ASSERT_TRUE(translation.has_value())
          << body << " (" << target_name(options) << "): " << translation.error().message;
      EXPECT_EQ(verify_text(*translation->module), "") << body;
    }
  }
}

TEST(TranslateHalfExtras, RejectedFormsAreUnsupported)
{
  for (const char* body : k_rejected) {
    std::string expected = "unsupported: " + spelling(body) + " at line 14";
    for (const TranslateOptions& options : targets()) {
      Expected<Translation> translation = translate_text(kernel_text(body), options);
      ASSERT_FALSE(translation.has_value()) << body << " translated for " << target_name(options);
      EXPECT_NE(translation.error().message.find(expected), std::string::npos)
          << body << ": " << translation.error().message;
    }
  }
}

// tests/ptx/isa/half_extras, half_same, half_oob and half_fold (nvcc from our .cu) translate for
// the host and make code objects for gfx1100 and gfx1201.
TEST(TranslateHalfExtras, IsaKernelsMakeCodeObjects)
{
  for (const char* name : {"half_extras", "half_same", "half_oob", "half_fold"}) {
    std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/ptx/isa/" + name + ".sm_90.ptx");
    ASSERT_TRUE(file) << name;
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    Expected<Translation> host = translate_text(text, host_options());
    ASSERT_TRUE(host.has_value()) << name << ": " << host.error().message;
    for (const char* target : {"gfx1100", "gfx1201"}) {
      Expected<Translation> translation = translate_text(text, amdgpu_options(target));
      ASSERT_TRUE(translation.has_value())
          << name << " " << target << ": " << translation.error().message;
      EXPECT_EQ(verify_text(*translation->module), "") << name << " " << target;
      Expected<std::vector<std::byte>> object = code_object(*translation, target);
      ASSERT_TRUE(object.has_value()) << name << " " << target << ": " << object.error().message;
      EXPECT_GT(object->size(), 1000U) << name << " " << target;
    }
  }
}

// One value: PTX that leaves a 32-bit result in %r9, and the result the ISA's rules give.
struct Value {
  const char* ptx;
  uint32_t want;
  const char* why;
};

// 16-bit results are widened with cvt.u32.u16; %rs1/%rs2/%rs3 and %r2/%r3/%r4 hold the inputs.
const Value k_values[] = {
    {"mov.b16 %rs1, 0xc000;\n mov.b16 %rs2, 0x3c00;\n min.xorsign.abs.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0xbc00, "min |-2|, |1| = 1, signs XORed"},
    {"mov.b16 %rs1, 0xc000;\n mov.b16 %rs2, 0x3c00;\n max.xorsign.abs.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0xc000, "max |-2|, |1| = 2, signs XORed"},
    {"mov.b16 %rs1, 0x8000;\n mov.b16 %rs2, 0x0000;\n min.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x8000, "-0 < +0"},
    {"mov.b16 %rs1, 0x8000;\n mov.b16 %rs2, 0x0000;\n max.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x0000, "-0 < +0"},
    {"mov.b16 %rs1, 0x7e00;\n mov.b16 %rs2, 0x3c00;\n min.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x3c00, "one NaN: the other operand"},
    {"mov.b16 %rs1, 0x7e00;\n mov.b16 %rs2, 0x3c00;\n min.NaN.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x7fff, ".NaN: the canonical NaN"},
    {"mov.b16 %rs1, 0xfd55;\n mov.b16 %rs2, 0x7c01;\n max.bf16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x7c01, "bf16: 0x7c01 is a number, 0xfd55 too (-4.4e37)"},
    {"mov.b16 %rs1, 0xffc1;\n mov.b16 %rs2, 0x7f81;\n max.bf16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x7fff, "two NaNs: the canonical NaN"},
    {"mov.b16 %rs1, 0x0001;\n mov.b16 %rs2, 0x8001;\n min.ftz.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x8000, ".ftz: +0 and -0"},
    {"mov.b16 %rs1, 0x0001;\n mov.b16 %rs2, 0x8001;\n min.f16 %rs3, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x8001, "subnormals kept"},
    {"mov.b32 %r2, 0x3c00c000;\n mov.b32 %r3, 0x40003c00;\n min.f16x2 %r9, %r2, %r3;", 0x3c00c000,
     "each half"},
    {"mov.b32 %r2, 0xc0000000;\n mov.b32 %r3, 0x3f800000;\n min.xorsign.abs.f32 %r9, %r2, %r3;",
     0xbf800000, "f32 .xorsign.abs"},
    {"mov.b32 %r2, 0x3c004000;\n mov.b32 %r3, 0x40003c00;\n setp.lt.f16x2 %p1|%p2, %r2, %r3;\n"
     " selp.u32 %r5, 1, 0, %p1;\n selp.u32 %r6, 2, 0, %p2;\n or.b32 %r9, %r5, %r6;", 2,
     "p: lower halves (2 < 1), q: upper halves (1 < 2)"},
    {"mov.b32 %r2, 0x3c004000;\n mov.b32 %r3, 0x40003c00;\n set.lt.f16x2.f16x2 %r9, %r2, %r3;",
     0x3c000000, "1.0 in the upper half"},
    {"mov.b32 %r2, 0x3c004000;\n mov.b32 %r3, 0x40003c00;\n set.lt.u32.f16x2 %r9, %r2, %r3;",
     0xffff0000, "all ones in the upper half"},
    {"mov.b32 %r2, 0x3f804000;\n mov.b32 %r3, 0x40003f80;\n set.lt.bf16x2.bf16x2 %r9, %r2, %r3;",
     0x3f800000, "bf16 1.0 in the upper half"},
    {"mov.b16 %rs1, 0x0001;\n mov.b16 %rs2, 0x0000;\n setp.eq.ftz.f16 %p1, %rs1, %rs2;\n"
     " setp.eq.f16 %p2, %rs1, %rs2;\n selp.u32 %r5, 1, 0, %p1;\n selp.u32 %r6, 2, 0, %p2;\n"
     " or.b32 %r9, %r5, %r6;", 1, ".ftz flushes the f16 subnormal"},
    {"mov.b16 %rs1, 0x7e01;\n mov.b16 %rs2, 0x3c00;\n fma.rn.oob.f16 %rs3, %rs1, %rs2, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x7fff, "a NaN operand: the canonical NaN (H200, half_fma_oob_*)"},
    {"mov.b16 %rs1, 0xfff7;\n mov.b16 %rs2, 0x3c00;\n fma.rn.oob.f16 %rs3, %rs2, %rs1, %rs2;\n"
     " cvt.u32.u16 %r9, %rs3;", 0, "the OOB NaN (0x7ff7, either sign) as a multiplicand: +0"},
    {"mov.b16 %rs1, 0x7ff7;\n mov.b16 %rs2, 0x3c00;\n fma.rn.oob.f16 %rs3, %rs2, %rs2, %rs1;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x7fff, "as the addend it is an ordinary NaN (H200, half_oob_scan)"},
    {"mov.b16 %rs1, 0x7e00;\n min.f16 %rs3, %rs1, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x7e00,
     "min.f16 x, x keeps x's bits (ptxas folds it)"},
    {"mov.b16 %rs1, 0x7e00;\n min.NaN.f16 %rs3, %rs1, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x7fff,
     "with .NaN it is arithmetic"},
    {"mov.b16 %rs1, 0x3c00;\n mov.b16 %rs2, 0x4000;\n fma.rn.oob.f16 %rs3, %rs1, %rs2, %rs1;\n"
     " cvt.u32.u16 %r9, %rs3;", 0x4200, "1 * 2 + 1"},
    {"mov.b32 %r2, 5;\n cvt.rn.sat.f16.s32 %rs3, %r2;\n cvt.u32.u16 %r9, %rs3;", 0x3c00,
     ".sat: 5 -> 1.0"},
    {"mov.b32 %r2, -3;\n cvt.rn.sat.f16.s32 %rs3, %r2;\n cvt.u32.u16 %r9, %rs3;", 0, ".sat: -3 -> 0"},
    {"mov.b16 %rs1, 0x3e00;\n cvt.rni.sat.f16.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3c00,
     "1.5 -> 2 -> 1.0"},
    {"mov.b16 %rs1, 0xbc00;\n cvt.rni.sat.f16.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0,
     "-1 -> 0"},
    {"mov.b32 %r2, 0x3f801000;\n mov.b32 %f1, %r2;\n cvt.rna.tf32.f32 %r9, %f1;", 0x3f802000,
     "a tie goes away from zero"},
    {"mov.b32 %r2, 0x3f801000;\n mov.b32 %f1, %r2;\n cvt.rn.tf32.f32 %r9, %f1;", 0x3f800000,
     "a tie goes to even"},
    {"mov.b32 %r2, 0x3f803fff;\n mov.b32 %f1, %r2;\n cvt.rz.tf32.f32 %r9, %f1;", 0x3f802000,
     "toward zero"},
    {"mov.b32 %r2, 0x7f800000;\n mov.b32 %f1, %r2;\n cvt.rna.satfinite.tf32.f32 %r9, %f1;",
     0x7f7fe000, ".satfinite: the largest finite tf32"},
    {"mov.b32 %r2, 0x7f800000;\n mov.b32 %f1, %r2;\n cvt.rna.tf32.f32 %r9, %f1;", 0x7f800000,
     "inf stays"},
    {"mov.b32 %r2, 0xbf800000;\n mov.b32 %f1, %r2;\n cvt.rn.relu.tf32.f32 %r9, %f1;", 0,
     ".relu: -1 -> +0"},
    {"mov.b32 %r2, 0x7f800001;\n mov.b32 %f1, %r2;\n cvt.rna.tf32.f32 %r9, %f1;", 0x7f800000,
     "H200: .rna truncates a NaN's low bits (here into +inf)"},
    {"mov.b32 %r2, 0x7fc00000;\n mov.b32 %f1, %r2;\n cvt.rna.satfinite.tf32.f32 %r9, %f1;",
     0x7fbfe000, "H200: .satfinite takes one unit off an all-ones exponent"},
    {"mov.b32 %r2, 0xffa00000;\n mov.b32 %f1, %r2;\n cvt.rz.tf32.f32 %r9, %f1;", 0x7fffe000,
     "H200: .rn/.rz NaN"},
    {"mov.b32 %r2, 0x3c004000;\n mov.b32 %r3, 0x40003c00;\n setp.gt.f16x2 %p1, %r2, %r3;\n"
     " selp.u32 %r9, 1, 0, %p1;", 1, "one destination: the lower halves (2 > 1), as the H200"},
    {"mov.b16 %rs1, 0x3c00;\n cvt.rn.bf16.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3f80,
     "1.0"},
    {"mov.b16 %rs1, 0x4049;\n cvt.rn.f16.bf16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x4248,
     "3.140625, exact in f16"},
    {"mov.b16 %rs1, 0x3f80;\n cvt.f64.bf16 %fd1, %rs1;\n mov.b64 {%r5, %r9}, %fd1;", 0x3ff00000,
     "1.0 (high word)"},
    {"mov.b16 %rs1, 0x0000;\n ex2.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3c00,
     "2^0 = 1"},
    {"mov.b16 %rs1, 0xfc00;\n ex2.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0, "2^-inf"},
    {"mov.b16 %rs1, 0x4000;\n ex2.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x4400,
     "2^2 = 4"},
    {"mov.b16 %rs1, 0x11c5;\n ex2.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3c00,
     "2^0.000704 = 1.000488..., just above the midpoint: truncated, as the H200"},
    {"mov.b16 %rs1, 0x8001;\n ex2.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3c00,
     "-2^-23 < x < 0 gives 1.0 on the H200"},
    {"mov.b16 %rs1, 0x8002;\n ex2.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3bff,
     "2^(-2^-23) truncated"},
    {"mov.b16 %rs1, 0xc300;\n ex2.approx.ftz.bf16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0,
     "2^-128 is a bf16 subnormal: flushed"},
    {"mov.b16 %rs1, 0x8000;\n tanh.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x8000,
     "tanh(-0) = -0"},
    {"mov.b16 %rs1, 0x7c00;\n tanh.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3c00,
     "tanh(inf) = 1"},
    {"mov.b16 %rs1, 0x39f8;\n tanh.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x390f,
     "tanh(0.74609375) = 0.6328128 truncates to 0x3910, the H200 gives 0x390f (measured table)"},
    {"mov.b16 %rs1, 0xb9f8;\n tanh.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0xb90f,
     "the table keeps tanh odd, as the H200"},
    {"mov.b16 %rs1, 0x39f9;\n tanh.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3910,
     "the next f16 follows the rule (tanh truncated), as the H200"},
    {"mov.b16 %rs1, 0x4429;\n tanh.approx.f16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3bfe,
     "tanh(4.16015625) = 0.9995131 truncates to 0x3bff, the H200 gives 0x3bfe (measured table)"},
    {"mov.b16 %rs1, 0x3f3f;\n tanh.approx.bf16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3f21,
     "bf16 tanh(0.74609375): 0x3f22 by the rule, the H200 gives 0x3f21 (measured table)"},
    {"mov.b16 %rs1, 0x3f40;\n tanh.approx.bf16 %rs3, %rs1;\n cvt.u32.u16 %r9, %rs3;", 0x3f22,
     "bf16 tanh(0.75) by the rule, as the H200"},
    {"mov.b32 %r2, 0xc42939f9;\n tanh.approx.f16x2 %r9, %r2;", 0xbbfe3910,
     "f16x2: the upper half -4.16015625 from the table, the lower 0x39f9 by the rule (H200)"},
};

TEST(TranslateHalfExtras, HostValuesFromTheIsaRules)
{
  std::string body;
  for (size_t i = 0; i < std::size(k_values); ++i) {
    body += std::string(" ") + k_values[i].ptx + "\n st.global.u32 [%rd1+" + std::to_string(4 * i) +
            "], %r9;\n";
  }
  std::vector<uint32_t> out(std::size(k_values), 0xdeadbeefU);
  std::vector<uint32_t> in(4, 0);
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  ASSERT_TRUE(executor);
  Expected<cpu::LaunchStats> run = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, pointer_params(out.data(), in.data()));
  ASSERT_TRUE(run.has_value()) << run.error().message;
  for (size_t i = 0; i < std::size(k_values); ++i) {
    EXPECT_EQ(out[i], k_values[i].want) << k_values[i].ptx << "\n(" << k_values[i].why << ")";
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
