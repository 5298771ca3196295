#include "daemon/warm_jobs.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <set>

namespace d4r::daemon {

namespace {

// The first ask of an item: long enough for a cache lookup or a release import, too short for
// any build. What it starts is waited for by the second ask.
constexpr auto k_probe_budget = std::chrono::milliseconds(1);
// Items sent in one progress answer, at most: a client asks again for the rest.
constexpr size_t k_items_per_answer = 4096;

using Clock = std::chrono::steady_clock;

} // namespace

const char* to_string(WarmState state)
{
  switch (state) {
  case WarmState::waiting:
    return "waiting";
  case WarmState::running:
    return "running";
  case WarmState::already:
    return "already";
  case WarmState::built:
    return "built";
  case WarmState::failed:
    return "failed";
  case WarmState::dropped:
    return "dropped";
  }
  return "unknown";
}

struct WarmJobs::Warm {
  uint64_t id = 0;
  std::optional<bool> fp8_native;
  std::optional<bool> native_swin_encoders;
  std::vector<WarmItem> items; // kernel, target, mode fixed at start; the rest under m_mutex
  std::vector<size_t> finished;
  int64_t running = 0;
  std::array<int64_t, 6> counts{}; // by WarmState
  std::atomic<bool> cancelled{false};
  Clock::time_point started = Clock::now();
  std::optional<Clock::time_point> ended;
};

WarmJobs::WarmJobs(KernelCore& core, int drivers) : m_core(core)
{
  int count = std::max(1, drivers);
  m_drivers.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    m_drivers.emplace_back([this] { drive(); });
  }
}

WarmJobs::~WarmJobs()
{
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    for (auto& [id, warm] : m_warms) {
      cancel_locked(*warm);
    }
  }
  m_wake.notify_all();
  for (std::jthread& driver : m_drivers) {
    driver.join(); // a driver waiting for a build sees the cancel within k_cancel_poll
  }
}

Expected<WarmStart> WarmJobs::start(const WarmSpec& spec)
{
  std::vector<std::string> targets = spec.targets;
  if (targets.empty()) {
    targets.push_back(m_core.detected_target()); // "" asks the core, which refuses when none
  }
  std::vector<Mode> modes = spec.modes;
  if (modes.empty()) {
    modes.push_back(m_core.config().default_mode);
  }
  auto warm = std::make_shared<Warm>();
  warm->fp8_native = spec.fp8_native;
  warm->native_swin_encoders = spec.native_swin_encoders;
  std::set<uint64_t> need;
  for (Mode mode : modes) {
    for (const std::string& target : targets) {
      for (const WarmModuleSpec& module : spec.modules) {
        PrepareQuery query;
        query.module_hash = module.hash;
        query.module_sha256 = module.sha256;
        query.entries = module.entries;
        query.selection = SelectionQuery{target, mode, spec.fp8_native, spec.native_swin_encoders};
        TRY_ASSIGN(PrepareAnswer plan, m_core.warm_plan(query));
        if (plan.need_module_bytes) {
          need.insert(module.hash);
        }
        std::set<std::string> seen;
        for (std::string& entry : plan.servable_entries) {
          if (!seen.insert(entry).second) {
            continue;
          }
          if (static_cast<int64_t>(warm->items.size()) >= k_max_items) {
            return make_error(ErrorCode::resource_exhausted,
                              "warm: more than " + std::to_string(k_max_items) +
                                  " kernels in one warm; warm fewer files or targets at a time");
          }
          warm->items.push_back(WarmItem{module.hash, std::move(entry),
                                         target.empty() ? m_core.detected_target() : target, mode,
                                         WarmState::waiting, "", 0});
        }
      }
    }
  }
  auto total = static_cast<int64_t>(warm->items.size());
  if (!need.empty()) {
    return WarmStart{0, std::vector<uint64_t>(need.begin(), need.end()), total};
  }
  std::lock_guard lock(m_mutex);
  forget_old_locked();
  if (m_warms.size() >= k_max_warms) {
    return make_error(ErrorCode::resource_exhausted,
                      "warm: " + std::to_string(m_warms.size()) +
                          " warms are running; cancel one or wait for one to end");
  }
  warm->id = m_next_id++;
  if (warm->items.empty()) {
    warm->ended = Clock::now();
  }
  for (size_t i = 0; i < warm->items.size(); ++i) {
    m_queue.emplace_back(warm, i);
  }
  m_warms.emplace(warm->id, warm);
  spdlog::info("warm {}: {} kernels for {} modules, {} targets, {} modes", warm->id, total,
               spec.modules.size(), targets.size(), modes.size());
  m_wake.notify_all();
  return WarmStart{warm->id, {}, total};
}

Expected<WarmProgress> WarmJobs::progress(uint64_t id, int64_t items_seen, bool cancel)
{
  std::lock_guard lock(m_mutex);
  auto found = m_warms.find(id);
  if (found == m_warms.end()) {
    return make_error(ErrorCode::not_found, "warm " + std::to_string(id) +
                                                " is not known (finished more than 10 minutes "
                                                "ago, or the daemon restarted)");
  }
  Warm& warm = *found->second;
  if (cancel) {
    cancel_locked(warm);
  }
  WarmProgress progress;
  progress.total = static_cast<int64_t>(warm.items.size());
  progress.already = warm.counts[static_cast<int>(WarmState::already)];
  progress.built = warm.counts[static_cast<int>(WarmState::built)];
  progress.failed = warm.counts[static_cast<int>(WarmState::failed)];
  progress.dropped = warm.counts[static_cast<int>(WarmState::dropped)];
  progress.running = warm.running;
  progress.finished = warm.finished.size() == warm.items.size();
  progress.cancelled = warm.cancelled.load();
  progress.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      warm.ended.value_or(Clock::now()) - warm.started);
  size_t from = static_cast<size_t>(std::clamp<int64_t>(items_seen, 0, progress.total));
  for (size_t i = from; i < warm.finished.size() && progress.items.size() < k_items_per_answer; ++i) {
    progress.items.push_back(warm.items[warm.finished[i]]);
  }
  return progress;
}

void WarmJobs::cancel_locked(Warm& warm)
{
  if (warm.cancelled.exchange(true)) {
    return;
  }
  std::erase_if(m_queue, [&](const std::pair<std::shared_ptr<Warm>, size_t>& queued) {
    if (queued.first.get() != &warm) {
      return false;
    }
    WarmItem& item = warm.items[queued.second];
    item.state = WarmState::dropped;
    item.reason = "cancelled before it started";
    ++warm.counts[static_cast<int>(WarmState::dropped)];
    warm.finished.push_back(queued.second);
    return true;
  });
  if (warm.finished.size() == warm.items.size() && !warm.ended) {
    warm.ended = Clock::now();
  }
  spdlog::info("warm {}: cancelled; {} builds started finish and are stored", warm.id, warm.running);
}

void WarmJobs::forget_old_locked()
{
  Clock::time_point now = Clock::now();
  std::erase_if(m_warms, [&](const auto& known) {
    return known.second->ended && now - *known.second->ended > k_keep_finished;
  });
  // Still full: the finished warm that ended first goes (its client has had time to read it).
  while (m_warms.size() >= k_max_warms) {
    auto oldest = m_warms.end();
    for (auto it = m_warms.begin(); it != m_warms.end(); ++it) {
      if (it->second->ended && (oldest == m_warms.end() || *it->second->ended < *oldest->second->ended)) {
        oldest = it;
      }
    }
    if (oldest == m_warms.end()) {
      return;
    }
    m_warms.erase(oldest);
  }
}

void WarmJobs::drive()
{
  for (;;) {
    std::shared_ptr<Warm> warm;
    size_t index = 0;
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
      if (m_stopping) {
        return;
      }
      std::tie(warm, index) = m_queue.front();
      m_queue.pop_front();
      warm->items[index].state = WarmState::running;
      ++warm->running;
    }
    run_item(warm, index);
  }
}

void WarmJobs::run_item(const std::shared_ptr<Warm>& warm, size_t index)
{
  const WarmItem& item = warm->items[index]; // its identity does not change
  ResolveQuery query;
  query.module_hash = item.module_hash;
  query.kernel = item.kernel;
  query.selection = SelectionQuery{item.target, item.mode, warm->fp8_native, warm->native_swin_encoders};
  query.accept_path = true;
  query.background = true;
  query.cancelled = [warm] { return warm->cancelled.load(); };
  Clock::time_point started = Clock::now();
  query.wait_budget = k_probe_budget;
  ResolveAnswer answer = m_core.resolve(query);
  WarmState state = WarmState::failed;
  if (answer.outcome == Outcome::ready) {
    state = WarmState::already;
  } else if (answer.outcome == Outcome::pending) {
    query.wait_budget = std::chrono::duration_cast<std::chrono::milliseconds>(k_item_wait);
    answer = m_core.resolve(query);
    if (answer.outcome == Outcome::ready) {
      state = WarmState::built;
    } else if (answer.outcome == Outcome::pending && warm->cancelled.load()) {
      state = WarmState::dropped;
      answer.reason = "cancelled while building; the build goes on and is stored";
    }
  }
  std::lock_guard lock(m_mutex);
  WarmItem& done = warm->items[index];
  done.state = state;
  done.reason = state == WarmState::already || state == WarmState::built ? "" : answer.reason;
  done.elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  --warm->running;
  ++warm->counts[static_cast<int>(state)];
  warm->finished.push_back(index);
  if (warm->finished.size() == warm->items.size()) {
    warm->ended = Clock::now();
    spdlog::info("warm {}: done: {} already, {} built, {} failed, {} dropped", warm->id,
                 warm->counts[static_cast<int>(WarmState::already)],
                 warm->counts[static_cast<int>(WarmState::built)],
                 warm->counts[static_cast<int>(WarmState::failed)],
                 warm->counts[static_cast<int>(WarmState::dropped)]);
  }
}

} // namespace d4r::daemon
