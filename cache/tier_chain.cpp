#include "cache/tier_chain.hpp"

#include <algorithm>

namespace d4r::cache {

namespace {

using Clock = std::chrono::steady_clock;

bool digest_holds(const TierObject& object)
{
  return sha256(std::span<const std::byte>(object.bytes)) == object.digest;
}

// Past the budget by more than the scheduler's slack.
bool overran(Clock::time_point asked, std::chrono::milliseconds budget)
{
  return Clock::now() - asked > budget + std::chrono::milliseconds(20);
}

TierFailure overrun_failure(Clock::time_point asked, std::chrono::milliseconds budget)
{
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked);
  return TierFailure{Error{ErrorCode::timeout, "answered after " + std::to_string(took.count()) +
                                                   " ms, past its budget of " +
                                                   std::to_string(budget.count()) + " ms"},
                     true};
}

} // namespace

void TierChain::add(std::unique_ptr<Tier> tier, TierPolicy policy)
{
  Slot slot;
  slot.health.name = tier->name();
  slot.tier = std::move(tier);
  slot.policy = policy;
  m_tiers.push_back(std::move(slot));
}

std::optional<std::chrono::milliseconds> TierChain::budget_for(Slot& slot, Clock::time_point deadline,
                                                               std::optional<std::chrono::milliseconds> cap)
{
  const Clock::time_point now = Clock::now();
  std::lock_guard lock(m_mutex);
  if (slot.distrusted || now < slot.skip_until) {
    ++slot.health.skipped;
    return std::nullopt;
  }
  if (now >= deadline) {
    return std::nullopt;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
  return std::min(cap.value_or(slot.policy.budget), left);
}

void TierChain::note_failure(Slot& slot, const TierFailure& failure, const char* what)
{
  std::string line;
  {
    std::lock_guard lock(m_mutex);
    ++slot.health.failures;
    slot.health.timeouts += failure.timeout ? 1 : 0;
    slot.health.last_error = failure.error.message;
    if (slot.distrusted) {
      return; // a call that was under way when it was distrusted: its reason stays
    }
    ++slot.failures_in_a_row;
    // backoff * 2^(n-1), capped; the shift is bounded so that it cannot overflow.
    const int shift = static_cast<int>(std::min<int64_t>(slot.failures_in_a_row - 1, 16));
    const auto backoff = std::min(slot.policy.backoff * (int64_t{1} << shift), slot.policy.max_backoff);
    slot.skip_until = Clock::now() + backoff;
    line = "tier " + slot.health.name + ": " + what + (failure.timeout ? " timed out: " : " failed: ") +
           failure.error.message + "; skipped for " + std::to_string(backoff.count()) + " ms";
  }
  if (m_log) {
    m_log(line);
  }
}

void TierChain::note_answer(Slot& slot)
{
  std::lock_guard lock(m_mutex);
  if (slot.distrusted) {
    return;
  }
  slot.failures_in_a_row = 0;
  slot.skip_until = {};
}

void TierChain::distrust(size_t tier, const std::string& reason)
{
  std::string line;
  {
    std::lock_guard lock(m_mutex);
    Slot& slot = m_tiers.at(tier);
    if (slot.distrusted) {
      return;
    }
    slot.distrusted = true;
    slot.skip_until = Clock::time_point::max();
    slot.health.last_error = reason;
    line = "tier " + slot.health.name + ": distrusted, not asked again until the daemon restarts: " +
           reason;
  }
  if (m_log) {
    m_log(line);
  }
}

std::optional<ChainHit> TierChain::lookup(Mode mode, const CacheKey& key, Clock::time_point deadline,
                                          size_t first, const Accept& accept)
{
  for (size_t i = first; i < m_tiers.size(); ++i) {
    Slot& slot = m_tiers[i];
    std::optional<std::chrono::milliseconds> budget = budget_for(slot, deadline);
    if (!budget) {
      continue;
    }
    const Clock::time_point asked = Clock::now();
    TierResult<std::optional<TierObject>> found = slot.tier->lookup(mode, key, *budget);
    // A budget the caller's deadline cut short is the caller's: the tier running out of it is
    // not the tier failing (a game asking with 1 ms must not back a healthy tier off).
    const bool cut_short = *budget < slot.policy.budget;
    if (!found && found.error().timeout && cut_short) {
      std::lock_guard lock(m_mutex);
      ++slot.health.misses;
      continue;
    }
    if (!found) {
      note_failure(slot, found.error(), "lookup");
      continue;
    }
    if (overran(asked, *budget) && !cut_short) {
      // The chain cannot stop a call, but it need not make the next one: a tier that keeps no
      // budget is backed off like one that fails. What it found is used all the same.
      note_failure(slot, overrun_failure(asked, *budget), "lookup");
    } else {
      note_answer(slot);
    }
    if (!found->has_value()) {
      std::lock_guard lock(m_mutex);
      ++slot.health.misses;
      continue;
    }
    const bool intact = digest_holds(**found);
    if (!intact || (accept && !accept(**found))) {
      {
        std::lock_guard lock(m_mutex);
        ++slot.health.mismatches;
        ++slot.health.misses;
      }
      if (m_log) {
        m_log("tier " + slot.health.name + ": " + key.describe() + ": object " +
              to_hex((*found)->digest) +
              (intact ? " refused by its check" : " does not match its digest") +
              "; asking the next tier");
      }
      continue;
    }
    {
      std::lock_guard lock(m_mutex);
      ++slot.health.hits;
    }
    ChainHit hit{std::move(**found), i};
    for (size_t nearer = 0; nearer < i; ++nearer) {
      Slot& fill = m_tiers[nearer];
      // A backfill gets the tier's own budget: the caller's deadline is for finding the object,
      // and the nearest tier (the local store) must keep it for the caller to be served at all.
      std::optional<std::chrono::milliseconds> fill_budget =
          budget_for(fill, Clock::now() + fill.policy.budget);
      if (!fill_budget) {
        continue;
      }
      TierResult<void> stored = fill.tier->store(mode, key, hit.object, *fill_budget);
      if (!stored) {
        note_failure(fill, stored.error(), "backfill");
        continue;
      }
      note_answer(fill);
      std::lock_guard lock(m_mutex);
      ++fill.health.stores;
    }
    return hit;
  }
  return std::nullopt;
}

std::optional<ChainHit> TierChain::build(Mode mode, const CacheKey& key,
                                         const std::filesystem::path& module,
                                         Clock::time_point deadline, const Accept& accept)
{
  for (size_t i = 1; i < m_tiers.size(); ++i) {
    Slot& slot = m_tiers[i];
    if (slot.policy.build_budget.count() <= 0) {
      continue;
    }
    std::optional<std::chrono::milliseconds> budget = budget_for(slot, deadline, slot.policy.build_budget);
    if (!budget) {
      continue;
    }
    TierResult<bool> built = slot.tier->build(mode, key, module, *budget);
    if (!built) {
      note_failure(slot, built.error(), "build");
      continue;
    }
    note_answer(slot);
    if (!*built) {
      continue;
    }
    {
      std::lock_guard lock(m_mutex);
      ++slot.health.builds;
    }
    if (std::optional<ChainHit> hit = lookup(mode, key, deadline, i, accept)) {
      return hit;
    }
    if (m_log) {
      m_log("tier " + slot.health.name + ": built " + key.describe() +
            " but has no object under this machine's key (a toolchain or recipe of its own?); "
            "building here");
    }
    return std::nullopt;
  }
  return std::nullopt;
}

ChainClaim TierChain::claim(Mode mode, const CacheKey& key, Clock::time_point deadline)
{
  for (size_t i = 1; i < m_tiers.size(); ++i) {
    Slot& slot = m_tiers[i];
    if (slot.policy.claim_budget.count() <= 0) {
      continue;
    }
    std::optional<std::chrono::milliseconds> budget = budget_for(slot, deadline, slot.policy.claim_budget);
    if (!budget) {
      continue;
    }
    TierResult<Claim> claimed = slot.tier->claim(mode, key, *budget);
    if (!claimed) {
      note_failure(slot, claimed.error(), "claim");
      continue;
    }
    note_answer(slot);
    return ChainClaim{i, std::move(*claimed)};
  }
  return {};
}

void TierChain::settle(Mode mode, const CacheKey& key, const ChainClaim& claim)
{
  if (claim.tier && !claim.claim.token.empty()) {
    m_tiers.at(*claim.tier).tier->settle(mode, key, claim.claim);
  }
}

bool TierChain::offer(std::string_view body, std::span<const std::byte> module, Clock::time_point deadline)
{
  for (size_t i = 1; i < m_tiers.size(); ++i) {
    Slot& slot = m_tiers[i];
    if (!slot.policy.shares_jobs) {
      continue;
    }
    // A module to upload may take longer than a lookup: the caller's deadline is the budget.
    std::optional<std::chrono::milliseconds> budget = budget_for(
        slot, deadline, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    if (!budget) {
      continue;
    }
    TierResult<bool> offered = slot.tier->offer(body, module, *budget);
    if (!offered) {
      note_failure(slot, offered.error(), "offer");
      continue;
    }
    note_answer(slot);
    if (*offered) {
      return true;
    }
  }
  return false;
}

std::optional<ChainJob> TierChain::take(std::chrono::milliseconds wait, Clock::time_point deadline)
{
  for (size_t i = 1; i < m_tiers.size(); ++i) {
    Slot& slot = m_tiers[i];
    if (!slot.policy.shares_jobs) {
      continue;
    }
    // The wait is the tier's to spend on top of a command's budget.
    std::optional<std::chrono::milliseconds> budget = budget_for(slot, deadline + wait);
    if (!budget) {
      continue;
    }
    TierResult<std::optional<TierJob>> taken = slot.tier->take(wait, *budget);
    if (!taken) {
      note_failure(slot, taken.error(), "take");
      continue;
    }
    note_answer(slot);
    if (*taken) {
      return ChainJob{i, std::move(**taken)};
    }
  }
  return std::nullopt;
}

void TierChain::finish(const ChainJob& job)
{
  m_tiers.at(job.tier).tier->finish(job.job);
}

bool TierChain::shares_jobs() const
{
  return std::ranges::any_of(m_tiers, [](const Slot& slot) { return slot.policy.shares_jobs; });
}

void TierChain::store(Mode mode, const CacheKey& key, const TierObject& object,
                      Clock::time_point deadline, size_t first)
{
  for (size_t i = first; i < m_tiers.size(); ++i) {
    Slot& slot = m_tiers[i];
    std::optional<std::chrono::milliseconds> budget = budget_for(slot, deadline);
    if (!budget) {
      continue;
    }
    TierResult<void> stored = slot.tier->store(mode, key, object, *budget);
    if (!stored) {
      note_failure(slot, stored.error(), "store");
      continue;
    }
    note_answer(slot);
    std::lock_guard lock(m_mutex);
    ++slot.health.stores;
  }
}

std::vector<TierHealth> TierChain::health() const
{
  const Clock::time_point now = Clock::now();
  std::vector<TierHealth> all;
  {
    std::lock_guard lock(m_mutex);
    for (const Slot& slot : m_tiers) {
      TierHealth health = slot.health;
      health.backed_off = now < slot.skip_until;
      health.distrusted = slot.distrusted;
      all.push_back(std::move(health));
    }
  }
  // Outside the lock: a question to the tier itself, within its budget, and only of a tier that
  // answers now (one backed off would cost its budget for nothing).
  for (size_t i = 0; i < m_tiers.size(); ++i) {
    if (m_tiers[i].policy.shares_jobs && !all[i].backed_off && !all[i].distrusted) {
      TierResult<std::vector<std::string>> hosts = m_tiers[i].tier->hosts(m_tiers[i].policy.budget);
      if (hosts) {
        all[i].hosts = std::move(*hosts);
      }
    }
  }
  return all;
}

} // namespace d4r::cache
