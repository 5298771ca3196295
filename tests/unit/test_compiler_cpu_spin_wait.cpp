// Spin waits on the SIMT scheduler (compiler/cpu/simt_block.cpp rule 5): a thread whose wait
// failed calls d4r_rt_yield and resumes after the other runnable threads ran once, so a loop that
// waits for a later thread of the block ends (before the rule, the fiber never stopped: a hang);
// a spin nobody can end is a deadlock error after the idle rounds, and a long spin while another
// thread keeps working is not. Kernels are hand-written host IR.

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

// The last thread of the block sets a shared flag to 5; every other thread spins on it first.
// out[tid] = flag + tid.
const char* k_flag_ir = R"(
declare void @d4r_rt_yield(ptr, i32, i64)
define void @flag(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pntid = getelementptr i8, ptr %t, i64 12
  %ntid = load i32, ptr %pntid
  %pshared = getelementptr i8, ptr %t, i64 64
  %shared = load ptr, ptr %pshared
  %last = sub i32 %ntid, 1
  %is_last = icmp eq i32 %tx, %last
  br i1 %is_last, label %set, label %spin
set:
  store atomic i32 5, ptr %shared release, align 4
  br label %done
spin:
  %v = load atomic i32, ptr %shared acquire, align 4
  %ready = icmp ne i32 %v, 0
  br i1 %ready, label %done, label %yield
yield:
  %w = zext i32 %v to i64
  call void @d4r_rt_yield(ptr %t, i32 7, i64 %w)
  br label %spin
done:
  %f = load atomic i32, ptr %shared acquire, align 4
  %r = add i32 %f, %tx
  %idx = zext i32 %tx to i64
  %slot = getelementptr i32, ptr %out, i64 %idx
  store i32 %r, ptr %slot
  ret void
}
)";

TEST(CpuSpinWait, SpinningThreadsLetTheLaterThreadRun)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_flag_ir, {signature("flag", 8, 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(96, 0);
  Expected<LaunchStats> r =
      executor->launch("flag", LaunchShape{{2, 1, 1}, {96, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t i = 0; i < 96; ++i) {
    EXPECT_EQ(out[i], 5 + i) << i;
  }
}

// Nobody sets the flag: every thread spins on an unchanged word.
const char* k_stuck_ir = R"(
declare void @d4r_rt_yield(ptr, i32, i64)
define void @stuck(ptr %params, ptr %t) {
entry:
  %pshared = getelementptr i8, ptr %t, i64 64
  %shared = load ptr, ptr %pshared
  br label %spin
spin:
  %v = load atomic i32, ptr %shared acquire, align 4
  %ready = icmp ne i32 %v, 0
  br i1 %ready, label %done, label %yield
yield:
  %w = zext i32 %v to i64
  call void @d4r_rt_yield(ptr %t, i32 11, i64 %w)
  br label %spin
done:
  ret void
}
)";

TEST(CpuSpinWait, ASpinNobodyCanEndIsADeadlock)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_stuck_ir, {signature("stuck", 8, 8)});
  ASSERT_TRUE(executor);
  Expected<LaunchStats> r =
      executor->launch("stuck", LaunchShape{{1, 1, 1}, {40, 1, 1}, 0}, params(uint64_t{0}));
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("deadlock: block (0,0,0): every running thread spins on an mbarrier that no "
                   "thread changes; thread (0,0,0) at site 11 sees 0x0000000000000000;"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("0 threads exited"), std::string::npos) << m;
}

// Thread 1 counts a shared word to 1000, yielding after each step (what it sees changes every
// time); thread 0 spins on a second word, unchanged for those 1000 rounds, that thread 1 sets at
// the end. Rounds with a busy thread are not idle, so this is no deadlock.
const char* k_long_ir = R"(
declare void @d4r_rt_yield(ptr, i32, i64)
define void @long(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pshared = getelementptr i8, ptr %t, i64 64
  %shared = load ptr, ptr %pshared
  %flag = getelementptr i8, ptr %shared, i64 4
  %is0 = icmp eq i32 %tx, 0
  br i1 %is0, label %spin, label %count
count:
  %c = load i32, ptr %shared
  %c1 = add i32 %c, 1
  store i32 %c1, ptr %shared
  %more = icmp ult i32 %c1, 1000
  br i1 %more, label %step, label %finish
step:
  %w1 = zext i32 %c1 to i64
  call void @d4r_rt_yield(ptr %t, i32 3, i64 %w1)
  br label %count
finish:
  store atomic i32 1, ptr %flag release, align 4
  ret void
spin:
  %v = load atomic i32, ptr %flag acquire, align 4
  %ready = icmp ne i32 %v, 0
  br i1 %ready, label %done, label %yield
yield:
  %w = zext i32 %v to i64
  call void @d4r_rt_yield(ptr %t, i32 4, i64 %w)
  br label %spin
done:
  %n = load i32, ptr %shared
  store i32 %n, ptr %out
  ret void
}
)";

TEST(CpuSpinWait, ALongSpinBesideAWorkingThreadIsNoDeadlock)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_long_ir, {signature("long", 8, 8)});
  ASSERT_TRUE(executor);
  uint32_t out = 0;
  Expected<LaunchStats> r =
      executor->launch("long", LaunchShape{{1, 1, 1}, {2, 1, 1}, 0}, params(&out));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(out, 1000U);
}

// Lane 0 spins until lane 1 sets a flag; lane 1 first asks for the active mask (a collective
// naming no members) and sets the flag after it. The spinning lane is not converging toward the
// activemask, so lane 1 gets its answer without it (bit 1 only) instead of a deadlock.
const char* k_activemask_ir = R"(
declare void @d4r_rt_yield(ptr, i32, i64)
define void @mask(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pshared = getelementptr i8, ptr %t, i64 64
  %shared = load ptr, ptr %pshared
  %is0 = icmp eq i32 %tx, 0
  br i1 %is0, label %spin, label %ask
ask:
  %m = call i32 @d4r_rt_warp_ballot(ptr %t, i32 5, i32 0, i32 1)
  store i32 %m, ptr %out
  store atomic i32 1, ptr %shared release, align 4
  ret void
spin:
  %v = load atomic i32, ptr %shared acquire, align 4
  %ready = icmp ne i32 %v, 0
  br i1 %ready, label %done, label %yield
yield:
  %w = zext i32 %v to i64
  call void @d4r_rt_yield(ptr %t, i32 6, i64 %w)
  br label %spin
done:
  ret void
}
)";

TEST(CpuSpinWait, ASpinningLaneDoesNotHoldAnActivemask)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_activemask_ir, {signature("mask", 8, 8)});
  ASSERT_TRUE(executor);
  uint32_t out = 0;
  Expected<LaunchStats> r =
      executor->launch("mask", LaunchShape{{1, 1, 1}, {2, 1, 1}, 0}, params(&out));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(out, 2U);
}

} // namespace
} // namespace d4r::compiler::cpu
