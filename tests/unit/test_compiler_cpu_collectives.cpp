// Warp collectives of the SIMT scheduler (compiler/cpu/simt_block.cpp): exchange (shfl), ballot,
// bar.warp.sync and gather, with divergent groups at different sites, member-mask subsets,
// partial warps, exited lanes, and warp deadlocks. Kernels are hand-written host IR.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_cpu_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace d4r::compiler::cpu {
namespace {

using testing::executor_from_ir;
using testing::params;
using testing::signature;

// Butterfly sum of tid + 1 over each warp: five exchanges at one site, lane ^ 16, 8, 4, 2, 1.
const char* k_butterfly_ir = R"(
define void @butterfly(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  %v0 = add i32 %tx, 1
  br label %loop
loop:
  %v = phi i32 [%v0, %entry], [%v2, %loop]
  %off = phi i32 [16, %entry], [%off2, %loop]
  %src = xor i32 %lane, %off
  %other = call i32 @d4r_rt_warp_exchange(ptr %t, i32 5, i32 -1, i32 %v, i32 %src)
  %v2 = add i32 %v, %other
  %off2 = lshr i32 %off, 1
  %more = icmp ne i32 %off2, 0
  br i1 %more, label %loop, label %done
done:
  %tx64 = zext i32 %tx to i64
  %p = getelementptr i32, ptr %out, i64 %tx64
  store i32 %v2, ptr %p
  ret void
}
)";

TEST(CpuCollectives, ButterflySumAcrossEachWarp)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_butterfly_ir, {signature("butterfly", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(128, 0);
  Expected<LaunchStats> r =
      executor->launch("butterfly", LaunchShape{{1, 1, 1}, {128, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t i = 0; i < 128; ++i) {
    const uint32_t warp = i / 32;
    uint32_t expected = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      expected += warp * 32 + l + 1;
    }
    EXPECT_EQ(out[i], expected) << "thread " << i;
  }
}

// Lanes 0-15 and 16-31 diverge and meet in two groups at different sites, each with its own mask.
//   low:  r = exchange(site 10, 0x0000ffff, lane * 10, lane ^ 1)
//         s = exchange(site 11, 0x0000ffff, lane + 100, 20)   ; lane 20 is not in the group
//   high: r = exchange(site 12, 0xffff0000, lane * 10, 47 - lane)
//         s = ballot(site 13, 0xffff0000, lane & 1)
const char* k_divergent_ir = R"(
define void @divergent(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  %tx2 = shl i32 %tx, 1
  %tx2_64 = zext i32 %tx2 to i64
  %pr = getelementptr i32, ptr %out, i64 %tx2_64
  %ps = getelementptr i32, ptr %pr, i64 1
  %v = mul i32 %lane, 10
  %low = icmp ult i32 %lane, 16
  br i1 %low, label %lo, label %hi
lo:
  %src1 = xor i32 %lane, 1
  %r1 = call i32 @d4r_rt_warp_exchange(ptr %t, i32 10, i32 65535, i32 %v, i32 %src1)
  %w = add i32 %lane, 100
  %s1 = call i32 @d4r_rt_warp_exchange(ptr %t, i32 11, i32 65535, i32 %w, i32 20)
  store i32 %r1, ptr %pr
  store i32 %s1, ptr %ps
  ret void
hi:
  %src2 = sub i32 47, %lane
  %r2 = call i32 @d4r_rt_warp_exchange(ptr %t, i32 12, i32 -65536, i32 %v, i32 %src2)
  %odd = and i32 %lane, 1
  %s2 = call i32 @d4r_rt_warp_ballot(ptr %t, i32 13, i32 -65536, i32 %odd)
  store i32 %r2, ptr %pr
  store i32 %s2, ptr %ps
  ret void
}
)";

TEST(CpuCollectives, DivergentGroupsAtDifferentSites)
{
  std::unique_ptr<Executor> executor =
      executor_from_ir(k_divergent_ir, {signature("divergent", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(2 * 64, 0);
  Expected<LaunchStats> r =
      executor->launch("divergent", LaunchShape{{2, 1, 1}, {32, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t got_r = out[2 * lane];
    const uint32_t got_s = out[2 * lane + 1];
    if (lane < 16) {
      EXPECT_EQ(got_r, (lane ^ 1u) * 10) << lane;
      EXPECT_EQ(got_s, lane + 100) << lane << ": a source outside the group reads the own value";
    } else {
      EXPECT_EQ(got_r, (47 - lane) * 10) << lane;
      EXPECT_EQ(got_s, 0xaaaa0000u) << lane;
    }
  }
}

// 40 threads: warp 1 is partial (8 lanes). Threads 0-3 exit first.
//   b1 = ballot(site 20, full mask, 1)                 -> the live lanes of the warp
//   lanes < 20: b2 = ballot(site 21, mask 0, lane % 3 == 0)  -> only the lanes converged there
//   lanes >= 20 wait meanwhile at bar.warp.sync(site 22, 0xfff00000)
const char* k_ballots_ir = R"(
define void @ballots(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  %early = icmp ult i32 %tx, 4
  br i1 %early, label %exit, label %body
body:
  %b1 = call i32 @d4r_rt_warp_ballot(ptr %t, i32 20, i32 -1, i32 1)
  %tx2 = shl i32 %tx, 1
  %tx2_64 = zext i32 %tx2 to i64
  %p0 = getelementptr i32, ptr %out, i64 %tx2_64
  store i32 %b1, ptr %p0
  %low = icmp ult i32 %lane, 20
  br i1 %low, label %div, label %other
div:
  %m3 = urem i32 %lane, 3
  %z = icmp eq i32 %m3, 0
  %zp = zext i1 %z to i32
  %b2 = call i32 @d4r_rt_warp_ballot(ptr %t, i32 21, i32 0, i32 %zp)
  %p1 = getelementptr i32, ptr %p0, i64 1
  store i32 %b2, ptr %p1
  br label %exit
other:
  call void @d4r_rt_warp_sync(ptr %t, i32 22, i32 -1048576)
  br label %exit
exit:
  ret void
}
)";

TEST(CpuCollectives, BallotOverLiveLanesAndConvergedGroups)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_ballots_ir, {signature("ballots", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(2 * 40, 0x12345678u);
  Expected<LaunchStats> r =
      executor->launch("ballots", LaunchShape{{1, 1, 1}, {40, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  const uint32_t warp0_b2 = 1u << 6 | 1u << 9 | 1u << 12 | 1u << 15 | 1u << 18;
  for (uint32_t tid = 4; tid < 40; ++tid) {
    const uint32_t lane = tid % 32;
    EXPECT_EQ(out[2 * tid], tid < 32 ? 0xfffffff0u : 0xffu) << tid;
    if (lane < 20) {
      EXPECT_EQ(out[2 * tid + 1], tid < 32 ? warp0_b2 : 0x49u) << tid;
    }
  }
  EXPECT_EQ(out[0], 0x12345678u) << "an exited lane wrote";
}

// Even lanes sync at site 30, odd lanes at site 31, both with the full mask (allowed on sm_70+);
// each lane writes shared[lane] before and reads shared[lane + 1] after.
TEST(CpuCollectives, WarpSyncAcrossSites)
{
  const char* ir = R"(
define void @sync(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %psh = getelementptr i8, ptr %t, i64 64
  %sh = load ptr, ptr %psh
  %tx64 = zext i32 %tx to i64
  %mine = getelementptr i32, ptr %sh, i64 %tx64
  %v = add i32 %tx, 1
  store i32 %v, ptr %mine
  %odd = and i32 %tx, 1
  %is_odd = icmp ne i32 %odd, 0
  br i1 %is_odd, label %a, label %b
a:
  call void @d4r_rt_warp_sync(ptr %t, i32 31, i32 -1)
  br label %read
b:
  call void @d4r_rt_warp_sync(ptr %t, i32 30, i32 -1)
  br label %read
read:
  %n0 = add i32 %tx, 1
  %n = and i32 %n0, 31
  %n64 = zext i32 %n to i64
  %pn = getelementptr i32, ptr %sh, i64 %n64
  %r = load i32, ptr %pn
  %po = getelementptr i32, ptr %out, i64 %tx64
  store i32 %r, ptr %po
  ret void
}
)";
  std::unique_ptr<Executor> executor = executor_from_ir(ir, {signature("sync", 8, 128)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(32, 0);
  Expected<LaunchStats> r =
      executor->launch("sync", LaunchShape{{1, 1, 1}, {32, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[lane], (lane + 1) % 32 + 1) << lane;
  }
}

// Each lane offers {lane, lane * lane}; it keeps word 1 of lane (lane + 5) % 32.
TEST(CpuCollectives, GatherFragmentsOfEveryLane)
{
  const char* ir = R"(
define void @gather(ptr %params, ptr %t) {
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  %mine = alloca [2 x i32]
  %all = alloca [64 x i32]
  store i32 %lane, ptr %mine
  %sq = mul i32 %lane, %lane
  %m1 = getelementptr i32, ptr %mine, i64 1
  store i32 %sq, ptr %m1
  call void @d4r_rt_warp_gather(ptr %t, i32 40, i32 -1, ptr %mine, i32 2, ptr %all)
  %src0 = add i32 %lane, 5
  %src = and i32 %src0, 31
  %idx0 = shl i32 %src, 1
  %idx = add i32 %idx0, 1
  %idx64 = zext i32 %idx to i64
  %pv = getelementptr i32, ptr %all, i64 %idx64
  %v = load i32, ptr %pv
  %first = load i32, ptr %all
  %check = add i32 %v, %first
  %tx64 = zext i32 %tx to i64
  %po = getelementptr i32, ptr %out, i64 %tx64
  store i32 %check, ptr %po
  ret void
}
)";
  std::unique_ptr<Executor> executor = executor_from_ir(ir, {signature("gather", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(64, 0);
  Expected<LaunchStats> r =
      executor->launch("gather", LaunchShape{{1, 1, 1}, {64, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t tid = 0; tid < 64; ++tid) {
    const uint32_t src = (tid % 32 + 5) % 32;
    EXPECT_EQ(out[tid], src * src) << tid; // word 0 of lane 0 is 0
  }
}

// Lane 3 waits at another exchange than its warp: a full-mask group can never complete.
TEST(CpuCollectives, WarpDeadlockNamesTheSites)
{
  const char* ir = R"(
define void @split(ptr %params, ptr %t) {
entry:
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  %is3 = icmp eq i32 %lane, 3
  br i1 %is3, label %a, label %b
a:
  %x = call i32 @d4r_rt_warp_exchange(ptr %t, i32 41, i32 -1, i32 1, i32 0)
  ret void
b:
  %y = call i32 @d4r_rt_warp_exchange(ptr %t, i32 40, i32 -1, i32 1, i32 0)
  ret void
}
)";
  std::unique_ptr<Executor> executor =
      executor_from_ir(ir + std::string(k_butterfly_ir), {signature("split", 0), signature("butterfly", 8)});
  ASSERT_TRUE(executor);
  Expected<LaunchStats> r = executor->launch("split", LaunchShape{{1, 1, 1}, {32, 1, 1}, 0},
                                             std::span<const std::byte>{});
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("deadlock: block (0,0,0)"), std::string::npos) << m;
  EXPECT_NE(m.find("thread (3,0,0) (warp 0 lane 3) waits at warp exchange site 41"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("waits at warp exchange site 40 for mask 0xffffffff"), std::string::npos) << m;
  std::vector<uint32_t> out(32, 0);
  EXPECT_TRUE(executor->launch("butterfly", LaunchShape{{1, 1, 1}, {32, 1, 1}, 0},
                               params(out.data())));
  EXPECT_EQ(out[0], 528u);
}

// Scheduling is deterministic: odd lanes stop at a ballot, even lanes run through; each thread
// then takes a ticket from a shared counter. Every block, on any number of OS threads, hands the
// tickets out in the same order: the even threads first (each ran to its end in thread order),
// then the odd ones once their ballot completed.
TEST(CpuCollectives, DeterministicAcrossThreadCounts)
{
  const char* ir = R"(
define void @tickets(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %psh = getelementptr i8, ptr %t, i64 64
  %sh = load ptr, ptr %psh
  %odd = and i32 %tx, 1
  %is_odd = icmp ne i32 %odd, 0
  br i1 %is_odd, label %wait, label %take
wait:
  %b = call i32 @d4r_rt_warp_ballot(ptr %t, i32 50, i32 0, i32 1)
  br label %take
take:
  %ticket = atomicrmw add ptr %sh, i32 1 seq_cst
  %g0 = mul i32 %cx, 64
  %g = add i32 %g0, %ticket
  %g64 = zext i32 %g to i64
  %po = getelementptr i32, ptr %out, i64 %g64
  store i32 %tx, ptr %po
  ret void
}
)";
  std::vector<uint32_t> expected;
  for (uint32_t b = 0; b < 16; ++b) {
    for (uint32_t parity = 0; parity < 2; ++parity) {
      for (uint32_t tx = parity; tx < 64; tx += 2) {
        expected.push_back(tx);
      }
    }
  }
  for (int threads : {1, 2, 5}) {
    std::unique_ptr<Executor> executor =
        executor_from_ir(ir, {signature("tickets", 8, 4)}, ExecutorOptions{.threads = threads});
    ASSERT_TRUE(executor);
    std::vector<uint32_t> out(64 * 16, 0);
    ASSERT_TRUE(executor->launch("tickets", LaunchShape{{16, 1, 1}, {64, 1, 1}, 0},
                                 params(out.data())));
    EXPECT_EQ(out, expected) << threads << " threads";
  }
}

// Barrier 1 with a count of 64 in a 96-thread block: warp 0 waits, warp 1 arrives and then waits,
// warp 2 arrives. Arrivals count in program order: warp 1's arrive completes warp 0's phase, so
// its own wait belongs to the next phase, which warp 2's arrive completes. Each waiter records the
// bar.red count of its phase (predicate: the thread's warp is 0), which shows the phases apart.
const char* k_phases_ir = R"(
define void @phases(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pwarp = getelementptr i8, ptr %t, i64 52
  %warp = load i32, ptr %pwarp
  %tx64 = zext i32 %tx to i64
  %po = getelementptr i32, ptr %out, i64 %tx64
  switch i32 %warp, label %w2 [i32 0, label %w0
                               i32 1, label %w1]
w0:
  %c0 = call i32 @d4r_rt_barrier_reduce(ptr %t, i32 1, i32 1, i32 64, i32 1)
  store i32 %c0, ptr %po
  ret void
w1:
  call void @d4r_rt_barrier_arrive(ptr %t, i32 2, i32 1, i32 64)
  %c1 = call i32 @d4r_rt_barrier_reduce(ptr %t, i32 3, i32 1, i32 64, i32 0)
  %c1b = add i32 %c1, 1000
  store i32 %c1b, ptr %po
  ret void
w2:
  call void @d4r_rt_barrier_arrive(ptr %t, i32 4, i32 1, i32 64)
  store i32 7, ptr %po
  ret void
}
)";

TEST(CpuCollectives, BarrierArrivalsCountInProgramOrder)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_phases_ir, {signature("phases", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(96, 0);
  Expected<LaunchStats> r =
      executor->launch("phases", LaunchShape{{3, 1, 1}, {96, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t i = 0; i < 96; ++i) {
    const uint32_t expected = i < 32 ? 32u : i < 64 ? 1000u : 7u;
    EXPECT_EQ(out[i], expected) << "thread " << i;
  }
}

// __syncthreads_count over the whole block (count 0) while a quarter of it has exited: the
// reduction counts the live threads' predicates (tid odd), and bar.red also orders memory.
const char* k_reduce_ir = R"(
define void @reduce(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %early = icmp uge i32 %tx, 96
  br i1 %early, label %exit, label %body
body:
  %odd = and i32 %tx, 1
  %c = call i32 @d4r_rt_barrier_reduce(ptr %t, i32 1, i32 0, i32 0, i32 %odd)
  %tx64 = zext i32 %tx to i64
  %po = getelementptr i32, ptr %out, i64 %tx64
  store i32 %c, ptr %po
  br label %exit
exit:
  ret void
}
)";

TEST(CpuCollectives, BarrierReductionOverTheLiveThreads)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_reduce_ir, {signature("reduce", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(128, 0);
  Expected<LaunchStats> r =
      executor->launch("reduce", LaunchShape{{1, 1, 1}, {128, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_EQ(out[i], i < 96 ? 48u : 0u) << "thread " << i;
  }
}

// activemask (a ballot naming no members) after lanes left a barrier at different times: lanes
// 0-30 first meet in a ballot of their own (site 40), lane 31 goes straight to the barrier, so
// lane 30 completes the barrier and lane 31 runs on in that round to the activemask (site 42)
// while the others have yet to leave the barrier. It must wait for them, as the H200 reconverges
// there (random program r370: 0xffffffff; the executor answered 0x80000000 and 0x7fffffff).
const char* k_late_activemask_ir = R"(
define void @late(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  %last = icmp eq i32 %lane, 31
  br i1 %last, label %meet, label %first
first:
  %b0 = call i32 @d4r_rt_warp_ballot(ptr %t, i32 40, i32 2147483647, i32 1)
  br label %meet
meet:
  call void @d4r_rt_barrier(ptr %t, i32 41, i32 0, i32 0)
  %mask = call i32 @d4r_rt_warp_ballot(ptr %t, i32 42, i32 0, i32 1)
  %tx64 = zext i32 %tx to i64
  %po = getelementptr i32, ptr %out, i64 %tx64
  store i32 %mask, ptr %po
  ret void
}
)";

TEST(CpuCollectives, ActivemaskWaitsForLanesABarrierReleased)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_late_activemask_ir, {signature("late", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(64, 0);
  Expected<LaunchStats> r =
      executor->launch("late", LaunchShape{{1, 1, 1}, {64, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t i = 0; i < 64; ++i) {
    EXPECT_EQ(out[i], 0xffffffffu) << "thread " << i;
  }
}

} // namespace
} // namespace d4r::compiler::cpu
