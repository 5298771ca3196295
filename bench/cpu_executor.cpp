// CPU executor throughput (compiler/cpu/): PTX threads per second for a grid of 64 blocks x 256
// threads, without collectives, with 8 bar.sync per thread, and with a 5-step warp butterfly;
// and the cost of one fiber switch (our x86-64 switch against ucontext's swapcontext, which makes
// a sigprocmask system call each time). Prints figures; asserts nothing.
//   build-*/bench/d4r-bench-cpu-executor [os-threads]

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/fiber.hpp"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <ucontext.h>
#include <vector>

namespace {

using d4r::compiler::cpu::Executor;
using d4r::compiler::cpu::ExecutorOptions;
using d4r::compiler::cpu::LaunchShape;
using d4r::compiler::cpu::LaunchStats;

const char* k_kernels_ir = R"(
declare void @d4r_rt_barrier(ptr, i32, i32, i32)
declare i32 @d4r_rt_warp_exchange(ptr, i32, i32, i32, i32)

define void @plain(ptr %params, ptr %t) {
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %g0 = mul i32 %cx, 256
  %g = add i32 %g0, %tx
  %v = mul i32 %g, 3
  %g64 = zext i32 %g to i64
  %p = getelementptr i32, ptr %out, i64 %g64
  store i32 %v, ptr %p
  ret void
}

define void @barriers(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %psh = getelementptr i8, ptr %t, i64 64
  %sh = load ptr, ptr %psh
  %tx64 = zext i32 %tx to i64
  %mine = getelementptr i32, ptr %sh, i64 %tx64
  store i32 %tx, ptr %mine
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i2, %loop]
  %acc = phi i32 [0, %entry], [%acc2, %loop]
  call void @d4r_rt_barrier(ptr %t, i32 1, i32 0, i32 0)
  %n0 = add i32 %tx, %i
  %n1 = add i32 %n0, 1
  %n = and i32 %n1, 255
  %n64 = zext i32 %n to i64
  %pn = getelementptr i32, ptr %sh, i64 %n64
  %v = load i32, ptr %pn
  %acc2 = add i32 %acc, %v
  %i2 = add i32 %i, 1
  %more = icmp ult i32 %i2, 8
  br i1 %more, label %loop, label %done
done:
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %g0 = mul i32 %cx, 256
  %g = add i32 %g0, %tx
  %g64 = zext i32 %g to i64
  %p = getelementptr i32, ptr %out, i64 %g64
  store i32 %acc2, ptr %p
  ret void
}

define void @butterfly(ptr %params, ptr %t) {
entry:
  %out = load ptr, ptr %params
  %tx = load i32, ptr %t
  %plane = getelementptr i8, ptr %t, i64 48
  %lane = load i32, ptr %plane
  br label %loop
loop:
  %v = phi i32 [%tx, %entry], [%v2, %loop]
  %off = phi i32 [16, %entry], [%off2, %loop]
  %src = xor i32 %lane, %off
  %other = call i32 @d4r_rt_warp_exchange(ptr %t, i32 5, i32 -1, i32 %v, i32 %src)
  %v2 = add i32 %v, %other
  %off2 = lshr i32 %off, 1
  %more = icmp ne i32 %off2, 0
  br i1 %more, label %loop, label %done
done:
  %pc = getelementptr i8, ptr %t, i64 24
  %cx = load i32, ptr %pc
  %g0 = mul i32 %cx, 256
  %g = add i32 %g0, %tx
  %g64 = zext i32 %g to i64
  %p = getelementptr i32, ptr %out, i64 %g64
  store i32 %v2, ptr %p
  ret void
}
)";

d4r::compiler::translate::KernelSignature signature(const char* name, int64_t shared)
{
  d4r::compiler::translate::KernelSignature s;
  s.name = name;
  s.params.push_back({"out", ".u64", 0, 8, 8});
  s.param_bytes = 8;
  s.static_shared_bytes = shared;
  return s;
}

std::unique_ptr<Executor> make_executor(int threads)
{
  d4r::compiler::translate::Translation t;
  t.context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic diagnostic;
  t.module = llvm::parseAssemblyString(k_kernels_ir, diagnostic, *t.context);
  if (!t.module) {
    std::fprintf(stderr, "ir: %s\n", diagnostic.getMessage().str().c_str());
    std::exit(1);
  }
  t.kernels = {signature("plain", 0), signature("barriers", 1024), signature("butterfly", 0)};
  auto e = Executor::create(std::move(t), ExecutorOptions{.threads = threads});
  if (!e) {
    std::fprintf(stderr, "%s\n", e.error().message.c_str());
    std::exit(1);
  }
  return std::move(*e);
}

void bench_kernel(Executor& executor, const char* kernel, int threads)
{
  constexpr uint32_t blocks = 64;
  std::vector<uint32_t> out(blocks * 256, 0);
  uint64_t address = reinterpret_cast<uint64_t>(out.data());
  std::vector<std::byte> params(8);
  std::memcpy(params.data(), &address, 8);
  const LaunchShape shape{{blocks, 1, 1}, {256, 1, 1}, 0};
  std::vector<double> seconds;
  LaunchStats last;
  for (int rep = 0; rep < 12; ++rep) {
    auto r = executor.launch(kernel, shape, params);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.error().message.c_str());
      std::exit(1);
    }
    last = *r;
    seconds.push_back(r->seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  std::printf("%-10s %d os-thread(s): %7.3f ms a launch (median of 12), %6.2f M threads/s, "
              "%6.1f ns a fiber switch (%lld switches)\n",
              kernel, threads, median * 1e3, static_cast<double>(last.threads_run) / median / 1e6,
              median * 1e9 / static_cast<double>(last.fiber_switches),
              static_cast<long long>(last.fiber_switches));
}

// Raw switch cost: main <-> one fiber, `rounds` round trips (2 switches each).
d4r::compiler::cpu::FiberContext g_main;
d4r::compiler::cpu::FiberContext g_fiber;
void ping(void*)
{
  for (;;) {
    d4r::compiler::cpu::fiber_switch(g_fiber, g_main);
  }
}

ucontext_t g_umain;
ucontext_t g_ufiber;
void uping()
{
  for (;;) {
    swapcontext(&g_ufiber, &g_umain);
  }
}

void bench_switch()
{
  constexpr int64_t rounds = 2'000'000;
  d4r::compiler::cpu::FiberStack stack;
  if (!stack.map(64 * 1024)) {
    std::exit(1);
  }
  d4r::compiler::cpu::fiber_make(g_fiber, stack.base(), stack.bytes(), &ping, nullptr);
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < rounds; ++i) {
    d4r::compiler::cpu::fiber_switch(g_main, g_fiber);
  }
  const double ours =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  d4r::compiler::cpu::FiberStack ustack;
  if (!ustack.map(64 * 1024)) {
    std::exit(1);
  }
  getcontext(&g_ufiber);
  g_ufiber.uc_stack.ss_sp = ustack.base();
  g_ufiber.uc_stack.ss_size = static_cast<size_t>(ustack.bytes());
  makecontext(&g_ufiber, &uping, 0);
  constexpr int64_t urounds = rounds / 10;
  start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < urounds; ++i) {
    swapcontext(&g_umain, &g_ufiber);
  }
  const double theirs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fiber switch: %.1f ns (hand-rolled x86-64), %.1f ns (ucontext swapcontext), "
              "ratio %.1fx\n",
              ours * 1e9 / (2.0 * rounds), theirs * 1e9 / (2.0 * urounds),
              (theirs / urounds) / (ours / rounds));
}

} // namespace

int main(int argc, char** argv)
{
  bench_switch();
  const int machine = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> thread_counts = {1};
  if (argc > 1) {
    thread_counts = {std::atoi(argv[1])};
  } else if (machine > 1) {
    thread_counts.push_back(machine);
  }
  for (int threads : thread_counts) {
    std::unique_ptr<Executor> executor = make_executor(threads);
    for (const char* kernel : {"plain", "barriers", "butterfly"}) {
      bench_kernel(*executor, kernel, threads);
    }
  }
  return 0;
}
