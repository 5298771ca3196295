#pragma once
// The daemon's one bounded pool (STYLE.md rule 15). Requests from a running game go before
// background work (Prepare, import), so a warm-up never delays a frame.

#include <condition_variable>
#include <climits>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace d4r::daemon {

enum class Priority { interactive, background };

// What became of a task given to the pool.
enum class Admission { queued, full, stopping };

class TaskPool {
public:
  // `max_queued`: tasks waiting for a thread, at most (background ones: three quarters of it);
  // past it admit() answers full, so a flood of requests is refused at once instead of growing
  // the queue (and its memory) without end.
  explicit TaskPool(int threads, int64_t max_queued = INT64_MAX);
  ~TaskPool(); // finishes queued tasks, then joins
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues the task unless max_queued tasks wait already or shutdown() has begun.
  [[nodiscard]] Admission admit(Priority priority, std::function<void()> task);
  // admit(), true when queued.
  bool submit(Priority priority, std::function<void()> task);
  void shutdown();
  // Drops every task not yet started; returns how many.
  int64_t discard_queued();
  [[nodiscard]] int64_t queued() const;

private:
  void run_worker();

  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  std::deque<std::function<void()>> m_interactive;
  std::deque<std::function<void()>> m_background;
  bool m_stopping = false;
  int64_t m_max_queued;
  std::vector<std::jthread> m_threads;
};

} // namespace d4r::daemon
