// brx.idx, isspacep and brkpt (lower_control.cpp, the in_window hooks of hooks_amdgpu.cpp and
// hooks_host.cpp, d4r_rt_is_local): run on the CPU executor against values computed here,
// translated and linked for gfx1100 and gfx1201 (where isspacep is the flat-aperture test), the
// forms a target cannot decide rejected with their reason, and nvcc's PTX of
// tests/ptx/isa/control_more.cu (control_more_branch, control_more_brkpt) translated for every
// target.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_tests = D4R_TEST_SOURCE_DIR;
constexpr const char* k_amdgpu[] = {"gfx1100", "gfx1201"};

std::string read_file(const fs::path& path)
{
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs kernel `k` of `text` over one block of `threads` with `params`; empty when it fails.
Expected<cpu::LaunchStats> launch(const std::string& text, uint32_t threads,
                                  const std::vector<std::byte>& params)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  if (!executor) {
    return std::unexpected(Error{ErrorCode::internal, "no executor"});
  }
  return executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {threads, 1, 1}, 0}, params);
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

std::string error_of(const std::string& text, const TranslateOptions& options)
{
  Expected<Translation> translation = translate_text(text, options);
  return translation ? "" : translation.error().message;
}

// --- brx.idx ------------------------------------------------------------------------------

// out[t] = the value of the label in[t] selects among L0, L1, L2, L0 (L0 listed twice); then a
// brx.idx.uni loop over S0, S1, back to the head, for in[t] % 7 steps... uniform here: 5 steps.
const std::string k_brx_body =
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  ld.global.u32 %r2, [%rd4];\n"
    "  ts: .branchtargets L0, L1, L2, L0;\n"
    "  brx.idx %r2, ts;\n"
    "L0:\n"
    "  mov.u32 %r3, 100;\n"
    "  bra.uni chosen;\n"
    "L1:\n"
    "  mov.u32 %r3, 101;\n"
    "  bra.uni chosen;\n"
    "L2:\n"
    "  mov.u32 %r3, 102;\n"
    "chosen:\n"
    "  mov.u32 %r4, 0;\n"
    "  mov.u32 %r5, 1;\n"
    "head:\n"
    "  setp.ge.u32 %p1, %r4, 5;\n"
    "  @%p1 bra.uni done;\n"
    "  and.b32 %r6, %r4, 1;\n"
    "  add.u32 %r4, %r4, 1;\n"
    "  tl: .branchtargets S0, S1;\n"
    "  brx.idx.uni %r6, tl;\n"
    "S0:\n"
    "  mul.lo.u32 %r5, %r5, 3;\n"
    "  bra.uni head;\n"
    "S1:\n"
    "  add.u32 %r5, %r5, 7;\n"
    "  bra.uni head;\n"
    "done:\n"
    "  mul.wide.u32 %rd5, %r1, 8;\n"
    "  add.s64 %rd6, %rd1, %rd5;\n"
    "  st.global.u32 [%rd6], %r3;\n"
    "  st.global.u32 [%rd6+4], %r5;\n";

TEST(TranslateBranchSpace, BrxIdxGoesToTheListedLabel)
{
  const std::string text = kernel_text(k_brx_body);
  std::vector<uint32_t> in(32);
  for (uint32_t t = 0; t < 32; ++t) {
    in[t] = (t * 7U) % 4U;
  }
  std::vector<uint32_t> out(64, 0xcdcdcdcdU);
  Expected<cpu::LaunchStats> run = launch(text, 32, pointer_params(out.data(), in.data()));
  ASSERT_TRUE(run.has_value()) << run.error().message;
  uint32_t loop = 1;
  for (uint32_t k = 0; k < 5; ++k) {
    loop = (k & 1U) == 0 ? loop * 3 : loop + 7;
  }
  const uint32_t labels[] = {100, 101, 102, 100};
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(out[2 * t], labels[in[t]]) << t;
    EXPECT_EQ(out[2 * t + 1], loop) << t;
  }
  expect_links(text);
  Expected<Translation> gpu = translate_text(text, amdgpu_options("gfx1100"));
  ASSERT_TRUE(gpu.has_value());
  EXPECT_NE(ir_text(*gpu->module).find("switch i32"), std::string::npos);
}

TEST(TranslateBranchSpace, BrxIdxPastTheListTraps)
{
  const std::string text = kernel_text(k_brx_body);
  std::vector<uint32_t> in(32, 1);
  in[17] = 4; // the list has four entries
  std::vector<uint32_t> out(64, 0xcdcdcdcdU);
  Expected<cpu::LaunchStats> run = launch(text, 32, pointer_params(out.data(), in.data()));
  ASSERT_FALSE(run.has_value());
  EXPECT_NE(run.error().message.find("trap"), std::string::npos) << run.error().message;
  EXPECT_NE(run.error().message.find("thread (17,0,0)"), std::string::npos)
      << run.error().message;
}

TEST(TranslateBranchSpace, BrxIdxMalformedFormsFailClearly)
{
  auto body = [](const std::string& list, const std::string& branch) {
    return "  mov.u32 %r1, 1;\n" + list + branch + "L0:\n  mov.u32 %r2, 1;\nL1:\n";
  };
  const std::string list = "  ts: .branchtargets L0, L1;\n";
  struct Case {
    std::string body;
    std::string message;
  };
  const Case cases[] = {
      {body(list, "  brx.idx %r1, nowhere;\n"), "no .branchtargets named nowhere"},
      {body("  ts: .branchtargets L0, L9;\n", "  brx.idx %r1, ts;\n"), "unknown branch target L9"},
      {body(list, "  brx %r1, ts;\n"), "unsupported: brx"},
      {body(list, "  brx.idx.wide %r1, ts;\n"), "unsupported: brx.idx.wide"},
      {body(list, "  brx.idx %r1;\n"), "operand"},
  };
  for (const Case& c : cases) {
    for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
      const std::string message = error_of(kernel_text(c.body), options);
      EXPECT_NE(message.find(c.message), std::string::npos) << c.body << "\n" << message;
    }
  }
}

// --- isspacep -----------------------------------------------------------------------------

// The mask of every isspacep form on %rdN, stored at [%rd1+offset]: bits 0 .global, 1 .shared,
// 2 .shared::cta, 3 .local, 4 .const, 5 .param, 6 .param::entry, 7 .shared::cluster.
std::string mask_code(const std::string& address, int offset, bool with_param = true)
{
  const char* spaces[] = {"global", "shared", "shared::cta", "local",
                          "const",  "param",  "param::entry", "shared::cluster"};
  std::string code = "  mov.u32 %r10, 0;\n";
  for (int bit = 0; bit < 8; ++bit) {
    if (!with_param && (bit == 5 || bit == 6)) {
      continue;
    }
    code += "  isspacep." + std::string(spaces[bit]) + " %p1, " + address + ";\n" +
            "  selp.u32 %r11, " + std::to_string(1 << bit) + ", 0, %p1;\n" +
            "  or.b32 %r10, %r10, %r11;\n";
  }
  return code + "  st.global.u32 [%rd1+" + std::to_string(offset) + "], %r10;\n";
}

const std::string k_space_module_head =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".const .align 4 .b8 cdata[16] = {1, 0, 0, 0, 2};\n"
    ".global .align 4 .b8 gdata[16];\n";

std::string space_kernel()
{
  std::string body =
      "  .shared .align 4 .b8 tile[64];\n"
      "  .local .align 4 .b8 scratch[32];\n"
      "  mov.u64 %rd3, tile;\n  cvta.shared.u64 %rd3, %rd3;\n"
      "  mov.u64 %rd4, scratch;\n  cvta.local.u64 %rd4, %rd4;\n"
      "  mov.u64 %rd5, cdata;\n  cvta.const.u64 %rd5, %rd5;\n"
      "  mov.u64 %rd6, blob;\n  cvta.param.u64 %rd6, %rd6;\n"
      "  add.u64 %rd7, %rd6, 15;\n"
      "  add.u64 %rd8, %rd5, 16;\n"
      "  mov.u64 %rd9, 0;\n"
      "  mov.u64 %rd10, gdata;\n  cvta.global.u64 %rd10, %rd10;\n"
      "  add.u64 %rd11, %rd3, 60;\n";
  int offset = 0;
  for (const char* address :
       {"%rd2", "%rd3", "%rd4", "%rd5", "%rd6", "%rd7", "%rd8", "%rd9", "%rd10", "%rd11"}) {
    body += mask_code(address, offset);
    offset += 4;
  }
  return k_space_module_head +
         ".visible .entry k(.param .u64 out, .param .u64 in, .param .align 4 .b8 blob[16])\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
         "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n" +
         body + "  ret;\n}\n";
}

// What the host answers: the executor's own windows (the block's .shared window, the thread's
// fiber stack, the kernel's parameter block, the module's .const variables), with the H200's
// rules (ctl_space_probe): a parameter is in .global too, a .const variable only in .const.
TEST(TranslateBranchSpace, IsspacepOnTheHostKnowsItsWindows)
{
  const std::string text = space_kernel();
  std::vector<uint32_t> in(4, 0);
  std::vector<uint32_t> out(10 * 2, 0xcdcdcdcdU);
  std::vector<std::byte> params = pointer_params(out.data(), in.data());
  params.resize(32);
  Expected<cpu::LaunchStats> run = launch(text, 2, params);
  ASSERT_TRUE(run.has_value()) << run.error().message;
  // in, tile, scratch, cdata, blob, blob + 15, cdata + 16, null, gdata, tile + 60.
  const uint32_t expected[] = {0x01, 0x86, 0x08, 0x10, 0x61, 0x61, 0x01, 0x01, 0x01, 0x86};
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(out[i], expected[i]) << i;
  }
}

TEST(TranslateBranchSpace, IsspacepOnAmdgpuTestsTheApertures)
{
  const std::string text = space_kernel();
  expect_links(text);
  Expected<Translation> gpu = translate_text(text, amdgpu_options("gfx1201"));
  ASSERT_TRUE(gpu.has_value()) << gpu.error().message;
  const std::string ir = ir_text(*gpu->module);
  EXPECT_NE(ir.find("@llvm.amdgcn.is.shared"), std::string::npos);
  EXPECT_NE(ir.find("@llvm.amdgcn.is.private"), std::string::npos);
}

// A .func: .param cannot be decided anywhere; on AMDGPU .local and .global neither, where a
// kernel that may run the function takes a parameter's address (the parameter block is a private
// copy there); a kernel that does not run it changes nothing.
TEST(TranslateBranchSpace, IsspacepInAFuncIsRejectedWhereItCannotBeDecided)
{
  const std::string func =
      ".func (.param .b32 r) f(.param .b64 a)\n{\n"
      "  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [a];\n  isspacep.SPACE %p1, %rd1;\n"
      "  selp.u32 %r1, 1, 0, %p1;\n  st.param.b32 [r], %r1;\n  ret;\n}\n";
  auto module = [&](const std::string& space, bool calls, bool takes) {
    std::string f = func;
    f.replace(f.find("SPACE"), 5, space);
    std::string kernel =
        ".visible .entry k(.param .u64 out, .param .align 4 .b8 blob[8])\n{\n"
        "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [out];\n"
        "  mov.u64 %rd2, blob;\n" +
        std::string(takes ? "  cvta.param.u64 %rd2, %rd2;\n" : "  cvta.global.u64 %rd2, %rd1;\n") +
        (calls ? "  { .param .b64 a0;\n  .param .b32 r0;\n  st.param.b64 [a0], %rd2;\n"
                 "  call (r0), f, (a0);\n  ld.param.b32 %r1, [r0];\n  }\n"
                 "  st.global.u32 [%rd1], %r1;\n"
               : "") +
        "  ret;\n}\n";
    return ".version 8.0\n.target sm_90\n.address_size 64\n" + f + kernel;
  };
  for (const char* space : {"local", "global"}) {
    SCOPED_TRACE(space);
    EXPECT_EQ(error_of(module(space, true, true), host_options()), "");
    EXPECT_NE(error_of(module(space, true, true), amdgpu_options("gfx1100"))
                  .find("unsupported: isspacep." + std::string(space) +
                        " in a .func that kernel k may run, which takes parameter addresses"),
              std::string::npos);
    expect_links(module(space, true, false));
    expect_links(module(space, false, true));
  }
  for (const char* space : {"param", "param::entry"}) {
    for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
      EXPECT_NE(error_of(module(space, false, false), options)
                    .find("unsupported: isspacep.param in a .func"),
                std::string::npos);
    }
  }
  // A function table in an initialiser counts as running every function it names.
  std::string table = module("local", false, true);
  table.insert(table.find(".visible .entry"), ".global .align 8 .u64 table[1] = {f};\n");
  table.insert(table.find("  ret;\n}\n", table.find(".entry")), "  mov.u64 %rd3, table;\n");
  EXPECT_NE(error_of(table, amdgpu_options("gfx1100")).find("kernel k may run"),
            std::string::npos);
}

TEST(TranslateBranchSpace, IsspacepClusterWindowNeedsOneCtaClusters)
{
  const std::string body = "  isspacep.shared::cluster %p1, %rd2;\n"
                           "  selp.u32 %r1, 1, 0, %p1;\n  st.global.u32 [%rd1], %r1;\n";
  std::string text = kernel_text(body);
  text.replace(text.find("sm_86"), 5, "sm_90");
  expect_links(text);
  std::string bigger = text;
  bigger.insert(bigger.find("\n{\n"), "\n.reqnctapercluster 2, 1, 1");
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
    EXPECT_NE(error_of(bigger, options).find("unsupported: isspacep.shared::cluster"),
              std::string::npos);
  }
  std::string two = kernel_text("  isspacep.global.shared %p1, %rd2;\n");
  EXPECT_NE(error_of(two, host_options()).find("unsupported: isspacep.global.shared"),
            std::string::npos);
}

// --- brkpt --------------------------------------------------------------------------------

// As the H200 without a debugger (ctl_breakpoint: CUDA_ERROR_LAUNCH_FAILED): the launch fails.
TEST(TranslateBranchSpace, BrkptEndsTheLaunchAsATrap)
{
  const std::string text = kernel_text("  mov.u32 %r1, %tid.x;\n"
                                       "  setp.eq.u32 %p1, %r1, 5;\n"
                                       "  @%p1 brkpt;\n"
                                       "  st.global.u32 [%rd1], %r1;\n");
  std::vector<uint32_t> out(1, 0);
  Expected<cpu::LaunchStats> run = launch(text, 32, pointer_params(out.data(), nullptr));
  ASSERT_FALSE(run.has_value());
  EXPECT_NE(run.error().message.find("thread (5,0,0)"), std::string::npos) << run.error().message;
  EXPECT_NE(run.error().message.find("trap"), std::string::npos) << run.error().message;
  std::string quiet = text;
  quiet.replace(quiet.find("%r1, 5;"), 7, "%r1, 99;");
  EXPECT_TRUE(launch(quiet, 32, pointer_params(out.data(), nullptr)).has_value());
  expect_links(text);
  EXPECT_NE(error_of(kernel_text("  brkpt.uni;\n"), host_options()).find("unsupported: brkpt.uni"),
            std::string::npos);
}

// --- nvcc's PTX ---------------------------------------------------------------------------

TEST(TranslateBranchSpace, NvccPtxOfControlMoreTranslatesEverywhere)
{
  for (const char* file : {"control_more_branch.sm_90.ptx", "control_more_brkpt.sm_90.ptx"}) {
    SCOPED_TRACE(file);
    const std::string text = read_file(k_tests / "ptx" / "isa" / file);
    ASSERT_FALSE(text.empty());
    Expected<Translation> host = translate_text(text, host_options());
    ASSERT_TRUE(host.has_value()) << host.error().message;
    EXPECT_EQ(verify_text(*host->module), "");
    expect_links(text);
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
