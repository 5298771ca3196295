#pragma once
// What the cache root collects besides the stores' own entries, swept off the request path:
// objects no index row names and temporary files (Store::collect_garbage), old quarantined
// objects, scratch folders of builds that died with their daemon (builds/worker-*), old negative-
// cache entries (failures/), and uploaded PTX modules beyond their size cap (modules/).
// More often, and cheaply, the stores' trash: objects no row names any more whose files waited
// out their grace period for clients that held their paths.

#include "cache/cache.hpp"
#include "daemon/module_store.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace d4r::daemon {

struct HousekeepingLimits {
  // Temp files, objects no row names and scratch folders younger than this may be in use.
  std::chrono::seconds stale_after{3600};
  int64_t max_module_bytes = int64_t{512} << 20;
  std::chrono::seconds keep_quarantine{std::chrono::hours(24 * 7)};
  // Each mode's quarantine is also kept under this size, the oldest objects going first: a disk
  // that damages objects as fast as they are rebuilt must not fill up with their copies.
  int64_t max_quarantine_bytes = int64_t{256} << 20;
  // A remembered failure is retried after this, should the machine have been the cause after all.
  std::chrono::seconds keep_failures{std::chrono::hours(24 * 30)};
};

struct HousekeepingReport {
  int64_t cache_files = 0; // unnamed objects, temp files and trash past its grace, both modes
  int64_t quarantine_files = 0;
  int64_t scratch_folders = 0;
  int64_t failure_files = 0;
  int64_t module_files = 0;
  int64_t module_bytes = 0;
  std::vector<std::string> errors; // what could not be swept; the rest still was

  [[nodiscard]] int64_t removed() const
  {
    return cache_files + quarantine_files + scratch_folders + failure_files + module_files;
  }
};

[[nodiscard]] HousekeepingReport sweep_cache_root(cache::Cache& cache, const ModuleStore& modules,
                                                  const HousekeepingLimits& limits);

// The trashed objects of both modes whose grace period has passed (Store::collect_trash); what
// failed is added to `errors`. Returns how many files it removed.
int64_t collect_cache_trash(cache::Cache& cache, std::vector<std::string>& errors);

// Runs `sweep` on a thread of its own: `first` after start, then every `every`, until destroyed
// (which wakes and joins it at once); and `often` (when given) every `often_every` between.
class Housekeeper {
public:
  Housekeeper(std::function<void()> sweep, std::chrono::seconds first, std::chrono::seconds every,
              std::function<void()> often = {},
              std::chrono::seconds often_every = std::chrono::seconds(30));
  ~Housekeeper();
  Housekeeper(const Housekeeper&) = delete;
  Housekeeper& operator=(const Housekeeper&) = delete;

private:
  void loop(std::chrono::seconds first, std::chrono::seconds every,
            std::chrono::seconds often_every);

  std::function<void()> m_sweep;
  std::function<void()> m_often;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stopping = false;
  std::thread m_thread;
};

} // namespace d4r::daemon
