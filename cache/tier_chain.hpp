#pragma once
// The ordered tiers the daemon core asks (tier.hpp), nearest first: the local store, then remote
// ones. Each is asked within its own budget (never past the caller's deadline); a hit backfills
// the nearer tiers; a tier that fails or runs out of time is skipped for a backoff that doubles
// with each failure in a row and resets at its next answer. What a tier returns is checked
// against its digest: a mismatch is that tier's miss, and the next one is asked. The chain knows
// no tier by kind; ccache's storage::Storage is the model.

#include "cache/tier.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace d4r::cache {

struct TierPolicy {
  std::chrono::milliseconds budget{250};         // per lookup or store
  std::chrono::milliseconds backoff{1000};       // skipped this long after a first failure
  std::chrono::milliseconds max_backoff{60000};  // the doubling stops here
  std::chrono::milliseconds build_budget{0};     // per build() of a build server; 0: never asked
  std::chrono::milliseconds claim_budget{0};     // per claim() of a shared tier; 0: never asked
  bool shares_jobs = false;                      // offer() and take() go to it
};

// For status and tests: what each tier did in this process.
struct TierHealth {
  std::string name;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t failures = 0;   // errors and timeouts
  int64_t timeouts = 0;
  int64_t skipped = 0;    // calls not made: the tier was backed off
  int64_t mismatches = 0; // objects that did not hash to their digest or were not accepted
  int64_t stores = 0;
  int64_t builds = 0;     // objects it built when asked (build())
  bool backed_off = false;
  bool distrusted = false; // its results proved wrong: not asked again in this process
  std::string last_error;
  std::vector<std::string> hosts; // a shared tier's build hosts alive now (Tier::hosts)
};

struct ChainHit {
  TierObject object;
  size_t tier = 0; // where it was found
};

// A job TierChain::take() got, and the tier it came from (for finish()).
struct ChainJob {
  size_t tier = 0;
  TierJob job;
};

// What TierChain::claim() got: the tier that answered (none: build, nobody else does) and how.
struct ChainClaim {
  std::optional<size_t> tier;
  Claim claim;
};

class TierChain {
public:
  using Log = std::function<void(const std::string&)>;
  explicit TierChain(Log log = {}) : m_log(std::move(log)) {}

  // Appends the next farther tier. Before the chain is shared between threads.
  void add(std::unique_ptr<Tier> tier, TierPolicy policy = {});
  [[nodiscard]] size_t size() const { return m_tiers.size(); }
  [[nodiscard]] const std::string& name(size_t tier) const { return m_tiers.at(tier).health.name; }

  // The caller's own check of what a tier returned (its launch contract, say), after the digest:
  // false is that tier's miss, as a digest mismatch is, and nothing is backfilled from it.
  using Accept = std::function<bool(const TierObject&)>;

  // Asks tiers[first..] in order until one has the object; on a hit at tier i, stores it in every
  // tier before i (those before `first` too: the caller asked them itself and they missed) that
  // is not backed off. Nothing past `deadline`, and nullopt when no tier had it.
  [[nodiscard]] std::optional<ChainHit> lookup(Mode mode, const CacheKey& key,
                                               std::chrono::steady_clock::time_point deadline,
                                               size_t first = 0, const Accept& accept = {});
  // Asks the farther tiers that build (a policy with a build budget; not backed off, not
  // distrusted), nearest first, to build the object; the first that does is then asked for it
  // as lookup() asks (checked the same way, backfilling the nearer tiers). nullopt: none built
  // it, or what one built is not found under this key (another toolchain there, say).
  [[nodiscard]] std::optional<ChainHit> build(Mode mode, const CacheKey& key,
                                              const std::filesystem::path& module,
                                              std::chrono::steady_clock::time_point deadline,
                                              const Accept& accept = {});
  // Before a build: the first farther tier with a claim budget (not backed off, not distrusted)
  // says whether this host builds the key or another host sharing it just did (tier.hpp). A
  // tier that fails is backed off and the caller builds.
  [[nodiscard]] ChainClaim claim(Mode mode, const CacheKey& key,
                                 std::chrono::steady_clock::time_point deadline);
  // After the build of a claim that holds a key: given up (waiting hosts look again).
  void settle(Mode mode, const CacheKey& key, const ChainClaim& claim);
  // Work sharing (tier.hpp): the build offered to the first tier that shares jobs and takes it
  // (false: none did, within its budget), a job taken from one (waiting at most `wait` there),
  // and a taken job finished.
  [[nodiscard]] bool offer(std::string_view body, std::span<const std::byte> module,
                           std::chrono::steady_clock::time_point deadline);
  [[nodiscard]] std::optional<ChainJob> take(std::chrono::milliseconds wait,
                                             std::chrono::steady_clock::time_point deadline);
  void finish(const ChainJob& job);
  // Whether a tier shares jobs at all (a daemon then takes them).
  [[nodiscard]] bool shares_jobs() const;
  // Stores the object in tiers[first..] that are not backed off (a new build, published).
  void store(Mode mode, const CacheKey& key, const TierObject& object,
             std::chrono::steady_clock::time_point deadline, size_t first = 0);

  // A tier whose results proved wrong (an object it served is not what this machine builds for
  // the key): never asked or given anything again in this process. `reason` is logged and kept
  // as its health's last error.
  void distrust(size_t tier, const std::string& reason);

  [[nodiscard]] std::vector<TierHealth> health() const;

private:
  struct Slot {
    std::unique_ptr<Tier> tier;
    TierPolicy policy;
    TierHealth health;
    int64_t failures_in_a_row = 0;
    std::chrono::steady_clock::time_point skip_until{};
    bool distrusted = false; // skip_until stays at its end of time
  };
  // The budget a call to `slot` gets now (at most `cap`, the policy's budget by default), or
  // nullopt when it is backed off or the deadline passed.
  [[nodiscard]] std::optional<std::chrono::milliseconds>
  budget_for(Slot& slot, std::chrono::steady_clock::time_point deadline,
             std::optional<std::chrono::milliseconds> cap = std::nullopt);
  void note_failure(Slot& slot, const TierFailure& failure, const char* what);
  void note_answer(Slot& slot);

  std::vector<Slot> m_tiers;
  mutable std::mutex m_mutex; // guards each slot's health and backoff, never held during a call
  Log m_log;
};

} // namespace d4r::cache
