#pragma once
// Identical concurrent work runs once: the first caller of a key computes (or starts the work), the
// others wait for and share its result. One of the two places that hold a lock (STYLE.md rule 15).

#include <cassert>
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

// The daemon's one single-flight table: the core's answers (run: the first caller computes) and
// the build service's builds (join/finish: the first caller queues a build that finishes on a pool
// thread) share it. Every waiter waits within its own deadline and cancellation, never the first
// caller's.
template <typename T> class SingleFlight {
public:
  class Flight {
  public:
    // Waits for the result until `deadline` or the caller's cancellation: nullopt then.
    std::optional<T> wait(std::chrono::steady_clock::time_point deadline,
                          const Cancelled& cancelled = {})
    {
      std::unique_lock lock(m_mutex);
      if (!wait_done(m_done, lock, deadline, cancelled, [&] { return m_result.has_value(); })) {
        return std::nullopt;
      }
      return *m_result;
    }

  private:
    friend class SingleFlight;
    std::mutex m_mutex;
    std::condition_variable m_done;
    std::optional<T> m_result;
  };

  struct Ticket {
    std::shared_ptr<Flight> flight;
    bool leader = false; // this caller started the flight and must finish() it
  };

  // Joins the flight of `key`, or starts one when none is in flight and `may_start` (called under
  // the table's lock, so keep it short; empty: yes) agrees. nullopt when it refused.
  std::optional<Ticket> join(const std::string& key, const std::function<bool()>& may_start = {})
  {
    std::lock_guard lock(m_mutex);
    if (auto found = m_flights.find(key); found != m_flights.end()) {
      return Ticket{found->second, false};
    }
    if (may_start && !may_start()) {
      return std::nullopt;
    }
    auto flight = std::make_shared<Flight>();
    m_flights.emplace(key, flight);
    return Ticket{flight, true};
  }

  // The leader's result: every waiter wakes with it, and the next join of `key` starts anew.
  void finish(const std::string& key, Flight& flight, T result)
  {
    {
      std::lock_guard lock(m_mutex);
      if (auto found = m_flights.find(key); found != m_flights.end() && found->second.get() == &flight) {
        m_flights.erase(found);
      }
    }
    {
      std::lock_guard lock(flight.m_mutex);
      flight.m_result = std::move(result);
    }
    flight.m_done.notify_all();
  }

  // Runs `work` unless a call with the same key is in flight, in which case it waits for that
  // call's result until `deadline`: nullopt when the deadline passed first (the caller's budget
  // is its own, whatever the first caller was willing to wait) or the caller was cancelled.
  // `shared` (optional) tells whether the result came from another caller.
  std::optional<T> run(const std::string& key, const std::function<T()>& work,
                       std::chrono::steady_clock::time_point deadline =
                           std::chrono::steady_clock::time_point::max(),
                       bool* shared = nullptr, const Cancelled& cancelled = {})
  {
    std::optional<Ticket> ticket = join(key);
    assert(ticket && "join without may_start always joins or starts");
    if (shared) {
      *shared = !ticket->leader;
    }
    if (!ticket->leader) {
      return ticket->flight->wait(deadline, cancelled);
    }
    T result = work();
    finish(key, *ticket->flight, result);
    return result;
  }

private:
  std::mutex m_mutex;
  std::map<std::string, std::shared_ptr<Flight>> m_flights;
};

} // namespace d4r::daemon
