#pragma once
// `d4r-kernel warm` inside the daemon: for the modules a client lists (their hash and the entry
// names the DLL's RR/SR split lets that hash authorise), every kernel the releases and recipes
// would serve, for each target and mode asked, is made ready in the cache as background work.
//
// A warm is a list of items (module, kernel, target, mode), planned at start from what resolve
// would serve (KernelCore::warm_plan). Drivers, one per build thread, take the items in order and
// ask the core for each as a background Resolve: first with a 1 ms budget (READY: it was in the
// cache already, or a release object was imported), then, when a build had to start, waiting for
// it. So at most build_threads warm builds are in the build pool at a time, on its background
// threads (build_pool.hpp): a game's Resolve never queues behind them, and the cache itself is
// what makes a second warm do only what is missing.
//
// Cancelled (the client's Ctrl-C sends it): the items not started are dropped at once and never
// reach the build pool; the builds already started, at most build_threads, finish and are stored
// (the next warm finds them as `already`); the drivers take the next warm's items. A warm whose
// client went away without a word runs to its end. Finished warms are kept for k_keep_finished
// so a client can read their results, then forgotten; at most k_max_warms are known at once.

#include "daemon/kernel_core.hpp"
#include "util/error.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace d4r::daemon {

struct WarmModuleSpec {
  uint64_t hash = 0;
  std::optional<Sha256> sha256;
  std::vector<std::string> entries;
};

struct WarmSpec {
  std::vector<WarmModuleSpec> modules;
  std::vector<std::string> targets; // empty: the detected GPU
  std::vector<Mode> modes;          // empty: the daemon's default mode
  std::optional<bool> fp8_native;
  std::optional<bool> native_swin_encoders;
};

enum class WarmState { waiting, running, already, built, failed, dropped };

[[nodiscard]] const char* to_string(WarmState state);

struct WarmItem {
  uint64_t module_hash = 0;
  std::string kernel;
  std::string target;
  Mode mode = Mode::fast;
  WarmState state = WarmState::waiting;
  std::string reason;
  int64_t elapsed_ms = 0;
};

struct WarmStart {
  uint64_t id = 0;                   // 0: not started
  std::vector<uint64_t> need_modules; // upload these first
  int64_t total = 0;
};

struct WarmProgress {
  int64_t total = 0;
  int64_t already = 0;
  int64_t built = 0;
  int64_t failed = 0;
  int64_t dropped = 0;
  int64_t running = 0;
  bool finished = false;
  bool cancelled = false;
  std::vector<WarmItem> items; // finished ones, in the order they finished, from items_seen on
  std::chrono::milliseconds elapsed{0};
};

class WarmJobs {
public:
  static constexpr int64_t k_max_items = 1 << 16;   // per warm
  static constexpr size_t k_max_warms = 16;          // known at once, running or finished
  static constexpr auto k_keep_finished = std::chrono::minutes(10);
  // The longest a driver waits for one build (a worker's wall limit is 300 s, tried twice).
  static constexpr auto k_item_wait = std::chrono::minutes(15);

  WarmJobs(KernelCore& core, int drivers);
  ~WarmJobs(); // cancels every warm and joins the drivers
  WarmJobs(const WarmJobs&) = delete;
  WarmJobs& operator=(const WarmJobs&) = delete;

  // Plans the items and queues them; need_modules (and id 0) when a ptx recipe would translate a
  // module the daemon lacks. invalid_argument for a bad target; resource_exhausted past the limits.
  [[nodiscard]] Expected<WarmStart> start(const WarmSpec& spec);
  // The warm's counts and the items finished after the first `items_seen`; `cancel` drops what
  // has not started first. not_found for an unknown or forgotten id.
  [[nodiscard]] Expected<WarmProgress> progress(uint64_t id, int64_t items_seen, bool cancel);

private:
  struct Warm;
  void drive();
  void run_item(const std::shared_ptr<Warm>& warm, size_t index);
  void cancel_locked(Warm& warm); // with m_mutex held
  void forget_old_locked();       // with m_mutex held

  KernelCore& m_core;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::map<uint64_t, std::shared_ptr<Warm>> m_warms;
  std::deque<std::pair<std::shared_ptr<Warm>, size_t>> m_queue; // items not started
  uint64_t m_next_id = 1;
  bool m_stopping = false;
  std::vector<std::jthread> m_drivers;
};

} // namespace d4r::daemon
