#include "daemon/build_pool.hpp"

#include <algorithm>

#include <sys/resource.h>
#include <unistd.h>

namespace d4r::daemon {

namespace {

// Linux keeps a nice value per thread (setpriority with a thread id); a process forked by this
// thread starts with it. Best effort: a thread that cannot lower its priority still runs.
void lower_own_priority(int by)
{
  auto self = static_cast<id_t>(::gettid());
  errno = 0;
  int now = ::getpriority(PRIO_PROCESS, self);
  if (now == -1 && errno != 0) {
    return;
  }
  (void)::setpriority(PRIO_PROCESS, self, std::min(19, now + by));
}

} // namespace

BuildPool::BuildPool(int threads) : m_threads_per_class(std::max(1, threads))
{
  m_threads.reserve(static_cast<size_t>(2 * m_threads_per_class));
  for (int i = 0; i < m_threads_per_class; ++i) {
    m_threads.emplace_back([this] { run_interactive(); });
    m_threads.emplace_back([this] { run_background(); });
  }
}

BuildPool::~BuildPool()
{
  shutdown();
}

bool BuildPool::submit(Priority priority, std::function<void()> task)
{
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) {
      return false;
    }
    (priority == Priority::interactive ? m_interactive : m_background).push_back(std::move(task));
  }
  (priority == Priority::interactive ? m_interactive_wake : m_background_wake).notify_one();
  return true;
}

void BuildPool::shutdown()
{
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) {
      return;
    }
    m_stopping = true;
  }
  m_interactive_wake.notify_all();
  m_background_wake.notify_all();
  for (std::jthread& thread : m_threads) {
    if (thread.joinable()) {
      thread.join();
    }
  }
}

int64_t BuildPool::discard_queued()
{
  std::lock_guard lock(m_mutex);
  auto dropped = static_cast<int64_t>(m_interactive.size() + m_background.size());
  m_interactive.clear();
  m_background.clear();
  return dropped;
}

int64_t BuildPool::queued() const
{
  std::lock_guard lock(m_mutex);
  return static_cast<int64_t>(m_interactive.size() + m_background.size());
}

int64_t BuildPool::running(Priority priority) const
{
  std::lock_guard lock(m_mutex);
  return priority == Priority::interactive ? m_running_interactive : m_running_background;
}

bool BuildPool::background_may_start() const
{
  // A stopping pool drains what is queued, whatever runs.
  return !m_background.empty() &&
         (m_stopping || m_running_interactive + m_running_background < m_threads_per_class);
}

void BuildPool::run_interactive()
{
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(m_mutex);
      m_interactive_wake.wait(lock, [this] { return m_stopping || !m_interactive.empty(); });
      if (m_interactive.empty()) {
        return; // stopping and drained
      }
      task = std::move(m_interactive.front());
      m_interactive.pop_front();
      ++m_running_interactive;
    }
    task();
    {
      std::lock_guard lock(m_mutex);
      --m_running_interactive;
    }
    m_background_wake.notify_one(); // a thread's worth of room for warm work again
  }
}

void BuildPool::run_background()
{
  lower_own_priority(k_background_nice);
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(m_mutex);
      m_background_wake.wait(lock, [this] {
        return background_may_start() || (m_stopping && m_background.empty());
      });
      if (m_background.empty()) {
        return; // stopping and drained
      }
      task = std::move(m_background.front());
      m_background.pop_front();
      ++m_running_background;
    }
    task();
    {
      std::lock_guard lock(m_mutex);
      --m_running_background;
    }
    m_background_wake.notify_one();
  }
}

} // namespace d4r::daemon
