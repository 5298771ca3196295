#include "compiler/cpu/simt_block.hpp"
// The SIMT scheduler of one block (see the header for the rules) and the collective d4r_rt_*
// functions of translate/host_abi.hpp, which hand control back to it.

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <limits>
#include <new>

// The IR addresses the thread struct by these offsets (host_abi.hpp); keep them fixed.
static_assert(offsetof(d4r_host_thread, tid) == 0);
static_assert(offsetof(d4r_host_thread, ntid) == 12);
static_assert(offsetof(d4r_host_thread, ctaid) == 24);
static_assert(offsetof(d4r_host_thread, nctaid) == 36);
static_assert(offsetof(d4r_host_thread, laneid) == 48);
static_assert(offsetof(d4r_host_thread, warpid) == 52);
static_assert(offsetof(d4r_host_thread, nwarpid) == 56);
static_assert(offsetof(d4r_host_thread, lanemask_eq) == 60);
static_assert(offsetof(d4r_host_thread, shared) == 64);
static_assert(offsetof(d4r_host_thread, shared_bytes) == 72);
static_assert(offsetof(d4r_host_thread, runtime) == 80);
static_assert(sizeof(d4r_host_thread) == 88);

namespace d4r::compiler::cpu {
namespace {

constexpr int64_t k_warp_size = 32;

std::string hex(uint32_t value)
{
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

std::string triple(const uint32_t* xyz)
{
  return "(" + std::to_string(xyz[0]) + "," + std::to_string(xyz[1]) + "," +
         std::to_string(xyz[2]) + ")";
}

const char* wait_name(WaitKind kind)
{
  switch (kind) {
  case WaitKind::none:
    return "none";
  case WaitKind::barrier:
    return "bar.sync";
  case WaitKind::arrive:
    return "bar.arrive";
  case WaitKind::exchange:
    return "warp exchange";
  case WaitKind::ballot:
    return "warp ballot";
  case WaitKind::warp_sync:
    return "bar.warp.sync";
  case WaitKind::gather:
    return "warp gather";
  }
  return "?";
}

} // namespace

Expected<void> SimtBlock::run(KernelFunction kernel, const uint8_t* params, const LaunchShape& shape,
                              uint32_t shared_bytes, std::array<uint32_t, 3> ctaid,
                              BlockCounters& counters)
{
  const int64_t threads = int64_t{shape.block[0]} * shape.block[1] * shape.block[2];
  if (!m_stacks.reserve(threads)) {
    return make_error(ErrorCode::resource_exhausted,
                      "executor: no memory for " + std::to_string(threads) + " fiber stacks");
  }
  const int64_t shared_capacity = std::max<int64_t>(shared_bytes, 16);
  if (shared_capacity > m_shared_capacity) {
    m_shared.reset(static_cast<uint8_t*>(
        ::operator new[](static_cast<size_t>(shared_capacity), std::align_val_t{64})));
    m_shared_capacity = shared_capacity;
  }
  std::memset(m_shared.get(), 0, static_cast<size_t>(shared_bytes));
  m_kernel = kernel;
  m_params = params;
  m_ctaid = ctaid;
  m_trapped = false;
  m_trap_message.clear();
  m_phases = {};
  setup_threads(shape, ctaid, shared_bytes);
  return schedule(counters);
}

void SimtBlock::setup_threads(const LaunchShape& shape, std::array<uint32_t, 3> ctaid,
                              uint32_t shared_bytes)
{
  const int64_t threads = int64_t{shape.block[0]} * shape.block[1] * shape.block[2];
  m_threads.resize(static_cast<size_t>(threads));
  const auto warps = static_cast<uint32_t>((threads + k_warp_size - 1) / k_warp_size);
  for (int64_t i = 0; i < threads; ++i) {
    SimtThread& t = m_threads[static_cast<size_t>(i)];
    t = SimtThread{};
    const auto linear = static_cast<uint32_t>(i);
    t.thread.tid[0] = linear % shape.block[0];
    t.thread.tid[1] = linear / shape.block[0] % shape.block[1];
    t.thread.tid[2] = linear / (shape.block[0] * shape.block[1]);
    for (int d = 0; d < 3; ++d) {
      t.thread.ntid[d] = shape.block[static_cast<size_t>(d)];
      t.thread.ctaid[d] = ctaid[static_cast<size_t>(d)];
      t.thread.nctaid[d] = shape.grid[static_cast<size_t>(d)];
    }
    t.thread.laneid = linear % k_warp_size;
    t.thread.warpid = linear / k_warp_size;
    t.thread.nwarpid = warps;
    t.thread.lanemask_eq = 1u << t.thread.laneid;
    t.thread.shared = m_shared.get();
    t.thread.shared_bytes = shared_bytes;
    t.thread.runtime = this;
    // Stack tops staggered by 64-byte lines: equal offsets in page-aligned stacks would all map
    // to the same L1 cache sets.
    FiberStack& stack = m_stacks.stack(i);
    const int64_t stagger = (i % 61) * 64;
    fiber_make(t.context, stack.base(), stack.bytes() - stagger, &SimtBlock::fiber_entry, &t);
  }
  m_live = threads;
}

bool SimtBlock::on_stack(const d4r_host_thread* thread, uint64_t address)
{
  const uint32_t* tid = thread->tid;
  const uint32_t* ntid = thread->ntid;
  const int64_t linear = tid[0] + int64_t{ntid[0]} * (tid[1] + int64_t{ntid[1]} * tid[2]);
  const FiberStack& stack = m_stacks.stack(linear);
  const auto base = reinterpret_cast<uint64_t>(stack.base());
  return address - base < static_cast<uint64_t>(stack.bytes());
}

void SimtBlock::fiber_entry(void* argument)
{
  auto* t = static_cast<SimtThread*>(argument);
  auto* block = static_cast<SimtBlock*>(t->thread.runtime);
  block->m_kernel(block->m_params, &t->thread);
  t->state = FiberState::exited;
  t->wait = WaitKind::none;
  --block->m_live;
  fiber_switch(t->context, block->m_scheduler);
  __builtin_trap(); // an exited fiber is never resumed
}

Expected<void> SimtBlock::schedule(BlockCounters& counters)
{
  // Rule 5: rounds in a row in which every thread that ran only spun on unchanged barrier words.
  constexpr int64_t k_idle_rounds = 256;
  int64_t idle_rounds = 0;
  counters.threads_run += static_cast<int64_t>(m_threads.size());
  for (;;) {
    bool all_idle = true;
    for (SimtThread& t : m_threads) {
      if (t.state != FiberState::runnable) {
        continue;
      }
      t.idle = false;
      fiber_switch(m_scheduler, t.context);
      ++counters.fiber_switches;
      if (m_trapped) {
        return make_error(ErrorCode::rejected, m_trap_message);
      }
      all_idle = all_idle && t.idle;
    }
    if (m_live == 0) {
      return {};
    }
    // Threads a barrier released during the round run in the next one.
    bool completed = complete_barriers();
    const auto warps = static_cast<int64_t>((m_threads.size() + k_warp_size - 1) / k_warp_size);
    for (int64_t w = 0; w < warps; ++w) {
      completed = complete_warp(w) || completed;
    }
    const bool runnable = any_runnable();
    if (!runnable && !completed) {
      return make_error(ErrorCode::rejected, deadlock_message());
    }
    idle_rounds = all_idle && !completed ? idle_rounds + 1 : 0;
    if (idle_rounds >= k_idle_rounds) {
      return make_error(ErrorCode::rejected, spin_deadlock_message());
    }
  }
}

SimtThread& SimtBlock::self(d4r_host_thread* thread)
{
  const size_t index = size_t{thread->warpid} * k_warp_size + thread->laneid;
  assert(index < m_threads.size() && &m_threads[index].thread == thread && "foreign thread");
  return m_threads[index];
}

bool SimtBlock::any_runnable() const
{
  return std::any_of(m_threads.begin(), m_threads.end(),
                     [](const SimtThread& t) { return t.state == FiberState::runnable; });
}

void SimtBlock::park(SimtThread& t, WaitKind kind, uint32_t site, uint32_t member_mask)
{
  t.state = FiberState::waiting;
  t.wait = kind;
  t.site = site;
  t.member_mask = member_mask;
}

void SimtBlock::block_on(SimtThread& t, WaitKind kind, uint32_t site, uint32_t member_mask)
{
  park(t, kind, site, member_mask);
  fiber_switch(t.context, m_scheduler);
}

// An id PTX does not have traps.
void SimtBlock::check_barrier(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id)
{
  if (barrier_id >= m_phases.size()) {
    trap(thread, site, "barrier " + std::to_string(barrier_id) + " does not exist (0-15)");
  }
}

// The phase of `barrier_id` with one more arrival of `count`.
BarrierPhase& SimtBlock::arrive_at(uint32_t barrier_id, uint32_t count)
{
  BarrierPhase& phase = m_phases[barrier_id];
  ++phase.arrived;
  phase.count = std::max(phase.count, count);
  return phase;
}

uint32_t SimtBlock::barrier(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id,
                            uint32_t count, uint32_t predicate)
{
  SimtThread& t = self(thread);
  check_barrier(thread, site, barrier_id);
  BarrierPhase& phase = arrive_at(barrier_id, count);
  phase.popc += predicate != 0 ? 1 : 0;
  t.barrier_id = barrier_id;
  t.count = count;
  park(t, WaitKind::barrier, site, 0);
  complete_barrier(barrier_id);
  fiber_switch(t.context, m_scheduler);
  return t.result;
}

void SimtBlock::arrive(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id, uint32_t count)
{
  SimtThread& t = self(thread);
  check_barrier(thread, site, barrier_id);
  t.barrier_id = barrier_id;
  t.count = count;
  block_on(t, WaitKind::arrive, site, 0);
}

uint32_t SimtBlock::exchange(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                             uint32_t value, uint32_t source_lane)
{
  SimtThread& t = self(thread);
  t.value = value;
  t.source_lane = source_lane;
  block_on(t, WaitKind::exchange, site, member_mask);
  return t.result;
}

uint32_t SimtBlock::ballot(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                           uint32_t predicate)
{
  SimtThread& t = self(thread);
  t.value = predicate != 0 ? 1 : 0;
  block_on(t, WaitKind::ballot, site, member_mask);
  return t.result;
}

void SimtBlock::warp_sync(d4r_host_thread* thread, uint32_t site, uint32_t member_mask)
{
  block_on(self(thread), WaitKind::warp_sync, site, member_mask);
}

void SimtBlock::gather(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                       const uint32_t* mine, uint32_t words, uint32_t* out)
{
  SimtThread& t = self(thread);
  t.gather_in = mine;
  t.words = words;
  t.gather_out = out;
  block_on(t, WaitKind::gather, site, member_mask);
}

// The thread stays runnable, so the scheduler's round goes on to the next thread and comes back
// to this one in the next round. It is idle when it saw what it saw at its last yield there.
void SimtBlock::yield(d4r_host_thread* thread, uint32_t site, uint64_t observed)
{
  SimtThread& t = self(thread);
  t.idle = t.spinning && t.spin_site == site && t.spin_observed == observed;
  t.spinning = true;
  t.spin_site = site;
  t.spin_observed = observed;
  fiber_switch(t.context, m_scheduler);
}

void SimtBlock::trap(d4r_host_thread* thread, uint32_t site, std::string_view reason)
{
  SimtThread& t = self(thread);
  m_trapped = true;
  m_trap_message = "trap: block " + block_name() + " thread " + triple(thread->tid);
  if (site != k_no_site) {
    m_trap_message += " at site " + std::to_string(site);
  }
  m_trap_message += ": " + std::string(reason);
  t.state = FiberState::exited;
  fiber_switch(t.context, m_scheduler);
  __builtin_trap(); // a trapped fiber is never resumed
}

std::string SimtBlock::block_name() const
{
  return triple(m_ctaid.data());
}

// Completes the phase of `barrier_id` if enough threads arrived: its waiters get the phase's
// predicate count and become runnable, and the next phase starts empty.
bool SimtBlock::complete_barrier(uint32_t barrier_id)
{
  BarrierPhase& phase = m_phases[barrier_id];
  const int64_t needed = phase.count == 0 ? m_live : int64_t{phase.count};
  if (phase.arrived == 0 || phase.arrived < needed) {
    return false;
  }
  for (SimtThread& t : m_threads) {
    if (t.state == FiberState::waiting && t.wait == WaitKind::barrier &&
        t.barrier_id == barrier_id) {
      t.result = phase.popc;
      t.state = FiberState::runnable;
      t.wait = WaitKind::none;
    }
  }
  phase = BarrierPhase{};
  return true;
}

// Count-0 phases that threads exiting since their last arrival have made complete.
bool SimtBlock::complete_barriers()
{
  bool progress = false;
  for (uint32_t id = 0; id < m_phases.size(); ++id) {
    progress = complete_barrier(id) || progress;
  }
  return progress;
}

bool SimtBlock::complete_warp(int64_t warp)
{
  const size_t first = static_cast<size_t>(warp * k_warp_size);
  const size_t end = std::min(m_threads.size(), first + k_warp_size);
  uint32_t live = 0;
  bool collective = false;
  bool movable = false;
  for (size_t i = first; i < end; ++i) {
    const SimtThread& t = m_threads[i];
    if (t.state != FiberState::exited) {
      live |= 1u << (i - first);
    }
    collective = collective || (t.state == FiberState::waiting && t.wait != WaitKind::barrier &&
                                t.wait != WaitKind::none);
    // A lane spinning on an unchanged mbarrier word (rule 5) moves nothing until others do.
    movable = movable || (t.state == FiberState::runnable && !t.idle);
  }
  if (!collective) {
    return false;
  }
  // A collective that names its members (shfl.sync, vote.sync, ...) goes as soon as they are all
  // there. One that names none (activemask, vote without .sync) answers for the lanes that reach
  // it together, so it goes only when nothing else in the warp can move: lanes held at another
  // collective first catch up, as they would in a converged warp (the H200 answers activemask
  // with every lane after a shfl.sync of some of them). Lanes still running (a barrier released
  // them in this round) are not held anywhere yet: they run first, so lanes that left a divergent
  // loop or a barrier at different times meet again, as on the H200 (random program r370: every
  // lane in activemask after per-lane loops and a bar.red the last lanes completed). A lane that
  // only spins in a wait loop is not running toward the collective: the others go without it.
  bool moved = release_ready_groups(warp, live, false);
  moved = complete_warp_sync_across_sites(warp, live) || moved;
  return moved || (!movable && release_ready_groups(warp, live, true));
}

// The groups of lanes waiting at one collective site that can go: every group whose members are
// all there (`maskless` false), or else the one group that names no members and comes first in
// the program (sites are numbered in program order), so that lanes which skipped ahead wait for
// the others to reach them.
bool SimtBlock::release_ready_groups(int64_t warp, uint32_t live, bool maskless)
{
  const size_t first = static_cast<size_t>(warp * k_warp_size);
  const size_t end = std::min(m_threads.size(), first + k_warp_size);
  bool progress = false;
  uint32_t seen = 0;
  uint32_t first_maskless = 0;
  uint32_t first_maskless_site = std::numeric_limits<uint32_t>::max();
  for (size_t i = first; i < end; ++i) {
    const SimtThread& t = m_threads[i];
    if ((seen >> (i - first) & 1u) != 0 || t.state != FiberState::waiting ||
        t.wait == WaitKind::barrier || t.wait == WaitKind::none) {
      continue;
    }
    uint32_t group = 0;
    uint32_t required = 0;
    bool whoever = false;
    for (size_t j = i; j < end; ++j) {
      const SimtThread& u = m_threads[j];
      if (u.state == FiberState::waiting && u.wait == t.wait && u.site == t.site) {
        group |= 1u << (j - first);
        required |= u.member_mask;
        whoever = whoever || u.member_mask == 0;
      }
    }
    seen |= group;
    if (whoever && maskless && t.site < first_maskless_site) {
      first_maskless = group;
      first_maskless_site = t.site;
    }
    if (whoever || maskless || (required & live & ~group) != 0) {
      continue;
    }
    release_group(warp, group);
    progress = true;
  }
  if (first_maskless != 0) {
    release_group(warp, first_maskless);
    progress = true;
  }
  return progress;
}

// sm_70+: the lanes of a bar.warp.sync mask may wait at different bar.warp.sync instructions.
bool SimtBlock::complete_warp_sync_across_sites(int64_t warp, uint32_t live_lanes)
{
  const size_t first = static_cast<size_t>(warp * k_warp_size);
  const size_t end = std::min(m_threads.size(), first + k_warp_size);
  bool progress = false;
  for (size_t i = first; i < end; ++i) {
    const SimtThread& t = m_threads[i];
    if (t.state != FiberState::waiting || t.wait != WaitKind::warp_sync || t.member_mask == 0) {
      continue;
    }
    const uint32_t mask = t.member_mask;
    uint32_t group = 0;
    for (size_t j = first; j < end; ++j) {
      const SimtThread& u = m_threads[j];
      if (u.state == FiberState::waiting && u.wait == WaitKind::warp_sync && u.member_mask == mask) {
        group |= 1u << (j - first);
      }
    }
    if ((mask & live_lanes & ~group) != 0) {
      continue;
    }
    release_group(warp, group);
    progress = true;
  }
  return progress;
}

void SimtBlock::release_group(int64_t warp, uint32_t group)
{
  const size_t first = static_cast<size_t>(warp * k_warp_size);
  uint32_t ballot = 0;
  for (uint32_t lane = 0; lane < k_warp_size; ++lane) {
    if ((group >> lane & 1u) != 0 && m_threads[first + lane].value != 0) {
      ballot |= 1u << lane;
    }
  }
  for (uint32_t lane = 0; lane < k_warp_size; ++lane) {
    if ((group >> lane & 1u) == 0) {
      continue;
    }
    SimtThread& t = m_threads[first + lane];
    switch (t.wait) {
    case WaitKind::exchange: {
      const uint32_t source = t.source_lane;
      const bool present = source < k_warp_size && (group >> source & 1u) != 0;
      t.result = present ? m_threads[first + source].value : t.value;
      break;
    }
    case WaitKind::ballot:
      t.result = ballot;
      break;
    case WaitKind::gather:
      for (uint32_t other = 0; other < k_warp_size; ++other) {
        const bool present = (group >> other & 1u) != 0;
        const SimtThread& o = m_threads[first + other];
        for (uint32_t w = 0; w < t.words; ++w) {
          t.gather_out[other * t.words + w] = present && w < o.words ? o.gather_in[w] : 0;
        }
      }
      break;
    case WaitKind::arrive:
      ++arrive_at(t.barrier_id, t.count).arrive_only;
      complete_barrier(t.barrier_id);
      break;
    case WaitKind::none:
    case WaitKind::barrier:
    case WaitKind::warp_sync:
      break;
    }
  }
  for (uint32_t lane = 0; lane < k_warp_size; ++lane) {
    if ((group >> lane & 1u) != 0) {
      m_threads[first + lane].state = FiberState::runnable;
      m_threads[first + lane].wait = WaitKind::none;
    }
  }
}

std::string SimtBlock::deadlock_message() const
{
  std::string message = "deadlock: block " + block_name() + ":";
  const int64_t exited = static_cast<int64_t>(m_threads.size()) - m_live;
  for (uint32_t id = 0; id < m_phases.size(); ++id) {
    const BarrierPhase& phase = m_phases[id];
    int64_t waiting = 0;
    std::string sites;
    for (const SimtThread& t : m_threads) {
      if (t.state != FiberState::waiting || t.wait != WaitKind::barrier || t.barrier_id != id) {
        continue;
      }
      ++waiting;
      const std::string site = std::to_string(t.site);
      if (sites.find("," + site + ",") == std::string::npos) {
        sites += "," + site + ",";
      }
    }
    if (waiting == 0 && phase.arrive_only == 0) {
      continue;
    }
    std::replace(sites.begin(), sites.end(), ',', ' ');
    const std::string where = sites.empty() ? std::string(" ") : " at site" + sites;
    message += " bar.sync " + std::to_string(id) + where + "has " + std::to_string(waiting) +
               " of " + std::to_string(m_live) + " live threads";
    if (phase.count != 0) {
      message += ", needs " + std::to_string(phase.count);
    }
    if (phase.arrive_only != 0) {
      message += " (" + std::to_string(phase.arrive_only) + " arrived by bar.arrive)";
    }
    message += ";";
  }
  for (size_t i = 0; i < m_threads.size(); ++i) {
    const SimtThread& t = m_threads[i];
    if (t.state != FiberState::waiting || t.wait == WaitKind::barrier) {
      continue;
    }
    message += " thread " + triple(t.thread.tid) + " (warp " + std::to_string(t.thread.warpid) +
               " lane " + std::to_string(t.thread.laneid) + ") waits at " + wait_name(t.wait) +
               " site " + std::to_string(t.site) + " for mask " + hex(t.member_mask) + ";";
    if (message.size() > 2000) {
      message += " ...;";
      break;
    }
  }
  message += " " + std::to_string(exited) + " threads exited";
  return message;
}

std::string SimtBlock::spin_deadlock_message() const
{
  std::string message = "deadlock: block " + block_name() + ": every running thread spins on an "
                        "mbarrier that no thread changes;";
  int64_t listed = 0;
  for (const SimtThread& t : m_threads) {
    if (t.state != FiberState::runnable || !t.spinning) {
      continue;
    }
    if (++listed > 8) {
      message += " ...;";
      break;
    }
    message += " thread " + triple(t.thread.tid) + " at site " + std::to_string(t.spin_site) +
               " sees " + hex(static_cast<uint32_t>(t.spin_observed >> 32)) +
               hex(static_cast<uint32_t>(t.spin_observed)).substr(2) + ";";
  }
  const std::string rest = deadlock_message();
  return message + rest.substr(rest.find(':', rest.find(':') + 1) + 1);
}

} // namespace d4r::compiler::cpu

// The collective entry points of host_abi.hpp: each hands the fiber to its block's scheduler.
using d4r::compiler::cpu::SimtBlock;

namespace {
SimtBlock& block_of(d4r_host_thread* thread)
{
  assert(thread != nullptr && thread->runtime != nullptr && "runtime call outside a launch");
  return *static_cast<SimtBlock*>(thread->runtime);
}
} // namespace

extern "C" void d4r_rt_barrier(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id,
                               uint32_t count)
{
  block_of(thread).barrier(thread, site, barrier_id, count, 0);
}

extern "C" uint32_t d4r_rt_barrier_reduce(d4r_host_thread* thread, uint32_t site,
                                          uint32_t barrier_id, uint32_t count, uint32_t predicate)
{
  return block_of(thread).barrier(thread, site, barrier_id, count, predicate);
}

extern "C" void d4r_rt_barrier_arrive(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id,
                                      uint32_t count)
{
  block_of(thread).arrive(thread, site, barrier_id, count);
}

extern "C" uint32_t d4r_rt_warp_exchange(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                                         uint32_t value, uint32_t source_lane)
{
  return block_of(thread).exchange(thread, site, member_mask, value, source_lane);
}

extern "C" uint32_t d4r_rt_warp_ballot(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                                       uint32_t predicate)
{
  return block_of(thread).ballot(thread, site, member_mask, predicate);
}

extern "C" void d4r_rt_warp_sync(d4r_host_thread* thread, uint32_t site, uint32_t member_mask)
{
  block_of(thread).warp_sync(thread, site, member_mask);
}

extern "C" void d4r_rt_warp_gather(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                                   const uint32_t* mine, uint32_t words, uint32_t* out)
{
  block_of(thread).gather(thread, site, member_mask, mine, words, out);
}

extern "C" void d4r_rt_yield(d4r_host_thread* thread, uint32_t site, uint64_t observed)
{
  block_of(thread).yield(thread, site, observed);
}

extern "C" uint32_t d4r_rt_is_local(d4r_host_thread* thread, uint64_t address)
{
  return block_of(thread).on_stack(thread, address) ? 1 : 0;
}

extern "C" void d4r_rt_trap(d4r_host_thread* thread, uint32_t site)
{
  block_of(thread).trap(thread, site, "trap instruction");
}
