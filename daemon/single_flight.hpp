#pragma once
// Identical concurrent work runs once: the first caller of a key computes, the others wait for and
// share its result. One of the two places that hold a lock (STYLE.md rule 15).

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace d4r::daemon {

// True once the caller went away (its RPC was cancelled); empty: it never goes.
using Cancelled = std::function<bool()>;

// How often a wait looks at its caller's cancellation: a client that gave up frees its request
// thread within this, not when its budget or a build ends.
inline constexpr std::chrono::milliseconds k_cancel_poll{50};

// Waits on `cv` (its mutex held by `lock`) until done(), the deadline, or the caller's
// cancellation; done() at the end.
template <typename Done>
bool wait_done(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
               std::chrono::steady_clock::time_point deadline, const Cancelled& cancelled, Done done)
{
  using Clock = std::chrono::steady_clock;
  if (!cancelled && deadline == Clock::time_point::max()) {
    cv.wait(lock, done);
    return true;
  }
  while (!done()) {
    Clock::time_point now = Clock::now();
    if (now >= deadline || (cancelled && cancelled())) {
      return false;
    }
    Clock::time_point next = cancelled && deadline - now > k_cancel_poll ? now + k_cancel_poll : deadline;
    cv.wait_until(lock, next);
  }
  return true;
}

template <typename T> class SingleFlight {
public:
  // Runs `work` unless a call with the same key is in flight, in which case it waits for that
  // call's result until `deadline`: nullopt when the deadline passed first (the caller's budget
  // is its own, whatever the first caller was willing to wait) or the caller was cancelled.
  // `shared` (optional) tells whether the result came from another caller.
  std::optional<T> run(const std::string& key, const std::function<T()>& work,
                       std::chrono::steady_clock::time_point deadline =
                           std::chrono::steady_clock::time_point::max(),
                       bool* shared = nullptr, const Cancelled& cancelled = {})
  {
    std::shared_ptr<Flight> flight;
    bool leader = false;
    {
      std::lock_guard lock(m_mutex);
      auto [it, inserted] = m_flights.try_emplace(key);
      if (inserted) {
        it->second = std::make_shared<Flight>();
        leader = true;
      }
      flight = it->second;
    }
    if (shared) {
      *shared = !leader;
    }
    if (!leader) {
      std::unique_lock lock(flight->mutex);
      if (!wait_done(flight->done, lock, deadline, cancelled,
                     [&] { return flight->result.has_value(); })) {
        return std::nullopt;
      }
      return *flight->result;
    }
    T result = work();
    {
      std::lock_guard lock(m_mutex);
      m_flights.erase(key);
    }
    {
      std::lock_guard lock(flight->mutex);
      flight->result = result;
    }
    flight->done.notify_all();
    return result;
  }

private:
  struct Flight {
    std::mutex mutex;
    std::condition_variable done;
    std::optional<T> result;
  };
  std::mutex m_mutex;
  std::map<std::string, std::shared_ptr<Flight>> m_flights;
};

} // namespace d4r::daemon
