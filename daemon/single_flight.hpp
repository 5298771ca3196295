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

template <typename T> class SingleFlight {
public:
  // Runs `work` unless a call with the same key is in flight, in which case it waits for that
  // call's result until `deadline`: nullopt when the deadline passed first (the caller's budget
  // is its own, whatever the first caller was willing to wait). `shared` (optional) tells whether
  // the result came from another caller.
  std::optional<T> run(const std::string& key, const std::function<T()>& work,
                       std::chrono::steady_clock::time_point deadline =
                           std::chrono::steady_clock::time_point::max(),
                       bool* shared = nullptr)
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
      auto done = [&] { return flight->result.has_value(); };
      if (deadline == std::chrono::steady_clock::time_point::max()) {
        flight->done.wait(lock, done);
      } else if (!flight->done.wait_until(lock, deadline, done)) {
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
