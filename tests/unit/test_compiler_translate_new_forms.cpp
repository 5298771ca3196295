// Instruction families that public PTX uses and the translator used to reject (issue 11):
// redux.sync, match.any/all.sync (lower_warp_reduce.cpp), bmsk, integer cvt.pack.sat
// (lower_int_pack.cpp), nanosleep (lower_sleep.cpp) and the video instructions (lower_video.cpp,
// kernels/support/video.c). Every form the ISA gives them translates for the host and for gfx1100
// and gfx1201; the forms outside the ISA's lists are "unsupported"; the warp forms run on the CPU
// executor with partial member masks against the ISA's definition; a few values worked out by
// hand from the ISA pseudo-code check the rest (the golden cases redux_match, int_pack, video_*
// compare every form with an H200).

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

const char* const k_accepted[] = {
    "  redux.sync.add.u32 %r1, %r2, 0xffffffff;",
    "  redux.sync.add.s32 %r1, %r2, %r3;",
    "  redux.sync.min.u32 %r1, %r2, %r3;",
    "  redux.sync.min.s32 %r1, %r2, %r3;",
    "  redux.sync.max.u32 %r1, %r2, %r3;",
    "  redux.sync.max.s32 %r1, %r2, 0x0000ffff;",
    "  redux.sync.and.b32 %r1, %r2, %r3;",
    "  redux.sync.or.b32 %r1, %r2, %r3;",
    "  redux.sync.xor.b32 %r1, %r2, %r3;",
    "  match.any.sync.b32 %r1, %r2, 0xffffffff;",
    "  match.any.sync.b64 %r1, %rd3, %r3;",
    "  match.all.sync.b32 %r1, %r2, %r3;",
    "  match.all.sync.b32 %r1|%p1, %r2, %r3;",
    "  match.all.sync.b64 %r1|%p1, %rd3, %r3;",
    "  match.all.sync.b64 _|%p1, %rd3, %r3;",
    "  bmsk.clamp.b32 %r1, %r2, %r3;",
    "  bmsk.wrap.b32 %r1, 1, 2;",
    "  cvt.pack.sat.u16.s32 %r1, %r2, %r3;",
    "  cvt.pack.sat.s16.s32 %r1, %r2, %r3;",
    "  cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;",
    "  cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4;",
    "  cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4;",
    "  cvt.pack.sat.s4.s32.b32 %r1, %r2, %r3, %r4;",
    "  cvt.pack.sat.u2.s32.b32 %r1, %r2, %r3, %r4;",
    "  cvt.pack.sat.s2.s32.b32 %r1, %r2, %r3, %r4;",
    "  nanosleep.u32 %r1;",
    "  nanosleep.u32 100;",
    "  vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h0;",
    "  vsub.s32.s32.u32.sat %r1, %r2.h1, %r3.h1;",
    "  vabsdiff.u32.s32.s32 %r1, %r2, %r3;",
    "  vmin.s32.s32.s32.sat.add %r1, %r2.b3, %r3.b1, %r4;",
    "  vmax.u32.u32.u32.min %r1, %r2, %r3, %r4;",
    "  vmax.s32.s32.s32.max %r1, %r2.b2, %r3, %r4;",
    "  vadd.u32.u32.u32.sat %r1.h1, %r2, %r3, %r4;",
    "  vsub.s32.s32.s32 %r1.b2, %r2.b1, %r3.b0, %r4;",
    "  vshl.u32.u32.u32.clamp %r1, %r2, %r3;",
    "  vshl.s32.s32.u32.sat.wrap.add %r1, %r2.h0, %r3.b1, %r4;",
    "  vshr.s32.s32.u32.clamp %r1.b1, %r2, %r3, %r4;",
    "  vshr.u32.u32.u32.wrap %r1, %r2, %r3;",
    "  vset.s32.u32.lt %r1, %r2, %r3;",
    "  vset.u32.u32.ne.add %r1, %r2.b1, %r3.b2, %r4;",
    "  vset.s32.s32.ge %r1.h0, %r2.h1, %r3, %r4;",
    "  vset.s32.s32.eq %r1.h1, %r2, %r3, %r4;",
    "  vset.u32.u32.lt.max %r1, %r2, %r3, %r4;",
    "  vset.s32.u32.ge.min %r1, %r2, %r3, %r4;",
    "  vsub.s32.s32.s32 %r1.h1, %r2, %r3, %r4;",
    "  vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;",
    "  vsub2.s32.s32.s32.sat %r1.h0, %r2.h21, %r3.h03, %r4;",
    "  vavrg2.u32.u32.s32.add %r1, %r2, %r3, %r4;",
    "  vabsdiff2.s32.s32.s32 %r1.h1, %r2, %r3, %r4;",
    "  vmin2.u32.s32.u32.sat %r1, %r2.h11, %r3, %r4;",
    "  vmax2.s32.u32.u32 %r1.h10, %r2, %r3.h32, %r4;",
    "  vset2.s32.u32.le %r1, %r2, %r3, %r4;",
    "  vset2.u32.u32.eq.add %r1.h0, %r2, %r3, %r4;",
    "  vadd4.u32.u32.u32.sat %r1, %r2, %r3, %r4;",
    "  vsub4.s32.s32.s32 %r1.b3210, %r2.b7654, %r3.b0123, %r4;",
    "  vavrg4.s32.s32.s32 %r1.b20, %r2, %r3, %r4;",
    "  vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;",
    "  vmin4.s32.s32.u32 %r1.b31, %r2.b4567, %r3, %r4;",
    "  vmax4.u32.s32.s32.sat %r1.b0, %r2, %r3, %r4;",
    "  vset4.s32.s32.gt %r1, %r2, %r3, %r4;",
    "  vset4.u32.s32.ge.add %r1.b321, %r2, %r3, %r4;",
    "  cp.async.ca.shared.global [%r1], [%rd3], 4;",
    "  cp.async.ca.shared.global [%r1+8], [%rd3+8], 8, %r2;",
    "  cp.async.ca.shared::cta.global [sh], [%rd3], 16, 3;",
    "  cp.async.cg.shared.global [%r1], [%rd3], 16;",
    "  cp.async.cg.shared.global.L2::128B [%r1], [%rd3], 16, %r2;",
    "  cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd3], 16, %rd4;",
    "  cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd3], 8, %r2, %rd4;",
    "  cp.async.cg.shared.global [%r1], [%rd3], 16, %p1;",
    "  cp.async.commit_group;",
    "  cp.async.wait_group 1;",
    "  cp.async.wait_all;",
    "  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];",
    "  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r3}, [%r2+16];",
    "  ldmatrix.sync.aligned.x4.m8n8.shared::cta.b16 {%r1, %r3, %r4, %r5}, [%r2];",
    "  ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%r1, %r3, %r4, %r5}, [%rd3];",
    "  ldmatrix.sync.aligned.m8n8.x1.b16 %r1, [%rd3];",
};

// The first token of each must be the spelling reported as unsupported.
const char* const k_rejected[] = {
    "  redux.sync.min.abs.NaN.f32 %f1, %f2, %r3;", // sm_100a
    "  redux.sync.min.f32 %f1, %f2, %r3;",
    "  redux.sync.add.b32 %r1, %r2, %r3;", // .add is .u32/.s32 only
    "  redux.sync.and.u32 %r1, %r2, %r3;", // .and is .b32 only
    "  redux.add.u32 %r1, %r2, %r3;",      // no .sync
    "  redux.sync.add.u64 %rd3, %rd4, %r3;",
    "  match.any.sync.b16 %r1, %rs1, %r3;",
    "  match.any.sync.b32 %r1|%p1, %r2, %r3;", // the predicate is match.all's
    "  match.any.all.sync.b32 %r1, %r2, %r3;",
    "  match.sync.b32 %r1, %r2, %r3;",
    "  bmsk.b32 %r1, %r2, %r3;",
    "  bmsk.clamp.wrap.b32 %r1, %r2, %r3;",
    "  bmsk.clamp.u32 %r1, %r2, %r3;",
    "  cvt.pack.u16.s32 %r1, %r2, %r3;",              // .sat is required
    "  cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r4;", // no c for 16 bits
    "  cvt.pack.sat.u8.s32 %r1, %r2, %r3;",           // c is required below 16 bits
    "  cvt.pack.sat.u8.u32.b32 %r1, %r2, %r3, %r4;",
    "  cvt.pack.sat.u32.s32 %r1, %r2, %r3;",
    "  nanosleep.s32 %r1;",
    "  vadd.u16.u32.u32 %r1, %r2, %r3;",
    "  vadd.u32.u32.u32.sat.min.add %r1, %r2, %r3, %r4;",
    "  vadd.u32.u32.u32.add %r1.b0, %r2, %r3, %r4;", // a merge and a secondary operation
    "  vadd.u32.u32.u32 %r1, %r2.h2, %r3;",
    "  vadd.u32.u32.u32 %r1, %r2, %r3, %r4;", // c without a use
    "  vshl.u32.u32.s32.clamp %r1, %r2, %r3;",
    "  vshl.u32.u32.u32 %r1, %r2, %r3;", // the mode is required
    "  vavrg.u32.u32.u32 %r1, %r2, %r3;",
    "  vshl2.u32.u32.u32.clamp %r1, %r2, %r3, %r4;",
    "  vset.s32.u32.lt.sat %r1, %r2, %r3;",
    "  vadd2.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", // .sat with .add
    "  vadd2.u32.u32.u32.min %r1, %r2, %r3, %r4;",
    "  vadd2.u32.u32.u32 %r1, %r2.h14, %r3, %r4;",
    "  vadd4.u32.u32.u32 %r1.b02, %r2, %r3, %r4;",
    "  vadd4.u32.u32.u32 %r1, %r2.b3218, %r3, %r4;",
    "  vmad.s32.s32.s32.po %r1, -%r2, %r3, %r4;", // ptxas rejects a negation with .po
    "  cp.async.mbarrier.arrive.shared.b32 [%rd3];", // .b64 only
    "  cp.async.bulk.global.global.bulk_group [%rd3], [%rd3], 16;", // no global -> global form
    "  cp.async.ca.shared::cluster.global [%r1], [%rd3], 4;",
    "  cp.async.ca.global.shared [%rd3], [%r1], 4;",
    "  cp.async.ca.cg.shared.global [%r1], [%rd3], 16;",
    "  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f32 [%rd3], [%r1], 16;",
    "  ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r3}, [%r2];",
    "  ldmatrix.sync.aligned.m8n8.x3.shared.b16 {%r1, %r3, %r4}, [%r2];",
    "  ldmatrix.sync.aligned.m8n8.x1.x2.shared.b16 {%r1}, [%r2];",
    "  ldmatrix.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];",
};

std::string spelling(const std::string& body)
{
  size_t start = body.find_first_not_of(' ');
  size_t end = body.find_first_of(" ;", start);
  return body.substr(start, end - start);
}

// cp.async sizes other than 4/8/16 (.cg: 16) are errors, not "unsupported".
TEST(TranslateNewForms, CpAsyncBadSizesAreErrors)
{
  for (const char* body : {"  cp.async.ca.shared.global [%r1], [%rd3], 2;",
                           "  cp.async.cg.shared.global [%r1], [%rd3], 8;"}) {
    Expected<Translation> translation = translate_text(kernel_text(body), host_options());
    ASSERT_FALSE(translation.has_value()) << body;
    EXPECT_NE(translation.error().message.find("cp-size"), std::string::npos)
        << translation.error().message;
  }
}

std::vector<TranslateOptions> targets()
{
  return {host_options(), amdgpu_options("gfx1100"), amdgpu_options("gfx1201")};
}

std::string target_name(const TranslateOptions& options)
{
  return options.kind == TargetKind::host ? "host" : options.processor;
}

TEST(TranslateNewForms, ImplementedFormsTranslate)
{
  for (const char* body : k_accepted) {
    for (const TranslateOptions& options : targets()) {
      const std::string text = kernel_text(std::string("  .shared .align 16 .b8 sh[64];\n") + body);
      Expected<Translation> translation = translate_text(text, options);
      ASSERT_TRUE(translation.has_value())
          << body << " (" << target_name(options) << "): " << translation.error().message;
      EXPECT_EQ(verify_text(*translation->module), "") << body;
    }
  }
}

TEST(TranslateNewForms, UnimplementedFormsAreUnsupported)
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

// The warp forms make code objects for the RDNA targets (ds_bpermute per lane, one ballot), on
// values each lane loads for itself (one that every lane holds alike needs no move:
// uniform_lane_moves.hpp).
TEST(TranslateNewForms, AmdgpuWarpFormsUseBpermute)
{
  const std::string body = "  mov.u32 %r5, %tid.x;\n  mul.wide.u32 %rd4, %r5, 16;\n"
                           "  add.s64 %rd5, %rd2, %rd4;\n"
                           "  ld.global.v2.u32 {%r2, %r3}, [%rd5];\n"
                           "  ld.global.u64 %rd3, [%rd5+8];\n"
                           "  redux.sync.add.u32 %r1, %r2, %r3;\n"
                           "  match.all.sync.b64 %r4|%p1, %rd3, %r3;\n"
                           "  st.global.v2.u32 [%rd1], {%r1, %r4};\n";
  for (const char* target : {"gfx1100", "gfx1201"}) {
    std::string listing = amdgpu_disassembly(kernel_text(body), target);
    EXPECT_GE(occurrences(listing, "ds_bpermute_b32"), 3) << target;
  }
}

TEST(TranslateNewForms, AmdgpuNanosleepSleeps)
{
  std::string listing = amdgpu_disassembly(
      kernel_text("  ld.global.u32 %r1, [%rd2];\n  nanosleep.u32 %r1;\n"), "gfx1201");
  EXPECT_EQ(occurrences(listing, "s_sleep 1"), 1);
}

// cvt.f64.f32 and cvt.rn.f32.f64 are the hardware's conversions with PTX's NaN bits selected
// beside them (the goldens cvt_f64_random, cvt_f32_* check the bits on the host), not the
// support library's branching software conversion.
TEST(TranslateNewForms, AmdgpuFloatWidthConversionsAreTheHardwares)
{
  const std::string body = "  ld.global.f32 %f1, [%rd2];\n  ld.global.f64 %fd1, [%rd2+8];\n"
                           "  cvt.f64.f32 %fd2, %f1;\n  cvt.rn.f32.f64 %f2, %fd1;\n"
                           "  st.global.f64 [%rd1], %fd2;\n  st.global.f32 [%rd1+8], %f2;\n";
  for (const char* target : {"gfx1100", "gfx1201"}) {
    std::string listing = amdgpu_disassembly(kernel_text(body), target);
    EXPECT_EQ(occurrences(listing, "v_cvt_f64_f32"), 1) << target << "\n" << listing;
    EXPECT_EQ(occurrences(listing, "v_cvt_f32_f64"), 1) << target << "\n" << listing;
    EXPECT_EQ(occurrences(listing, "s_cbranch"), 0) << target << "\n" << listing;
  }
}

// The checked-in ISA kernels (tests/ptx/isa/*.cu compiled by nvcc) translate, verify and make
// code objects for gfx1100 and gfx1201, and translate for the host.
TEST(TranslateNewForms, IsaKernelsMakeCodeObjects)
{
  for (const char* name : {"redux_match", "int_pack", "video", "async_ldmatrix"}) {
    std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/ptx/isa/" + name + ".sm_90.ptx");
    ASSERT_TRUE(file) << name;
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    Expected<Translation> host = translate_text(text, host_options());
    EXPECT_TRUE(host.has_value()) << name << ": " << (host ? "" : host.error().message);
    for (const char* target : {"gfx1100", "gfx1201"}) {
      Expected<Translation> translation = translate_text(text, amdgpu_options(target));
      ASSERT_TRUE(translation.has_value())
          << name << " " << target << ": " << translation.error().message;
      EXPECT_EQ(verify_text(*translation->module), "") << name;
      Expected<std::vector<std::byte>> object = code_object(*translation, target);
      ASSERT_TRUE(object.has_value()) << name << " " << target << ": " << object.error().message;
      EXPECT_GT(object->size(), 1000U) << name << " " << target;
    }
  }
}

// --- On the CPU executor ----------------------------------------------------------------------

// Each lane of a 64-thread block reads in[tid]; lanes 0-9 of each warp use the member mask
// 0x3ff, lanes 10-31 the mask 0xfffffc00 without lanes 20 and 21, which exit first. Each lane
// writes redux add/min.s32/max.u32/xor, match.any and match.all with its predicate.
const std::string k_warp_partial = "  mov.u32 %r1, %tid.x;\n"
                                   "  and.b32 %r2, %r1, 31;\n"
                                   "  mul.wide.u32 %rd3, %r1, 4;\n"
                                   "  add.s64 %rd4, %rd2, %rd3;\n"
                                   "  ld.global.u32 %r3, [%rd4];\n"
                                   "  setp.eq.u32 %p1, %r2, 20;\n"
                                   "  setp.eq.u32 %p2, %r2, 21;\n"
                                   "  or.pred %p1, %p1, %p2;\n"
                                   "  @%p1 bra DONE;\n"
                                   "  setp.lt.u32 %p2, %r2, 10;\n"
                                   "  selp.u32 %r4, 0x3ff, 0xfffffc00, %p2;\n"
                                   "  redux.sync.add.u32 %r5, %r3, %r4;\n"
                                   "  redux.sync.min.s32 %r6, %r3, %r4;\n"
                                   "  redux.sync.max.u32 %r7, %r3, %r4;\n"
                                   "  redux.sync.xor.b32 %r8, %r3, %r4;\n"
                                   "  shr.u32 %r9, %r3, 30;\n"
                                   "  match.any.sync.b32 %r10, %r9, %r4;\n"
                                   "  match.all.sync.b32 %r11|%p3, %r9, %r4;\n"
                                   "  selp.u32 %r12, 1, 0, %p3;\n"
                                   "  mul.wide.u32 %rd5, %r1, 32;\n"
                                   "  add.s64 %rd6, %rd1, %rd5;\n"
                                   "  st.global.v4.u32 [%rd6], {%r5, %r6, %r7, %r8};\n"
                                   "  st.global.v4.u32 [%rd6+16], {%r10, %r11, %r12, %r4};\n"
                                   "DONE:\n";

TEST(TranslateNewForms, HostWarpFormsWithPartialMasks)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(k_warp_partial));
  ASSERT_TRUE(executor);
  std::vector<uint32_t> in(64);
  for (uint32_t i = 0; i < 64; ++i) {
    // Top two bits: lanes 0-9 of warp 1 all 1 (match.all holds there), elsewhere mixed.
    const uint32_t top = i >= 32 && i % 32 < 10 ? 1U : (i * 7) % 3;
    in[i] = top << 30 | (i * 2654435761U) >> 4;
  }
  in[3] = 0x80000000U; // the most negative s32
  std::vector<uint32_t> out(64 * 8, 0xdeadbeefU);
  Expected<cpu::LaunchStats> r = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {64, 1, 1}, 0},
                                                  pointer_params(out.data(), in.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t t = 0; t < 64; ++t) {
    const uint32_t lane = t % 32;
    const uint32_t* o = &out[t * 8];
    if (lane == 20 || lane == 21) {
      EXPECT_EQ(o[0], 0xdeadbeefU);
      continue;
    }
    // The ISA: over the non-exited threads of the member mask.
    const uint32_t mask = lane < 10 ? 0x3ffU : 0xfffffc00U;
    const uint32_t present = mask & ~(3U << 20);
    uint32_t sum = 0;
    int32_t smallest = INT32_MAX;
    uint32_t largest = 0;
    uint32_t parity = 0;
    uint32_t same = 0;
    for (uint32_t u = 0; u < 32; ++u) {
      if ((present >> u & 1U) == 0) {
        continue;
      }
      const uint32_t v = in[t - lane + u];
      sum += v;
      smallest = std::min(smallest, static_cast<int32_t>(v));
      largest = std::max(largest, v);
      parity ^= v;
      same |= (v >> 30) == (in[t] >> 30) ? 1U << u : 0;
    }
    EXPECT_EQ(o[0], sum) << "thread " << t;
    EXPECT_EQ(o[1], static_cast<uint32_t>(smallest)) << "thread " << t;
    EXPECT_EQ(o[2], largest) << "thread " << t;
    EXPECT_EQ(o[3], parity) << "thread " << t;
    EXPECT_EQ(o[4], same) << "thread " << t;
    const bool all = same == present;
    EXPECT_EQ(o[5], all ? present : 0U) << "thread " << t;
    EXPECT_EQ(o[6], all ? 1U : 0U) << "thread " << t;
  }
  EXPECT_EQ(out[(32 + 2) * 8 + 6], 1U); // warp 1, lanes 0-9: all top bits 1
}

// Runs kernel_text(body) in one thread; returns `words` 32-bit words of the output buffer.
std::vector<uint32_t> run_one(const std::string& body, size_t words)
{
  std::vector<uint32_t> out(words, 0xdeadbeefU);
  std::vector<uint32_t> in(4, 0);
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  if (!executor) {
    return out;
  }
  Expected<cpu::LaunchStats> r = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0},
                                                  pointer_params(out.data(), in.data()));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return out;
}

// ldmatrix .x4 and .x4.trans on a 32-row table of b16 (element (r, c) = 0x100 r + c) in shared
// memory, lane l pointing at row (5 l + 3) mod 32, against the ISA's fragment layout: lane t's
// d[j] holds row t/4 of matrix j, columns 2(t%4) and 2(t%4)+1; .trans: column t/4, rows 2(t%4)
// and 2(t%4)+1. A cp.async with src-size 5 brings the table's first word in, zero-filled.
const std::string k_ldmatrix =
    "  .shared .align 16 .b8 rows[512];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 16;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];\n"
    "  mov.u32 %r6, rows;\n"
    "  shl.b32 %r7, %r1, 4;\n"
    "  add.s32 %r8, %r6, %r7;\n"
    "  st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};\n"
    "  bar.sync 0;\n"
    "  mad.lo.u32 %r9, %r1, 5, 3;\n"
    "  and.b32 %r9, %r9, 31;\n"
    "  shl.b32 %r9, %r9, 4;\n"
    "  add.s32 %r10, %r6, %r9;\n"
    "  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r10];\n"
    "  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r11, %r12, %r13, %r14}, [%r10];\n"
    "  mul.wide.u32 %rd5, %r1, 48;\n"
    "  add.s64 %rd6, %rd1, %rd5;\n"
    "  st.global.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};\n"
    "  st.global.v4.u32 [%rd6+16], {%r11, %r12, %r13, %r14};\n"
    "  bar.sync 0;\n"
    "  cp.async.ca.shared.global [%r8], [%rd2], 16, 5;\n"
    "  cp.async.wait_all;\n"
    "  ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r8];\n"
    "  xor.b32 %r2, %r2, %r3;\n  xor.b32 %r2, %r2, %r4;\n  xor.b32 %r2, %r2, %r5;\n"
    "  st.global.u32 [%rd6+32], %r2;\n";

TEST(TranslateNewForms, HostLdmatrixLayoutAndCpAsyncFill)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(k_ldmatrix));
  ASSERT_TRUE(executor);
  std::vector<uint16_t> table(32 * 8);
  for (uint32_t r = 0; r < 32; ++r) {
    for (uint32_t c = 0; c < 8; ++c) {
      table[r * 8 + c] = static_cast<uint16_t>(0x100 * r + c);
    }
  }
  std::vector<uint32_t> out(32 * 12, 0xdeadbeefU);
  Expected<cpu::LaunchStats> r = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {32, 1, 1}, 0},
                                                  pointer_params(out.data(), table.data()));
  ASSERT_TRUE(r) << r.error().message;
  auto element = [&](uint32_t lane_of_row, uint32_t column) -> uint32_t {
    return table[((5 * lane_of_row + 3) % 32) * 8 + column];
  };
  for (uint32_t t = 0; t < 32; ++t) {
    for (uint32_t j = 0; j < 4; ++j) {
      const uint32_t plain =
          element(8 * j + t / 4, 2 * (t % 4)) | element(8 * j + t / 4, 2 * (t % 4) + 1) << 16;
      const uint32_t trans =
          element(8 * j + 2 * (t % 4), t / 4) | element(8 * j + 2 * (t % 4) + 1, t / 4) << 16;
      EXPECT_EQ(out[t * 12 + j], plain) << "lane " << t << " matrix " << j;
      EXPECT_EQ(out[t * 12 + 4 + j], trans) << "lane " << t << " matrix " << j << " .trans";
    }
    // Bytes 0-4 of the table (0x0000, 0x0001, low byte of 0x0002), the rest zero.
    EXPECT_EQ(out[t * 12 + 8], 0x00010000U ^ 0x02U) << "lane " << t;
  }
}

// Values from the ISA's pseudo-code, worked by hand.
TEST(TranslateNewForms, HostBmskAndPackValues)
{
  const std::string body =
      "  bmsk.wrap.b32 %r1, 1, 2;\n"   // the ISA's example: 0x6
      "  bmsk.clamp.b32 %r2, 28, 8;\n" // sum >= 32: bits 28-31
      "  bmsk.clamp.b32 %r3, 32, 1;\n" // position >= 32: 0
      "  bmsk.wrap.b32 %r4, 33, 34;\n" // 1, 2: 0x6
      "  mov.u32 %r5, -200;\n  mov.u32 %r6, 70000;\n  mov.u32 %r7, 0xabcd;\n"
      "  cvt.pack.sat.s16.s32 %r8, %r5, %r6;\n"          // (-200, 32767)
      "  cvt.pack.sat.u16.s32 %r9, %r6, %r5;\n"          // (65535, 0)
      "  cvt.pack.sat.s8.s32.b32 %r10, %r5, %r6, %r7;\n" // 0xabcd << 16 | 0x80 << 8 | 0x7f
      "  cvt.pack.sat.u4.s32.b32 %r11, %r6, %r5, %r7;\n" // 0xabcd << 8 | 0xf0
      "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
      "  st.global.v4.u32 [%rd1+16], {%r8, %r9, %r10, %r11};\n";
  EXPECT_EQ(run_one(body, 8), (std::vector<uint32_t>{0x6, 0xf0000000U, 0, 0x6, 0xff387fffU,
                                                     0xffff0000U, 0xabcd807fU, 0xabcdf0}));
}

TEST(TranslateNewForms, HostVideoValues)
{
  const std::string body =
      "  mov.u32 %r1, 0x80ff7f01;\n  mov.u32 %r2, 0x00020003;\n  mov.u32 %r3, 0x11223344;\n"
      // b3 of %r1 is 0x80: -128 signed; + 3 (h0 of %r2) = -125; .sat to s32.
      "  vadd.s32.s32.u32.sat %r4, %r1.b3, %r2.h0;\n"
      // unsigned 0x80 - 0x7f01 (h0 of %r1 as u32... b3 0x80 = 128, h0 0x7f01 = 32513), .sat u32: 0
      "  vsub.u32.u32.u32.sat %r5, %r1.b3, %r1.h0;\n"
      // merge: |0xff - 0x01| = 254 into byte 1 of c
      "  vabsdiff.u32.u32.u32 %r6.b1, %r1.b2, %r1.b0, %r3;\n"
      // vmax.s32 then .min with c = 0x11223344: max(-1, 1) = 1
      "  vmax.s32.s32.s32.min %r7, %r1.b2, %r1.b0, %r3;\n"
      // vshl clamp 40 -> 32: 1 << 32 saturated to u32 max
      "  mov.u32 %r8, 40;\n"
      "  vshl.u32.u32.u32.sat.clamp %r9, %r1.b0, %r8;\n"
      // vset lt signed bytes: -128 < 1 -> 1, then .add c
      "  vset.s32.s32.lt.add %r10, %r1.b3, %r1.b0, %r3;\n"
      // vadd2 on halves: (0x7f01 + 0x0003, 0x80ff + 0x0002) as u16 with .sat: (0x7f04, 0x8101)
      "  vadd2.u32.u32.u32.sat %r11, %r1, %r2, %r3;\n"
      // vavrg4 unsigned: bytes (01,7f,ff,80) with (03,00,02,00): (2, 0x40, 0x81, 0x40)
      "  vavrg4.u32.u32.u32 %r12, %r1, %r2, %r3;\n"
      "  st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};\n"
      "  st.global.v4.u32 [%rd1+16], {%r9, %r10, %r11, %r12};\n";
  EXPECT_EQ(run_one(body, 8), (std::vector<uint32_t>{0xffffff83U, 0, 0x1122fe44U, 1, 0xffffffffU,
                                                     0x11223345U, 0x81017f04U, 0x40814002U}));
}

// Forms of tests/ptx/isa/video_extra.cu whose H200 results depart from the ISA pseudo-code or
// that no golden case covers (the .h1 merge without .sat, vset's .min/.max on unsigned and mixed
// types, .sat on unsigned words and on merges): the values an NVIDIA H200 wrote for 24 of its
// inputs (video_extra recorded by tools/golden/record.sh; not a golden case, because the same
// kernel's vmad forms do not translate). One thread per input row, 18 results each.
const std::string k_video_h200 = "  mov.u32 %r5, %tid.x;\n"
                                 "  mul.wide.u32 %rd3, %r5, 12;\n"
                                 "  add.s64 %rd4, %rd2, %rd3;\n"
                                 "  ld.global.u32 %r1, [%rd4];\n"
                                 "  ld.global.u32 %r2, [%rd4+4];\n"
                                 "  ld.global.u32 %r3, [%rd4+8];\n"
                                 "  mul.wide.u32 %rd5, %r5, 72;\n"
                                 "  add.s64 %rd6, %rd1, %rd5;\n"
                                 "  vadd.u32.u32.u32 %r4.h1, %r1, %r2, %r3;\n"
                                 "  vsub.s32.s32.s32 %r4.h1, %r1.b0, %r2, %r3;\n"
                                 "  vmax.u32.s32.u32 %r4.h1, %r1.h0, %r2.h1, %r3;\n"
                                 "  vset.u32.u32.lt %r4.h1, %r1, %r2, %r3;\n"
                                 "  vset.u32.u32.lt.max %r4, %r1, %r2, %r3;\n"
                                 "  vset.u32.u32.gt.min %r4, %r1.b0, %r2.b1, %r3;\n"
                                 "  vset.s32.u32.ge.max %r4, %r1, %r2, %r3;\n"
                                 "  vset.u32.s32.ne.min %r4, %r1, %r2, %r3;\n"
                                 "  vsub.u32.u32.s32.sat %r4, %r1, %r2;\n"
                                 "  vadd.u32.s32.u32.sat %r4, %r1, %r2;\n"
                                 "  vabsdiff.u32.s32.s32.sat %r4, %r1, %r2;\n"
                                 "  vsub.u32.s32.u32.sat %r4, %r1, %r2;\n"
                                 "  vadd.s32.s32.s32.sat %r4.h0, %r1, %r2, %r3;\n"
                                 "  vsub.s32.u32.u32.sat %r4.b2, %r1, %r2, %r3;\n"
                                 "  vadd.u32.s32.s32.sat %r4.h0, %r1, %r2, %r3;\n"
                                 "  vshr.s32.s32.u32.sat.clamp %r4.b1, %r1, %r2.b0, %r3;\n"
                                 "  vshl.u32.u32.u32.sat.wrap %r4.h0, %r1, %r2, %r3;\n"
                                 "  vshl.s32.u32.u32.sat.clamp %r4, %r1, %r2.b0;\n";

struct H200Row {
  uint32_t in[3];
  uint32_t out[18];
};

const H200Row k_video_h200_rows[] = {
    {{0x00000000U, 0x80ff7f01U, 0x00000000U},
     {0x80ff0000U, 0x7f000000U, 0x00000000U, 0x00000000U, 0x00000001U, 0x00000000U, 0x00000000U,
      0x00000000U, 0x7f0080ffU, 0x80ff7f01U, 0x7f0080ffU, 0x00000000U, 0x00007fffU, 0x007f0000U,
      0x0000ffffU, 0x00000000U, 0x00000000U, 0x00000000U}},
    {{0x01010101U, 0x7f80ff00U, 0x00000000U},
     {0x80820000U, 0x807f0000U, 0x00000000U, 0x00000000U, 0x00000001U, 0x00000000U, 0x00000000U,
      0x00000000U, 0x00000000U, 0x80820001U, 0x7e7ffdffU, 0x00000000U, 0x00007fffU, 0x007f0000U,
      0x0000ffffU, 0x00000100U, 0x00000101U, 0x01010101U}},
    {{0x80808080U, 0xffffffffU, 0x00000001U},
     {0x80800001U, 0xffff0001U, 0x00000001U, 0x00000001U, 0x00000001U, 0x00000000U, 0x00000001U,
      0x00000001U, 0x80808081U, 0x8080807fU, 0x7f7f7f7fU, 0x00000000U, 0x00007fffU, 0x007f0001U,
      0x0000ffffU, 0x0000ff01U, 0x00000000U, 0x00000000U}},
    {{0xff00ff00U, 0x80000000U, 0x00000001U},
     {0x7f000001U, 0x80000001U, 0x00000001U, 0x00000001U, 0x00000001U, 0x00000000U, 0x00000001U,
      0x00000001U, 0x7f00ff00U, 0x7f00ff00U, 0x7f00ff00U, 0x00000000U, 0x00007fffU, 0x007f0001U,
      0x0000ffffU, 0x00000001U, 0x0000ff00U, 0x7fffffffU}},
    {{0x00ff00ffU, 0x7fffffffU, 0x7fffffffU},
     {0x80ffffffU, 0x8000ffffU, 0x0000ffffU, 0x0000ffffU, 0x7fffffffU, 0x00000000U, 0x7fffffffU,
      0x00000001U, 0x00000000U, 0x80ff00feU, 0x7f00ff00U, 0x00000000U, 0x7fff7fffU, 0x7f7fffffU,
      0x7fffffffU, 0x7fff00ffU, 0x7fff0000U, 0x80000000U}},
    {{0x7fff8000U, 0x00000000U, 0x7fffffffU},
     {0x7fffffffU, 0x0000ffffU, 0x0000ffffU, 0x0000ffffU, 0x7fffffffU, 0x00000000U, 0x7fffffffU,
      0x00000001U, 0x7fff8000U, 0x7fff8000U, 0x7fff8000U, 0x7fff8000U, 0x7fff7fffU, 0x7f7fffffU,
      0x7fffffffU, 0x7fff00ffU, 0x7fff8000U, 0x7fff8000U}},
    {{0x8000ffffU, 0x01010101U, 0x80000000U},
     {0x81020000U, 0xfefe0000U, 0x00000000U, 0x00000000U, 0x80000000U, 0x00000001U, 0x00000000U,
      0x00000001U, 0x7efffefeU, 0x00000000U, 0x81000102U, 0x00000000U, 0x80007fffU, 0x807f0000U,
      0x8000ffffU, 0x8000ff00U, 0x8000ffffU, 0x7fffffffU}},
    {{0x0000001fU, 0x80808080U, 0x80000000U},
     {0x80800000U, 0x7f7f0000U, 0x00000000U, 0x00000000U, 0x80000000U, 0x00000000U, 0x00000000U,
      0x00000001U, 0x7f7f7f9fU, 0x8080809fU, 0x7f7f7f9fU, 0x00000000U, 0x80007fffU, 0x807f0000U,
      0x8000ffffU, 0x80000000U, 0x8000001fU, 0x80000000U}},
    {{0x00000020U, 0xff00ff00U, 0xffffffffU},
     {0xff00ffffU, 0x00ffffffU, 0x0000ffffU, 0x0000ffffU, 0xffffffffU, 0x00000000U, 0x00000000U,
      0x00000001U, 0x00ff0120U, 0xff00ff20U, 0x00ff0120U, 0x00000000U, 0xffff7fffU, 0xff7fffffU,
      0xffffffffU, 0xffff20ffU, 0xffff0020U, 0x00000020U}},
    {{0x00000021U, 0x00ff00ffU, 0xffffffffU},
     {0x00ffffffU, 0xff00ffffU, 0x0000ffffU, 0x0000ffffU, 0xffffffffU, 0x00000001U, 0x00000000U,
      0x00000001U, 0x00000000U, 0x00ff0120U, 0x00ff00deU, 0x00000000U, 0xffff7fffU, 0xff7fffffU,
      0xffffffffU, 0xffff00ffU, 0xffff0000U, 0x7fffffffU}},
    {{0x12345678U, 0x7fff8000U, 0x00008000U},
     {0x92338000U, 0x80008000U, 0x00008000U, 0x00008000U, 0x00008000U, 0x00000000U, 0x00008000U,
      0x00000001U, 0x00000000U, 0x9233d678U, 0x6dcb2988U, 0x00000000U, 0x00007fffU, 0x007f8000U,
      0x0000ffffU, 0x00007800U, 0x00005678U, 0x12345678U}},
    {{0x80ff7f01U, 0x0000001fU, 0xffff8000U},
     {0x80ff8000U, 0xffff8000U, 0x00008000U, 0x00008000U, 0xffff8000U, 0x00000001U, 0x00000000U,
      0x00000001U, 0x80ff7ee2U, 0x00000000U, 0x7f00811eU, 0x00000000U, 0xffff7fffU, 0xff7f8000U,
      0xffffffffU, 0xffffff00U, 0xffff0000U, 0x7fffffffU}},
    {{0x7f80ff00U, 0x00000020U, 0xffff8000U},
     {0x7f808000U, 0xffff8000U, 0x00008000U, 0x00008000U, 0xffff8000U, 0x00000000U, 0x00000001U,
      0x00000001U, 0x7f80fee0U, 0x7f80ff20U, 0x7f80fee0U, 0x7f80fee0U, 0xffff7fffU, 0xff7f8000U,
      0xffffffffU, 0xffff0000U, 0xffffff00U, 0x00000000U}},
    {{0xffffffffU, 0x00000021U, 0x12345678U},
     {0x00005678U, 0xffff5678U, 0x00005678U, 0x00005678U, 0x12345678U, 0x00000001U, 0x12345678U,
      0x00000001U, 0xffffffdeU, 0x00000020U, 0x00000022U, 0x00000000U, 0x12340020U, 0x127f5678U,
      0x12340020U, 0x1234ff78U, 0x1234ffffU, 0x80000000U}},
    {{0x80000000U, 0x12345678U, 0x12345678U},
     {0x92345678U, 0xedcb5678U, 0x00005678U, 0x00005678U, 0x12345678U, 0x00000000U, 0x12345678U,
      0x00000001U, 0x6dcba988U, 0x00000000U, 0x92345678U, 0x00000000U, 0x12347fffU, 0x127f5678U,
      0x1234ffffU, 0x1234ff78U, 0x12340000U, 0x00000000U}},
    {{0x7fffffffU, 0x80ff7f01U, 0x00000000U},
     {0x00ff0000U, 0x7f000000U, 0x00000000U, 0x00000000U, 0x00000001U, 0x00000000U, 0x00000000U,
      0x00000000U, 0xff0080feU, 0x00ff7f00U, 0xff0080feU, 0x00000000U, 0x00007fffU, 0x007f0000U,
      0x0000ffffU, 0x0000ff00U, 0x0000fffeU, 0x7fffffffU}},
    {{0x8166f2c9U, 0xe6648cebU, 0xacc52347U},
     {0x67cb2347U, 0x199b2347U, 0x00002347U, 0x00002347U, 0xacc52347U, 0x00000001U, 0x00000000U,
      0x00000001U, 0x9b0265deU, 0x67cb7fb4U, 0x64fd9a22U, 0x00000000U, 0xacc57fffU, 0xac7f2347U,
      0xacc5ffffU, 0xacc5ff47U, 0xacc50000U, 0x7fffffffU}},
    {{0x76f0e00eU, 0xf5581c48U, 0xdb048a66U},
     {0x6c488a66U, 0x0aa78a66U, 0x00008a66U, 0x00008a66U, 0xdb048a66U, 0x00000000U, 0x00000000U,
      0x00000001U, 0x8198c3c6U, 0x6c48fc56U, 0x8198c3c6U, 0x00000000U, 0xdb047fffU, 0xdb7f8a66U,
      0xdb04ffffU, 0xdb040066U, 0xdb040000U, 0x80000000U}},
    {{0x8f22d358U, 0xe4e59d8bU, 0xa0b6d394U},
     {0x7408d394U, 0x1b1ad394U, 0x0000d394U, 0x0000d394U, 0xa0b6d394U, 0x00000000U, 0x00000000U,
      0x00000001U, 0xaa3d35cdU, 0x740870e3U, 0x55c2ca33U, 0x00000000U, 0xa0b67fffU, 0xa07fd394U,
      0xa0b6ffffU, 0xa0b6ff94U, 0xa0b6ffffU, 0x00000000U}},
    {{0x8eb7826fU, 0xbbae71abU, 0x500c24e7U},
     {0x4a6524e7U, 0x445124e7U, 0x000024e7U, 0x000024e7U, 0x500c24e7U, 0x00000000U, 0x500c24e7U,
      0x00000001U, 0xd30910c4U, 0x4a65f41aU, 0x2cf6ef3cU, 0x00000000U, 0x500c7fffU, 0x507f24e7U,
      0x500cffffU, 0x500cffe7U, 0x500cffffU, 0x80000000U}},
    {{0xc6f1174aU, 0x04ecf24fU, 0x9102f879U},
     {0xcbdef879U, 0xfb13f879U, 0x0000f879U, 0x0000f879U, 0x9102f879U, 0x00000000U, 0x00000000U,
      0x00000001U, 0xc20424fbU, 0x00000000U, 0x3dfbdb05U, 0x00000000U, 0x91027fffU, 0x917ff879U,
      0x9102ffffU, 0x9102ff79U, 0x91020000U, 0x80000000U}},
    {{0xdbf165c6U, 0xe124cb0eU, 0x219381bcU},
     {0xbd1681bcU, 0x1edb81bcU, 0x000081bcU, 0x000081bcU, 0x219381bcU, 0x00000000U, 0x219381bcU,
      0x00000001U, 0xfacc9ab8U, 0xbd1630d4U, 0x05336548U, 0x00000000U, 0x21937fffU, 0x217f81bcU,
      0x2193ffffU, 0x2193c5bcU, 0x21938000U, 0x59718000U}},
    {{0x23a9d6e9U, 0x09e4d9a5U, 0x18eb1db0U},
     {0x2d8e1db0U, 0xf61b1db0U, 0x00001db0U, 0x00001db0U, 0x18eb1db0U, 0x00000001U, 0x18eb1db0U,
      0x00000001U, 0x19c4fd44U, 0x2d8eb08eU, 0x19c4fd44U, 0x19c4fd44U, 0x18eb7fffU, 0x187f1db0U,
      0x18ebffffU, 0x18eb00b0U, 0x18ebdd20U, 0x7fffffffU}},
    {{0x6c6901ebU, 0xbdebfb7fU, 0x0f8e5037U},
     {0x2a545037U, 0x42145037U, 0x00005037U, 0x00005037U, 0x0f8e5037U, 0x00000000U, 0x0f8e5037U,
      0x00000001U, 0xae7d066cU, 0x2a54fd6aU, 0xae7d066cU, 0x00000000U, 0x0f8e7fffU, 0x0f7f5037U,
      0x0f8effffU, 0x0f8e0037U, 0x0f8effffU, 0x80000000U}},
};

TEST(TranslateNewForms, HostVideoH200Values)
{
  // Each form writes %r4; a store follows each (the form list above, in order).
  std::string body = k_video_h200;
  std::string text;
  int index = 0;
  size_t at = 0;
  const size_t first = body.find("  v", body.find("%rd6, %rd1"));
  text = body.substr(0, first);
  for (at = first; at < body.size();) {
    const size_t end = body.find('\n', at);
    text += body.substr(at, end - at + 1);
    text += "  st.global.u32 [%rd6+" + std::to_string(4 * index++) + "], %r4;\n";
    at = end + 1;
  }
  ASSERT_EQ(index, 18);
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(text));
  ASSERT_TRUE(executor);
  const size_t rows = std::size(k_video_h200_rows);
  std::vector<uint32_t> in;
  for (const H200Row& row : k_video_h200_rows) {
    in.insert(in.end(), std::begin(row.in), std::end(row.in));
  }
  std::vector<uint32_t> out(rows * 18, 0xdeadbeefU);
  Expected<cpu::LaunchStats> r =
      executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {static_cast<uint32_t>(rows), 1, 1}, 0},
                       pointer_params(out.data(), in.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (size_t t = 0; t < rows; ++t) {
    for (size_t k = 0; k < 18; ++k) {
      EXPECT_EQ(out[t * 18 + k], k_video_h200_rows[t].out[k])
          << "row " << t << " form " << k << std::hex << " a " << k_video_h200_rows[t].in[0]
          << " b " << k_video_h200_rows[t].in[1] << " c " << k_video_h200_rows[t].in[2];
    }
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
