#include "daemon/task_pool.hpp"

#include <algorithm>

namespace d4r::daemon {

TaskPool::TaskPool(int threads, int64_t max_queued) : m_max_queued(std::max<int64_t>(1, max_queued))
{
  int count = std::max(1, threads);
  m_threads.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    m_threads.emplace_back([this] { run_worker(); });
  }
}

TaskPool::~TaskPool()
{
  shutdown();
}

Admission TaskPool::admit(Priority priority, std::function<void()> task)
{
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) {
      return Admission::stopping;
    }
    // Background work (a Prepare's warm-ups, up to 4096) fills three quarters of the queue at
    // most: a game's own requests always find room.
    int64_t limit = priority == Priority::interactive ? m_max_queued
                                                      : std::max<int64_t>(1, m_max_queued - m_max_queued / 4);
    if (static_cast<int64_t>(m_interactive.size() + m_background.size()) >= limit) {
      return Admission::full;
    }
    (priority == Priority::interactive ? m_interactive : m_background).push_back(std::move(task));
  }
  m_wake.notify_one();
  return Admission::queued;
}

bool TaskPool::submit(Priority priority, std::function<void()> task)
{
  return admit(priority, std::move(task)) == Admission::queued;
}

void TaskPool::shutdown()
{
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) {
      return;
    }
    m_stopping = true;
  }
  m_wake.notify_all();
  for (std::jthread& thread : m_threads) {
    if (thread.joinable()) {
      thread.join();
    }
  }
}

int64_t TaskPool::discard_queued()
{
  std::lock_guard lock(m_mutex);
  int64_t dropped = static_cast<int64_t>(m_interactive.size() + m_background.size());
  m_interactive.clear();
  m_background.clear();
  return dropped;
}

int64_t TaskPool::queued() const
{
  std::lock_guard lock(m_mutex);
  return static_cast<int64_t>(m_interactive.size() + m_background.size());
}

void TaskPool::run_worker()
{
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [this] {
        return m_stopping || !m_interactive.empty() || !m_background.empty();
      });
      std::deque<std::function<void()>>& queue = m_interactive.empty() ? m_background : m_interactive;
      if (queue.empty()) {
        return; // stopping and drained
      }
      task = std::move(queue.front());
      queue.pop_front();
    }
    task();
  }
}

} // namespace d4r::daemon
