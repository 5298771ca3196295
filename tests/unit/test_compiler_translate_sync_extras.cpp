// bar.red (popc, and, or), bar.arrive and atom/red .add.noftz on f16, bf16, f16x2 and bf16x2
// (lower_warp.cpp, lower_memory.cpp, hooks_*.cpp): each form translates for the host (the
// host_abi.hpp runtime, compare-and-swap loops over the support library's adds) and for the six
// AMDGPU targets (an LDS counter between s_barriers; cmpswap loops); bar.arrive and thread counts
// are unsupported on AMDGPU; the host runs the runtime paths the golden vectors do not reach
// (bar.red with a thread count below the block, several arrive/sync rounds, deadlocks); and
// malformed forms fail clearly.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

// __syncthreads_count / _and / _or as nvcc writes them.
const std::string k_bar_red =
    "  ld.global.u32 %r1, [%rd2];\n"
    "  and.b32 %r2, %r1, 1;\n"
    "  setp.ne.u32 %p1, %r2, 0;\n"
    "  bar.red.popc.u32 %r3, 0, %p1;\n"
    "  barrier.red.and.aligned.pred %p2, 0, !%p1;\n"
    "  bar.cta.red.or.pred %p3, 0, %p1;\n"
    "  selp.u32 %r4, 1, 0, %p2;\n"
    "  selp.u32 %r5, 1, 0, %p3;\n"
    "  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r5};\n";

// A bar.red and a bar.sync with a thread count: barriers for part of the block.
const std::string k_counted =
    "  ld.global.u32 %r1, [%rd2];\n"
    "  setp.ne.u32 %p1, %r1, 0;\n"
    "  mov.u32 %r7, %ntid.x;\n"
    "  bar.red.popc.u32 %r6, 1, %r7, %p1;\n"
    "  bar.sync 2, 64;\n"
    "  st.global.u32 [%rd1], %r6;\n";

const std::string k_arrive =
    "  mov.u32 %r1, %tid.x;\n"
    "  setp.lt.u32 %p1, %r1, 32;\n"
    "  @%p1 bra PRODUCE;\n"
    "  bar.sync 2, 64;\n"
    "  bra.uni DONE;\n"
    "PRODUCE:\n"
    "  bar.arrive 2, 64;\n"
    "  barrier.arrive.aligned 3, 64;\n"
    "DONE:\n";

// Every width of atom/red add.noftz on global, shared and generic addresses.
const std::string k_atom_half =
    "  .shared .align 4 .b8 sh[16];\n"
    "  ld.global.u16 %rs1, [%rd2];\n"
    "  ld.global.u32 %r1, [%rd2+4];\n"
    "  atom.global.add.noftz.f16 %rs2, [%rd1], %rs1;\n"
    "  atom.global.add.noftz.bf16 %rs3, [%rd1+2], %rs1;\n"
    "  atom.global.add.noftz.f16x2 %r2, [%rd1+4], %r1;\n"
    "  atom.global.add.noftz.bf16x2 %r3, [%rd1+8], %r1;\n"
    "  red.global.add.noftz.f16x2 [%rd1+12], %r1;\n"
    "  red.global.add.noftz.bf16 [%rd1+16], %rs1;\n"
    "  atom.shared.add.noftz.f16x2 %r4, [sh], %r1;\n"
    "  atom.shared.add.noftz.f16 %rs4, [sh+4], %rs1;\n"
    "  atom.add.noftz.bf16x2 %r5, [%rd2+8], %r1;\n"
    "  st.global.v4.u16 [%rd1+20], {%rs2, %rs3, %rs4, %rs4};\n"
    "  st.global.v4.u32 [%rd1+28], {%r2, %r3, %r4, %r5};\n";

TEST(TranslateSyncExtras, HostBarRedCallsTheRuntime)
{
  Expected<Translation> translation = translate_text(kernel_text(k_bar_red), host_options());
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  std::string ir = ir_text(*translation->module);
  EXPECT_EQ(occurrences(ir, "call i32 @d4r_rt_barrier_reduce("), 3) << ir;
  EXPECT_EQ(occurrences(ir, "call void @d4r_rt_barrier("), 0) << ir;
  Expected<Translation> counted = translate_text(kernel_text(k_counted), host_options());
  ASSERT_TRUE(counted.has_value()) << counted.error().message;
  ir = ir_text(*counted->module);
  EXPECT_EQ(occurrences(ir, "call i32 @d4r_rt_barrier_reduce("), 1) << ir;
  EXPECT_EQ(occurrences(ir, "call void @d4r_rt_barrier("), 1) << ir;
}

// Per bar.red: the counter zeroed, s_barrier, one LDS add, s_barrier, the total read, s_barrier.
// gfx12 splits s_barrier into s_barrier_signal -1 / s_barrier_wait -1.
TEST(TranslateSyncExtras, AmdgpuBarRedCountsInLds)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_bar_red), target);
    bool gfx12 = std::string(target).starts_with("gfx12");
    int barriers = gfx12 ? occurrences(text, "s_barrier_wait") : occurrences(text, "s_barrier ");
    EXPECT_EQ(barriers, 9) << target << "\n" << text;
    if (gfx12) {
      EXPECT_EQ(occurrences(text, "s_barrier_signal"), 9) << target << "\n" << text;
    }
    EXPECT_GE(occurrences(text, "ds_add_u32") + occurrences(text, "ds_add_rtn_u32"), 3)
        << target << "\n" << text;
    EXPECT_GE(occurrences(text, "ds_store_b32"), 3) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "ds_load_b32"), 3) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "s_trap"), 0) << target << "\n" << text;
  }
}

// gfx11/gfx12 have one workgroup barrier that waits for every wave: a thread count, which asks for
// a barrier of part of the block, counts arrivals in an LDS word per barrier id (hooks_amdgpu.cpp,
// counted_barrier) instead, and never becomes an s_barrier that could over-synchronise or hang:
// the only s_barrier is the kernel entry's, after the words are zeroed.
TEST(TranslateSyncExtras, AmdgpuThreadCountsCountInLds)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_counted), target);
    bool gfx12 = std::string(target).starts_with("gfx12");
    const char* barrier = gfx12 ? "s_barrier_wait" : "s_barrier ";
    EXPECT_EQ(occurrences(text, barrier), 1) << target << "\n" << text;
    // Per barrier: the wave's arrival (its old value read) and the phase's completion.
    EXPECT_EQ(occurrences(text, "ds_add_rtn_u64"), 2) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "ds_add_u64"), 2) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "s_trap"), 0) << target << "\n" << text;
    // Without a count the barrier is the whole block's, whatever its id.
    text = amdgpu_disassembly(kernel_text("  bar.sync 1;\n"), target);
    EXPECT_EQ(occurrences(text, barrier), 1) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "ds_add_rtn_u64"), 0) << target << "\n" << text;
  }
}

TEST(TranslateSyncExtras, HostBarArriveCallsTheRuntime)
{
  Expected<Translation> translation = translate_text(kernel_text(k_arrive), host_options());
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  std::string ir = ir_text(*translation->module);
  EXPECT_EQ(occurrences(ir, "call void @d4r_rt_barrier_arrive("), 2) << ir;
  EXPECT_EQ(occurrences(ir, "call void @d4r_rt_barrier("), 1) << ir;
}

// bar.arrive counts the wave in the LDS word without waiting: two arrivals and one bar.sync,
// each one add, and only the bar.sync spins.
TEST(TranslateSyncExtras, AmdgpuBarArriveAddsWithoutWaiting)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_arrive), target);
    EXPECT_GE(occurrences(text, "ds_add_rtn_u64"), 3) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "s_sleep"), 1) << target << "\n" << text;
  }
}

TEST(TranslateSyncExtras, HostHalfAtomicsAreCasLoopsOverTheSupportAdds)
{
  Expected<Translation> translation = translate_text(kernel_text(k_atom_half), host_options(false));
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  std::string ir = ir_text(*translation->module);
  // Halves: f16 (global, shared), bf16 (global, red): 4 loops of one add; packed: 5 loops of two.
  EXPECT_EQ(occurrences(ir, "cmpxchg ptr"), 9) << ir;
  // f16: global and shared (one add each), f16x2: global atom and red, shared (two each).
  EXPECT_EQ(occurrences(ir, "call i16 @__d4r_ptx_add_f16("), 2 + 3 * 2) << ir;
  // bf16: global atom and red (one each), bf16x2: global and generic (two each).
  EXPECT_EQ(occurrences(ir, "call i16 @__d4r_ptx_add_bf16("), 2 + 2 * 2) << ir;
  EXPECT_EQ(occurrences(ir, "atomicrmw"), 0) << ir;
  EXPECT_EQ(occurrences(ir, "load atomic i16"), 4) << ir;
  EXPECT_EQ(occurrences(ir, "load atomic i32"), 5) << ir;
}

TEST(TranslateSyncExtras, AmdgpuHalfAtomicsAreCmpswapLoops)
{
  for (const char* target : k_targets) {
    std::string text = amdgpu_disassembly(kernel_text(k_atom_half), target);
    EXPECT_GE(occurrences(text, "global_atomic_cmpswap_b32"), 6) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "ds_cmpstore_rtn_b32"), 2) << target << "\n" << text;
    EXPECT_GE(occurrences(text, "flat_atomic_cmpswap_b32"), 1) << target << "\n" << text;
    EXPECT_EQ(occurrences(text, "s_trap"), 0) << target << "\n" << text;
  }
}

void expect_error(const std::string& body, const TranslateOptions& options,
                  const std::string& message)
{
  Expected<Translation> translation = translate_text(kernel_text(body), options);
  ASSERT_FALSE(translation.has_value()) << body;
  EXPECT_NE(translation.error().message.find(message), std::string::npos)
      << body << ": " << translation.error().message;
}

TEST(TranslateSyncExtras, MalformedFormsAreErrors)
{
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1100")}) {
    expect_error("  bar.red.u32 %r1, 0, %p1;", options, "bar.red needs one of .popc, .and, .or");
    expect_error("  bar.red.popc.and.u32 %r1, 0, %p1;", options,
                 "bar.red needs one of .popc, .and, .or");
    expect_error("  bar.red.popc.pred %p2, 0, %p1;", options, "bar.red.popc needs .u32");
    expect_error("  bar.red.or.u32 %r1, 0, %p1;", options, "bar.red.and/.or need .pred");
    expect_error("  bar.red.popc.u32 %r1, 0;", options, "bar.red takes 3 or 4 operands");
    expect_error("  bar.red.popc.u32 %r1, 16, %p1;", options, "barrier 16 does not exist");
    expect_error("  bar.sync 16;", options, "barrier 16 does not exist");
    expect_error("  bar.arrive 1;", options, "bar.arrive takes 2 operands");
    expect_error("  atom.global.add.f16 %rs1, [%rd1], %rs2;", options,
                 "atom.add on a half type needs .noftz");
    expect_error("  red.global.add.bf16x2 [%rd1], %r1;", options,
                 "red.add on a half type needs .noftz");
    expect_error("  atom.global.min.noftz.f16x2 %r1, [%rd1], %r2;", options, "unsupported: atom");
    expect_error("  atom.global.exch.bf16x2 %r1, [%rd1], %r2;", options, "unsupported: atom");
    expect_error("  bar.sync.arrive 1, 64;", options, "unsupported: bar");
  }
}

// --- The host runtime paths, run by the CPU executor --------------------------------------------

// bar.red.popc on barrier 1 with 64 of the block's 128 threads: warps 0-1 and warps 2-3 complete
// separate phases (in the order the runtime runs them), each counting only its own predicates.
// Thread t's predicate is t % 3 == 0.
const std::string k_partial_red =
    "  mov.u32 %r1, %tid.x;\n"
    "  rem.u32 %r2, %r1, 3;\n"
    "  setp.eq.u32 %p1, %r2, 0;\n"
    "  bar.red.popc.u32 %r3, 1, 64, %p1;\n"
    "  bar.red.and.pred %p2, 1, 64, %p1;\n"
    "  bar.red.or.pred %p3, 1, 64, %p1;\n"
    "  selp.u32 %r4, 1, 0, %p2;\n"
    "  selp.u32 %r5, 1, 0, %p3;\n"
    "  mul.wide.u32 %rd3, %r1, 12;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n"
    "  st.global.u32 [%rd4+4], %r4;\n"
    "  st.global.u32 [%rd4+8], %r5;\n";

TEST(TranslateSyncExtras, HostBarRedWithACountBelowTheBlock)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(k_partial_red));
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(128 * 3, 0xdeadbeef);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{2, 1, 1}, {128, 1, 1}, 0}, pointer_params(out.data(), nullptr));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t t = 0; t < 128; ++t) {
    const uint32_t first = t / 64 * 64;
    uint32_t expected = 0;
    for (uint32_t u = first; u < first + 64; ++u) {
      expected += u % 3 == 0 ? 1 : 0;
    }
    EXPECT_EQ(out[t * 3], expected) << "thread " << t;
    EXPECT_EQ(out[t * 3 + 1], 0u) << "thread " << t;
    EXPECT_EQ(out[t * 3 + 2], 1u) << "thread " << t;
  }
}

// Ten rounds of a producer/consumer hand-off: warp 0 writes round i into shared memory and
// bar.arrive 1, 64; warp 1 bar.sync 1, 64, reads it and bar.arrive 2, 64; warp 0 bar.sync 2, 64
// before the next round overwrites the buffer. Warps 2-3 take no part.
const std::string k_rounds =
    "  .shared .align 4 .b32 buffer[32];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  and.b32 %r2, %r1, 31;\n"
    "  shr.u32 %r3, %r1, 5;\n"
    "  shl.b32 %r4, %r2, 2;\n"
    "  mov.u32 %r5, buffer;\n"
    "  add.s32 %r6, %r5, %r4;\n"
    "  mov.u32 %r7, 0;\n"
    "  mov.u32 %r8, 0;\n"
    "  setp.gt.u32 %p1, %r3, 1;\n"
    "  @%p1 bra DONE;\n"
    "  setp.eq.u32 %p2, %r3, 1;\n"
    "LOOP:\n"
    "  @%p2 bra CONSUME;\n"
    "  mad.lo.u32 %r9, %r7, 100, %r2;\n"
    "  st.shared.u32 [%r6], %r9;\n"
    "  bar.arrive 1, 64;\n"
    "  bar.sync 2, 64;\n"
    "  bra.uni NEXT;\n"
    "CONSUME:\n"
    "  bar.sync 1, 64;\n"
    "  ld.shared.u32 %r9, [%r6];\n"
    "  add.u32 %r8, %r8, %r9;\n"
    "  bar.arrive 2, 64;\n"
    "NEXT:\n"
    "  add.u32 %r7, %r7, 1;\n"
    "  setp.lt.u32 %p3, %r7, 10;\n"
    "  @%p3 bra LOOP;\n"
    "  @!%p2 bra DONE;\n"
    "  mul.wide.u32 %rd3, %r2, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n"
    "  st.global.u32 [%rd4], %r8;\n"
    "DONE:\n";

TEST(TranslateSyncExtras, HostArriveAndSyncRounds)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(k_rounds));
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(32, 0);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {128, 1, 1}, 0}, pointer_params(out.data(), nullptr));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[lane], 100u * 45u + 10u * lane) << "lane " << lane;
  }
}

// Warp 0 arrives at barrier 1 with a count of 96, warp 1 waits there: 64 of 96 threads come, and
// the deadlock report names the barrier, its waiters and the arrivals.
TEST(TranslateSyncExtras, HostArriveShortOfTheCountIsADeadlock)
{
  const std::string body =
      "  mov.u32 %r1, %tid.x;\n"
      "  setp.lt.u32 %p1, %r1, 32;\n"
      "  setp.ge.u32 %p2, %r1, 64;\n"
      "  @%p2 bra DONE;\n"
      "  @%p1 bra ARRIVE;\n"
      "  bar.sync 1, 96;\n"
      "  bra.uni DONE;\n"
      "ARRIVE:\n"
      "  bar.arrive 1, 96;\n"
      "DONE:\n";
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  ASSERT_TRUE(executor);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {128, 1, 1}, 0}, pointer_params(nullptr, nullptr));
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("deadlock: block (0,0,0)"), std::string::npos) << m;
  EXPECT_NE(m.find("has 32 of 32 live threads, needs 96 (32 arrived by bar.arrive)"),
            std::string::npos)
      << m;
}

// A barrier id that PTX does not have, in a register: the runtime traps.
TEST(TranslateSyncExtras, HostBarrierIdOutOfRangeTraps)
{
  std::unique_ptr<cpu::Executor> executor =
      host_executor(kernel_text("  mov.u32 %r1, 17;\n  bar.sync %r1;\n"));
  ASSERT_TRUE(executor);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {32, 1, 1}, 0}, pointer_params(nullptr, nullptr));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("barrier 17 does not exist (0-15)"), std::string::npos)
      << r.error().message;
}

// Half atomics from every thread of four blocks on the same words (the executor runs blocks on
// two OS threads at once): 1024 additions of 1.0. f16 counts exactly to 1024; bf16 stops at 256,
// where 256 + 1 rounds to nearest even back to 256, so both results are order-independent, and a
// lost update would show. The f16 atom returns each old value 0..1023 once.
TEST(TranslateSyncExtras, HostHalfAtomicsAreAtomicAcrossBlocks)
{
  const std::string body =
      "  mov.u16 %rs1, 0x3c00;\n"  // f16 1.0
      "  mov.u16 %rs2, 0x3f80;\n"  // bf16 1.0
      "  mov.b32 %r1, {%rs1, %rs1};\n"
      "  mov.b32 %r2, {%rs2, %rs2};\n"
      "  atom.global.add.noftz.f16 %rs3, [%rd1], %rs1;\n"
      "  red.global.add.noftz.bf16 [%rd1+2], %rs2;\n"
      "  red.add.noftz.f16x2 [%rd1+4], %r1;\n"
      "  atom.global.add.noftz.bf16x2 %r3, [%rd1+8], %r2;\n"
      "  mov.u32 %r4, %tid.x;\n"
      "  mov.u32 %r5, %ctaid.x;\n"
      "  mad.lo.u32 %r6, %r5, 256, %r4;\n"
      "  mul.wide.u32 %rd3, %r6, 2;\n"
      "  add.s64 %rd4, %rd2, %rd3;\n"
      "  st.global.u16 [%rd4], %rs3;\n";
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  ASSERT_TRUE(executor);
  std::vector<uint16_t> acc(6, 0);
  std::vector<uint16_t> old(1024, 0xffff);
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{4, 1, 1}, {256, 1, 1}, 0}, pointer_params(acc.data(), old.data()));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(acc[0], 0x6400u); // f16 1024.0
  EXPECT_EQ(acc[1], 0x4380u); // bf16 256.0
  EXPECT_EQ(acc[2], 0x6400u);
  EXPECT_EQ(acc[3], 0x6400u);
  EXPECT_EQ(acc[4], 0x4380u);
  EXPECT_EQ(acc[5], 0x4380u);
  // The old values of the f16 atom are 0, 1, ..., 1023, each once (every one exact in f16).
  std::vector<int> seen(1024, 0);
  for (uint16_t bits : old) {
    ASSERT_LT(bits, 0x6400u) << bits;
    const int exponent = bits >> 10;
    const double value =
        exponent == 0 ? 0.0 : std::ldexp(1024 + (bits & 0x3ff), exponent - 25);
    ASSERT_EQ(value, std::floor(value)) << bits;
    ++seen[static_cast<size_t>(value)];
  }
  for (size_t v = 0; v < seen.size(); ++v) {
    EXPECT_EQ(seen[v], 1) << "old value " << v;
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
