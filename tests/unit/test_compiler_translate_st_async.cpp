// st.async and red.async in kernels that require clusters of one CTA (lower_async_copy.cpp): on
// the CPU executor every type, vector width, address form and operation writes what the ISA says
// and completes exactly its bytes on the barrier (the phase stays open until a last complete_tx
// of 4 bytes, then completes); both AMDGPU targets link them; and every kernel whose launches may
// be without clusters (no directive, .maxclusterrank 1, .explicitcluster alone, bigger clusters,
// a .func that such a kernel may call) keeps them "unsupported", as do the forms the ISA does not
// list. The H200 goldens st_async_forms, st_async_generic, red_async_{forms,small,generic} check
// the same forms against NVIDIA.

#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

const char* const k_one_cta = ".explicitcluster\n.reqnctapercluster 1, 1, 1";

// A kernel k(out, in) of sm_90 with `directives` after its parameters; 256 bytes of shared `buf`
// and the barrier `bar` armed by thread 0 for one arrival and `bytes` + 4 bytes.
std::string async_kernel(const std::string& directives, const std::string& body, int bytes = 0)
{
  return ".version 8.4\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 out, .param .u64 in)\n" +
         directives +
         "\n{\n  .reg .pred %p<8>;\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<40>;\n"
         "  .reg .f32 %f<8>;\n  .reg .f64 %fd<4>;\n"
         "  .shared .align 16 .b8 buf[8192];\n  .shared .align 8 .b64 bar;\n"
         "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n"
         "  mov.u32 %r1, %tid.x;\n  setp.ne.u32 %p7, %r1, 0;\n"
         "  @%p7 bra ARMED;\n  mbarrier.init.shared::cta.b64 [bar], 1;\n"
         "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], " +
         std::to_string(bytes + 4) + ";\nARMED:\n  bar.sync 0;\n" + body + "\n  ret;\n}\n";
}

// Thread 0 after the block's operations: out[i] = phase still open (1), the last 4 bytes, the
// phase completed (1); out[i + 1] the second.
std::string finish(int at)
{
  const std::string a = std::to_string(at * 4);
  const std::string b = std::to_string(at * 4 + 4);
  return "  bar.sync 0;\n  @%p7 bra DONE;\n"
         "  mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;\n"
         "  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 4;\n"
         "  mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;\n"
         "  selp.u32 %r30, 0, 1, %p1;\n  selp.u32 %r31, 1, 0, %p2;\n"
         "  st.global.u32 [%rd1+" + a + "], %r30;\n  st.global.u32 [%rd1+" + b + "], %r31;\n"
         "DONE:\n";
}

std::vector<uint32_t> run(const std::string& text, uint32_t threads, size_t words,
                          std::vector<uint32_t> in)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  if (!executor) {
    return {};
  }
  std::vector<uint32_t> out(words, 0xcdcdcdcdu);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {threads, 1, 1}, 0}, pointer_params(out.data(), in.data()));
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return {};
  }
  return out;
}

// One thread: every st.async form into buf (mapa'd, plain, generic, +imm, immediate), 100
// bytes, then buf's first 27 words to out[0..26], the flags to out[27..28].
const std::string k_stores =
    "  @%p7 bra STORED;\n"
    "  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd2];\n"
    "  ld.global.v2.u64 {%rd3, %rd4}, [%rd2+16];\n"
    "  mov.b32 %f1, %r5;\n  mov.b64 %fd1, %rd4;\n"
    "  mov.u32 %r10, buf;\n  mov.u32 %r11, bar;\n"
    "  mapa.shared::cluster.u32 %r12, %r10, 0;\n  mapa.shared::cluster.u32 %r13, %r11, 0;\n"
    "  mov.u64 %rd11, buf;\n  cvta.shared.u64 %rd12, %rd11;\n"
    "  mov.u64 %rd13, bar;\n  cvta.shared.u64 %rd14, %rd13;\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r12], %r2, [%r13];\n"
    "  st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.s32 [%r10+4], %r3, [bar];\n"
    "  st.async.mbarrier::complete_tx::bytes.u32 [%rd12+8], %r4, [%rd14];\n"
    "  st.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.f32 [buf+12], %f1, [%r11];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.u64 [%r12+16], %rd3, [%r13];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.f64 [%r12+24], %fd1, [%r13];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r12+32], {%r5, %r2}, "
    "[%r13];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s64 [%r12+48], {%rd4, %rd3}, "
    "[%r13];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%r12+64], {%r4, %r3, %r2, "
    "%r5}, [%r13];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%r12+80], {%f1, 0f3fc00000, "
    "%f1, 0f80000000}, [%r13];\n"
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r12+96], 0x12345678, [%r13];\n"
    "  st.async.mbarrier::complete_tx::bytes.v2.u32 [%rd12+100], {7, %r3}, [%rd14];\n"
    "STORED:\n";

std::string copy_out(int words)
{
  return "  @%p7 bra COPIED;\n  mov.u32 %r20, 0;\nCOPY:\n"
         "  shl.b32 %r21, %r20, 2;\n  mov.u32 %r22, buf;\n  add.u32 %r22, %r22, %r21;\n"
         "  ld.shared.u32 %r23, [%r22];\n  cvt.u64.u32 %rd20, %r21;\n"
         "  add.s64 %rd21, %rd1, %rd20;\n  st.global.u32 [%rd21], %r23;\n"
         "  add.u32 %r20, %r20, 1;\n  setp.lt.u32 %p3, %r20, " + std::to_string(words) +
         ";\n  @%p3 bra COPY;\nCOPIED:\n";
}

TEST(TranslateStAsync, HostEveryStoreFormCountsItsBytes)
{
  const std::string text = async_kernel(k_one_cta, k_stores + finish(27) + copy_out(27), 100);
  const std::vector<uint32_t> in = {0x11111111, 0x80000002, 0x33333333, 0x7fc00001,
                                    0x55555555, 0x66666666, 0x77777777, 0xfff00000};
  std::vector<uint32_t> out = run(text, 32, 29, in);
  ASSERT_EQ(out.size(), 29U);
  const std::vector<uint32_t> expected = {
      0x11111111, 0x80000002, 0x33333333, 0x7fc00001,             // b32 s32 u32 f32 (a NaN)
      0x55555555, 0x66666666, 0x77777777, 0xfff00000,             // u64 f64
      0x7fc00001, 0x11111111, 0xcdcdcdcd, 0xcdcdcdcd,             // v2.b32, 8 bytes untouched
      0x77777777, 0xfff00000, 0x55555555, 0x66666666,             // v2.s64
      0x33333333, 0x80000002, 0x11111111, 0x7fc00001,             // v4.u32
      0x7fc00001, 0x3fc00000, 0x7fc00001, 0x80000000,             // v4.f32 with immediates
      0x12345678, 7,          0x80000002,                         // immediates
      1,          1};                                             // open before, done after
  // Shared memory is not initialised: the two words no store reaches are whatever the executor's
  // window held; compare them as they came.
  std::vector<uint32_t> got = out;
  got[10] = got[11] = 0xcdcdcdcd;
  EXPECT_EQ(got, expected);
  // Without the last 4 bytes the phase does not complete: the count is exactly 100.
  EXPECT_EQ(out[27], 1U);
  EXPECT_EQ(out[28], 1U);
}

// 32 threads: inc/dec (bound 5) on words 0/1 from every thread (32 incs from 3: (3 + 32) mod 6 =
// 5; 32 decs from 2: 2 1 0 5 4 ... -> (2 - 32) mod 6 = 0), min/max u32 and s32, add u32 s32
// (immediate) u64 s64, and/or/xor b32: 17 operations of 4 or 8 bytes each (76).
const std::string k_reductions =
    "  mov.u32 %r10, buf;\n  mov.u32 %r11, bar;\n"
    "  mapa.shared::cluster.u32 %r12, %r10, 0;\n  mapa.shared::cluster.u32 %r13, %r11, 0;\n"
    "  mov.u64 %rd11, buf;\n  cvta.shared.u64 %rd12, %rd11;\n"
    "  mov.u64 %rd13, bar;\n  cvta.shared.u64 %rd14, %rd13;\n"
    "  xor.b32 %r2, %r1, 0x80000010;\n  cvt.u64.u32 %rd3, %r1;\n  shl.b64 %rd3, %rd3, 40;\n"
    "  mov.u32 %r3, 1;\n  shl.b32 %r3, %r3, %r1;\n"
    "  @%p7 bra INIT;\n"
    "  st.shared.v4.u32 [buf], {3, 2, 0xffffffff, 0};\n"
    "  st.shared.v4.u32 [buf+16], {0x7fffffff, 0x80000000, 100, 0};\n"
    "  st.shared.v4.u32 [buf+32], {0xffffffff, 0, 0xa5a5a5a5, 0};\n"
    "  st.shared.v4.u32 [buf+48], {1, 0, 0, 0x80000000};\n"
    "INIT:\n  bar.sync 0;\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%r12], 5, "
    "[%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.dec.u32 [%r10+4], 5, "
    "[bar];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u32 [%r12+8], "
    "%r2, [%r13];\n"
    "  red.async.relaxed.cluster.mbarrier::complete_tx::bytes.max.u32 [%rd12+12], %r2, [%rd14];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 [%r12+16], "
    "%r2, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32 [%r12+20], "
    "%r2, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r12+24], "
    "%r1, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s32 [%r12+28], "
    "-3, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.and.b32 [%r12+32], "
    "%r2, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.or.b32 [%r12+36], "
    "%r3, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32 [%r12+40], "
    "%r3, [%r13];\n"
    "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%r12+48], "
    "%rd3, [%r13];\n"
    "  red.async.relaxed.cluster.mbarrier::complete_tx::bytes.add.s64 [%rd12+56], -1, [%rd14];\n";

TEST(TranslateStAsync, HostEveryReductionUnderContention)
{
  const std::string text =
      async_kernel(k_one_cta, k_reductions + finish(16) + copy_out(16), 32 * 60);
  std::vector<uint32_t> out = run(text, 32, 18, {0});
  ASSERT_EQ(out.size(), 18U);
  // Sum of t << 40 over t < 32 is 496 << 40; 0x8000000000000000 + 32 * -1.
  const std::vector<uint32_t> expected = {
      5,          0,          0x80000000, 0x8000001f, // inc dec min.u32 max.u32
      0x80000000, 0x8000001f, 100 + 496,  0xffffffa0, // min.s32 max.s32 add.u32 add.s32
      0x80000000, 0xffffffff, 0xa5a5a5a5 ^ 0xffffffff, 0,
      1,          496 << 8,   0xffffffe0, 0x7fffffff, // add.u64 (hi word 496 << 8), add.s64
      1,          1};
  EXPECT_EQ(out, expected);
}

TEST(TranslateStAsync, AmdgpuTargetsLinkEveryForm)
{
  for (const std::string& body : {k_stores, k_reductions}) {
    const std::string text = async_kernel(k_one_cta, body);
    Expected<Translation> host = translate_text(text, host_options());
    ASSERT_TRUE(host.has_value()) << host.error().message;
    EXPECT_EQ(verify_text(*host->module), "");
    for (const char* target : {"gfx1100", "gfx1201"}) {
      std::string listing = amdgpu_disassembly(text, target);
      EXPECT_NE(listing.find("ds_"), std::string::npos) << target << "\n" << listing;
    }
  }
}

void expect_unsupported(const std::string& text, const std::string& what)
{
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1201")}) {
    Expected<Translation> translation = translate_text(text, options);
    ASSERT_FALSE(translation.has_value()) << text;
    EXPECT_NE(translation.error().message.find("unsupported: " + what), std::string::npos)
        << translation.error().message;
  }
}

const std::string k_st =
    "  st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [buf], %r1, [bar];";
const std::string k_red = "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::"
                          "bytes.add.u32 [buf], %r1, [bar];";

TEST(TranslateStAsync, KernelsThatMayRunWithoutClustersReject)
{
  // No directive (the H200 stops them: mbar_st_async), a bound alone (.maxclusterrank 1: the
  // launch need not be a cluster launch), .explicitcluster alone, and bigger clusters.
  for (const char* directives : {"", ".maxclusterrank 1", ".explicitcluster",
                                 ".reqnctapercluster 2, 1, 1", ".reqnctapercluster 1, 1, 2"}) {
    expect_unsupported(async_kernel(directives, k_st), "st.async");
    expect_unsupported(async_kernel(directives, k_red), "red.async");
  }
  // The same kernel with clusters of one translates.
  EXPECT_TRUE(translate_text(async_kernel(k_one_cta, k_st + "\n" + k_red), host_options()));
}

TEST(TranslateStAsync, FunctionsFollowEveryKernelOfTheirModule)
{
  const std::string func =
      ".version 8.4\n.target sm_90\n.address_size 64\n"
      ".func f(.param .b32 a, .param .b32 b)\n{\n  .reg .b32 %r<4>;\n"
      "  ld.param.b32 %r1, [a];\n  ld.param.b32 %r2, [b];\n"
      "  st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r1], %r1, [%r2];\n"
      "  ret;\n}\n";
  auto kernel = [](const std::string& name, const std::string& directives) {
    return ".visible .entry " + name + "()\n" + directives +
           "\n{\n  .reg .b32 %r<4>;\n  .shared .align 8 .b64 bar;\n  mov.u32 %r1, bar;\n"
           "  { .param .b32 a;\n  .param .b32 b;\n  st.param.b32 [a], %r1;\n"
           "  st.param.b32 [b], %r1;\n  call f, (a, b);\n  }\n  ret;\n}\n";
  };
  EXPECT_TRUE(translate_text(func + kernel("k1", k_one_cta) + kernel("k2", k_one_cta),
                             host_options()));
  expect_unsupported(func + kernel("k1", k_one_cta) + kernel("k2", ""), "st.async");
}

TEST(TranslateStAsync, FormsTheIsaDoesNotListReject)
{
  const std::string s = "  st.async.shared::cluster.mbarrier::complete_tx::bytes";
  const std::string r = "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes";
  const std::pair<std::string, std::string> cases[] = {
      {s + ".v4.b64 [buf], {%rd1, %rd1, %rd1, %rd1}, [bar];", "st.async"}, // over 128 bits
      {s + ".b16 [buf], %r1, [bar];", "st.async"},
      {s + ".v8.b32 [buf], {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, [bar];", "st.async"},
      {"  st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.b32 [buf], %r1, "
       "[bar];", "st.async"},
      {"  st.async.shared::cluster.b32 [buf], %r1, [bar];", "st.async"}, // no completion
      {"  st.async.release.gpu.global.b32 [%rd1], %r1;", "st.async"},     // sm_100
      {r + ".add.b32 [buf], %r1, [bar];", "red.async"},
      {r + ".min.u64 [buf], %rd1, [bar];", "red.async"},
      {r + ".min.b32 [buf], %r1, [bar];", "red.async"},
      {r + ".inc.s32 [buf], %r1, [bar];", "red.async"},
      {r + ".and.b64 [buf], %rd1, [bar];", "red.async"},
      {r + ".add.f32 [buf], %f1, [bar];", "red.async"},
      {r + ".add.min.u32 [buf], %r1, [bar];", "red.async"},
      {"  red.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [buf], %r1, "
       "[bar];", "red.async"}, // no .relaxed (ptxas: "order modifier required")
      {"  red.async.release.gpu.global.add.u32 [%rd1], %r1;", "red.async"}, // sm_100
  };
  for (const auto& [body, what] : cases) {
    expect_unsupported(async_kernel(k_one_cta, body), what);
  }
  Expected<Translation> short_vector = translate_text(
      async_kernel(k_one_cta, s + ".v4.b32 [buf], {%r1, %r1}, [bar];"), host_options());
  ASSERT_FALSE(short_vector.has_value());
  EXPECT_NE(short_vector.error().message.find("needs 4 elements"), std::string::npos)
      << short_vector.error().message;
}

} // namespace
} // namespace d4r::compiler::translate::test
