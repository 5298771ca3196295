// The CPU executor: JIT set-up, launch checks, every thread run once with the right ids, barriers,
// shared memory, traps and deadlocks reported as errors (tests for compiler/cpu/executor.cpp and
// simt_block.cpp). Kernels are hand-written host IR (translate/host_abi.hpp).

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_cpu_support.hpp"

#include <gtest/gtest.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace d4r::compiler::cpu {
namespace {

using testing::executor_from_ir;
using testing::params;
using testing::signature;
using testing::translation_from_ir;

// out[g * 4 + 0] += 1, [1] = packed tid, [2] = packed ctaid, [3] = lane | warp << 8 | nwarp << 16,
// where g is the global linear thread index.
const char* k_ids_ir = R"(
define void @ids(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %a1 = getelementptr i8, ptr %t, i64 4
  %ty = load i32, ptr %a1
  %a2 = getelementptr i8, ptr %t, i64 8
  %tz = load i32, ptr %a2
  %a3 = getelementptr i8, ptr %t, i64 12
  %ntx = load i32, ptr %a3
  %a4 = getelementptr i8, ptr %t, i64 16
  %nty = load i32, ptr %a4
  %a5 = getelementptr i8, ptr %t, i64 20
  %ntz = load i32, ptr %a5
  %a6 = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %a6
  %a7 = getelementptr i8, ptr %t, i64 28
  %cy = load i32, ptr %a7
  %a8 = getelementptr i8, ptr %t, i64 32
  %cz = load i32, ptr %a8
  %a9 = getelementptr i8, ptr %t, i64 36
  %ncx = load i32, ptr %a9
  %a10 = getelementptr i8, ptr %t, i64 40
  %ncy = load i32, ptr %a10
  %a11 = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %a11
  %a12 = getelementptr i8, ptr %t, i64 52
  %warp = load i32, ptr %a12
  %a13 = getelementptr i8, ptr %t, i64 56
  %nwarp = load i32, ptr %a13
  %l0 = mul i32 %tz, %nty
  %l1 = add i32 %l0, %ty
  %l2 = mul i32 %l1, %ntx
  %lin = add i32 %l2, %tx
  %b0 = mul i32 %cz, %ncy
  %b1 = add i32 %b0, %cy
  %b2 = mul i32 %b1, %ncx
  %blin = add i32 %b2, %cx
  %s0 = mul i32 %ntx, %nty
  %bs = mul i32 %s0, %ntz
  %g0 = mul i32 %blin, %bs
  %g = add i32 %g0, %lin
  %g64 = zext i32 %g to i64
  %base = mul i64 %g64, 4
  %slot0 = getelementptr i32, ptr %out, i64 %base
  %old = atomicrmw add ptr %slot0, i32 1 seq_cst
  %slot1 = getelementptr i32, ptr %slot0, i64 1
  %ty10 = shl i32 %ty, 10
  %tz20 = shl i32 %tz, 20
  %tp0 = or i32 %tx, %ty10
  %tp = or i32 %tp0, %tz20
  store i32 %tp, ptr %slot1
  %slot2 = getelementptr i32, ptr %slot0, i64 2
  %cy10 = shl i32 %cy, 10
  %cz20 = shl i32 %cz, 20
  %cp0 = or i32 %cx, %cy10
  %cp = or i32 %cp0, %cz20
  store i32 %cp, ptr %slot2
  %slot3 = getelementptr i32, ptr %slot0, i64 3
  %w8 = shl i32 %warp, 8
  %nw16 = shl i32 %nwarp, 16
  %lw0 = or i32 %lane, %w8
  %lw = or i32 %lw0, %nw16
  store i32 %lw, ptr %slot3
  ret void
}
)";

void check_ids(Executor& executor, const LaunchShape& shape)
{
  const std::array<uint32_t, 3> g = shape.grid;
  const std::array<uint32_t, 3> b = shape.block;
  const int64_t block_threads = int64_t{b[0]} * b[1] * b[2];
  const int64_t total = int64_t{g[0]} * g[1] * g[2] * block_threads;
  std::vector<uint32_t> out(static_cast<size_t>(total * 4), 0);
  Expected<LaunchStats> stats = executor.launch("ids", shape, params(out.data()));
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->threads_run, total);
  const auto warps = static_cast<uint32_t>((block_threads + 31) / 32);
  for (int64_t i = 0; i < total; ++i) {
    const auto block = static_cast<uint32_t>(i / block_threads);
    const auto lin = static_cast<uint32_t>(i % block_threads);
    const uint32_t tid = (lin % b[0]) | (lin / b[0] % b[1]) << 10 | (lin / (b[0] * b[1])) << 20;
    const uint32_t cta = (block % g[0]) | (block / g[0] % g[1]) << 10 | (block / (g[0] * g[1])) << 20;
    const uint32_t lane = (lin % 32) | (lin / 32) << 8 | warps << 16;
    const auto at = static_cast<size_t>(i * 4);
    ASSERT_EQ(out[at], 1u) << "thread " << i << " ran " << out[at] << " times";
    ASSERT_EQ(out[at + 1], tid) << "thread " << i;
    ASSERT_EQ(out[at + 2], cta) << "thread " << i;
    ASSERT_EQ(out[at + 3], lane) << "thread " << i;
  }
}

TEST(CpuExecutor, EveryThreadRunsOnceWithItsIds)
{
  std::unique_ptr<Executor> executor =
      executor_from_ir(k_ids_ir, {signature("ids", 8)}, ExecutorOptions{.threads = 3});
  ASSERT_TRUE(executor);
  check_ids(*executor, LaunchShape{{1, 1, 1}, {1, 1, 1}, 0});
  check_ids(*executor, LaunchShape{{5, 1, 1}, {33, 1, 1}, 0});
  check_ids(*executor, LaunchShape{{3, 2, 2}, {8, 4, 3}, 0});
  check_ids(*executor, LaunchShape{{2, 3, 4}, {4, 4, 4}, 0});
  check_ids(*executor, LaunchShape{{2, 1, 1}, {1024, 1, 1}, 0});
  check_ids(*executor, LaunchShape{{1, 1, 7}, {2, 5, 64}, 0});
}

TEST(CpuExecutor, SignatureAndUnknownKernel)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_ids_ir, {signature("ids", 8)});
  ASSERT_TRUE(executor);
  ASSERT_NE(executor->signature("ids"), nullptr);
  EXPECT_EQ(executor->signature("ids")->param_bytes, 8);
  EXPECT_EQ(executor->signature("nope"), nullptr);
  Expected<LaunchStats> r = executor->launch("nope", LaunchShape{}, params(uint64_t{0}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::not_found);
  EXPECT_NE(r.error().message.find("kernel nope"), std::string::npos) << r.error().message;
}

TEST(CpuExecutor, RejectsBadLaunches)
{
  std::unique_ptr<Executor> executor = executor_from_ir(k_ids_ir, {signature("ids", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(4 * 2048, 0);
  const std::vector<std::byte> good = params(out.data());
  const std::vector<std::byte> short_params(good.begin(), good.begin() + 4);
  Expected<LaunchStats> r = executor->launch("ids", LaunchShape{}, short_params);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_NE(r.error().message.find("params are 4 bytes, the kernel takes 8"), std::string::npos)
      << r.error().message;

  r = executor->launch("ids", LaunchShape{{1, 1, 1}, {1025, 1, 1}, 0}, good);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_NE(r.error().message.find("1024"), std::string::npos) << r.error().message;

  r = executor->launch("ids", LaunchShape{{0, 1, 1}, {32, 1, 1}, 0}, good);
  ASSERT_FALSE(r);

  r = executor->launch("ids", LaunchShape{{1, 1, 1}, {32, 1, 1}, 65537}, good);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::resource_exhausted);
  EXPECT_EQ(out[0], 0u) << "a rejected launch ran";

  EXPECT_TRUE(executor->launch("ids", LaunchShape{{1, 1, 1}, {32, 1, 1}, 65536}, good));
  EXPECT_EQ(out[0], 1u);
}

TEST(CpuExecutor, StaticPlusDynamicSharedLimit)
{
  std::unique_ptr<Executor> executor =
      executor_from_ir(k_ids_ir, {signature("ids", 8, 60000, true)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(4 * 32, 0);
  Expected<LaunchStats> r = executor->launch("ids", LaunchShape{{1, 1, 1}, {32, 1, 1}, 8000},
                                             params(out.data()));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("60000 static + 8000 dynamic"), std::string::npos)
      << r.error().message;
}

TEST(CpuExecutor, ModuleThatDoesNotVerifyIsAnError)
{
  translate::Translation t;
  t.context = std::make_unique<llvm::LLVMContext>();
  t.module = std::make_unique<llvm::Module>("broken", *t.context);
  auto* ptr = llvm::PointerType::get(*t.context, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(*t.context), {ptr, ptr}, false);
  llvm::Function* f =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, "broken", *t.module);
  llvm::BasicBlock::Create(*t.context, "entry", f); // no terminator
  t.kernels.push_back(signature("broken", 0));
  Expected<std::unique_ptr<Executor>> e = Executor::create(std::move(t));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("does not verify"), std::string::npos) << e.error().message;
}

TEST(CpuExecutor, MissingSymbolAndMissingKernelAreErrors)
{
  const char* ir = R"(
declare void @d4r_no_such_function(ptr)
define void @k(ptr %params, ptr %t) {
  call void @d4r_no_such_function(ptr %t)
  ret void
}
)";
  Expected<std::unique_ptr<Executor>> e =
      Executor::create(translation_from_ir(ir, {signature("k", 0)}));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("d4r_no_such_function"), std::string::npos)
      << e.error().message;

  e = Executor::create(translation_from_ir(k_ids_ir, {signature("not_there", 8)}));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("not_there"), std::string::npos) << e.error().message;
}

TEST(CpuExecutor, CallsIntoLibm)
{
  const char* ir = R"(
declare float @cosf(float)
define void @k(ptr %params, ptr %t) {
  %out = load ptr, ptr %params
  %c = call float @cosf(float 0.5)
  store float %c, ptr %out
  ret void
}
)";
  std::unique_ptr<Executor> executor = executor_from_ir(ir, {signature("k", 8)});
  ASSERT_TRUE(executor);
  float out = 0;
  ASSERT_TRUE(executor->launch("k", LaunchShape{}, params(&out)));
  EXPECT_EQ(out, std::cos(0.5f));
}

// Shared-memory tree reduction of 256 values per block: 9 bar.sync per thread.
const char* k_reduce_ir = R"(
define void @reduce(ptr %params, ptr %t) {
entry:
  %in = load ptr, ptr %params
  %pout = getelementptr i8, ptr %params, i64 8
  %out = load ptr, ptr %pout
  %tx = load i32, ptr %t
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %psh = getelementptr i8, ptr %t, i64 64
  %sh = load ptr, ptr %psh
  %gi0 = mul i32 %cx, 256
  %gi = add i32 %gi0, %tx
  %gi64 = zext i32 %gi to i64
  %pin = getelementptr i32, ptr %in, i64 %gi64
  %v = load i32, ptr %pin
  %tx64 = zext i32 %tx to i64
  %mine = getelementptr i32, ptr %sh, i64 %tx64
  store i32 %v, ptr %mine
  call void @d4r_rt_barrier(ptr %t, i32 1, i32 0, i32 0)
  br label %loop
loop:
  %s = phi i32 [128, %entry], [%s2, %next]
  %active = icmp ult i32 %tx, %s
  br i1 %active, label %add, label %next
add:
  %o = add i32 %tx, %s
  %o64 = zext i32 %o to i64
  %po = getelementptr i32, ptr %sh, i64 %o64
  %a = load i32, ptr %mine
  %b = load i32, ptr %po
  %c = add i32 %a, %b
  store i32 %c, ptr %mine
  br label %next
next:
  call void @d4r_rt_barrier(ptr %t, i32 2, i32 0, i32 0)
  %s2 = lshr i32 %s, 1
  %done = icmp eq i32 %s2, 0
  br i1 %done, label %finish, label %loop
finish:
  %first = icmp eq i32 %tx, 0
  br i1 %first, label %write, label %exit
write:
  %r = load i32, ptr %sh
  %cx64 = zext i32 %cx to i64
  %pr = getelementptr i32, ptr %out, i64 %cx64
  store i32 %r, ptr %pr
  br label %exit
exit:
  ret void
}
)";

TEST(CpuExecutor, BarrierReductionInSharedMemory)
{
  constexpr int blocks = 24;
  std::vector<uint32_t> in(blocks * 256);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<uint32_t>(i * 2654435761u >> 7);
  }
  for (int threads : {1, 4}) {
    std::unique_ptr<Executor> executor = executor_from_ir(
        k_reduce_ir, {signature("reduce", 16, 1024)}, ExecutorOptions{.threads = threads});
    ASSERT_TRUE(executor);
    std::vector<uint32_t> out(blocks, 0);
    Expected<LaunchStats> stats = executor->launch(
        "reduce", LaunchShape{{blocks, 1, 1}, {256, 1, 1}, 0}, params(in.data(), out.data()));
    ASSERT_TRUE(stats) << stats.error().message;
    // 256 threads, each starting once and resuming after each of its 9 barriers.
    EXPECT_EQ(stats->fiber_switches, int64_t{blocks} * 256 * 10);
    for (int b = 0; b < blocks; ++b) {
      uint32_t expected = 0;
      for (int i = 0; i < 256; ++i) {
        expected += in[static_cast<size_t>(b * 256 + i)];
      }
      EXPECT_EQ(out[static_cast<size_t>(b)], expected) << "block " << b;
    }
  }
}

// Each thread reads shared[tid] (must be 0: every block starts with a zeroed window) and
// shared_bytes, then dirties its word.
const char* k_shared_probe_ir = R"(
define void @probe(ptr %params, ptr %t) {
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %psh = getelementptr i8, ptr %t, i64 64
  %sh = load ptr, ptr %psh
  %pbytes = getelementptr i8, ptr %t, i64 72
  %bytes = load i32, ptr %pbytes
  %tx64 = zext i32 %tx to i64
  %mine = getelementptr i32, ptr %sh, i64 %tx64
  %old = load i32, ptr %mine
  store i32 -1, ptr %mine
  %sum = add i32 %old, %bytes
  %g0 = mul i32 %cx, 64
  %g = add i32 %g0, %tx
  %g64 = zext i32 %g to i64
  %po = getelementptr i32, ptr %out, i64 %g64
  store i32 %sum, ptr %po
  ret void
}
)";

TEST(CpuExecutor, SharedWindowIsZeroedPerBlockAndSized)
{
  std::unique_ptr<Executor> executor = executor_from_ir(
      k_shared_probe_ir, {signature("probe", 8, 256, true)}, ExecutorOptions{.threads = 1});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(8 * 64, 7);
  ASSERT_TRUE(executor->launch("probe", LaunchShape{{8, 1, 1}, {64, 1, 1}, 100}, params(out.data())));
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i], 356u) << "thread " << i;
  }
}

// Thread 7 of block 2 traps; everyone else writes 1.
const char* k_trap_ir = R"(
define void @trapper(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %is7 = icmp eq i32 %tx, 7
  %is2 = icmp eq i32 %cx, 2
  %both = and i1 %is7, %is2
  br i1 %both, label %die, label %live
die:
  call void @d4r_rt_trap(ptr %t, i32 9)
  unreachable
live:
  %g0 = mul i32 %cx, 32
  %g = add i32 %g0, %tx
  %g64 = zext i32 %g to i64
  %po = getelementptr i32, ptr %out, i64 %g64
  store i32 1, ptr %po
  ret void
}
)";

TEST(CpuExecutor, TrapFailsTheLaunchNamingBlockAndThread)
{
  std::unique_ptr<Executor> executor = executor_from_ir(
      k_trap_ir + std::string(k_ids_ir), {signature("trapper", 8), signature("ids", 8)},
      ExecutorOptions{.threads = 2});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(4 * 32, 0);
  Expected<LaunchStats> r =
      executor->launch("trapper", LaunchShape{{4, 1, 1}, {32, 1, 1}, 0}, params(out.data()));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("trap: block (2,0,0) thread (7,0,0) at site 9"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("kernel trapper"), std::string::npos) << r.error().message;
  // Blocks before the trapping one ran to their end.
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(out[i], 1u) << i;
  }
  // The executor stays usable.
  check_ids(*executor, LaunchShape{{3, 1, 1}, {64, 1, 1}, 0});
}

// Thread 0 waits at barrier 1 while the others wait at barrier 0: no barrier can complete.
const char* k_deadlock_ir = R"(
define void @stuck(ptr %params, ptr %t) {
entry:
  %tx = load i32, ptr %t
  %first = icmp eq i32 %tx, 0
  br i1 %first, label %a, label %b
a:
  call void @d4r_rt_barrier(ptr %t, i32 11, i32 1, i32 0)
  ret void
b:
  call void @d4r_rt_barrier(ptr %t, i32 12, i32 0, i32 0)
  ret void
}
)";

TEST(CpuExecutor, BarrierDeadlockIsAnErrorNotAHang)
{
  std::unique_ptr<Executor> executor =
      executor_from_ir(k_deadlock_ir + std::string(k_ids_ir),
                       {signature("stuck", 0), signature("ids", 8)}, ExecutorOptions{.threads = 2});
  ASSERT_TRUE(executor);
  Expected<LaunchStats> r =
      executor->launch("stuck", LaunchShape{{3, 1, 1}, {64, 1, 1}, 0}, std::span<const std::byte>{});
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("deadlock: block (0,0,0)"), std::string::npos) << m;
  EXPECT_NE(m.find("bar.sync 0 at site 12 has 63 of 64"), std::string::npos) << m;
  EXPECT_NE(m.find("bar.sync 1 at site 11 has 1 of 64"), std::string::npos) << m;
  check_ids(*executor, LaunchShape{{2, 1, 1}, {64, 1, 1}, 0});
}

// An exited thread no longer counts at a barrier: half the block returns before bar.sync.
TEST(CpuExecutor, ExitedThreadsDoNotHoldABarrier)
{
  const char* ir = R"(
define void @half(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %low = icmp ult i32 %tx, 32
  br i1 %low, label %exit, label %work
work:
  call void @d4r_rt_barrier(ptr %t, i32 1, i32 0, i32 0)
  %tx64 = zext i32 %tx to i64
  %p = getelementptr i32, ptr %out, i64 %tx64
  store i32 1, ptr %p
  br label %exit
exit:
  ret void
}
)";
  std::unique_ptr<Executor> executor = executor_from_ir(ir, {signature("half", 8)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(96, 0);
  Expected<LaunchStats> r =
      executor->launch("half", LaunchShape{{1, 1, 1}, {96, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i], i < 32 ? 0u : 1u) << i;
  }
}

// bar.sync with a thread count: warps 0-1 meet at barrier 1 (count 64), warps 2-3 at barrier 2.
TEST(CpuExecutor, BarrierWithThreadCount)
{
  const char* ir = R"(
define void @pairs(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %psh = getelementptr i8, ptr %t, i64 64
  %sh = load ptr, ptr %psh
  %tx64 = zext i32 %tx to i64
  %mine = getelementptr i32, ptr %sh, i64 %tx64
  %v = add i32 %tx, 1000
  store i32 %v, ptr %mine
  %low = icmp ult i32 %tx, 64
  br i1 %low, label %a, label %b
a:
  call void @d4r_rt_barrier(ptr %t, i32 1, i32 1, i32 64)
  br label %read
b:
  call void @d4r_rt_barrier(ptr %t, i32 2, i32 2, i32 64)
  br label %read
read:
  %o = xor i32 %tx, 63
  %o64 = zext i32 %o to i64
  %po = getelementptr i32, ptr %sh, i64 %o64
  %r = load i32, ptr %po
  %pout = getelementptr i32, ptr %out, i64 %tx64
  store i32 %r, ptr %pout
  ret void
}
)";
  std::unique_ptr<Executor> executor = executor_from_ir(ir, {signature("pairs", 8, 512)});
  ASSERT_TRUE(executor);
  std::vector<uint32_t> out(128, 0);
  Expected<LaunchStats> r =
      executor->launch("pairs", LaunchShape{{1, 1, 1}, {128, 1, 1}, 0}, params(out.data()));
  ASSERT_TRUE(r) << r.error().message;
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_EQ(out[i], (i ^ 63u) + 1000u) << i;
  }
}

} // namespace
} // namespace d4r::compiler::cpu
