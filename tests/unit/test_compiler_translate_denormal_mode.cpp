// f32 denormals flushed by the float mode (compiler/translate/denormal_mode.hpp): which
// instructions allow it, which kernels and functions of a module get it in each set, what the
// AMDGPU code and kernel descriptor then hold, and what the CPU executor computes with it: PTX's
// .ftz results on subnormal inputs, constants included, and IEEE results again in the next launch
// of a kernel without the mode.

#include "compiler/ptx/parser.hpp"
#include "compiler/translate/denormal_mode.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/support/read_file.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <llvm/IR/Function.h>

#include <bit>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

ptx::Instruction instruction_of(const std::string& line)
{
  Expected<ptx::Module> module = ptx::parse_module(kernel_text(line));
  EXPECT_TRUE(module.has_value()) << line << ": " << module.error().message;
  int seen = 0;
  for (const ptx::Item& item : module->items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr) {
      continue;
    }
    // The body's first two instructions load the parameters; the third is `line`.
    for (const ptx::Statement& statement : function->body->statements) {
      if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
          instruction != nullptr && ++seen == 3) {
        return *instruction;
      }
    }
  }
  ADD_FAILURE() << "no instruction in " << line;
  return {};
}

TEST(DenormalMode, FtzArithmeticAndBitMovesAllowTheFlushInBothSets)
{
  for (const char* line :
       {"add.ftz.f32 %f1, %f2, %f3;", "fma.rn.ftz.f32 %f1, %f2, %f3, %f4;",
        "setp.lt.ftz.f32 %p1, %f2, %f3;", "ex2.approx.ftz.f32 %f1, %f2;",
        "max.ftz.f32 %f1, %f2, %f3;", "cvt.ftz.f32.f32 %f1, %f2;",
        "cvt.rzi.ftz.s32.f32 %r1, %f2;", "cvt.rn.f32.s32 %f1, %r2;", "cvt.rzi.f32.f32 %f1, %f2;",
        "cvt.rni.s32.f32 %r1, %f2;", "cvt.rn.f16.f32 %rs1, %f2;", "cvt.f32.f16 %f1, %rs2;",
        "mov.f32 %f1, %f2;", "ld.global.f32 %f1, [%rd2];", "st.global.f32 [%rd1], %f1;",
        "selp.f32 %f1, %f2, %f3, %p1;", "abs.f32 %f1, %f2;", "neg.f32 %f1, %f2;",
        "testp.subnormal.f32 %p1, %f2;", "copysign.f32 %f1, %f2, %f3;",
        "atom.global.add.f32 %f1, [%rd1], %f2;",
        "add.f64 %fd1, %fd2, %fd2;" /* no: f64 below */}) {
    const bool f64 = std::string(line).find("f64") != std::string::npos;
    for (FloatPolicy policy : {FloatPolicy::accuracy, FloatPolicy::fast}) {
      EXPECT_EQ(allows_f32_flush(instruction_of(line), policy), !f64) << line;
    }
  }
}

TEST(DenormalMode, OperationsThatSeeASubnormalKeepIeeeModeInBothSets)
{
  // Without .ftz a subnormal input or result differs from a flushed one; toward +-inf a tiny
  // input rounds to +-1 (integers) or the smallest f16 subnormal; bf16 and f64 hold f32's
  // subnormals and the host's model of the mode flushes f64 as well.
  for (const char* line :
       {"add.f32 %f1, %f2, %f3;", "mul.rn.f32 %f1, %f2, %f3;", "setp.lt.f32 %p1, %f2, %f3;",
        "min.f32 %f1, %f2, %f3;", "ex2.approx.f32 %f1, %f2;", "cvt.rpi.f32.f32 %f1, %f2;",
        "cvt.rmi.s32.f32 %r1, %f2;", "cvt.rp.f16.f32 %rs1, %f2;", "cvt.f64.f32 %fd1, %f2;",
        "cvt.rn.f32.f64 %f1, %fd2;", "cvt.rn.bf16.f32 %rs1, %f2;", "cvt.sat.f32.f32 %f1, %f2;",
        "cvt.rp.ftz.f16.f32 %rs1, %f2;", "rcp.approx.ftz.f64 %fd1, %fd2;",
        "fma.rn.bf16 %rs1, %rs2, %rs3, %rs4;", "atom.global.add.f64 %fd1, [%rd1], %fd2;",
        "slct.f32.f32 %f1, %f2, %f3, %f4;"}) {
    for (FloatPolicy policy : {FloatPolicy::accuracy, FloatPolicy::fast}) {
      EXPECT_FALSE(allows_f32_flush(instruction_of(line), policy)) << line;
    }
  }
}

TEST(DenormalMode, AnF32MatrixProductRunsFlushedOnlyInTheFastSet)
{
  const ptx::Instruction mma = instruction_of(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, "
      "%r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};");
  EXPECT_FALSE(allows_f32_flush(mma, FloatPolicy::accuracy));
  EXPECT_TRUE(allows_f32_flush(mma, FloatPolicy::fast));
  const ptx::Instruction half_mma = instruction_of(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, "
      "{%r7, %r8}, {%r9, %r10};");
  EXPECT_TRUE(allows_f32_flush(half_mma, FloatPolicy::accuracy));
}

constexpr const char* k_header = ".version 8.0\n.target sm_86\n.address_size 64\n";

std::set<std::string> flushing(const std::string& text, FloatPolicy policy)
{
  Expected<ptx::Module> module = ptx::parse_module(text);
  EXPECT_TRUE(module.has_value()) << module.error().message;
  return module ? functions_flushing_f32(*module, policy) : std::set<std::string>{};
}

TEST(DenormalMode, AFunctionRunsFlushedOnlyWhenEveryKernelReachingItDoes)
{
  const std::string text =
      std::string(k_header) +
      ".func (.reg .f32 r) twice(.reg .f32 x) { add.ftz.f32 r, x, x; ret; }\n"
      ".func (.reg .f32 r) only_a(.reg .f32 x) { mul.ftz.f32 r, x, x; ret; }\n"
      ".extern .func (.reg .f32 r) elsewhere(.reg .f32 x);\n"
      ".visible .entry a(.param .u64 p) { .reg .f32 %f<4>; .reg .b64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [p]; ld.global.f32 %f1, [%rd1];\n"
      "  call (%f2), twice, (%f1); call (%f3), only_a, (%f2); st.global.f32 [%rd1], %f3; ret; }\n"
      ".visible .entry b(.param .u64 p) { .reg .f32 %f<4>; .reg .b64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [p]; ld.global.f32 %f1, [%rd1];\n"
      "  call (%f2), twice, (%f1); add.f32 %f3, %f2, %f1; st.global.f32 [%rd1], %f3; ret; }\n"
      ".visible .entry c(.param .u64 p) { .reg .f32 %f<4>; .reg .b64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [p]; ld.global.f32 %f1, [%rd1];\n"
      "  call (%f2), elsewhere, (%f1); mul.ftz.f32 %f3, %f2, %f1; st.global.f32 [%rd1], %f3; ret; }\n"
      ".visible .entry d(.param .u64 p) { .reg .f32 %f<4>; .reg .b64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [p]; ld.global.f32 %f1, [%rd1]; st.global.f32 [%rd1+4], %f1; ret; }\n";
  for (FloatPolicy policy : {FloatPolicy::accuracy, FloatPolicy::fast}) {
    // a: .ftz throughout. b: a plain add. c: calls code nobody can see. d: no .ftz, nothing to gain.
    EXPECT_EQ(flushing(text, policy), (std::set<std::string>{"a", "only_a"}));
  }
}

// The corpus's .ftz kernels: the texture filter (cvt.rn.f32.s32 and cvt.rzi.f32.f32 besides .ftz
// arithmetic) runs flushed in both sets; a texture layer multiplies matrices with f32
// accumulators, so only in the fast set.
TEST(DenormalMode, TheCorpusFtzKernelsRunFlushed)
{
  const std::filesystem::path ptx = std::filesystem::path(D4R_TEST_SOURCE_DIR) / "ptx";
  const std::string filter = d4r::testing::read_file(ptx / "tex_filter.sm_86.ptx");
  const std::string layers = d4r::testing::read_file(ptx / "texture_layers.sm_86.ptx");
  for (FloatPolicy policy : {FloatPolicy::accuracy, FloatPolicy::fast}) {
    EXPECT_TRUE(flushing(filter, policy).contains("hiluma_engine_output_filter"));
  }
  EXPECT_FALSE(flushing(layers, FloatPolicy::accuracy).contains("dltss_pwin_enc1_layer"));
  EXPECT_TRUE(flushing(layers, FloatPolicy::fast).contains("dltss_pwin_enc1_layer"));
}

// FLOAT_DENORM_MODE_32 of kernel `name`'s descriptor (`NAME.kd`, compute_pgm_rsrc1 bits 17:16 at
// byte 48): 0 flushes f32 subnormal inputs and results, 3 keeps them. -1 when there is none.
int f32_denormal_mode(const std::vector<std::byte>& object, const std::string& name)
{
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char*>(object.data()), object.size()), "code object");
  auto file = llvm::object::ObjectFile::createELFObjectFile(buffer);
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return -1;
  }
  for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
    llvm::Expected<llvm::StringRef> symbol_name = symbol.getName();
    llvm::Expected<uint64_t> address = symbol.getAddress();
    llvm::Expected<llvm::object::section_iterator> section = symbol.getSection();
    if (!symbol_name || !address || !section || *symbol_name != name + ".kd" ||
        *section == (*file)->section_end()) {
      llvm::consumeError(symbol_name.takeError());
      llvm::consumeError(address.takeError());
      llvm::consumeError(section.takeError());
      continue;
    }
    llvm::Expected<llvm::StringRef> contents = (*section)->getContents();
    const uint64_t offset = *address - (*section)->getAddress() + 48;
    if (!contents || offset + 4 > contents->size()) {
      llvm::consumeError(contents.takeError());
      return -1;
    }
    uint32_t rsrc1 = 0;
    std::memcpy(&rsrc1, contents->data() + offset, 4);
    return static_cast<int>(rsrc1 >> 16 & 3);
  }
  return -1;
}

// An .ftz chain of loads, arithmetic and a comparison: with the mode, no class test is left in
// the code and the kernel descriptor flushes f32 (FLOAT_DENORM_MODE_32 = 0: flush in and out).
const std::string k_ftz_chain = kernel_text(
    "  ld.global.f32 %f1, [%rd2];\n  ld.global.f32 %f2, [%rd2+4];\n  ld.global.f32 %f3, [%rd2+8];\n"
    "  mul.ftz.f32 %f4, %f1, %f2;\n  fma.rn.ftz.f32 %f5, %f4, %f3, %f1;\n"
    "  add.ftz.f32 %f6, %f5, %f2;\n  setp.lt.ftz.f32 %p1, %f6, %f3;\n"
    "  selp.f32 %f7, %f6, %f4, %p1;\n  st.global.f32 [%rd1], %f7;");

TEST(DenormalMode, AnFtzKernelHasNoPerOperationFlushOnAmdgpu)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> translation = translate_text(k_ftz_chain, amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << translation.error().message;
    ASSERT_EQ(translation->kernels.size(), 1u);
    EXPECT_TRUE(translation->kernels[0].flushes_f32_denormals);
    EXPECT_EQ(translation->module->getFunction("k")->getDenormalModeF32Raw(),
              llvm::DenormalMode::getPreserveSign());
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    ASSERT_TRUE(object.has_value()) << object.error().message;
    EXPECT_EQ(f32_denormal_mode(*object, "k"), 0) << target;
    const std::string listing = disassemble(*object, target);
    EXPECT_EQ(occurrences(listing, "v_cmp_class"), 0) << target << "\n" << listing;
    EXPECT_GE(occurrences(listing, "fma"), 1) << listing; // v_fma(c), or s_fmac on gfx12
  }
}

TEST(DenormalMode, WithoutTheModeEachFtzOperationFlushesInCode)
{
  // One plain add keeps the kernel in IEEE mode: the same chain then tests classes.
  const std::string mixed = kernel_text(
      "  ld.global.f32 %f1, [%rd2];\n  ld.global.f32 %f2, [%rd2+4];\n"
      "  mul.ftz.f32 %f4, %f1, %f2;\n  add.f32 %f5, %f4, %f2;\n  st.global.f32 [%rd1], %f5;");
  Expected<Translation> translation = translate_text(mixed, amdgpu_options("gfx1100"));
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  EXPECT_FALSE(translation->kernels[0].flushes_f32_denormals);
  Expected<std::vector<std::byte>> object = code_object(*translation, "gfx1100");
  ASSERT_TRUE(object.has_value()) << object.error().message;
  EXPECT_EQ(f32_denormal_mode(*object, "k"), 3);
  EXPECT_GE(occurrences(disassemble(*object, "gfx1100"), "v_cmp_class"), 1);
}

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }

// PTX's .ftz on the CPU executor with the mode: subnormal inputs and results become zeros of their
// sign, including where LLVM folds the operation (x * 1, x + -0, constants); a move keeps them.
TEST(DenormalMode, TheExecutorGivesFtzResultsWithTheMode)
{
  const std::string text = kernel_text(
      "  ld.global.f32 %f1, [%rd2];\n  ld.global.f32 %f2, [%rd2+4];\n"
      "  mul.ftz.f32 %f3, %f1, 0f3F800000;\n  st.global.f32 [%rd1], %f3;\n"
      "  add.ftz.f32 %f4, %f2, 0f80000000;\n  st.global.f32 [%rd1+4], %f4;\n"
      "  add.ftz.f32 %f5, %f1, %f2;\n  st.global.f32 [%rd1+8], %f5;\n"
      "  mul.ftz.f32 %f6, %f2, 0f00800000;\n  st.global.f32 [%rd1+12], %f6;\n"
      "  add.ftz.f32 %f7, 0f00000003, 0f80000001;\n  st.global.f32 [%rd1+16], %f7;\n"
      "  fma.rn.ftz.f32 %f8, %f1, 0f4B000000, 0f00000000;\n  st.global.f32 [%rd1+20], %f8;\n"
      "  mov.f32 %f9, %f1;\n  st.global.f32 [%rd1+24], %f9;\n"
      "  setp.eq.ftz.f32 %p1, %f1, 0f00000000;\n  selp.u32 %r1, 1, 0, %p1;\n"
      "  st.global.u32 [%rd1+28], %r1;");
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  ASSERT_NE(executor, nullptr);
  const std::vector<float> in = {from_bits(0x00400000), from_bits(0x80000005)};
  std::vector<uint32_t> out(8, 0xcdcdcdcd);
  Expected<cpu::LaunchStats> stats =
      executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, pointer_params(out.data(), in.data()));
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(out[0], 0x00000000u); // subnormal * 1
  EXPECT_EQ(out[1], 0x80000000u); // -subnormal + -0
  EXPECT_EQ(out[2], 0x00000000u); // subnormal + -subnormal: 0 + -0
  EXPECT_EQ(out[3], 0x80000000u); // -subnormal * 2^-126
  EXPECT_EQ(out[4], 0x00000000u); // folded: 0 + -0
  EXPECT_EQ(out[5], 0x00000000u); // 2^-127 flushed before * 2^23 (unflushed: 2^-104)
  EXPECT_EQ(out[6], 0x00400000u); // a move is no arithmetic
  EXPECT_EQ(out[7], 1u);          // flushed, it equals zero
}

TEST(DenormalMode, AKernelWithoutTheModeKeepsSubnormalsAfterOneWithIt)
{
  const std::string text =
      std::string(k_header) +
      ".visible .entry flushed(.param .u64 out, .param .u64 in) { .reg .f32 %f<4>; .reg .b64 %rd<3>;\n"
      "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in]; ld.global.f32 %f1, [%rd2];\n"
      "  add.ftz.f32 %f2, %f1, %f1; st.global.f32 [%rd1], %f2; ret; }\n"
      ".visible .entry ieee(.param .u64 out, .param .u64 in) { .reg .f32 %f<4>; .reg .b64 %rd<3>;\n"
      "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in]; ld.global.f32 %f1, [%rd2];\n"
      "  add.f32 %f2, %f1, %f1; st.global.f32 [%rd1], %f2; ret; }\n";
  std::unique_ptr<cpu::Executor> executor = host_executor(text, 1);
  ASSERT_NE(executor, nullptr);
  const float in = from_bits(0x00000003);
  for (int round = 0; round < 2; ++round) {
    for (const auto& [kernel, expected] : {std::pair{"flushed", 0x00000000u}, std::pair{"ieee", 0x00000006u}}) {
      uint32_t out = 0xcdcdcdcd;
      Expected<cpu::LaunchStats> stats = executor->launch(
          kernel, cpu::LaunchShape{{1, 1, 1}, {32, 1, 1}, 0}, pointer_params(&out, &in));
      ASSERT_TRUE(stats.has_value()) << stats.error().message;
      EXPECT_EQ(out, expected) << kernel << " round " << round;
    }
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
