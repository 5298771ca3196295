// Control-flow and module forms of issue 11's coverage table (lower_control.cpp, lower_warp.cpp,
// hooks_amdgpu.cpp, module_translator.cpp, module_support.cpp): shfl without .sync, exit inside a
// .func, calls through a register with a .callprototype, .alias, alloca / stacksave /
// stackrestore, initialisers that name symbols, and AMDGPU's barriers with a thread count. Each
// runs on the CPU executor against values computed here, translates for gfx1100 and gfx1201 and
// links; nvcc's and clang's real PTX of tests/ptx/isa/control_more.cu translates for every
// target; malformed or inexpressible forms fail clearly.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_tests = D4R_TEST_SOURCE_DIR;
constexpr const char* k_amdgpu[] = {"gfx1100", "gfx1201"};
const std::string k_header = ".version 8.0\n.target sm_86\n.address_size 64\n";

std::string read_file(const fs::path& path)
{
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs kernel `k(out, in)` of `text` over one block of `threads`; out has `words` u32.
std::vector<uint32_t> run_host(const std::string& text, uint32_t threads, size_t words,
                               const std::vector<uint32_t>& in = {})
{
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  if (!executor) {
    return {};
  }
  std::vector<uint32_t> out(words, 0xcdcdcdcdU);
  Expected<cpu::LaunchStats> run = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {threads, 1, 1}, 0}, pointer_params(out.data(), in.data()));
  EXPECT_TRUE(run.has_value()) << run.error().message;
  return out;
}

void expect_links(const std::string& text)
{
  for (const char* target : k_amdgpu) {
    Expected<Translation> translation = translate_text(text, amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << target << ": " << translation.error().message;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    EXPECT_TRUE(object.has_value()) << target << ": " << object.error().message;
  }
}

void expect_error(const std::string& text, const std::string& message)
{
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
    Expected<Translation> translation = translate_text(text, options);
    ASSERT_FALSE(translation.has_value()) << text;
    EXPECT_NE(translation.error().message.find(message), std::string::npos)
        << translation.error().message;
  }
}

// --- shfl without .sync -------------------------------------------------------------------

const std::string k_shfl_plain =
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.lo.u32 %r2, %r1, 7;\n"
    "  shfl.idx.b32 %r3|%p1, %r2, 5, 0x1f;\n"
    "  shfl.up.b32 %r4|%p2, %r2, 3, 0;\n"
    "  shfl.down.b32 %r5, %r2, 4, 0x1f;\n"
    "  shfl.bfly.b32 %r6, %r2, 9, 0x1f;\n"
    "  selp.u32 %r7, 1, 0, %p2;\n"
    "  mul.wide.u32 %rd3, %r1, 20;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n"
    "  st.global.u32 [%rd4+4], %r4;\n"
    "  st.global.u32 [%rd4+8], %r5;\n"
    "  st.global.u32 [%rd4+12], %r6;\n"
    "  st.global.u32 [%rd4+16], %r7;\n";

// The converged warp: what shfl.sync with a full mask gives, by PTX's source-lane rules.
TEST(TranslateControlMore, ShflWithoutSyncExchangesAmongTheConvergedLanes)
{
  std::string text = kernel_text(k_shfl_plain);
  text.replace(text.find("sm_86"), 5, "sm_60");
  std::vector<uint32_t> out = run_host(text, 32, 32 * 5);
  ASSERT_EQ(out.size(), 32U * 5);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t* o = &out[lane * 5];
    EXPECT_EQ(o[0], 5U * 7) << lane;
    EXPECT_EQ(o[1], (lane >= 3 ? lane - 3 : lane) * 7) << lane;
    EXPECT_EQ(o[2], (lane + 4 <= 31 ? lane + 4 : lane) * 7) << lane;
    EXPECT_EQ(o[3], (lane ^ 9U) * 7) << lane;
    EXPECT_EQ(o[4], lane >= 3 ? 1U : 0U) << lane;
  }
  // The same as shfl.sync with every lane in the mask.
  std::string sync = k_shfl_plain;
  for (const char* mode : {"idx", "up", "down", "bfly"}) {
    std::string from = std::string("shfl.") + mode + ".b32";
    size_t at = sync.find(from);
    sync.replace(at, from.size(), std::string("shfl.sync.") + mode + ".b32");
    at = sync.find(";", at);
    sync.insert(at, ", 0xffffffff");
  }
  EXPECT_EQ(run_host(kernel_text(sync), 32, 32 * 5), out);
  for (const char* target : k_amdgpu) {
    std::string listing = amdgpu_disassembly(text, target);
    EXPECT_EQ(occurrences(listing, "ds_bpermute_b32"), 4) << target << "\n" << listing;
  }
}

TEST(TranslateControlMore, ShflWithoutSyncTakesNoMask)
{
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
    Expected<Translation> translation =
        translate_text(kernel_text("  shfl.idx.b32 %r1, %r2, 0, 0x1f, 0xffffffff;"), options);
    ASSERT_FALSE(translation.has_value());
    EXPECT_NE(translation.error().message.find("operands"), std::string::npos)
        << translation.error().message;
  }
}

// --- exit inside a .func ---------------------------------------------------------------------

// g exits for odd threads; f stores before and after calling g; the kernel after calling f.
const std::string k_exit_module = k_header +
    ".func g(.param .b32 t)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<3>;\n"
    "  ld.param.b32 %r1, [t];\n  and.b32 %r2, %r1, 1;\n  setp.ne.u32 %p1, %r2, 0;\n"
    "  @%p1 exit;\n  ret;\n}\n"
    ".func (.param .b32 r) f(.param .b64 out, .param .b32 t)\n{\n"
    "  .reg .b32 %r<3>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.b64 %rd1, [out];\n  ld.param.b32 %r1, [t];\n"
    "  mul.wide.u32 %rd2, %r1, 8;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], 7;\n"
    "  {\n  .param .b32 a;\n  st.param.b32 [a], %r1;\n  call.uni g, (a);\n  }\n"
    "  st.global.u32 [%rd3], 8;\n  add.s32 %r2, %r1, 100;\n  st.param.b32 [r], %r2;\n  ret;\n}\n"
    ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
    "  .reg .b32 %r<3>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
    "  {\n  .param .b64 o;\n  .param .b32 t;\n  .param .b32 r;\n"
    "  st.param.b64 [o], %rd1;\n  st.param.b32 [t], %r1;\n  call.uni (r), f, (o, t);\n"
    "  ld.param.b32 %r2, [r];\n  }\n"
    "  mul.wide.u32 %rd2, %r1, 8;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3+4], %r2;\n"
    "  bar.sync 0;\n  ret;\n}\n";

TEST(TranslateControlMore, ExitInAFunctionEndsTheThread)
{
  std::vector<uint32_t> out = run_host(k_exit_module, 64, 128);
  ASSERT_EQ(out.size(), 128U);
  for (uint32_t t = 0; t < 64; ++t) {
    const bool exited = (t & 1) != 0;
    EXPECT_EQ(out[2 * t], exited ? 7U : 8U) << t;
    EXPECT_EQ(out[2 * t + 1], exited ? 0xcdcdcdcdU : t + 100) << t;
  }
  expect_links(k_exit_module);
  // The flag goes to f and g (the kernel's own slot), not to functions that cannot exit.
  Expected<Translation> translation = translate_text(k_exit_module, host_options(false));
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  const std::string ir = ir_text(*translation->module);
  EXPECT_NE(ir.find("define internal void @g(i32 %0, ptr %d4r.exited"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@f(i64 %0, i32 %1, ptr %d4r.exited"), std::string::npos) << ir;
}

// g, called through a register, exits for odd threads; h, whose address is taken too, cannot
// exit but takes the flag all the same (one convention for every indirect call).
TEST(TranslateControlMore, ExitThroughAnIndirectCallEndsTheThread)
{
  const std::string text = k_header +
      ".func g(.param .b32 t)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<3>;\n"
      "  ld.param.b32 %r1, [t];\n  and.b32 %r2, %r1, 1;\n  setp.ne.u32 %p1, %r2, 0;\n"
      "  @%p1 exit;\n  ret;\n}\n"
      ".func h(.param .b32 t)\n{\n  ret;\n}\n"
      ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
      "  .reg .b32 %r<3>;\n  .reg .b64 %rd<6>;\n"
      "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n  mov.u64 %rd4, g;\n"
      "  mov.u64 %rd5, h;\n"
      "  {\n  .param .b32 t;\n  st.param.b32 [t], %r1;\n"
      "  p: .callprototype _ (.param .b32 _);\n  call %rd5, (t), p;\n  call %rd4, (t), p;\n  }\n"
      "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r1;\n"
      "  ret;\n}\n";
  std::vector<uint32_t> out = run_host(text, 32, 32);
  ASSERT_EQ(out.size(), 32U);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t], (t & 1) != 0 ? 0xcdcdcdcdU : t) << t;
  }
  expect_links(text);
  Expected<Translation> translation = translate_text(text, host_options(false));
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  const std::string ir = ir_text(*translation->module);
  EXPECT_NE(ir.find("@h(i32 %0, ptr %d4r.exited"), std::string::npos) << ir;
}

// --- indirect calls ---------------------------------------------------------------------------

// Two functions of one prototype, picked by the thread's parity from a .const table of their
// addresses, and a void function through a register.
const std::string k_indirect_module = k_header +
    ".func (.param .b32 r) twice(.param .b32 a, .param .b32 b)\n{\n  .reg .b32 %r<4>;\n"
    "  ld.param.b32 %r1, [a];\n  ld.param.b32 %r2, [b];\n  shl.b32 %r3, %r1, 1;\n"
    "  add.s32 %r3, %r3, %r2;\n  st.param.b32 [r], %r3;\n  ret;\n}\n"
    ".func (.param .b32 r) square(.param .b32 a, .param .b32 b)\n{\n  .reg .b32 %r<4>;\n"
    "  ld.param.b32 %r1, [a];\n  ld.param.b32 %r2, [b];\n  mul.lo.s32 %r3, %r1, %r1;\n"
    "  sub.s32 %r3, %r3, %r2;\n  st.param.b32 [r], %r3;\n  ret;\n}\n"
    ".func put(.param .b64 p, .param .b32 v)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.b64 %rd1, [p];\n  ld.param.b32 %r1, [v];\n  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n}\n"
    ".const .align 8 .u64 table[2] = {twice, square};\n"
    ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n  and.b32 %r2, %r1, 1;\n"
    "  mul.wide.u32 %rd2, %r2, 8;\n  mov.u64 %rd3, table;\n  add.s64 %rd4, %rd3, %rd2;\n"
    "  ld.const.u64 %rd5, [%rd4];\n"
    "  {\n  .param .b32 a;\n  .param .b32 b;\n  .param .b32 r;\n"
    "  st.param.b32 [a], %r1;\n  st.param.b32 [b], 3;\n"
    "  proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n"
    "  call (r), %rd5, (a, b), proto;\n  ld.param.b32 %r3, [r];\n  }\n"
    "  mul.wide.u32 %rd6, %r1, 4;\n  add.s64 %rd7, %rd1, %rd6;\n  mov.u64 %rd5, put;\n"
    "  {\n  .param .b64 p;\n  .param .b32 v;\n  st.param.b64 [p], %rd7;\n"
    "  st.param.b32 [v], %r3;\n  sink: .callprototype ()_ (.param .b64 _, .param .b32 _);\n"
    "  call %rd5, (p, v), sink;\n  }\n  ret;\n}\n";

TEST(TranslateControlMore, IndirectCallsThroughAPrototype)
{
  std::vector<uint32_t> out = run_host(k_indirect_module, 32, 32);
  ASSERT_EQ(out.size(), 32U);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t], (t & 1) != 0 ? t * t - 3 : 2 * t + 3) << t;
  }
  for (const char* target : k_amdgpu) {
    std::string listing = amdgpu_disassembly(k_indirect_module, target);
    EXPECT_GE(occurrences(listing, "s_swappc_b64"), 1) << target << "\n" << listing;
  }
}

TEST(TranslateControlMore, IndirectCallsNeedAPrototype)
{
  const std::string body = "  mov.u64 %rd3, 0;\n  call %rd3, ();";
  expect_error(kernel_text(body), "unsupported: call at line");
  expect_error(kernel_text("  mov.u64 %rd3, 0;\n  call %rd3, (), nowhere;"),
               "no .callprototype named nowhere");
  expect_error(kernel_text("  mov.u64 %rd3, 0;\n  bad: .callprototype _ (.param _);\n"
                           "  call %rd3, (), bad;"),
               "malformed .callprototype bad");
}

// `call %rd, (a), targets` with `targets: .calltargets f, g;`: the types are the targets'.
TEST(TranslateControlMore, IndirectCallsThroughACalltargetsList)
{
  std::string text = k_indirect_module;
  const std::string prototype =
      "  proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);";
  text.replace(text.find(prototype), prototype.size(), "  proto: .calltargets twice, square;");
  std::vector<uint32_t> out = run_host(text, 32, 32);
  ASSERT_EQ(out.size(), 32U);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t], (t & 1) != 0 ? t * t - 3 : 2 * t + 3) << t;
  }
  expect_links(text);
}

// --- .alias ---------------------------------------------------------------------------------

const std::string k_alias_module = k_header +
    ".func (.param .b32 r) base(.param .b32 a)\n{\n  .reg .b32 %r<3>;\n"
    "  ld.param.b32 %r1, [a];\n  mad.lo.s32 %r2, %r1, 3, 1;\n  st.param.b32 [r], %r2;\n"
    "  ret;\n}\n"
    ".func (.param .b32 r) other(.param .b32 a);\n.alias other, base;\n"
    ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
    "  {\n  .param .b32 a;\n  .param .b32 r;\n  st.param.b32 [a], %r1;\n"
    "  call.uni (r), other, (a);\n  ld.param.b32 %r2, [r];\n  }\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n"
    "  ret;\n}\n";

TEST(TranslateControlMore, ACallOfAnAliasCallsItsAliasee)
{
  std::vector<uint32_t> out = run_host(k_alias_module, 32, 32);
  ASSERT_EQ(out.size(), 32U);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t], t * 3 + 1) << t;
  }
  expect_links(k_alias_module);
  std::string mismatch = k_alias_module;
  mismatch.replace(mismatch.find("other(.param .b32 a);"), 21, "other(.param .b64 a);");
  expect_error(mismatch, ".alias other, base: the two functions' parameters differ");
}

// --- alloca, stacksave, stackrestore ---------------------------------------------------------

// Two allocations of the thread's size (tid + 1 words), the second after a stacksave and
// released by stackrestore; the kernel writes the sum of the first and the alignment bits.
const std::string k_alloca =
    "  mov.u32 %r1, %tid.x;\n  add.s32 %r2, %r1, 1;\n  mul.wide.u32 %rd3, %r2, 4;\n"
    "  alloca.u64 %rd4, %rd3, 32;\n  mov.u32 %r3, 0;\n"
    "FILL:\n  mul.wide.u32 %rd5, %r3, 4;\n  add.s64 %rd6, %rd4, %rd5;\n"
    "  st.local.u32 [%rd6], %r3;\n  add.s32 %r3, %r3, 1;\n  setp.lt.u32 %p1, %r3, %r2;\n"
    "  @%p1 bra FILL;\n"
    "  stacksave.u64 %rd7;\n  alloca.u64 %rd8, 64;\n  st.local.u32 [%rd8], 99;\n"
    "  stackrestore.u64 %rd7;\n"
    "  mov.u32 %r3, 0;\n  mov.u32 %r4, 0;\n"
    "SUM:\n  mul.wide.u32 %rd5, %r3, 4;\n  add.s64 %rd6, %rd4, %rd5;\n"
    "  ld.local.u32 %r5, [%rd6];\n  add.s32 %r4, %r4, %r5;\n  add.s32 %r3, %r3, 1;\n"
    "  setp.lt.u32 %p1, %r3, %r2;\n  @%p1 bra SUM;\n"
    "  cvta.local.u64 %rd9, %rd4;\n  cvt.u32.u64 %r6, %rd9;\n  and.b32 %r6, %r6, 31;\n"
    "  mul.wide.u32 %rd10, %r1, 8;\n  add.s64 %rd11, %rd1, %rd10;\n"
    "  st.global.v2.u32 [%rd11], {%r4, %r6};\n";

TEST(TranslateControlMore, AllocaIsAPerThreadStackInLocalMemory)
{
  std::vector<uint32_t> out = run_host(kernel_text(k_alloca), 40, 80);
  ASSERT_EQ(out.size(), 80U);
  for (uint32_t t = 0; t < 40; ++t) {
    EXPECT_EQ(out[2 * t], t * (t + 1) / 2) << t;
    EXPECT_EQ(out[2 * t + 1], 0U) << t;
  }
  for (const char* target : k_amdgpu) {
    std::string listing = amdgpu_disassembly(kernel_text(k_alloca), target);
    EXPECT_GE(occurrences(listing, "scratch_store_b32") + occurrences(listing, "buffer_store"), 2)
        << target << "\n" << listing;
  }
  expect_error(kernel_text("  alloca.u64 %rd3, 16, 0;"), "must be an immediate power of two");
  expect_error(kernel_text("  alloca.u64 %rd3, 16, 24;"), "must be an immediate power of two");
  expect_error(kernel_text("  alloca.u64 %rd3, 16, %r1;"), "must be an immediate power of two");
  expect_error(kernel_text("  alloca.b64 %rd3, 16;"), "unsupported: alloca.b64");
  expect_error(kernel_text("  stacksave %rd3;"), "stacksave needs one of .u32, .u64");
}

// stacksave.u32 / stackrestore.u32 (the low half of the .local address, a host pointer here): the
// restore frees what the alloca after the save took, so the next alloca gets its address again
// and a second save reads the first one's value (the H200's stack_save_restore golden has both).
TEST(TranslateControlMore, StackSaveRestoreOfThirtyTwoBits)
{
  const std::string body =
      "  stacksave.u32 %r1;\n  alloca.u64 %rd3, 40, 16;\n  stackrestore.u32 %r1;\n"
      "  stacksave.u32 %r2;\n  alloca.u64 %rd4, 40, 16;\n  alloca.u64 %rd5, 8, 8;\n"
      "  stacksave.u32 %r3;\n  stackrestore.u32 %r1;\n  stacksave.u32 %r4;\n"
      "  setp.eq.u32 %p1, %r1, %r2;\n  selp.u32 %r5, 1, 0, %p1;\n"
      "  setp.eq.u64 %p2, %rd3, %rd4;\n  selp.u32 %r6, 1, 0, %p2;\n"
      "  setp.eq.u32 %p3, %r4, %r1;\n  selp.u32 %r7, 1, 0, %p3;\n  sub.s32 %r8, %r3, %r1;\n"
      "  st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r8};\n";
  std::vector<uint32_t> out = run_host(kernel_text(body), 1, 4);
  ASSERT_EQ(out.size(), 4U);
  EXPECT_EQ(out[0], 1U); // the restore set the pointer back
  EXPECT_EQ(out[1], 1U); // the same alloca after it got the same address
  EXPECT_EQ(out[2], 1U);
  EXPECT_GE(out[3], 48U); // two allocas moved the pointer (ours grows up, NVIDIA's down)
  for (const char* target : k_amdgpu) {
    EXPECT_NE(amdgpu_disassembly(kernel_text(body), target), "") << target;
  }
  // A .u32 pointer that is not the function's stack traps rather than move it anywhere.
  std::unique_ptr<cpu::Executor> executor =
      host_executor(kernel_text("  stacksave.u32 %r1;\n  add.s32 %r1, %r1, 8192;\n"
                                "  stackrestore.u32 %r1;\n"));
  ASSERT_NE(executor, nullptr);
  std::vector<uint32_t> sink(4, 0);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, pointer_params(sink.data(), sink.data()));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("trap"), std::string::npos) << r.error().message;
}

// --- initialisers that name symbols ----------------------------------------------------------

const std::string k_inits_module = k_header +
    ".global .align 4 .u32 data[4] = {10, 20, 30, 40};\n"
    ".const .align 4 .u32 cdata[2] = {5, 6};\n"
    ".global .align 8 .u64 p = generic(data)+8;\n"
    ".global .align 8 .u64 ps[3] = {generic(data), generic(data) + 12, data};\n"
    ".const .align 8 .u64 cp = generic(cdata)+4;\n"
    ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<8>;\n  ld.param.u64 %rd1, [out];\n"
    "  ld.global.u64 %rd2, [p];\n  ld.u32 %r1, [%rd2];\n"
    "  ld.global.u64 %rd3, [ps+8];\n  ld.u32 %r2, [%rd3];\n"
    "  ld.const.u64 %rd4, [cp];\n  ld.u32 %r3, [%rd4];\n"
    "  ld.global.u64 %rd5, [ps];\n  ld.global.u64 %rd6, [ps+16];\n"
    "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r3};\n"
    "  st.global.u64 [%rd1+16], %rd5;\n  st.global.u64 [%rd1+24], %rd6;\n  ret;\n}\n";

TEST(TranslateControlMore, InitialisersHoldTheAddressesTheyName)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(k_inits_module);
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(8, 0);
  Expected<cpu::LaunchStats> run = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, pointer_params(out.data(), nullptr));
  ASSERT_TRUE(run.has_value()) << run.error().message;
  EXPECT_EQ(out[0], 30U);
  EXPECT_EQ(out[1], 40U);
  EXPECT_EQ(out[2], 6U);
  Expected<std::span<std::byte>> data = executor->global("data");
  ASSERT_TRUE(data.has_value()) << data.error().message;
  uint64_t first = 0;
  uint64_t last = 0;
  std::memcpy(&first, &out[4], 8);
  std::memcpy(&last, &out[6], 8);
  EXPECT_EQ(first, reinterpret_cast<uint64_t>(data->data()));
  EXPECT_EQ(last, reinterpret_cast<uint64_t>(data->data()));
  // The host sees the address too (cuModuleGetGlobal of p).
  Expected<std::span<std::byte>> p = executor->global("p");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  uint64_t held = 0;
  std::memcpy(&held, p->data(), 8);
  EXPECT_EQ(held, reinterpret_cast<uint64_t>(data->data()) + 8);
}

// The code object holds relocations against the named symbols, resolved by the loader.
TEST(TranslateControlMore, AmdgpuInitialisersAreRelocations)
{
  for (const char* target : k_amdgpu) {
    Expected<Translation> translation = translate_text(k_inits_module, amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << translation.error().message;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    ASSERT_TRUE(object.has_value()) << object.error().message;
    llvm::StringRef bytes(reinterpret_cast<const char*>(object->data()), object->size());
    llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> elf =
        llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(bytes, "code object"));
    ASSERT_TRUE(static_cast<bool>(elf)) << llvm::toString(elf.takeError());
    int relocations = 0;
    for (const llvm::object::SectionRef& section : (*elf)->sections()) {
      for (const llvm::object::RelocationRef& relocation : section.relocations()) {
        (void)relocation;
        ++relocations;
      }
    }
    // p, ps[0..2] and cp: five addresses.
    EXPECT_EQ(relocations, 5) << target;
  }
}

TEST(TranslateControlMore, InitialisersNamingWhatHasNoAddressAreErrors)
{
  const std::string entry = ".visible .entry k()\n{\n  ret;\n}\n";
  expect_error(k_header + ".global .u64 p = generic(nothing);\n" + entry,
               "initialiser names unknown symbol nothing");
  expect_error(k_header + ".global .u32 a;\n.global .f64 p = generic(a);\n" + entry,
               "an address needs a 32- or 64-bit integer element");
  expect_error(k_header + ".shared .u32 s;\n.global .u64 p = generic(s);\n" + entry,
               "only .global and .const variables and functions");
}

// --- barriers with a thread count on AMDGPU ---------------------------------------------------

// Producer/consumer over two named barriers (the pattern tests/ptx/isa/control_more.cu's
// named_barriers runs on the H200 and the executor): each wave arrives with one 64-bit LDS add,
// the last completes the phase with another, the others spin with s_sleep; every kernel that
// reaches the words zeroes them first.
const std::string k_named =
    "  mov.u32 %r1, %tid.x;\n  setp.lt.u32 %p1, %r1, 64;\n  @%p1 bra PRODUCE;\n"
    "  bar.arrive 2, 128;\n  barrier.sync 1, 128;\n  bra.uni DONE;\n"
    "PRODUCE:\n  bar.sync 2, 128;\n  bar.arrive 1, 128;\n"
    "DONE:\n  bar.red.popc.u32 %r2, 3, 64, %p1;\n  st.global.u32 [%rd1], %r2;\n";

TEST(TranslateControlMore, AmdgpuCountedBarriersCountInLds)
{
  for (const char* target : k_amdgpu) {
    std::string listing = amdgpu_disassembly(kernel_text(k_named), target);
    EXPECT_GE(occurrences(listing, "ds_add_rtn_u64"), 5) << target << "\n" << listing;
    EXPECT_GE(occurrences(listing, "s_sleep"), 3) << target << "\n" << listing;
    // One workgroup barrier: the entry's, after the zeroing store.
    const bool gfx12 = std::string(target).starts_with("gfx12");
    EXPECT_EQ(occurrences(listing, gfx12 ? "s_barrier_wait" : "s_barrier "), 1)
        << target << "\n" << listing;
    EXPECT_GE(occurrences(listing, "ds_store_b64"), 1) << target << "\n" << listing;
  }
}

// A barrier without a count on an id the module also counts passes the block's thread count,
// so that it meets the counted ones in LDS rather than at s_barrier.
TEST(TranslateControlMore, CountLessBarriersOnACountedIdCountTheBlock)
{
  const std::string body = "  bar.sync 1, 64;\n  bar.sync 1;\n  bar.sync 0;\n";
  Expected<Translation> host = translate_text(kernel_text(body), host_options(false));
  ASSERT_TRUE(host.has_value()) << host.error().message;
  const std::string ir = ir_text(*host->module);
  EXPECT_EQ(occurrences(ir, "call void @d4r_rt_barrier(ptr %"), 3) << ir;
  EXPECT_EQ(occurrences(ir, ", i32 0, i32 0)"), 1) << ir; // bar.sync 0: the whole block
  for (const char* target : k_amdgpu) {
    std::string listing = amdgpu_disassembly(kernel_text(body), target);
    const bool gfx12 = std::string(target).starts_with("gfx12");
    // bar.sync 0 and the entry's barrier.
    EXPECT_EQ(occurrences(listing, gfx12 ? "s_barrier_wait" : "s_barrier "), 2)
        << target << "\n" << listing;
    EXPECT_GE(occurrences(listing, "ds_add_rtn_u64"), 2) << target << "\n" << listing;
  }
}

// --- the real producers' PTX ------------------------------------------------------------------

TEST(TranslateControlMore, NvccAndClangPtxOfControlMoreTranslatesEverywhere)
{
  for (const char* file :
       {"ptx/isa/control_more.sm_90.ptx", "ptx/clang/isa/control_more.sm_90.ptx",
        "ptx/clang/isa/control_more.sm_80.ptx", "ptx/isa/control_more2.sm_90.ptx",
        "ptx/clang/isa/control_more2.sm_90.ptx", "ptx/clang/isa/control_more2.sm_80.ptx"}) {
    const std::string text = read_file(k_tests / file);
    ASSERT_FALSE(text.empty()) << file;
    Expected<Translation> host = translate_text(text, host_options());
    ASSERT_TRUE(host.has_value()) << file << ": " << host.error().message;
    EXPECT_GE(host->kernels.size(), 2U) << file;
    expect_links(text);
  }
}

// nvcc's exit_indirect and barrier_mixed (tests/ptx/isa/control_more2.cu) against what the CUDA
// source computes.
TEST(TranslateControlMore, NvccControlMore2RunsAsItsSourceSays)
{
  Expected<Translation> translation =
      translate_text(read_file(k_tests / "ptx/isa/control_more2.sm_90.ptx"), host_options());
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  Expected<std::unique_ptr<cpu::Executor>> executor =
      cpu::Executor::create(std::move(*translation), cpu::ExecutorOptions{.threads = 2});
  ASSERT_TRUE(executor.has_value()) << executor.error().message;
  constexpr int32_t k_n = 300;
  std::vector<uint32_t> in(512);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<uint32_t>(i * 2654435761U) >> 3;
  }
  std::vector<uint32_t> out(2 * k_n, 0xcdcdcdcdU);
  std::vector<std::byte> params = pointer_params(in.data(), out.data());
  params.resize(20);
  std::memcpy(params.data() + 16, &k_n, 4);
  Expected<cpu::LaunchStats> run =
      (*executor)->launch("exit_indirect", cpu::LaunchShape{{2, 1, 1}, {256, 1, 1}, 0}, params);
  ASSERT_TRUE(run.has_value()) << run.error().message;
  for (int32_t i = 0; i < k_n; ++i) {
    const uint32_t x = in[static_cast<size_t>(i)];
    EXPECT_EQ(out[static_cast<size_t>(i)], x ^ 0xa5a5a5a5U) << i;
    const bool keeps = ((x >> 3) & 1U) != 0;
    const uint32_t expected = keeps ? x * 2 : (x % 5 == 0 ? 0xcdcdcdcdU : x + 1);
    EXPECT_EQ(out[static_cast<size_t>(k_n + i)], expected) << i;
  }
  // packed_pointer: g_packed = {7, g_words + 2, 5, c_words + 1}, its pointers in masked bytes.
  const uint32_t words[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  const uint32_t constants[4] = {27, 18, 28, 18};
  std::vector<uint32_t> packed(64, 0);
  std::vector<std::byte> out_only = pointer_params(packed.data(), nullptr);
  out_only.resize(8);
  run = (*executor)->launch("packed_pointer", cpu::LaunchShape{{1, 1, 1}, {64, 1, 1}, 0},
                            out_only);
  ASSERT_TRUE(run.has_value()) << run.error().message;
  for (uint32_t t = 0; t < 64; ++t) {
    EXPECT_EQ(packed[t], words[2 + t % 5] * 10 + constants[1 + t % 3] + 7) << t;
  }
  std::vector<uint32_t> mixed(256, 0);
  run = (*executor)->launch("barrier_mixed", cpu::LaunchShape{{2, 1, 1}, {128, 1, 1}, 0},
                            pointer_params(in.data(), mixed.data()));
  ASSERT_TRUE(run.has_value()) << run.error().message;
  for (uint32_t block = 0; block < 2; ++block) {
    const uint32_t* a = &in[block * 128];
    for (uint32_t t = 0; t < 128; ++t) {
      const uint32_t u = (t + 5) % 64;
      EXPECT_EQ(mixed[block * 128 + t], a[63 - u] * 3 + u + a[127 - t]) << block << " " << t;
    }
  }
}

// --- a host model of AMDGPU's counted barrier ------------------------------------------------

// The protocol hooks_amdgpu.cpp's counted_barrier builds, with std::atomic in place of the LDS
// word and a thread in place of a wave: the same fields (arrived, phase, sum, last sum; 16 bits
// each), the same arrival add, completion delta and phase test. The GPU cannot run here; the
// model shows that the arithmetic keeps the fields apart over more than 65 536 phases (the phase
// wraps) and that bar.red sums and producer/consumer rounds come out right.
uint64_t field(uint64_t word, int index)
{
  return (word >> (16 * index)) & 0xffff;
}

uint32_t model_barrier(std::atomic<uint64_t>& word, uint64_t lanes, uint64_t popc, uint64_t needed,
                       bool wait)
{
  const uint64_t old = word.fetch_add(lanes | popc << 32);
  const uint64_t phase = field(old, 1);
  const bool last = field(old, 0) + lanes >= needed;
  const uint64_t total = (field(old, 2) + popc) & 0xffff;
  if (last) {
    const uint64_t step = phase == 0xffff ? 0 - (uint64_t{0xffff} << 16) : uint64_t{1} << 16;
    word.fetch_add(step - needed + (((total - field(old, 3)) << 48) - (total << 32)));
  }
  if (!wait) {
    return 0;
  }
  if (last) {
    return static_cast<uint32_t>(total);
  }
  for (;;) {
    const uint64_t now = word.load();
    if (field(now, 1) != phase) {
      return static_cast<uint32_t>(field(now, 3));
    }
    std::this_thread::yield();
  }
}

TEST(TranslateControlMore, CountedBarrierModelSumsOverWrappingPhases)
{
  constexpr int k_waves = 3;
  constexpr uint32_t k_rounds = 70000; // past the 16-bit phase
  std::atomic<uint64_t> word{0};
  std::atomic<int> wrong{0};
  auto popc_of = [](uint32_t round, int wave) {
    return (round * 7U + static_cast<uint32_t>(wave) * 13U) % 33U;
  };
  std::vector<std::thread> waves;
  for (int wave = 0; wave < k_waves; ++wave) {
    waves.emplace_back([&, wave] {
      for (uint32_t round = 0; round < k_rounds; ++round) {
        uint32_t expected = 0;
        for (int w = 0; w < k_waves; ++w) {
          expected += popc_of(round, w);
        }
        if (model_barrier(word, 32, popc_of(round, wave), 32 * k_waves, true) != expected) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& thread : waves) {
    thread.join();
  }
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(field(word.load(), 0), 0U);                  // nothing left arrived
  EXPECT_EQ(field(word.load(), 1), k_rounds % 65536U);   // the phase wrapped once
  EXPECT_EQ(field(word.load(), 2), 0U);                  // no sum left over
}

// Two producer waves and two consumer waves over a "full" and an "empty" barrier, as the
// ctl_named_barriers case: every round's data arrives whole.
TEST(TranslateControlMore, CountedBarrierModelHandsOffProducerConsumerRounds)
{
  constexpr uint32_t k_rounds = 3000;
  std::atomic<uint64_t> full{0};
  std::atomic<uint64_t> empty{0};
  std::vector<uint32_t> buffer(64, 0);
  std::atomic<int> wrong{0};
  std::vector<std::thread> waves;
  for (int wave = 0; wave < 4; ++wave) {
    waves.emplace_back([&, wave] {
      const bool producer = wave < 2;
      for (uint32_t round = 0; round < k_rounds; ++round) {
        if (producer) {
          model_barrier(empty, 32, 0, 128, true);
          for (int lane = 0; lane < 32; ++lane) {
            const uint32_t slot = static_cast<uint32_t>(wave * 32 + lane);
            buffer[slot] = round * 64 + slot;
          }
          std::atomic_thread_fence(std::memory_order_release);
          model_barrier(full, 32, 0, 128, false);
        } else {
          model_barrier(empty, 32, 0, 128, false);
          model_barrier(full, 32, 0, 128, true);
          std::atomic_thread_fence(std::memory_order_acquire);
          for (uint32_t i = 0; i < 64; ++i) {
            wrong += buffer[i] == round * 64 + i ? 0 : 1;
          }
        }
      }
    });
  }
  for (std::thread& thread : waves) {
    thread.join();
  }
  EXPECT_EQ(wrong.load(), 0);
}

} // namespace
} // namespace d4r::compiler::translate::test
