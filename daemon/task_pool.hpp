#pragma once
// The daemon's one bounded pool (STYLE.md rule 15). Requests from a running game go before
// background work (Prepare, import), so a warm-up never delays a frame.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace d4r::daemon {

enum class Priority { interactive, background };

class TaskPool {
public:
  explicit TaskPool(int threads);
  ~TaskPool(); // finishes queued tasks, then joins
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // False once shutdown() has begun: the task is not queued.
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
  std::vector<std::jthread> m_threads;
};

} // namespace d4r::daemon
