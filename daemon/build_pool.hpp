#pragma once
// The build workers' pool, where a game's build never waits for warm work. TaskPool
// (task_pool.hpp) orders its queue, but a build takes seconds and a queue's order does not help a
// game's request that finds every thread compiling a warm-up. Here:
// - interactive tasks (a game's Resolve, `d4r-kernel build`) run on `threads` threads of their
//   own, as soon as one of those is free, whatever background work runs;
// - background tasks (a Prepare's warm-ups, `d4r-kernel warm`) run on `threads` other threads
//   and start only while fewer than `threads` tasks of either kind run: an idle machine warms on
//   every build thread, a busy one starts no more warm work;
// - a background thread lowers its own CPU priority (nice +k_background_nice, which the worker
//   processes it forks inherit), so a warm build still running when a game's starts takes a small
//   share of the CPU from it.
// So "preempted" means: not started while a game needs the threads, and deprioritised while it
// runs. A running background build is never killed: its work is not lost, and it is stored.
// With both kinds at their most, 2 × threads workers run at once (the memory a cgroup allows is
// checked against `threads` only: build_jobs.hpp); that lasts only while a game's builds overlap
// warm builds that started before them.

#include "daemon/task_pool.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace d4r::daemon {

class BuildPool {
public:
  static constexpr int k_background_nice = 10;

  explicit BuildPool(int threads);
  ~BuildPool(); // finishes queued tasks, then joins
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

  // Queues the task; false once shutdown() has begun.
  bool submit(Priority priority, std::function<void()> task);
  void shutdown();
  // Drops every task not yet started; returns how many.
  int64_t discard_queued();
  [[nodiscard]] int64_t queued() const;
  [[nodiscard]] int64_t running(Priority priority) const;
  [[nodiscard]] int threads() const { return m_threads_per_class; }

private:
  void run_interactive();
  void run_background();
  [[nodiscard]] bool background_may_start() const; // with m_mutex held

  mutable std::mutex m_mutex;
  std::condition_variable m_interactive_wake;
  std::condition_variable m_background_wake;
  std::deque<std::function<void()>> m_interactive;
  std::deque<std::function<void()>> m_background;
  int64_t m_running_interactive = 0;
  int64_t m_running_background = 0;
  bool m_stopping = false;
  int m_threads_per_class;
  std::vector<std::jthread> m_threads;
};

} // namespace d4r::daemon
