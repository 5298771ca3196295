// Hints and no-ops (lower_hints.cpp, ld/st .L2::cache_hint, the proxy fences), ld/st .b128,
// cvta.param, clusters of one CTA and elect.sync (lower_cluster.cpp), %dynamic_smem_size: every
// form translates for the host, gfx1100 and gfx1201; the hints make no code; cluster forms are
// "unsupported" in kernels whose clusters may be bigger; and the CPU executor computes what the
// ISA says (the H200 goldens cluster_regs*, cluster_one, hint_* check the same kernels' values).

#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

const char* const k_targets_checked[] = {"gfx1100", "gfx1201"};

// Translates for the host (verified) and links for both AMDGPU targets.
void expect_everywhere(const std::string& text, const std::string& what)
{
  Expected<Translation> host = translate_text(text, host_options());
  ASSERT_TRUE(host.has_value()) << what << ": " << host.error().message;
  EXPECT_EQ(verify_text(*host->module), "") << what;
  for (const char* target : k_targets_checked) {
    EXPECT_NE(amdgpu_disassembly(text, target), "") << what << " (" << target << ")";
  }
}

// A kernel k(out, in) of sm_90 with `directives` after its parameters.
std::string cluster_kernel(const std::string& directives, const std::string& body)
{
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 out, .param .u64 in)\n" +
         directives + "\n{\n  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
                      "  .shared .align 4 .b32 sh[64];\n"
                      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n" +
         body + "\n  ret;\n}\n";
}

// Hints with no effect on any value: the kernel stores its 7 and nothing else happens.
const char* const k_pure_hints[] = {
    "applypriority.global.L2::evict_normal [%rd2], 128;",
    "applypriority.L2::evict_normal [%rd2], 128;",
    "discard.global.L2 [%rd2], 128;",
    "discard.L2 [%rd2+128], 128;",
    "griddepcontrol.wait;",
    "griddepcontrol.launch_dependents;",
    "pmevent 1;",
    "pmevent.mask 0xff;",
    "setmaxnreg.inc.sync.aligned.u32 240;",
    "setmaxnreg.dec.sync.aligned.u32 24;",
    "createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;",
    "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd3;",
    "createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd3, [%rd2], 256, 1024;",
    "createpolicy.cvt.L2.b64 %rd3, %rd4;",
};

TEST(TranslateClusterHints, PureHintsTranslateAndMakeNoCode)
{
  for (const char* hint : k_pure_hints) {
    std::string body = std::string("  st.global.u32 [%rd1], 7;\n  ") + hint;
    EXPECT_EQ(host_stores(body), std::vector<std::string>{"7"}) << hint;
    Expected<Translation> host = translate_text(kernel_text(body), host_options());
    ASSERT_TRUE(host.has_value()) << hint;
    std::string ir = ir_text(*host->module);
    EXPECT_EQ(occurrences(ir, "fence"), 0) << hint;
    EXPECT_EQ(occurrences(ir, "call "), 0) << hint;
    expect_everywhere(kernel_text(body), hint);
  }
}

// The proxy fences are full fences at their scope (.gpu without one); so are the PTX 8.6
// .sync_restrict fences (.cluster widened to .gpu).
TEST(TranslateClusterHints, ProxyFencesAreFullFences)
{
  for (const char* fence : {"fence.proxy.alias;", "fence.proxy.async;", "fence.proxy.async.global;",
                            "fence.proxy.async.shared::cta;", "fence.proxy.async.shared::cluster;",
                            "fence.proxy.tensormap::generic.release.gpu;",
                            "fence.proxy.tensormap::generic.acquire.sys [%rd2], 128;",
                            "fence.mbarrier_init.release.cluster;", "membar.proxy.alias;",
                            "fence.acquire.sync_restrict::shared::cluster.cluster;",
                            "fence.release.sync_restrict::shared::cta.cluster;",
                            "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster."
                            "cluster;",
                            "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;"}) {
    std::string body = std::string("  ") + fence;
    Expected<Translation> host = translate_text(kernel_text(body), host_options());
    ASSERT_TRUE(host.has_value()) << fence << ": " << host.error().message;
    EXPECT_EQ(occurrences(ir_text(*host->module), "fence seq_cst"), 1) << fence;
    Expected<Translation> gpu = translate_text(kernel_text(body), amdgpu_options("gfx1201"));
    ASSERT_TRUE(gpu.has_value()) << fence;
    EXPECT_EQ(occurrences(ir_text(*gpu->module), "fence syncscope(\"agent\") seq_cst") +
                  occurrences(ir_text(*gpu->module), "fence seq_cst"),
              1)
        << fence;
  }
}

// Malformed operands are errors; forms outside the ISA or not modelled are "unsupported".
TEST(TranslateClusterHints, MalformedOrUnknownHintsAreRejected)
{
  struct Case {
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {"applypriority.global.L2::evict_normal [%rd2], 64;", "takes a size of 128"},
      {"applypriority.global.L2::evict_last [%rd2], 128;", "unsupported"},
      {"discard.global.L1 [%rd2], 128;", "unsupported"},
      {"discard.global.L2 [%rd2];", "operand"},
      {"griddepcontrol.wait.launch_dependents;", "unsupported"},
      {"griddepcontrol;", "unsupported"},
      {"pmevent 16;", "pmevent takes"},
      {"pmevent %r1;", "pmevent takes"},
      {"setmaxnreg.inc.sync.aligned.u32 20;", "setmaxnreg takes"},
      {"setmaxnreg.inc.sync.aligned.u32 100;", "setmaxnreg takes"},
      {"setmaxnreg.inc.dec.sync.aligned.u32 64;", "unsupported"},
      {"setmaxnreg.inc.u32 64;", "unsupported"},
      {"createpolicy.fractional.range.L2::evict_last.b64 %rd3, 1.0;", "unsupported"},
      {"createpolicy.fractional.L2::evict_last.b32 %r3, 1.0;", "unsupported"},
      {"ld.global.L2::cache_hint.u32 %r1, [%rd2];", "operand"},
      {"fence.proxy.alias.async;", "unsupported"},
      {"fence.proxy.tensormap::generic.gpu;", "unsupported"},
      {"fence.proxy.tensormap::generic.acquire.gpu [%rd2], 64;", "size of 128"},
      {"fence.mbarrier_init.acquire.cluster;", "unsupported"},
      {"fence.proxy.async::generic.release.sync_restrict::shared::cluster.cluster;",
       "unsupported"},
      {"fence.acq_rel.sync_restrict::shared::cluster.cluster;", "unsupported"},
      {"fence.acquire.sync_restrict::shared::cluster.gpu;", "unsupported"},
      {"elect.sync %r1, 0xffffffff;", "unsupported"},
      {"elect %r1|%p1, 0xffffffff;", "unsupported"},
      {"ld.global.b128 %rd3, [%rd2];", "unsupported"},
      {"cvta.param::func.u64 %rd3, %rd2;", "unsupported"},
  };
  for (const Case& c : cases) {
    Expected<Translation> translation =
        translate_text(kernel_text(std::string("  ") + c.body), host_options());
    ASSERT_FALSE(translation.has_value()) << c.body;
    EXPECT_NE(translation.error().message.find(c.message), std::string::npos)
        << c.body << ": " << translation.error().message;
  }
}

// Every cluster form, in a kernel (and a .func of the module) whose clusters are one CTA.
const char* const k_cluster_forms[] = {
    "mov.u32 %r1, %clusterid.x;",
    "mov.u32 %r1, %nclusterid.z;",
    "mov.u32 %r1, %cluster_ctaid.y;",
    "mov.u32 %r1, %cluster_nctaid.x;",
    "mov.u32 %r1, %cluster_ctarank;",
    "mov.u32 %r1, %cluster_nctarank;",
    "mapa.shared::cluster.u32 %r1, %r2, 0;",
    "mapa.shared::cluster.u32 %r1, sh, 0;",
    "mapa.u64 %rd3, %rd2, %r1;",
    "getctarank.shared::cluster.u32 %r1, %r2;",
    "getctarank.u64 %r1, %rd2;",
    "barrier.cluster.arrive;\n  barrier.cluster.wait;",
    "barrier.cluster.arrive.relaxed.aligned;\n  barrier.cluster.wait.acquire.aligned;",
    "ld.shared::cluster.u32 %r1, [%r2];",
    "ld.shared::cluster.v2.u32 {%r1, %r3}, [sh];",
    "st.shared::cluster.u32 [sh+4], %r1;",
    "cvta.shared::cluster.u64 %rd3, %rd4;",
    "cvta.to.shared::cluster.u64 %rd3, %rd4;",
};

TEST(TranslateClusterHints, ClusterFormsTranslateWhereClustersAreOneCta)
{
  for (const char* directives : {"", ".reqnctapercluster 1, 1, 1",
                                 ".explicitcluster\n.reqnctapercluster 1, 1, 1",
                                 ".explicitcluster\n.maxclusterrank 1", ".maxclusterrank 1"}) {
    for (const char* form : k_cluster_forms) {
      std::string text = cluster_kernel(directives, std::string("  mov.u32 %r2, 0;\n  ") + form);
      expect_everywhere(text, std::string(form) + " with \"" + directives + "\"");
    }
  }
}

TEST(TranslateClusterHints, ClusterFormsAreUnsupportedWhereClustersMayBeBigger)
{
  for (const char* directives : {".reqnctapercluster 2, 1, 1", ".reqnctapercluster 1, 1, 4",
                                 ".explicitcluster", ".explicitcluster\n.maxclusterrank 2",
                                 ".maxclusterrank 8"}) {
    for (const char* form : k_cluster_forms) {
      std::string text = cluster_kernel(directives, std::string("  mov.u32 %r2, 0;\n  ") + form);
      for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1201")}) {
        Expected<Translation> translation = translate_text(text, options);
        ASSERT_FALSE(translation.has_value()) << form << " with " << directives;
        EXPECT_NE(translation.error().message.find("unsupported"), std::string::npos)
            << form << ": " << translation.error().message;
      }
    }
  }
}

// A .func runs for any kernel of its module: its cluster forms need every kernel's clusters to be
// one CTA; %dynamic_smem_size depends on its kernel's static .shared size, so a .func cannot read
// it at all.
TEST(TranslateClusterHints, FunctionsFollowEveryKernelOfTheModule)
{
  auto module = [](const std::string& second_kernel_directives, const std::string& register_name) {
    return ".version 8.0\n.target sm_90\n.address_size 64\n"
           ".func (.param .b32 r) rank()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, " +
           register_name +
           ";\n  st.param.b32 [r], %r1;\n  ret;\n}\n"
           ".visible .entry a(.param .u64 out)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
           "  ld.param.u64 %rd1, [out];\n  {\n    .param .b32 r0;\n    call.uni (r0), rank, ();\n"
           "    ld.param.b32 %r1, [r0];\n  }\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n"
           ".visible .entry b(.param .u64 out)\n" +
           second_kernel_directives +
           "\n{\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [out];\n"
           "  st.global.u32 [%rd1], 1;\n  ret;\n}\n";
  };
  expect_everywhere(module("", "%cluster_nctarank"), "one-CTA kernels");
  expect_everywhere(module(".reqnctapercluster 1, 1, 1", "%cluster_ctarank"), "1x1x1 kernels");
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
    Expected<Translation> bigger =
        translate_text(module(".reqnctapercluster 2, 1, 1", "%cluster_ctarank"), options);
    ASSERT_FALSE(bigger.has_value());
    EXPECT_NE(bigger.error().message.find("unsupported"), std::string::npos);
    Expected<Translation> dynamic = translate_text(module("", "%dynamic_smem_size"), options);
    ASSERT_FALSE(dynamic.has_value());
    EXPECT_NE(dynamic.error().message.find("unsupported"), std::string::npos);
  }
}

// The cluster registers, elect.sync and the .shared::cluster accesses on the executor: grid 3x2,
// 40 threads (a full warp and one of 8 lanes), 24 bytes of dynamic shared memory.
const char* const k_cluster_run = R"(
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %nctaid.x;
  mov.u32 %r4, %ctaid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mad.lo.u32 %r5, %r5, 40, %r1;
  mul.wide.u32 %rd3, %r5, 48;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r6, %clusterid.x;
  st.global.u32 [%rd4], %r6;
  mov.u32 %r6, %clusterid.y;
  st.global.u32 [%rd4+4], %r6;
  mov.u32 %r6, %nclusterid.x;
  st.global.u32 [%rd4+8], %r6;
  mov.u32 %r6, %nclusterid.y;
  st.global.u32 [%rd4+12], %r6;
  mov.u32 %r6, %cluster_ctaid.x;
  st.global.u32 [%rd4+16], %r6;
  mov.u32 %r6, %cluster_nctaid.y;
  st.global.u32 [%rd4+20], %r6;
  mov.u32 %r6, %cluster_ctarank;
  st.global.u32 [%rd4+24], %r6;
  mov.u32 %r6, %cluster_nctarank;
  st.global.u32 [%rd4+28], %r6;
  mov.u32 %r6, %dynamic_smem_size;
  st.global.u32 [%rd4+32], %r6;
  and.b32 %r7, %r1, 31;
  shr.u32 %r8, 0x0000fff0, %r7;
  and.b32 %r8, %r8, 1;
  setp.eq.u32 %p1, %r8, 0;
  mov.u32 %r9, 99;
  mov.u32 %r10, 99;
  @%p1 bra SKIP;
  elect.sync %r9|%p2, 0x0000fff0;
  selp.u32 %r10, 1, 0, %p2;
SKIP:
  st.global.u32 [%rd4+36], %r9;
  st.global.u32 [%rd4+40], %r10;
  shl.b32 %r11, %r1, 2;
  mov.u32 %r12, sh;
  add.u32 %r12, %r12, %r11;
  st.shared::cluster.u32 [%r12], %r5;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  add.u32 %r13, %r1, 1;
  rem.u32 %r13, %r13, 40;
  shl.b32 %r13, %r13, 2;
  mov.u32 %r14, sh;
  add.u32 %r13, %r13, %r14;
  mov.u32 %r15, %cluster_ctarank;
  mapa.shared::cluster.u32 %r13, %r13, %r15;
  ld.shared::cluster.u32 %r6, [%r13];
  st.global.u32 [%rd4+44], %r6;
)";

TEST(TranslateClusterHints, ExecutorComputesTheClusterForms)
{
  std::string text = cluster_kernel(".reqnctapercluster 1, 1, 1", k_cluster_run);
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  ASSERT_NE(executor, nullptr);
  constexpr uint32_t k_threads = 3 * 2 * 40;
  std::vector<uint32_t> out(k_threads * 12, 0xdeadbeefU);
  std::vector<uint32_t> in(1, 0);
  Expected<cpu::LaunchStats> launched =
      executor->launch("k", cpu::LaunchShape{{3, 2, 1}, {40, 1, 1}, 24},
                       pointer_params(out.data(), in.data()));
  ASSERT_TRUE(launched.has_value()) << launched.error().message;
  for (uint32_t y = 0; y < 2; ++y) {
    for (uint32_t x = 0; x < 3; ++x) {
      for (uint32_t t = 0; t < 40; ++t) {
        uint32_t id = (y * 3 + x) * 40 + t;
        const uint32_t* o = &out[id * 12];
        uint32_t lane = t % 32;
        bool member = lane >= 4 && lane < 16 && (t < 32 || lane < 8);
        // Warp 1 has lanes 0-7: its members of 0xfff0 are lanes 4-7, the leader 4 again.
        std::vector<uint32_t> expected = {x, y, 3, 2, 0, 1, 0, 1, 24,
                                          member ? 4U : 99U, member ? (lane == 4 ? 1U : 0U) : 99U,
                                          (y * 3 + x) * 40 + (t + 1) % 40};
        EXPECT_EQ(std::vector<uint32_t>(o, o + 12), expected) << "block " << x << "," << y
                                                               << " thread " << t;
      }
    }
  }
}

// ld/st .b128 move 16 bytes through a .b128 register (global and shared); cvta.param gives the
// generic address of a kernel parameter, read back with a generic load.
TEST(TranslateClusterHints, ExecutorMovesB128AndReadsParametersThroughCvtaParam)
{
  std::string body = "  .reg .b128 %q;\n  ld.global.b128 %q, [%rd2];\n"
                     "  st.shared.b128 [sh+16], %q;\n  bar.sync 0;\n"
                     "  ld.shared.b128 %q, [sh+16];\n  st.global.b128 [%rd1], %q;\n"
                     "  mov.b64 %rd3, in;\n  cvta.param.u64 %rd4, %rd3;\n"
                     "  ld.u64 %rd5, [%rd4];\n  st.global.u64 [%rd1+16], %rd5;\n"
                     "  mov.u32 %r1, %dynamic_smem_size;\n  st.global.u32 [%rd1+24], %r1;";
  std::string text = cluster_kernel("", body);
  expect_everywhere(text, "b128 and cvta.param");
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  ASSERT_NE(executor, nullptr);
  std::vector<uint32_t> in = {0x01234567U, 0x89abcdefU, 0xfedcba98U, 0x76543210U};
  std::vector<uint32_t> out(8, 0xdeadbeefU);
  Expected<cpu::LaunchStats> launched = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, pointer_params(out.data(), in.data()));
  ASSERT_TRUE(launched.has_value()) << launched.error().message;
  EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 4), in);
  uint64_t address = 0;
  std::memcpy(&address, &out[4], 8);
  EXPECT_EQ(address, reinterpret_cast<uint64_t>(in.data()));
  EXPECT_EQ(out[6], 0U);
}

// AMDGPU: %dynamic_smem_size is the dispatch packet's group segment size (offset 28) minus the
// static LDS size; elect.sync is a ballot and a find-first-set.
TEST(TranslateClusterHints, AmdgpuReadsTheDispatchPacketAndBallots)
{
  std::string body = "  mov.u32 %r1, %dynamic_smem_size;\n  st.global.u32 [%rd1], %r1;\n"
                     "  elect.sync %r2|%p1, 0xffffffff;\n  selp.u32 %r3, 1, 0, %p1;\n"
                     "  st.global.u32 [%rd1+4], %r2;\n  st.global.u32 [%rd1+8], %r3;";
  Expected<Translation> gpu = translate_text(cluster_kernel("", body), amdgpu_options("gfx1100"));
  ASSERT_TRUE(gpu.has_value()) << gpu.error().message;
  std::string ir = ir_text(*gpu->module);
  EXPECT_GE(occurrences(ir, "llvm.amdgcn.dispatch.ptr"), 1) << ir;
  EXPECT_GE(occurrences(ir, "i64 28"), 1) << ir;
  EXPECT_GE(occurrences(ir, "llvm.amdgcn.groupstaticsize"), 1) << ir;
  EXPECT_GE(occurrences(ir, "llvm.amdgcn.ballot"), 1) << ir;
  EXPECT_GE(occurrences(ir, "llvm.cttz"), 1) << ir;
  std::string listing = amdgpu_disassembly(cluster_kernel("", body), "gfx1100");
  EXPECT_GE(occurrences(listing, "s_load_b32"), 1) << listing;
}

// The H200 golden kernels themselves (tests/ptx/isa/cluster_hints.cu, both builds) translate and
// link for gfx1100 and gfx1201 too.
TEST(TranslateClusterHints, GoldenKernelsLinkForAmdgpu)
{
  for (const char* name : {"cluster_hints.sm_90.ptx", "cluster_hints.sm_90a.ptx"}) {
    std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/ptx/isa/" + name);
    std::stringstream text;
    text << file.rdbuf();
    ASSERT_FALSE(text.str().empty()) << name;
    for (const char* target : k_targets_checked) {
      std::string listing = amdgpu_disassembly(text.str(), target);
      EXPECT_GE(occurrences(listing, "s_endpgm"), occurrences(text.str(), ".entry "))
          << name << " (" << target << ")";
    }
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
