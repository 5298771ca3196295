// mbarrier, the bulk asynchronous copies and the sm_90 atom forms
// (lower_mbarrier.cpp, lower_async_copy.cpp, lower_memory.cpp): the phase and transaction
// accounting of one barrier run step by step on the CPU executor, spin-wait loops that only finish
// because a failed wait yields to the other threads (simt_block.cpp rule 5), a spin loop nobody can
// end reported as a deadlock instead of hanging, the bulk copies and reductions with their
// complete-tx, every form translated for the AMDGPU targets (64-bit LDS compare-and-swap loops),
// and the forms that stay unsupported.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

// Runs kernel k of `body` on `threads` threads of one block; out holds `words` u32.
std::vector<uint32_t> run_host(const std::string& body, uint32_t threads, size_t words,
                               std::vector<uint32_t> in = {})
{
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  if (!executor) {
    return {};
  }
  std::vector<uint32_t> out(words, 0xcdcdcdcdu);
  in.resize(std::max<size_t>(in.size(), 1));
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {threads, 1, 1}, 0}, pointer_params(out.data(), in.data()));
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return {};
  }
  return out;
}

// One thread drives a barrier of 3 expected arrivals through two phases. Stored: the pending
// counts of the states (before each arrival), then test_wait.parity 0 / 1 after each step.
const std::string k_accounting =
    "  .shared .align 8 .b64 bar;\n"
    "  mbarrier.init.shared::cta.b64 [bar], 3;\n"
    "  mbarrier.arrive.shared::cta.b64 %rd3, [bar], 2;\n" // pending 1
    "  mbarrier.pending_count.b64 %r1, %rd3;\n"
    "  mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;\n"   // phase 0 open: false
    "  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 100;\n" // tx 100
    "  mbarrier.arrive.shared::cta.b64 %rd4, [bar];\n"               // pending 0, tx 100: open
    "  mbarrier.pending_count.b64 %r2, %rd4;\n"
    "  mbarrier.test_wait.shared::cta.b64 %p2, [bar], %rd4;\n" // false
    "  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 60;\n"
    "  mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], 0;\n"    // still false
    "  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 40;\n" // phase 0 completes
    "  mbarrier.test_wait.shared::cta.b64 %p4, [bar], %rd4;\n"        // true
    "  mbarrier.test_wait.parity.shared::cta.b64 %p5, [bar], 1;\n"    // phase 1 open: false
    "  mbarrier.arrive_drop.shared::cta.b64 %rd5, [bar];\n"           // pending 2, expected 2
    "  mbarrier.pending_count.b64 %r3, %rd5;\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [bar], 0;\n" // pending 1
    "  mbarrier.arrive.noComplete.shared.b64 _, [bar], 0;\n"
    "  mbarrier.arrive.release.cta.shared::cta.b64 _, [bar];\n"   // phase 1 completes
    "  mbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], 1;\n" // true
    "  mbarrier.arrive.shared::cta.b64 %rd7, [bar];\n"            // phase 2: 2 expected
    "  mbarrier.pending_count.b64 %r4, %rd7;\n"
    "  selp.u32 %r5, 1, 0, %p1;\n  selp.u32 %r6, 1, 0, %p2;\n  selp.u32 %r7, 1, 0, %p3;\n"
    "  selp.u32 %r8, 1, 0, %p4;\n  selp.u32 %r9, 1, 0, %p5;\n  selp.u32 %r10, 1, 0, %p6;\n"
    "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
    "  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};\n"
    "  st.global.v2.u32 [%rd1+32], {%r9, %r10};\n";

TEST(TranslateMbarrier, HostPhaseAndTransactionAccounting)
{
  std::vector<uint32_t> out = run_host(k_accounting, 1, 10);
  const std::vector<uint32_t> expected = {3, 1, 3, 2, 0, 0, 0, 1, 0, 1};
  EXPECT_EQ(out, expected);
}

// Warp 0 writes its lanes' values and arrives (32 expected); warp 1 spins in try_wait.parity
// until the phase completes, then reads them. The executor runs warp 0 first, so warp 1 meets a
// completed phase; thread order reversed (warp 1 produces) makes the consumers spin first.
std::string producer_consumer(const char* producer_test)
{
  return std::string("  .shared .align 8 .b64 bar;\n"
                     "  .shared .align 4 .b32 data[32];\n"
                     "  mov.u32 %r1, %tid.x;\n"
                     "  setp.ne.u32 %p1, %r1, 0;\n"
                     "  @%p1 bra INITED;\n"
                     "  mbarrier.init.shared.b64 [bar], 32;\n"
                     "INITED:\n"
                     "  bar.sync 0;\n"
                     "  and.b32 %r2, %r1, 31;\n"
                     "  shl.b32 %r3, %r2, 2;\n"
                     "  mov.u32 %r4, data;\n"
                     "  add.u32 %r5, %r4, %r3;\n") +
         producer_test +
         "  @%p2 bra CONSUME;\n"
         "  mad.lo.u32 %r6, %r1, 7, 3;\n"
         "  st.shared.u32 [%r5], %r6;\n"
         "  mbarrier.arrive.release.cta.shared::cta.b64 _, [bar];\n"
         "  bra.uni DONE;\n"
         "CONSUME:\n"
         "  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [bar], 0;\n"
         "  @!%p3 bra CONSUME;\n"
         "  ld.shared.u32 %r6, [%r5];\n"
         "  st.global.u32 [%rd1+%r3], %r6;\n"
         "DONE:\n";
}

std::string with_index_store(std::string body)
{
  // st.global takes no register offset: compute the address first.
  const std::string from = "  st.global.u32 [%rd1+%r3], %r6;\n";
  const std::string to = "  cvt.u64.u32 %rd5, %r3;\n  add.s64 %rd6, %rd1, %rd5;\n"
                         "  st.global.u32 [%rd6], %r6;\n";
  body.replace(body.find(from), from.size(), to);
  return body;
}

TEST(TranslateMbarrier, HostSpinWaitsYieldToTheThreadsTheyWaitFor)
{
  for (const char* producer : {"  setp.ge.u32 %p2, %r1, 32;\n",    // warp 0 produces
                               "  setp.lt.u32 %p2, %r1, 32;\n"}) { // warp 1 does: consumers spin
    std::vector<uint32_t> out = run_host(with_index_store(producer_consumer(producer)), 64, 32);
    ASSERT_EQ(out.size(), 32U);
    const bool warp1 = std::string(producer).find("lt") != std::string::npos;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t thread = warp1 ? lane + 32 : lane;
      EXPECT_EQ(out[lane], thread * 7 + 3) << producer << " lane " << lane;
    }
  }
}

TEST(TranslateMbarrier, HostSpinNobodyEndsIsADeadlock)
{
  // 33 arrivals expected, 32 come: every consumer spins forever.
  std::string body = with_index_store(producer_consumer("  setp.lt.u32 %p2, %r1, 32;\n"));
  body.replace(body.find("[bar], 32;"), 10, "[bar], 33;");
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(32);
  Expected<cpu::LaunchStats> r = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {64, 1, 1}, 0},
                                                  pointer_params(out.data(), nullptr));
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("deadlock: block (0,0,0): every running thread spins on an mbarrier"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("thread (0,0,0) at site"), std::string::npos) << m;
  EXPECT_NE(m.find("32 threads exited"), std::string::npos) << m;
}

// cp.async.bulk 64 bytes global -> shared::cluster and 32 bytes global -> shared::cta with
// expect_tx/complete_tx, shared -> global and cp.reduce.async.bulk xor into global in a bulk
// group: thread 0 issues all, every thread waits on the phases.
const std::string k_bulk =
    "  .shared .align 16 .b8 buf[128];\n"
    "  .shared .align 16 .b8 acc[32];\n"
    "  .shared .align 8 .b64 bar;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  setp.ne.u32 %p1, %r1, 0;\n"
    "  @%p1 bra WAIT0;\n"
    "  mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "  mov.u32 %r2, 1;\n  mov.u32 %r3, 2;\n  mov.u32 %r4, 3;\n  mov.u32 %r5, 4;\n"
    "  st.shared.v4.u32 [acc], {%r2, %r3, %r4, %r5};\n"
    "  mov.u32 %r2, 10;\n  mov.u32 %r3, 20;\n  mov.u32 %r4, 30;\n  mov.u32 %r5, 40;\n"
    "  st.shared.v4.u32 [acc+16], {%r2, %r3, %r4, %r5};\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;\n"
    "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 64, "
    "[bar];\n"
    "WAIT0:\n"
    "  bar.sync 0;\n"
    "LOOP0:\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n"
    "  @!%p2 bra LOOP0;\n"
    "  bar.sync 0;\n" // nobody may still wait for parity 0 when phase 1 completes
    "  @%p1 bra WAIT1;\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 32;\n"
    "  cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf+64], [%rd2], 32, "
    "[bar];\n"
    "WAIT1:\n"
    "LOOP1:\n"
    "  mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 1;\n"
    "  @!%p2 bra LOOP1;\n"
    "  @%p1 bra DONE;\n"
    "  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 96;\n"
    "  cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%rd1+96], [acc], 32;\n"
    "  cp.async.bulk.commit_group;\n"
    "  cp.async.bulk.wait_group.read 0;\n"
    "  cp.async.bulk.wait_group 0;\n"
    "  cp.async.bulk.prefetch.L2.global [%rd2], 64;\n"
    "DONE:\n";

TEST(TranslateMbarrier, HostBulkCopiesCompleteTheirPhases)
{
  std::vector<uint32_t> in(16);
  for (uint32_t i = 0; i < 16; ++i) {
    in[i] = 0x100u * i + 1;
  }
  std::vector<uint32_t> out = run_host(k_bulk, 64, 32, in);
  ASSERT_EQ(out.size(), 32U);
  std::vector<uint32_t> expected(32, 0xcdcdcdcdu);
  for (uint32_t i = 0; i < 16; ++i) {
    expected[i] = in[i]; // the global -> shared copy, copied back
  }
  for (uint32_t i = 0; i < 8; ++i) {
    expected[16 + i] = in[i]; // the global -> shared::cta copy
  }
  const uint32_t acc[8] = {1, 2, 3, 4, 10, 20, 30, 40};
  for (uint32_t i = 0; i < 8; ++i) {
    expected[24 + i] = 0xcdcdcdcdu ^ acc[i]; // the xor reduction into the untouched words
  }
  EXPECT_EQ(out, expected);
}

// cp.reduce.async.bulk's float forms into global memory on ordinary values (the H200 case
// mbar_bulk_reduce_float holds the edges): add.f32, add.f64, add.noftz.f16, min.bf16, max.f16.
TEST(TranslateMbarrier, HostFloatBulkReductions)
{
  const std::string body =
      "  .shared .align 16 .b8 buf[64];\n"
      "  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];\n"
      "  st.shared.v4.u32 [buf], {%r1, %r2, %r3, %r4};\n"
      "  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2+16];\n"
      "  st.shared.v4.u32 [buf+16], {%r1, %r2, %r3, %r4};\n"
      "  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [buf], 16;\n"
      "  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64 [%rd1+16], [buf+16], 16;\n"
      "  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd1+32], [buf], 4;\n"
      "  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.bf16 [%rd1+36], [buf+4], 4;\n"
      "  cp.reduce.async.bulk.global.shared::cta.bulk_group.max.f16 [%rd1+40], [buf+8], 4;\n"
      "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 0;\n";
  auto f32 = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  auto f64 = [](double d, int half) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return static_cast<uint32_t>(u >> (32 * half));
  };
  // buf: f32 1.5 2.25 -3 0.5; f64 10.25 -0.5. out: f32 2 4 1 8; f64 1 2; halves below.
  std::vector<uint32_t> in = {f32(1.5f),     f32(2.25f),    f32(-3.0f),   f32(0.5f),
                              f64(10.25, 0), f64(10.25, 1), f64(-0.5, 0), f64(-0.5, 1)};
  std::vector<uint32_t> out = {f32(2.0f),   f32(4.0f),   f32(1.0f),   f32(8.0f),
                               f64(1.0, 0), f64(1.0, 1), f64(2.0, 0), f64(2.0, 1),
                               0x40003c00u,  // f16 halves 1, 2
                               0x40403f80u,  // bf16 halves 1, 3
                               0x3c00bc00u}; // f16 halves -1, 1
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  ASSERT_TRUE(executor);
  Expected<cpu::LaunchStats> r = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0},
                                                  pointer_params(out.data(), in.data()));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(out[0], f32(3.5f));
  EXPECT_EQ(out[1], f32(6.25f));
  EXPECT_EQ(out[2], f32(-2.0f));
  EXPECT_EQ(out[3], f32(8.5f));
  EXPECT_EQ(out[4], f64(11.25, 0));
  EXPECT_EQ(out[5], f64(11.25, 1));
  EXPECT_EQ(out[6], f64(1.5, 0));
  EXPECT_EQ(out[7], f64(1.5, 1));
  // The halves come from the f32 bits in buf: 1.5f = 0x3fc00000 gives f16 +0 and 1.9375:
  // 1 + 0 = 1 (0x3c00), 2 + 1.9375 = 3.9375 (0x43e0).
  EXPECT_EQ(out[8], 0x43e03c00u);
  // 2.25f = 0x40100000 gives bf16 +0 and 2.25: min(1, +0) = +0, min(3, 2.25) = 2.25 (0x4010).
  EXPECT_EQ(out[9], 0x40100000u);
  // -3.0f = 0xc0400000 gives f16 +0 and -2.125: max(-1, +0) = +0, max(1, -2.125) = 1 (0x3c00).
  EXPECT_EQ(out[10], 0x3c000000u);
}

// .multicast::cluster in a cluster of one CTA: ctaMask bit 0 is the own CTA. A copy with bit 0
// lands and completes the phase; one without it (bit 1: a CTA the cluster lacks) does nothing.
TEST(TranslateMbarrier, HostMulticastCopiesWhenTheMaskNamesTheOwnCta)
{
  const std::string body =
      "  .shared .align 16 .b8 buf[64];\n"
      "  .shared .align 8 .b64 bar;\n"
      "  mov.u32 %r1, 0;\n"
      "  st.shared.v4.u32 [buf+32], {%r1, %r1, %r1, %r1};\n"
      "  mbarrier.init.shared::cta.b64 [bar], 1;\n"
      "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 32;\n"
      "  mov.u16 %rs1, 3;\n"
      "  mov.u16 %rs2, 2;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[buf], [%rd2], 32, [bar], %rs1;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[buf+32], [%rd2], 16, [bar], %rs2;\n"
      "  mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;\n"
      "  selp.u32 %r2, 1, 0, %p1;\n"
      "  ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [buf];\n"
      "  ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [buf+32];\n"
      "  st.global.v4.u32 [%rd1], {%r2, %r3, %r6, %r7};\n";
  std::vector<uint32_t> in = {11, 12, 13, 14, 15, 16, 17, 18};
  std::vector<uint32_t> out = run_host(body, 1, 4, in);
  const std::vector<uint32_t> expected = {1, 11, 14, 0};
  EXPECT_EQ(out, expected);
}

// Every form once, for the AMDGPU targets: 64-bit LDS compare-and-swap loops, no trap.
const std::string k_all_forms =
    "  .shared .align 8 .b64 bar;\n"
    "  .shared .align 16 .b8 buf[64];\n"
    "  mbarrier.init.shared.b64 [bar], 2;\n"
    "  mbarrier.arrive.shared.b64 %rd3, [bar];\n"
    "  mbarrier.arrive_drop.release.cluster.shared::cta.b64 %rd4, [bar], 1;\n"
    "  mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 %rd5, [bar], 16;\n"
    "  mbarrier.arrive.noComplete.shared.b64 %rd6, [bar], 1;\n"
    "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar];\n"
    "  mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [bar], 32;\n"
    "  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;\n"
    "  mbarrier.test_wait.shared.b64 %p1, [bar], %rd3;\n"
    "  mbarrier.test_wait.parity.relaxed.cluster.shared::cta.b64 %p2, [bar], 1;\n"
    "  mbarrier.try_wait.acquire.cta.shared::cta.b64 %p3, [bar], %rd4, 1000;\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 0;\n"
    "  mbarrier.pending_count.b64 %r1, %rd5;\n"
    "  mbarrier.arrive.b64 %rd8, [%rd2];\n"
    "  mbarrier.inval.shared::cta.b64 [bar];\n"
    "  cp.async.mbarrier.arrive.shared.b64 [bar];\n"
    "  cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];\n"
    "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [buf], "
    "[%rd2], 32, [bar], %rd3;\n"
    "  cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [buf], 32, %rd3;\n"
    "  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s64 [%rd1], [buf], 32;\n"
    "  cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.inc.u32 [%rd1], [buf], "
    "32, %rd3;\n"
    "  cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r1}];\n"
    "  selp.u32 %r2, 1, 0, %p1;\n  selp.u32 %r3, 1, 0, %p2;\n"
    "  selp.u32 %r4, 1, 0, %p3;\n  selp.u32 %r5, 1, 0, %p4;\n"
    "  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
    "  st.global.u32 [%rd1+16], %r1;\n";

TEST(TranslateMbarrier, AmdgpuFormsAreLdsCompareAndSwapLoops)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_all_forms), target);
    EXPECT_GE(occurrences(text, "ds_cmpstore_rtn_b64"), 9) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "flat_atomic_cmpswap_b64"), 1) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "s_trap"), 0) << target << "\n" << text;
  }
  Expected<Translation> host = translate_text(kernel_text(k_all_forms), host_options());
  ASSERT_TRUE(host.has_value()) << host.error().message;
  EXPECT_EQ(verify_text(*host->module), "");
}

// The sm_70/sm_90 atom forms (lower_memory.cpp): cas.b16, vector adds, half min/max, the cache
// hint, for the AMDGPU targets; .b128 there under a lock (gfx11/gfx12 have no 16-byte atomics).
const std::string k_atom_forms =
    "  .shared .align 4 .b16 h;\n"
    "  atom.shared.cas.b16 %rs1, [h], %rs2, %rs3;\n"
    "  atom.global.cas.b16 %rs4, [%rd1], %rs2, %rs3;\n"
    "  atom.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};\n"
    "  atom.global.add.noftz.v8.f16 {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs1}, [%rd1], "
    "{%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs1};\n"
    "  atom.global.min.noftz.v2.bf16x2 {%r1, %r2}, [%rd1], {%r3, %r4};\n"
    "  red.global.max.noftz.v4.f16 [%rd1], {%rs1, %rs2, %rs3, %rs4};\n"
    "  atom.global.add.L2::cache_hint.u32 %r5, [%rd1], %r6, %rd3;\n"
    "  red.global.add.L2::cache_hint.f32 [%rd1], %f1, %rd3;\n"
    "  st.global.v4.u32 [%rd1], {%r1, %r2, %r5, %r5};\n"
    "  st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};\n"
    "  st.global.v4.u16 [%rd1], {%rs1, %rs2, %rs3, %rs4};\n";

const std::string k_b128 = "  .reg .b128 %q<4>;\n"
                           "  mov.b128 %q1, {%rd3, %rd4};\n"
                           "  mov.b128 %q2, {%rd4, %rd3};\n"
                           "  atom.global.exch.b128 %q3, [%rd1], %q1;\n"
                           "  atom.global.cas.b128 %q3, [%rd1], %q3, %q2;\n"
                           "  mov.b128 {%rd5, %rd6}, %q3;\n"
                           "  st.global.v2.u64 [%rd1], {%rd5, %rd6};\n";

TEST(TranslateMbarrier, AtomFormsForEveryTarget)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_atom_forms), target);
    EXPECT_GE(occurrences(text, "global_atomic_cmpswap_b32"), 5) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "s_trap"), 0) << target << "\n" << text;
    // .b128 under a spin lock: a 32-bit compare-and-swap takes it, 16-byte accesses, a store frees
    // it.
    std::string b128 = amdgpu_disassembly(kernel_text(k_b128), target);
    EXPECT_GE(occurrences(b128, "global_atomic_cmpswap_b32"), 2) << target << "\n" << b128;
    EXPECT_GE(occurrences(b128, "global_load_b128"), 2) << target << "\n" << b128;
    EXPECT_EQ(occurrences(b128, "s_trap"), 0) << target << "\n" << b128;
  }
  for (const std::string& body : {k_atom_forms, k_b128}) {
    Expected<Translation> host = translate_text(kernel_text(body), host_options());
    ASSERT_TRUE(host.has_value()) << host.error().message;
    EXPECT_EQ(verify_text(*host->module), "");
  }
}

// atom.exch/cas.b128 on the CPU executor: the old 16 bytes come back, cas stores only on a match.
TEST(TranslateMbarrier, HostB128ExchangeAndCompareAndSwap)
{
  const std::string body =
      "  .reg .b128 %q<4>;\n"
      "  ld.global.v2.u64 {%rd3, %rd4}, [%rd2];\n"
      "  mov.b128 %q1, {%rd3, %rd4};\n"
      "  atom.global.exch.b128 %q2, [%rd1], %q1;\n"        // out = in, %q2 = the old out
      "  atom.global.cas.b128 %q3, [%rd1], %q2, %q2;\n"    // no match: out stays
      "  atom.global.cas.b128 %q3, [%rd1+16], %q2, %q1;\n" // match: out+16 = in
      "  mov.b128 {%rd5, %rd6}, %q3;\n"
      "  st.global.v2.u64 [%rd1+32], {%rd5, %rd6};\n";
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  ASSERT_TRUE(executor);
  std::vector<uint64_t> out = {1, 2, 1, 2, 0, 0};
  const std::vector<uint64_t> in = {0x1111, 0x2222};
  Expected<cpu::LaunchStats> r = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0},
                                                  pointer_params(out.data(), in.data()));
  ASSERT_TRUE(r) << r.error().message;
  const std::vector<uint64_t> expected = {0x1111, 0x2222, 0x1111, 0x2222, 1, 2};
  EXPECT_EQ(out, expected);
}

void expect_error(const std::string& text, const std::string& message)
{
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1201")}) {
    Expected<Translation> translation = translate_text(text, options);
    ASSERT_FALSE(translation.has_value()) << text;
    EXPECT_NE(translation.error().message.find(message), std::string::npos)
        << text << ": " << translation.error().message;
  }
}

TEST(TranslateMbarrier, UnsupportedAndMalformedForms)
{
  const std::string bar = "  .shared .align 8 .b64 bar;\n  .shared .align 16 .b8 buf[64];\n";
  expect_error(kernel_text(bar + "  mbarrier.arrive.acquire.cta.shared.b64 %rd3, [bar];"),
               "unsupported: mbarrier");
  expect_error(kernel_text(bar + "  mbarrier.test_wait.release.shared.b64 %p1, [bar], %rd3;"),
               "unsupported: mbarrier");
  expect_error(kernel_text(bar + "  mbarrier.init.shared.b32 [bar], 1;"), "unsupported: mbarrier");
  expect_error(kernel_text(bar + "  mbarrier.arrive.parity.shared.b64 %rd3, [bar];"),
               "unsupported: mbarrier");
  expect_error(kernel_text(bar + "  mbarrier.arrive.noComplete.shared.b64 %rd3, [bar];"),
               "takes state, [addr]{, count}");
  expect_error(kernel_text(bar + "  mbarrier.test_wait.shared.b64 %p1, [bar];"),
               "takes waitComplete, [addr], state");
  expect_error(kernel_text(bar + "  cp.async.bulk.shared::cta.global.mbarrier::complete_tx::"
                                 "bytes.multicast::cluster [buf], [%rd2], 32, [bar], %rs1;"),
               "unsupported: cp");
  expect_error(kernel_text(bar + "  cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w."
                                 "mbarrier::complete_tx::bytes [buf], [%rd2, {%r1, %r2, %r3}], "
                                 "[bar], {%rs1, %rs2};"),
               "unsupported: cp");
  // The forms that write a peer CTA: the H200 refuses them without clusters (illegal instruction).
  expect_error(kernel_text(bar + "  st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 "
                                 "[buf], %r1, [bar];"),
               "unsupported: st");
  expect_error(kernel_text(bar + "  red.async.relaxed.cluster.shared::cluster.mbarrier::"
                                 "complete_tx::bytes.add.u32 [buf], %r1, [bar];"),
               "unsupported: red");
  expect_error(kernel_text(bar + "  cp.async.bulk.shared::cluster.shared::cta.mbarrier::"
                                 "complete_tx::bytes [buf], [buf+32], 16, [bar];"),
               "unsupported: cp");
  expect_error(kernel_text(bar + "  cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::"
                                 "complete_tx::bytes.add.u32 [buf], [buf+32], 16, [bar];"),
               "unsupported: cp");
  expect_error(kernel_text(bar + "  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f32 "
                                 "[%rd1], [buf], 32;"),
               "unsupported: cp");
  expect_error(kernel_text(bar + "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
                                 "bytes [buf], [%rd2], 32;"),
               "takes [dst], [src], size, [mbar]");
  // A kernel whose clusters have two CTAs: .shared::cluster may be another CTA's.
  std::string two = kernel_text(bar + "  mbarrier.arrive.shared::cluster.b64 _, [bar];");
  two.replace(two.find("\n{\n"), 3, "\n.reqnctapercluster 2, 1, 1\n{\n");
  expect_error(two, "unsupported: mbarrier");
}

} // namespace
} // namespace d4r::compiler::translate::test
