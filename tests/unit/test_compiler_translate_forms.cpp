// Instruction forms against their lowerings' modifier lists (lowering_support.hpp known_modifiers):
// every form a lowering implements translates for the host and for gfx1201, and every form with a
// modifier or type it does not implement is "unsupported: SPELLING at line L" on both, never a
// kernel that silently drops the modifier (as atom.add.noftz.f16x2 once became an integer add).
// The forms this audit implemented (.relu on min/max.s32, fma.relu.f16/.f16x2, cvt.relu and
// .satfinite to f16/bf16, set with an f16/bf16 destination, rsqrt.approx.ftz.f64, .shared::cta)
// run on the CPU executor against values worked out from the PTX ISA text.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

// A form that must translate: one instruction (or a few lines) in kernel_text's body.
const char* const k_accepted[] = {
    // Integer arithmetic.
    "  max.relu.s32 %r1, %r2, %r3;",
    "  min.relu.s32 %r1, %r2, %r3;",
    "  add.sat.s32 %r1, %r2, %r3;",
    "  mul.wide.s16 %r1, %rs1, %rs2;",
    "  mad.wide.u32 %rd3, %r1, %r2, %rd4;",
    "  mad.hi.s32 %r1, %r2, %r3, %r4;",
    "  popc.b64 %r1, %rd3;",
    "  clz.b64 %r1, %rd3;",
    "  brev.b64 %rd3, %rd4;",
    "  bfe.s64 %rd3, %rd4, %r1, %r2;",
    "  bfi.b64 %rd3, %rd4, %rd5, %r1, %r2;",
    "  bfind.shiftamt.s64 %r1, %rd3;",
    "  shl.b64 %rd3, %rd4, %r1;",
    "  shr.s16 %rs1, %rs2, %r1;",
    "  sad.u64 %rd3, %rd4, %rd5, %rd6;",
    "  prmt.b32.rc16 %r1, %r2, %r3, %r4;",
    "  prmt.b32 %r1, %r2, %r3, %r4;",
    "  lop3.b32 %r1, %r2, %r3, %r4, 0x96;",
    "  shf.r.clamp.b32 %r1, %r2, %r3, %r4;",
    "  shf.l.wrap.b32 %r1, %r2, %r3, %r4;",
    "  mul24.hi.s32 %r1, %r2, %r3;",
    "  dp2a.hi.s32.u32 %r1, %r2, %r3, %r4;",
    "  addc.cc.u64 %rd3, %rd4, %rd5;",
    "  and.pred %p1, %p2, %p3;",
    // Float arithmetic.
    "  fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs4;",
    "  fma.rn.ftz.relu.f16x2 %r1, %r2, %r3, %r4;",
    "  fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;",
    "  fma.rn.sat.f16 %rs1, %rs2, %rs3, %rs4;",
    "  add.rz.ftz.sat.f32 %f1, %f2, %f3;",
    "  mul.rp.f64 %fd1, %fd2, %fd3;",
    "  div.full.ftz.f32 %f1, %f2, %f3;",
    "  div.approx.f32 %f1, %f2, %f3;",
    "  div.rm.f64 %fd1, %fd2, %fd3;",
    "  rcp.approx.ftz.f64 %fd1, %fd2;",
    "  rsqrt.approx.ftz.f64 %fd1, %fd2;",
    "  sqrt.rn.ftz.f32 %f1, %f2;",
    "  ex2.approx.ftz.f32 %f1, %f2;",
    "  tanh.approx.f32 %f1, %f2;",
    "  min.NaN.ftz.f32 %f1, %f2, %f3;",
    "  max.f64 %fd1, %fd2, %fd3;",
    "  abs.ftz.f32 %f1, %f2;",
    "  neg.f64 %fd1, %fd2;",
    "  copysign.f64 %fd1, %fd2, %fd3;",
    "  testp.subnormal.f64 %p1, %fd1;",
    "  abs.f16 %rs1, %rs2;",
    "  neg.ftz.f16 %rs1, %rs2;",
    "  abs.bf16 %rs1, %rs2;",
    "  abs.ftz.f16x2 %r1, %r2;",
    "  neg.bf16x2 %r1, %r2;",
    // Negated predicate sources (issue 11), with %-names and inline-asm names.
    "  setp.lt.and.u32 %p1|%p2, %r1, %r2, !%p3;",
    "  { .reg .pred q; setp.ne.u32 q, %r1, 0; selp.u32 %r2, 1, 0, !q; and.pred %p1, !q, %p2; }",
    "  vote.sync.any.pred %p1, !%p2, -1;",
    "  mov.pred %p1, !%p2;",
    // Compare and select.
    "  setp.ltu.and.ftz.f32 %p1, %f1, %f2, %p2;",
    "  setp.ne.xor.u64 %p1|%p2, %rd3, %rd4, %p3;",
    "  setp.lt.f16 %p1, %rs1, %rs2;",
    "  set.gt.u32.f32 %r1, %f1, %f2;",
    "  set.lt.f16.f16 %rs1, %rs2, %rs3;",
    "  selp.f16x2 %r1, %r2, %r3, %p1;",
    "  slct.ftz.f32.f32 %f1, %f2, %f3, %f4;",
    // Conversions and moves.
    "  cvt.rn.relu.f16.f32 %rs1, %f1;",
    "  cvt.rn.satfinite.bf16.f32 %rs1, %f1;",
    "  cvt.rn.relu.satfinite.f16x2.f32 %r1, %f1, %f2;",
    "  cvt.rzi.ftz.sat.s32.f32 %r1, %f1;",
    "  cvt.rni.f64.f64 %fd1, %fd2;",
    "  cvt.sat.u8.s32 %r1, %r2;",
    "  cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;",
    "  mov.b64 {%r1, %r2}, %rd3;",
    "  mov.u32 %r1, %tid.x;",
    "  cvta.to.shared::cta.u64 %rd3, %rd4;",
    // Memory.
    "  ld.global.nc.L1::no_allocate.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];",
    "  ld.global.cg.L2::128B.u32 %r1, [%rd2];",
    "  ld.relaxed.gpu.global.u32 %r1, [%rd2];",
    "  ld.acquire.sys.global.u64 %rd3, [%rd2];",
    "  ld.volatile.shared::cta.u32 %r1, [%r2];",
    "  ld.param::entry.u64 %rd3, [in];",
    "  st.release.cta.global.u32 [%rd1], %r1;",
    "  st.shared::cta.v2.u32 [%r3], {%r1, %r2};",
    "  st.global.wt.L1::evict_last.b16 [%rd1], %rs1;",
    "  atom.acq_rel.sys.global.cas.b32 %r1, [%rd1], %r2, %r3;",
    "  atom.relaxed.cluster.global.add.u64 %rd3, [%rd1], %rd4;",
    "  atom.shared::cta.add.u32 %r1, [%r2], 1;",
    "  atom.global.cas.b16 %rs1, [%rd1], %rs2, %rs3;",
    "  atom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd3;",
    "  atom.global.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};",
    "  atom.global.max.noftz.v2.bf16x2 {%r1, %r2}, [%rd1], {%r3, %r4};",
    "  red.shared::cluster.add.u32 [%r2], %r1;", // the own CTA: clusters of one CTA
    "  red.release.gpu.global.add.f32 [%rd1], %f1;",
    "  red.global.add.noftz.bf16x2 [%rd1], %r1;",
    "  fence.acq_rel.sys;",
    "  fence.sc.cta;",
    "  membar.gl;",
    "  prefetch.global.L2::evict_last [%rd2];",
    // Warp and control.
    "  shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;",
    "  shfl.idx.b32 %r1, %r2, 1, 31;", // sm_6x: the converged lanes
    "  vote.sync.uni.pred %p1, %p2, -1;",
    "  vote.sync.ballot.b32 %r1, %p2, -1;",
    "  activemask.b32 %r1;",
    "  bra.uni DONE;\nDONE:",
};

// Forms whose first token is a spelling the lowering does not implement: each must be
// "unsupported: <that token> at line 14" (kernel_text's first body line).
const char* const k_rejected[] = {
    // Integer arithmetic: .relu/.sat where the form has no such thing, packed integers, a second
    // type, rounding modes on integers.
    "  min.relu.u32 %r1, %r2, %r3;",
    "  max.relu.u16x2 %r1, %r2, %r3;",
    "  sub.u16x2 %r1, %r2, %r3;",
    "  add.sat.s16x2 %r1, %r2, %r3;",
    "  add.rn.s32 %r1, %r2, %r3;",
    "  sub.sat.u32 %r1, %r2, %r3;",
    "  div.sat.s32 %r1, %r2, %r3;",
    "  mul.wide.u64 %rd3, %rd4, %rd5;",
    "  mul.lo.hi.u32 %r1, %r2, %r3;",
    "  mad.lo.sat.s32 %r1, %r2, %r3, %r4;",
    "  add.u32.u16 %r1, %r2, %r3;",
    "  popc.b128 %r1, %rd3;",
    "  bfe.b32 %r1, %r2, %r3, %r4;",
    "  bfi.u32 %r1, %r2, %r3, %r4, %r5;",
    // .ftz where ptxas has none: an f64 or bf16 .ftz would otherwise be dropped.
    "  abs.ftz.f64 %fd1, %fd2;",
    "  neg.ftz.bf16 %rs1, %rs2;",
    "  abs.ftz.bf16x2 %r1, %r2;",
    "  min.ftz.f64 %fd1, %fd2, %fd3;",
    "  rcp.rn.ftz.f64 %fd1, %fd2;",
    "  bfind.b32 %r1, %r2;",
    "  sad.f32 %f1, %f2, %f3, %f4;",
    "  shl.f32 %f1, %f2, %r1;",
    "  prmt.b32.f4e.b4e %r1, %r2, %r3, %r4;",
    "  lop3.xor.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;",
    "  shf.l.b32 %r1, %r2, %r3, %r4;",
    "  shf.l.wrap.b64 %rd3, %rd4, %rd5, %r1;",
    "  dp4a.u32.u32.u32 %r1, %r2, %r3, %r4;",
    "  mad24.lo.ftz.u32 %r1, %r2, %r3, %r4;",
    "  addc.cc.rn.u32 %r1, %r2, %r3;",
    // Float arithmetic: mixed precision, .relu on f32, .oob, .rna, 16-bit and f64 forms of f32-only
    // functions, f64 forms of f32-only modifiers.
    "  add.f32.f16 %f1, %rs1, %f2;",
    "  fma.rn.f32.bf16 %f1, %rs1, %rs2, %f2;",
    "  fma.rn.relu.f32 %f1, %f2, %f3, %f4;",
    "  fma.rn.sat.relu.f16 %rs1, %rs2, %rs3, %rs4;",
    "  add.rn.relu.f16 %rs1, %rs2, %rs3;",
    "  fma.rn.oob.f32 %f1, %f2, %f3, %f4;",
    "  fma.rn.oob.ftz.f16x2 %r1, %r2, %r3, %r4;",
    "  add.rna.f32 %f1, %f2, %f3;",
    "  add.rn.sat.bf16 %rs1, %rs2, %rs3;",
    "  min.ftz.bf16 %rs1, %rs2, %rs3;",
    "  max.abs.f16x2 %r1, %r2, %r3;",
    "  ex2.approx.ftz.f16 %rs1, %rs2;",
    "  ex2.approx.bf16x2 %r1, %r2;",
    "  tanh.approx.ftz.f16x2 %r1, %r2;",
    "  tanh.approx.ftz.f32 %f1, %f2;",
    "  lg2.approx.f64 %fd1, %fd2;",
    "  div.approx.f64 %fd1, %fd2, %fd3;",
    "  sqrt.approx.f64 %fd1, %fd2;",
    "  min.NaN.f64 %fd1, %fd2, %fd3;",
    "  max.xorsign.f32 %f1, %f2, %f3;",
    "  copysign.ftz.f32 %f1, %f2, %f3;",
    "  testp.finite.nonsense.f32 %p1, %f1;",
    // Compare and select: packed halves outside the ISA's forms, two combiners, a selector that
    // is not .s32/.f32 (the half forms that translate: test_compiler_translate_half_extras.cpp).
    "  setp.eq.ftz.bf16x2 %p1|%p2, %r1, %r2;",
    "  setp.lt.and.bf16x2 %p1, %r1, %r2, %p2;",
    "  set.eq.f16x2.bf16x2 %r1, %r2, %r3;",
    "  set.eq.f16.f16x2 %rs1, %r2, %r3;",
    "  setp.eq.and.or.u32 %p1, %r1, %r2, %p2;",
    "  setp.lt.u32.s32 %p1, %r1, %r2;",
    "  selp.pred %p1, %p2, %p3, %p4;",
    "  slct.u32.u32 %r1, %r2, %r3, %r4;",
    // Conversions and moves.
    "  cvt.rna.relu.tf32.f32 %r1, %f1;",
    "  cvt.rna.f16.f32 %rs1, %f1;",
    "  cvt.rn.relu.f16.f64 %rs1, %fd1;",
    "  cvt.rn.relu.s32.f32 %r1, %f1;",
    "  cvt.rn.satfinite.f32.f64 %f1, %fd1;",
    "  cvt.rn.rz.f32.f64 %f1, %fd1;",
    "  cvt.pack.sat.u8.u32.b32 %r1, %r2, %r3, %r4;", // cvt.pack takes .s32 sources
    "  cvt.rs.f16x2.f32 %r1, %f1, %f2, %r2;",
    "  cvt.ftz.f16x2.f32 %r1, %f1, %f2;",
    "  cvt.rn.f16x2.f32.f32 %r1, %f1, %f2;",
    "  cvt.rn.ftz.bf16.f16 %rs1, %rs2;",
    "  cvt.rn.satfinite.e2m1x2.f32 %rs1, %f1, %f2;",
    "  cvt.u32.u16.u8 %r1, %rs1;",
    "  mov.rn.f32 %f1, %f2;",
    "  mov.u32.u16 %r1, %rs1;",
    // Memory: .mmio, 128 bits into a 64-bit register or with an ordering, vector atomics, .noftz
    // on f32, ordering on the wrong access, two types, fences of PTX 8.6 (clusters and hints:
    // test_compiler_translate_cluster_hints.cpp).
    "  ld.mmio.relaxed.sys.global.u32 %r1, [%rd2];",
    "  ld.global.b128 %rd3, [%rd2];",
    "  ld.relaxed.gpu.global.b128 %rd3, [%rd2];",
    "  fence.proxy.async::generic.acquire.sync_restrict::shared::cta.cluster;",
    "  ld.global.unified.u32 %r1, [%rd2];",
    "  ld.release.gpu.global.u32 %r1, [%rd2];",
    "  st.acquire.gpu.global.u32 [%rd1], %r1;",
    "  st.global.nc.u32 [%rd1], %r1;",
    "  ld.global.u32.f32 %r1, [%rd2];",
    "  atom.shared.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};", // vector atomics: .global only
    "  atom.global.cas.b128 %rd3, [%rd1], %rd4, %rd5;",
    "  atom.global.add.noftz.f32 %f1, [%rd1], %f2;",
    "  atom.global.exch.b16 %rs1, [%rd1], %rs2;", // .b16: cas only
    "  atom.global.add.or.u32 %r1, [%rd1], %r2;",
    "  atom.global.add.u32.s32 %r1, [%rd1], %r2;",
    "  atom.global.cas.u16 %rs1, [%rd1], %rs2, %rs3;",
    "  atom.global.min.f32 %f1, [%rd1], %f2;",
    "  atom.shared::cluster.exch.b16 %rs1, [%r2], %rs2;",
    "  atom.local.add.u32 %r1, [%rd1], %r2;",
    "  fence.acq_rel.sync_restrict::shared::cluster.cluster;",
    // Warp and control.
    "  shfl.sync.idx.b64 %rd3, %rd4, 1, 31, -1;",
    "  shfl.sync.up.down.b32 %r1, %r2, 1, 31, -1;",
    "  vote.sync.all.any.pred %p1, %p2, -1;",
    "  activemask.b64 %rd3;",
    "  bra.div DONE;\nDONE:",
    "  exit.uni;",
};

std::string spelling(const std::string& body)
{
  size_t start = body.find_first_not_of(' ');
  size_t end = body.find_first_of(" ;", start);
  return body.substr(start, end - start);
}

std::vector<TranslateOptions> targets()
{
  return {host_options(), amdgpu_options("gfx1201")};
}

TEST(TranslateForms, ImplementedFormsTranslate)
{
  int checked = 0;
  for (const char* body : k_accepted) {
    // .shared and .shared::cta addresses (%r2, %r3) are 32-bit offsets.
    std::string text = kernel_text(std::string("  .shared .align 8 .b8 sh[64];\n") + body);
    for (const TranslateOptions& options : targets()) {
      Expected<Translation> translation = translate_text(text, options);
      EXPECT_TRUE(translation.has_value())
          << body << " (" << (options.kind == TargetKind::host ? "host" : options.processor)
          << "): " << translation.error().message;
      if (translation) {
        EXPECT_EQ(verify_text(*translation->module), "") << body;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * static_cast<int>(std::size(k_accepted)));
}

TEST(TranslateForms, UnimplementedFormsAreUnsupported)
{
  for (const char* body : k_rejected) {
    std::string expected = "unsupported: " + spelling(body) + " at line 14";
    for (const TranslateOptions& options : targets()) {
      Expected<Translation> translation = translate_text(kernel_text(body), options);
      ASSERT_FALSE(translation.has_value())
          << body << " translated for "
          << (options.kind == TargetKind::host ? "host" : options.processor);
      EXPECT_NE(translation.error().message.find(expected), std::string::npos)
          << body << ": " << translation.error().message;
    }
  }
}

// --- Semantics of the forms the audit implemented, on the CPU executor -------------------------

// Runs kernel_text(body) once (one thread) with `in` as the input buffer; returns `out_words`
// 32-bit words of the output buffer.
std::vector<uint32_t> run_host(const std::string& body, std::vector<uint32_t> in, size_t out_words)
{
  std::vector<uint32_t> out(out_words, 0xdeadbeefU);
  Expected<Translation> translation = translate_text(kernel_text(body), host_options());
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return out;
  }
  Expected<std::unique_ptr<cpu::Executor>> executor =
      cpu::Executor::create(std::move(*translation), cpu::ExecutorOptions{.threads = 1});
  if (!executor) {
    ADD_FAILURE() << executor.error().message;
    return out;
  }
  std::vector<std::byte> params(16);
  void* out_pointer = out.data();
  const void* in_pointer = in.data();
  std::memcpy(params.data(), &out_pointer, 8);
  std::memcpy(params.data() + 8, &in_pointer, 8);
  Expected<cpu::LaunchStats> launched =
      (*executor)->launch("k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, params);
  EXPECT_TRUE(launched.has_value()) << (launched ? "" : launched.error().message);
  return out;
}

// PTX ISA, integer min/max: ".relu clamps the result to 0 if negative".
TEST(TranslateForms, HostMinMaxRelu)
{
  std::string body = "  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];\n"
                     "  max.relu.s32 %r5, %r1, %r2;\n" // max(-5, -7) = -5 -> 0
                     "  max.relu.s32 %r6, %r3, %r2;\n" // max(3, -7) = 3
                     "  min.relu.s32 %r7, %r3, %r2;\n" // min(3, -7) = -7 -> 0
                     "  min.relu.s32 %r8, %r3, %r4;\n" // min(3, 9) = 3
                     "  max.s32 %r9, %r1, %r2;\n"      // without .relu: -5
                     "  st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r8};\n"
                     "  st.global.u32 [%rd1+16], %r9;\n";
  std::vector<uint32_t> in = {static_cast<uint32_t>(-5), static_cast<uint32_t>(-7), 3, 9};
  EXPECT_EQ(run_host(body, in, 5),
            (std::vector<uint32_t>{0, 3, 0, 3, static_cast<uint32_t>(-5)}));
}

// PTX ISA, fma (half precision): ".relu clamps the result to 0 if negative. NaN results are
// converted to canonical NaN." f16 bits: 1.0 = 0x3c00, -2.0 = 0xc000, 2.0 = 0x4000, 0.5 = 0x3800,
// -1.5 = 0xbe00, 2.5 = 0x4100, canonical NaN 0x7fff.
TEST(TranslateForms, HostFmaReluHalf)
{
  std::string body = "  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];\n"
                     "  cvt.u16.u32 %rs1, %r1;\n" // 1.0
                     "  cvt.u16.u32 %rs2, %r2;\n" // -2.0
                     "  cvt.u16.u32 %rs3, %r3;\n" // 0.5
                     "  cvt.u16.u32 %rs4, %r4;\n" // NaN
                     "  fma.rn.relu.f16 %rs5, %rs1, %rs2, %rs3;\n" // -1.5 -> 0
                     "  fma.rn.f16 %rs6, %rs1, %rs2, %rs3;\n"      // -1.5
                     "  fma.rn.relu.f16 %rs7, %rs4, %rs2, %rs3;\n" // NaN -> 0x7fff
                     "  cvt.u32.u16 %r5, %rs5;\n  cvt.u32.u16 %r6, %rs6;\n  cvt.u32.u16 %r7, %rs7;\n"
                     // f16x2: low half 1.0 * -2.0 + 0.5 -> 0, high half 1.0 * 2.0 + 0.5 = 2.5.
                     "  mov.b32 %r8, 0x3c003c00;\n  mov.b32 %r9, 0x4000c000;\n"
                     "  mov.b32 %r10, 0x38003800;\n"
                     "  fma.rn.relu.f16x2 %r11, %r8, %r9, %r10;\n"
                     "  fma.rn.f16x2 %r12, %r8, %r9, %r10;\n"
                     "  st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r11};\n"
                     "  st.global.u32 [%rd1+16], %r12;\n";
  std::vector<uint32_t> in = {0x3c00, 0xc000, 0x3800, 0x7e00};
  EXPECT_EQ(run_host(body, in, 5),
            (std::vector<uint32_t>{0, 0xbe00, 0x7fff, 0x41000000, 0x4100be00}));
}

// PTX ISA, cvt: ".relu clamps negative results to 0"; ".satfinite: NaN stays NaN, an input beyond
// the largest finite value (infinities included) becomes the largest finite value of its sign".
// f16: 65504 = 0x7bff, 2.5 = 0x4100; bf16: 3.0 = 0x4040, largest finite 0x7f7f.
TEST(TranslateForms, HostCvtReluSatfinite)
{
  std::string body = "  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];\n"
                     "  cvt.rn.relu.f16.f32 %rs1, %f1;\n"      // -1.5 -> 0
                     "  cvt.rn.relu.f16.f32 %rs2, %f2;\n"      // 2.5
                     "  cvt.rn.satfinite.f16.f32 %rs3, %f3;\n" // 1e6 -> 65504
                     "  cvt.rn.satfinite.f16.f32 %rs4, %f4;\n" // -inf -> -65504
                     "  cvt.rn.f16.f32 %rs5, %f3;\n"           // without: +inf 0x7c00
                     "  cvt.rn.relu.bf16.f32 %rs6, %f1;\n"     // -1.5 -> 0
                     "  cvt.rn.satfinite.bf16.f32 %rs7, %f4;\n" // -inf -> 0xff7f
                     "  mov.b32 %r1, {%rs1, %rs2};\n  mov.b32 %r2, {%rs3, %rs4};\n"
                     "  mov.b32 %r3, {%rs5, %rs6};\n  cvt.u32.u16 %r4, %rs7;\n"
                     "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n";
  std::vector<uint32_t> in = {0xbfc00000U, 0x40200000U, 0x49742400U, 0xff800000U};
  EXPECT_EQ(run_host(body, in, 4),
            (std::vector<uint32_t>{0x41000000U, 0xfbff7bffU, 0x00007c00U, 0xff7fU}));
}

// PTX ISA, set: "the destination is 1.0 (in the destination's format) if the comparison is true,
// 0.0 otherwise". f16 1.0 = 0x3c00, bf16 1.0 = 0x3f80.
TEST(TranslateForms, HostSetHalfDestination)
{
  std::string body = "  mov.b16 %rs1, 0x3c00;\n  mov.b16 %rs2, 0x4000;\n" // f16 1.0, 2.0
                     "  set.lt.f16.f16 %rs3, %rs1, %rs2;\n"
                     "  set.gt.f16.f16 %rs4, %rs1, %rs2;\n"
                     "  mov.b16 %rs5, 0x3f80;\n  mov.b16 %rs6, 0x4000;\n" // bf16 1.0, 2.0
                     "  set.lt.bf16.bf16 %rs7, %rs5, %rs6;\n"
                     "  mov.b32 %r1, {%rs3, %rs4};\n  cvt.u32.u16 %r2, %rs7;\n"
                     "  st.global.v2.u32 [%rd1], {%r1, %r2};\n";
  EXPECT_EQ(run_host(body, {0}, 2), (std::vector<uint32_t>{0x3c00U, 0x3f80U}));
}

// PTX ISA, rsqrt.approx.ftz.f64: subnormal inputs flush to a zero of the same sign, so the result
// is +-inf; without .ftz the smallest subnormal 2^-1074 gives 2^537 (finite).
TEST(TranslateForms, HostRsqrtFtzF64)
{
  std::string body = "  ld.global.v2.f64 {%fd1, %fd2}, [%rd2];\n"
                     "  rsqrt.approx.ftz.f64 %fd3, %fd1;\n"
                     "  rsqrt.approx.ftz.f64 %fd4, %fd2;\n"
                     "  rsqrt.approx.f64 %fd5, %fd1;\n"
                     "  st.global.v2.f64 [%rd1], {%fd3, %fd4};\n"
                     "  st.global.f64 [%rd1+16], %fd5;\n";
  std::vector<uint32_t> in = {1, 0, 1, 0x80000000U}; // +2^-1074, -2^-1074
  std::vector<uint32_t> out = run_host(body, in, 6);
  EXPECT_EQ(out[0], 0U);
  EXPECT_EQ(out[1], 0x7ff00000U);
  EXPECT_EQ(out[2], 0U);
  EXPECT_EQ(out[3], 0xfff00000U);
  EXPECT_EQ(out[4], 0U);
  EXPECT_EQ(out[5], 0x61800000U); // 2^537: biased exponent 1560 = 0x618
}

// .shared::cta is the executing CTA's shared window (PTX ISA, state spaces), the same as .shared:
// a 32-bit shared address stored through .shared::cta reads back through .shared and atom.
TEST(TranslateForms, HostSharedCta)
{
  std::string body = "  .shared .align 4 .b8 sh[16];\n"
                     "  mov.u32 %r1, sh;\n"
                     "  st.shared::cta.u32 [%r1+4], 40;\n"
                     "  atom.shared::cta.add.u32 %r2, [%r1+4], 2;\n"
                     "  ld.shared.u32 %r3, [%r1+4];\n"
                     "  ld.shared::cta.u32 %r4, [%r1+4];\n"
                     "  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r4};\n";
  EXPECT_EQ(run_host(body, {0}, 4), (std::vector<uint32_t>{40, 42, 42, 42}));
}

// --- Issue 11: forms that gave silent wrong answers, against what an H200 computes ------------
// (golden cases pred_negation, carry_signed_*, bit_fields_grid, immediates, nan_bits_*).

// A '!' on a predicate named without '%' (inline-asm locals) was ignored.
TEST(TranslateForms, HostNegatedNamedPredicates)
{
  std::string body = "  ld.global.u32 %r1, [%rd2];\n" // 0: q false
                     "  { .reg .pred q, d;\n"
                     "    setp.ne.u32 q, %r1, 0;\n"
                     "    selp.u32 %r2, 1, 0, !q;\n"          // 1
                     "    setp.eq.and.u32 d, %r1, 0, !q;\n"   // true and !false = 1
                     "    selp.u32 %r3, 1, 0, d;\n"
                     "    setp.eq.xor.u32 d|q, %r1, 0, !q;\n" // d = 1 ^ 1 = 0, q = 0 ^ 1 = 1
                     "    selp.u32 %r4, 1, 0, d;\n"
                     "    selp.u32 %r5, 1, 0, q;\n"
                     "    vote.sync.ballot.b32 %r6, !q, -1;\n" // q is now true: 0
                     "  }\n"
                     "  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
                     "  st.global.u32 [%rd1+16], %r6;\n";
  EXPECT_EQ(run_host(body, {0}, 5), (std::vector<uint32_t>{1, 1, 0, 1, 0}));
}

TEST(TranslateForms, NegationOfANonPredicateIsAnError)
{
  for (const char* body : {"  add.u32 %r1, %r2, !%r3;", "  not.pred !%p1, %p2;"}) {
    Expected<Translation> translation = translate_text(kernel_text(body), host_options());
    ASSERT_FALSE(translation.has_value()) << body;
    EXPECT_NE(translation.error().message.find("negated"), std::string::npos)
        << translation.error().message;
  }
}

// CC.CF is the carry of a + ~b + 1 for sub.cc (1 when nothing is borrowed), so a sub.cc read back
// with addc 0, 0 gives 1 for 5 - 3 and 0 for 3 - 5; add.cc then subc subtracts 1 - CF.
TEST(TranslateForms, HostCarryFlagIsTheHardwareCarry)
{
  std::string body = "  ld.global.v2.u32 {%r1, %r2}, [%rd2];\n" // 5, 3
                     "  sub.cc.s32 %r3, %r1, %r2;\n  addc.u32 %r4, 0, 0;\n"   // 2, 1
                     "  sub.cc.s32 %r5, %r2, %r1;\n  addc.u32 %r6, 0, 0;\n"   // -2, 0
                     "  add.cc.u32 %r7, %r1, %r2;\n  subc.s32 %r8, %r1, %r2;\n" // 8, 5 - 3 - 1
                     "  sub.cc.u32 %r9, %r2, %r1;\n  subc.u32 %r10, 0, 0;\n"  // borrow: -1
                     "  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};\n"
                     "  st.global.v4.u32 [%rd1+16], {%r7, %r8, %r9, %r10};\n";
  EXPECT_EQ(run_host(body, {5, 3}, 8),
            (std::vector<uint32_t>{2, 1, static_cast<uint32_t>(-2), 0, 8, 1,
                                   static_cast<uint32_t>(-2), 0xffffffffU}));
}

// bfi/bfe.b32 take pos and len modulo 256; the 64-bit forms do not (pos 256 is past the msb).
TEST(TranslateForms, HostBitFieldOperandRanges)
{
  std::string body = "  ld.global.v2.u32 {%r1, %r2}, [%rd2];\n" // 256, 0x10003
                     "  bfi.b32 %r3, -1, 0, %r1, 1;\n"       // pos 0: 1
                     "  mov.b64 %rd3, 0;\n  mov.b64 %rd4, -1;\n"
                     "  bfi.b64 %rd5, %rd4, %rd3, %r1, 1;\n" // pos 256: unchanged 0
                     "  bfi.b64 %rd6, %rd4, %rd3, 60, %r2;\n" // len 0x10003: bits 60..63
                     "  mov.b64 {%r4, %r5}, %rd5;\n  mov.b64 {%r6, %r7}, %rd6;\n"
                     "  bfe.u32 %r8, -1, 0, %r2;\n"           // len 3: 7
                     "  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};\n"
                     "  st.global.v2.u32 [%rd1+16], {%r7, %r8};\n";
  EXPECT_EQ(run_host(body, {256, 0x10003}, 6),
            (std::vector<uint32_t>{1, 0, 0, 0, 0xf0000000U, 7}));
}

// NaN bits (nan_bits_*): f64 abs/neg quiet a NaN and keep its sign; f16/bf16 abs/neg give 0x7fff;
// selp and copysign move bits.
TEST(TranslateForms, HostNanBitsOfBitOperations)
{
  std::string body = "  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];\n"
                     "  mov.b64 %fd1, {%r1, %r2};\n" // 0xfff0000000000005, a signalling NaN
                     "  abs.f64 %fd2, %fd1;\n  neg.f64 %fd3, %fd1;\n"
                     "  mov.b64 {%r5, %r6}, %fd2;\n  mov.b64 {%r7, %r8}, %fd3;\n"
                     "  mov.b32 {%rs1, %rs2}, %r3;\n" // 0xfc01 (f16 sNaN), 0xffa1 (bf16 NaN)
                     "  abs.f16 %rs3, %rs1;\n  neg.bf16 %rs4, %rs2;\n  mov.b32 %r9, {%rs3, %rs4};\n"
                     "  mov.b32 %f1, %r4;\n"       // 0xffa00005
                     "  setp.ne.u32 %p1, %r4, 0;\n  selp.f32 %f2, %f1, 0f3F800000, %p1;\n"
                     "  copysign.f32 %f3, 0f3F800000, %f1;\n"
                     "  mov.b32 %r10, %f2;\n  mov.b32 %r11, %f3;\n"
                     "  st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r8};\n"
                     "  st.global.v4.u32 [%rd1+16], {%r9, %r10, %r11, %r4};\n";
  EXPECT_EQ(run_host(body, {5, 0xfff00000U, 0xffa1fc01U, 0xffa00005U}, 8),
            (std::vector<uint32_t>{5, 0xfff80000U, 5, 0xfff80000U, 0x7fff7fffU, 0xffa00005U,
                                   0x7fa00005U, 0xffa00005U}));
}

// Immediates as ptxas 13 takes them: a 0f literal in an f64 operand is its bits; integer
// literals in float operands and float literals in integer ones are errors.
TEST(TranslateForms, HostImmediateForms)
{
  std::string body = "  mov.f64 %fd1, 0f3FAAAAAB;\n  mov.b64 {%r1, %r2}, %fd1;\n"
                     "  mov.f32 %f1, 0d3FF5555555555555;\n  mov.b32 %r3, %f1;\n"
                     "  add.u16 %rs1, 0, -1;\n  cvt.u32.u16 %r4, %rs1;\n"
                     "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n";
  EXPECT_EQ(run_host(body, {0}, 4), (std::vector<uint32_t>{0x3faaaaabU, 0, 0x3faaaaabU, 0xffff}));
  for (const char* wrong : {"  add.f32 %f1, %f2, 1;", "  add.u32 %r1, %r2, 0f3F800000;",
                            "  mov.b16 %rs1, 0f3F800000;", "  mov.b32 %r1, 0d3FF0000000000000;",
                            "  fma.rn.f16 %rs1, %rs2, %rs3, 0x3c00;", "  mov.pred %p1, 2;"}) {
    Expected<Translation> translation = translate_text(kernel_text(wrong), host_options());
    ASSERT_FALSE(translation.has_value()) << wrong;
    EXPECT_NE(translation.error().message.find("cannot be a"), std::string::npos)
        << wrong << ": " << translation.error().message;
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
