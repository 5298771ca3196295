#pragma once
// One thread block of a launch, run by one OS thread as a set of fibers (one per PTX thread), and
// the deterministic SIMT scheduler that completes its collectives (translate/host_abi.hpp):
//
//   1. Every runnable fiber runs, in linear thread order, until it exits or blocks in a
//      collective runtime call (bar.sync, a warp exchange/ballot/sync/gather) or traps.
//   2. A barrier phase completes the moment its last thread arrives (bar.sync, bar.red or
//      bar.arrive; `count` threads, or all non-exited threads of the block for count 0), so
//      arrivals count in program order: an arrive after a completed phase belongs to the next one.
//      Its waiters become runnable; the thread that completed it still yields once, so every
//      waiter resumes in thread order in the next round. bar.arrive is a warp collective (mask 0:
//      the lanes converged there) that adds its lanes' arrivals when it completes, as hardware
//      counts a warp's arrival at once: a warp that arrives and then waits at the same barrier
//      never lands in two phases.
//   3. When none is runnable, every group that can complete does: a count-0 barrier whose other
//      threads exited; a warp group at a site when every non-exited lane of its member mask waits
//      there (mask 0: whoever of the warp waits there, which is the set of lanes converged at that
//      instruction). bar.warp.sync lanes with the same mask also meet across sites, as sm_70+
//      allows.
//   4. If nothing completed, the block is deadlocked: an error naming the block and the sites.
//   5. A spin wait that fails (mbarrier.test_wait / try_wait) yields: the thread stays runnable
//      and resumes in the next round, after every other runnable thread has run once, so the
//      threads it waits for move. A round in which every thread that ran only yielded again
//      where it saw the same barrier word as at its last yield changes nothing; after
//      k_idle_rounds such rounds in a row (a true deadlock: nobody left to arrive) the launch
//      fails with an error naming the spinning threads.
//
// The order never depends on timing, so a block's results are reproducible run after run.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/fiber.hpp"
#include "compiler/translate/host_abi.hpp"
#include "util/error.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler::cpu {

// The site of a trap that no instruction number names (an image access's .trap mode).
constexpr uint32_t k_no_site = 0xffffffffu;

using KernelFunction = void (*)(const uint8_t* params, d4r_host_thread* thread);

enum class WaitKind : uint8_t { none, barrier, arrive, exchange, ballot, warp_sync, gather };
enum class FiberState : uint8_t { runnable, waiting, exited };

// One PTX thread: what the IR sees (d4r_host_thread) and what the scheduler keeps.
struct SimtThread {
  d4r_host_thread thread{};
  FiberContext context{};
  FiberState state = FiberState::runnable;
  WaitKind wait = WaitKind::none;
  uint32_t site = 0;
  uint32_t barrier_id = 0;
  uint32_t count = 0;
  uint32_t member_mask = 0;
  uint32_t value = 0;       // exchange: this lane's value; ballot: its predicate
  uint32_t source_lane = 0; // exchange
  uint32_t words = 0;       // gather
  const uint32_t* gather_in = nullptr;
  uint32_t* gather_out = nullptr;
  uint32_t result = 0;      // exchange, ballot, bar.red
  // Spin waits: where this thread last yielded, what it saw there, and whether its last switch
  // back to the scheduler was a yield that saw nothing new.
  uint32_t spin_site = 0;
  uint64_t spin_observed = 0;
  bool spinning = false;
  bool idle = false;
};

// The current phase of one named barrier.
struct BarrierPhase {
  int64_t arrived = 0;      // waiters and bar.arrive callers
  int64_t arrive_only = 0;  // of which bar.arrive
  uint32_t count = 0;       // the largest count given; 0: the whole block
  uint32_t popc = 0;        // bar.red: waiters with a true predicate
};

struct BlockCounters {
  int64_t threads_run = 0;
  int64_t fiber_switches = 0;
};

class SimtBlock {
public:
  explicit SimtBlock(int64_t stack_bytes) : m_stacks(stack_bytes) {}
  SimtBlock(const SimtBlock&) = delete;
  SimtBlock& operator=(const SimtBlock&) = delete;

  // Runs block `ctaid` of `shape` to its end. Errors: deadlock, trap, no memory for stacks.
  [[nodiscard]] Expected<void> run(KernelFunction kernel, const uint8_t* params,
                                   const LaunchShape& shape, uint32_t shared_bytes,
                                   std::array<uint32_t, 3> ctaid, BlockCounters& counters);

  // Called on a fiber by the d4r_rt_* functions; each returns once its group completed.
  // bar.sync and bar.red: returns the phase's predicate count (see BarrierPhase::popc).
  uint32_t barrier(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id, uint32_t count,
                   uint32_t predicate);
  // bar.arrive: returns once the lanes converged with the caller have arrived too.
  void arrive(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id, uint32_t count);
  uint32_t exchange(d4r_host_thread* thread, uint32_t site, uint32_t member_mask, uint32_t value,
                    uint32_t source_lane);
  uint32_t ballot(d4r_host_thread* thread, uint32_t site, uint32_t member_mask, uint32_t predicate);
  void warp_sync(d4r_host_thread* thread, uint32_t site, uint32_t member_mask);
  void gather(d4r_host_thread* thread, uint32_t site, uint32_t member_mask, const uint32_t* mine,
              uint32_t words, uint32_t* out);
  // A failed spin wait: returns after every other runnable thread ran once (rule 5).
  void yield(d4r_host_thread* thread, uint32_t site, uint64_t observed);
  // Whether `address` is in the fiber stack of `thread` (isspacep.local).
  bool on_stack(const d4r_host_thread* thread, uint64_t address);
  // Ends the launch with an error naming the block and thread; never returns to the fiber.
  [[noreturn]] void trap(d4r_host_thread* thread, uint32_t site, std::string_view reason);

private:
  static void fiber_entry(void* argument);
  SimtThread& self(d4r_host_thread* thread);
  void park(SimtThread& thread, WaitKind kind, uint32_t site, uint32_t member_mask);
  void block_on(SimtThread& thread, WaitKind kind, uint32_t site, uint32_t member_mask);
  void check_barrier(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id);
  BarrierPhase& arrive_at(uint32_t barrier_id, uint32_t count);
  bool complete_barrier(uint32_t barrier_id);
  bool any_runnable() const;
  void setup_threads(const LaunchShape& shape, std::array<uint32_t, 3> ctaid, uint32_t shared_bytes);
  [[nodiscard]] Expected<void> schedule(BlockCounters& counters);
  bool complete_barriers();
  bool complete_warp(int64_t warp);
  bool release_ready_groups(int64_t warp, uint32_t live, bool maskless);
  bool complete_warp_sync_across_sites(int64_t warp, uint32_t live_lanes);
  void release_group(int64_t warp, uint32_t group);
  std::string deadlock_message() const;
  std::string spin_deadlock_message() const;
  std::string block_name() const;

  StackPool m_stacks;
  std::vector<SimtThread> m_threads;
  std::array<BarrierPhase, 16> m_phases{}; // PTX's named barriers 0-15
  // 64-byte aligned: the IR may load .align 16 shared vectors with aligned instructions.
  struct AlignedDelete {
    void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<uint8_t[], AlignedDelete> m_shared;
  int64_t m_shared_capacity = 0;
  FiberContext m_scheduler{};
  KernelFunction m_kernel = nullptr;
  const uint8_t* m_params = nullptr;
  std::array<uint32_t, 3> m_ctaid{};
  int64_t m_live = 0;
  bool m_trapped = false;
  std::string m_trap_message;
};

} // namespace d4r::compiler::cpu
