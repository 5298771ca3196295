#pragma once
// How many bytes of PutModule bodies the daemon holds at once. gRPC has the whole message in
// memory before the handler runs, and a queued upload keeps it there until a request thread
// stores it: without a bound, a client sending 64 MiB modules faster than the disk takes them
// grows the daemon toward its unit's MemoryMax. Past the budget an upload is refused at once
// ("upload memory"), which frees its message; the client's uploads are background work it drops.
// One upload is always admitted when none is held, so the bound is max(budget, one module).

#include "util/error.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace d4r::daemon {

class UploadBudget {
public:
  explicit UploadBudget(int64_t max_bytes) : m_max_bytes(max_bytes) {}
  UploadBudget(const UploadBudget&) = delete;
  UploadBudget& operator=(const UploadBudget&) = delete;

  // Gives its bytes back when destroyed; the budget must outlive it.
  class Lease {
  public:
    Lease(UploadBudget& budget, int64_t bytes) : m_budget(budget), m_bytes(bytes) {}
    ~Lease() { m_budget.release(m_bytes); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

  private:
    UploadBudget& m_budget;
    int64_t m_bytes;
  };

  // A lease of `bytes`, or resource_exhausted when the uploads held now and this one would pass
  // the budget.
  [[nodiscard]] Expected<std::shared_ptr<Lease>> acquire(int64_t bytes)
  {
    std::lock_guard lock(m_mutex);
    if (m_held > 0 && m_held + bytes > m_max_bytes) {
      return make_error(ErrorCode::resource_exhausted,
                        "upload memory: " + std::to_string(bytes) + " bytes more would pass the " +
                            std::to_string(m_max_bytes) + " held for uploads at once (" +
                            std::to_string(m_held) + " held now; --upload-memory)");
    }
    m_held += bytes;
    return std::make_shared<Lease>(*this, bytes);
  }

  [[nodiscard]] int64_t held() const
  {
    std::lock_guard lock(m_mutex);
    return m_held;
  }

private:
  void release(int64_t bytes)
  {
    std::lock_guard lock(m_mutex);
    m_held -= bytes;
  }

  mutable std::mutex m_mutex;
  int64_t m_max_bytes;
  int64_t m_held = 0;
};

} // namespace d4r::daemon
