// The cache's release-side operations of KernelCore: `d4r-kernel export` (release_export.hpp),
// `pin` / `unpin`, and `purge --older-than` / a purge that leaves pinned entries. Apart from
// kernel_core.cpp because they are batch jobs on the cache, not requests.

#include "daemon/kernel_core.hpp"

#include <spdlog/spdlog.h>

namespace d4r::daemon {

namespace {

std::vector<Mode> modes_of(std::optional<Mode> mode)
{
  if (mode) {
    return {*mode};
  }
  return {Mode::fast, Mode::accuracy};
}

std::string describe(const cache::PinRule& rule)
{
  std::string text = rule.kernel.empty() ? "every kernel" : rule.kernel;
  return text + (rule.module_hash ? " of module " + hash_to_hex(*rule.module_hash) : "");
}

} // namespace

Expected<ExportSummary> KernelCore::export_release(const ExportOptions& options)
{
  // An object built from a recipe's source is keyed with module hash 0 (build_service.cpp): the
  // recipe's own list says which modules it may be served for, so the manifest lists those.
  ExportHashes hashes_of = [this](const cache::Entry& entry) -> std::vector<uint64_t> {
    const compiler::Recipe* recipe = m_builds ? m_builds->recipe_for(entry.key.kernel) : nullptr;
    if (recipe == nullptr || !entry.key.recipe.starts_with("recipe:" + recipe->name + "@")) {
      return {};
    }
    return recipe->module_hashes;
  };
  TRY_ASSIGN(ExportSummary summary, daemon::export_release(*m_cache, options, hashes_of));
  spdlog::info("export {}: {} objects in {} folders, {} problems", summary.directory.string(),
               summary.objects, summary.folders.size(), summary.problems.size());
  return summary;
}

Expected<PinAnswer> KernelCore::pin(std::optional<Mode> mode, const cache::PinRule& rule,
                                    bool unpin)
{
  // A rule naming neither kernel nor module only lists the pins (`d4r-kernel pin` alone); as a
  // rule it would pin everything, which the store refuses.
  const bool list_only = !unpin && rule.kernel.empty() && !rule.module_hash;
  PinAnswer answer;
  for (Mode each : modes_of(mode)) {
    if (unpin) {
      TRY_ASSIGN(const bool removed, m_cache->remove_pin(each, rule));
      answer.removed = answer.removed || removed;
    } else if (!list_only) {
      TRY_ASSIGN(const int64_t matched, m_cache->add_pin(each, rule));
      answer.matched += matched;
    }
    TRY_ASSIGN(std::vector<cache::PinRule> pins, m_cache->pins(each));
    for (cache::PinRule& pin : pins) {
      answer.pins.emplace_back(each, std::move(pin));
    }
  }
  if (!list_only) {
    spdlog::info("{} {}{}", unpin ? "unpin" : "pin", describe(rule),
                 rule.label.empty() ? "" : " (" + rule.label + ")");
  }
  return answer;
}

Expected<cache::PurgeResult> KernelCore::purge_where(std::optional<Mode> mode,
                                                     const cache::PurgeFilter& filter)
{
  bool pinned = false;
  for (Mode each : modes_of(mode)) {
    TRY_ASSIGN(std::vector<cache::PinRule> pins, m_cache->pins(each));
    pinned = pinned || !pins.empty();
  }
  if (!filter.unused_since_unix_ms && (filter.force || !pinned)) {
    return purge(mode); // everything: files no row names and (for both modes) uploaded modules too
  }
  cache::PurgeResult total;
  for (Mode each : modes_of(mode)) {
    TRY_ASSIGN(cache::PurgeResult result, m_cache->purge_where(each, filter));
    total.removed_entries += result.removed_entries;
    total.removed_bytes += result.removed_bytes;
    total.kept_pinned += result.kept_pinned;
  }
  if (m_builds) {
    m_builds->forget_failures();
  }
  std::lock_guard lock(m_memo_mutex);
  m_verified.clear();
  return total;
}

} // namespace d4r::daemon
