#include "daemon/housekeeping.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace d4r::daemon {
namespace {

using FileTime = std::filesystem::file_time_type;

// Removes the entries of `folder` (files, or whole folders when `folders`) last written before
// `cutoff` and whose name starts with `prefix`. Returns how many it removed.
int64_t remove_older(const std::filesystem::path& folder, FileTime cutoff, bool folders,
                     std::string_view prefix, std::vector<std::string>& errors)
{
  int64_t removed = 0;
  std::error_code ec;
  if (!std::filesystem::exists(folder, ec)) {
    return 0;
  }
  for (auto it = std::filesystem::directory_iterator(folder, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code entry_error;
    const bool is_folder = it->is_directory(entry_error);
    if (is_folder != folders || !it->path().filename().string().starts_with(prefix) ||
        it->last_write_time(entry_error) >= cutoff || entry_error) {
      continue;
    }
    if (std::filesystem::remove_all(it->path(), entry_error) > 0) {
      ++removed;
    } else if (entry_error) {
      errors.push_back(it->path().string() + ": " + entry_error.message());
    }
  }
  if (ec) {
    errors.push_back(folder.string() + ": " + ec.message());
  }
  return removed;
}

// Removes the oldest files of `folder` until the rest take at most `max_bytes`. Returns how many
// it removed.
int64_t trim_to_bytes(const std::filesystem::path& folder, int64_t max_bytes,
                      std::vector<std::string>& errors)
{
  struct Kept {
    FileTime written;
    int64_t bytes;
    std::filesystem::path path;
  };
  std::vector<Kept> files;
  int64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(folder, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code entry_error;
    if (!it->is_regular_file(entry_error)) {
      continue;
    }
    const FileTime written = it->last_write_time(entry_error);
    const auto bytes = static_cast<int64_t>(it->file_size(entry_error));
    if (!entry_error) {
      files.push_back({written, bytes, it->path()});
      total += bytes;
    }
  }
  std::ranges::sort(files, {}, &Kept::written);
  int64_t removed = 0;
  for (const Kept& file : files) {
    if (total <= max_bytes) {
      break;
    }
    std::error_code remove_error;
    if (std::filesystem::remove(file.path, remove_error)) {
      total -= file.bytes;
      ++removed;
    } else if (remove_error) {
      errors.push_back(file.path.string() + ": " + remove_error.message());
    }
  }
  return removed;
}

} // namespace

HousekeepingReport sweep_cache_root(cache::Cache& cache, const ModuleStore& modules,
                                    const HousekeepingLimits& limits)
{
  HousekeepingReport report;
  const std::filesystem::path& root = cache.root();
  const FileTime now = FileTime::clock::now();
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    Expected<int64_t> collected = cache.collect_garbage(mode, limits.stale_after);
    if (collected) {
      report.cache_files += *collected;
    } else {
      report.errors.push_back(collected.error().message);
    }
    const std::filesystem::path quarantine = root / to_string(mode) / "quarantine";
    report.quarantine_files +=
        remove_older(quarantine, now - limits.keep_quarantine, false, "", report.errors);
    if (std::filesystem::exists(quarantine)) {
      report.quarantine_files +=
          trim_to_bytes(quarantine, limits.max_quarantine_bytes, report.errors);
    }
    report.failure_files += remove_older(root / "failures" / to_string(mode),
                                         now - limits.keep_failures, false, "", report.errors);
  }
  // A running build's folder is younger than its wall limit, which stale_after exceeds.
  report.scratch_folders +=
      remove_older(root / "builds", now - limits.stale_after, true, "worker-", report.errors);
  ModuleStore::Collected swept = modules.collect(limits.max_module_bytes, limits.stale_after);
  report.module_files = swept.files;
  report.module_bytes = swept.bytes;
  return report;
}

int64_t collect_cache_trash(cache::Cache& cache, std::vector<std::string>& errors)
{
  int64_t removed = 0;
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    Expected<int64_t> collected = cache.collect_trash(mode);
    if (collected) {
      removed += *collected;
    } else {
      errors.push_back(collected.error().message);
    }
  }
  return removed;
}

Housekeeper::Housekeeper(std::function<void()> sweep, std::chrono::seconds first,
                         std::chrono::seconds every, std::function<void()> often,
                         std::chrono::seconds often_every)
    : m_sweep(std::move(sweep)), m_often(std::move(often)),
      m_thread([this, first, every, often_every] { loop(first, every, often_every); })
{
}

Housekeeper::~Housekeeper()
{
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void Housekeeper::loop(std::chrono::seconds first, std::chrono::seconds every,
                       std::chrono::seconds often_every)
{
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(m_mutex);
  Clock::time_point next_sweep = Clock::now() + first;
  Clock::time_point next_often = m_often ? Clock::now() + often_every : Clock::time_point::max();
  while (!m_wake.wait_until(lock, std::min(next_sweep, next_often),
                            [this] { return m_stopping; })) {
    const Clock::time_point now = Clock::now();
    const bool sweep = now >= next_sweep;
    const bool often = now >= next_often;
    lock.unlock();
    if (sweep) {
      m_sweep(); // collects the trash too
      next_sweep = Clock::now() + every;
    } else if (often) {
      m_often();
    }
    if (m_often && (sweep || often)) {
      next_often = Clock::now() + often_every;
    }
    lock.lock();
  }
}

} // namespace d4r::daemon
