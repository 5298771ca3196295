// The tier chain with fake tiers (and the real local store as the first): a hit backfills the
// nearer tiers, a failing tier is skipped and backed off, a slow one past its budget too, a
// damaged object falls through to the next tier, and the caller's deadline bounds everything; a
// build server among them builds when asked, within its build budget.

#include "cache/local_tier.hpp"
#include "cache/tier_chain.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

namespace d4r::cache {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TierObject object_named(std::string_view text)
{
  std::vector<std::byte> bytes = testing::bytes_of(text);
  return TierObject{sha256(std::span<const std::byte>(bytes)), bytes, "meta", "fake"};
}

// A tier held in memory, told how to misbehave. Thread-safe enough for one test thread.
class FakeTier final : public Tier {
public:
  explicit FakeTier(std::string name) : m_name(std::move(name)) {}
  std::string name() const override { return m_name; }

  TierResult<std::optional<TierObject>> lookup(Mode mode, const CacheKey& key,
                                               std::chrono::milliseconds budget) override
  {
    ++lookups;
    last_budget = budget;
    std::this_thread::sleep_for(delay);
    if (timing_out) {
      return std::unexpected(TierFailure{Error{ErrorCode::timeout, "no budget left"}, true});
    }
    if (failing) {
      return std::unexpected(TierFailure{Error{ErrorCode::unavailable, "connection refused"}, false});
    }
    auto found = objects.find(key.to_text(mode));
    if (found == objects.end()) {
      return std::optional<TierObject>();
    }
    return std::optional<TierObject>(found->second);
  }

  TierResult<void> store(Mode mode, const CacheKey& key, const TierObject& object,
                         std::chrono::milliseconds) override
  {
    ++stores;
    if (failing) {
      return std::unexpected(TierFailure{Error{ErrorCode::unavailable, "connection refused"}, false});
    }
    objects[key.to_text(mode)] = object;
    return {};
  }

  // A build server's answer: with `builds`, what it builds is stored under the key (or, with
  // `builds_elsewhere`, under another key: a toolchain of its own).
  TierResult<bool> build(Mode mode, const CacheKey& key, const std::filesystem::path& module,
                         std::chrono::milliseconds budget) override
  {
    ++build_calls;
    last_build_budget = budget;
    last_module = module;
    if (failing) {
      return std::unexpected(TierFailure{Error{ErrorCode::unavailable, "connection refused"}, false});
    }
    if (!builds) {
      return false;
    }
    objects[(builds_elsewhere ? testing::make_key("other") : key).to_text(mode)] = object_named("built");
    return true;
  }

  TierResult<Claim> claim(Mode, const CacheKey&, std::chrono::milliseconds budget) override
  {
    ++claim_calls;
    last_claim_budget = budget;
    if (failing) {
      return std::unexpected(TierFailure{Error{ErrorCode::unavailable, "connection refused"}, false});
    }
    return claim_answer;
  }

  void settle(Mode, const CacheKey&, const Claim& claim) override { settled.push_back(claim.token); }

  std::string m_name;
  std::map<std::string, TierObject> objects;
  Claim claim_answer;
  std::atomic<int> claim_calls{0};
  std::chrono::milliseconds last_claim_budget{0};
  std::vector<std::string> settled;
  bool builds = false;
  bool builds_elsewhere = false;
  std::atomic<int> build_calls{0};
  std::chrono::milliseconds last_build_budget{0};
  std::filesystem::path last_module;
  std::chrono::milliseconds delay{0};
  bool failing = false;
  bool timing_out = false;
  std::atomic<int> lookups{0};
  std::atomic<int> stores{0};
  std::chrono::milliseconds last_budget{0};
};

struct Fakes {
  explicit Fakes(TierChain::Log log = {}) : chain(std::move(log)) {}
  TierChain chain;
  std::vector<FakeTier*> tiers;
  FakeTier& add(const std::string& name, TierPolicy policy = {})
  {
    auto tier = std::make_unique<FakeTier>(name);
    tiers.push_back(tier.get());
    chain.add(std::move(tier), policy);
    return *tiers.back();
  }
};

const CacheKey k_key = testing::make_key("k_main");
Clock::time_point soon() { return Clock::now() + 5s; }

TEST(TierChain, AHitBackfillsTheNearerTiers)
{
  Fakes fakes;
  FakeTier& near = fakes.add("near");
  FakeTier& middle = fakes.add("middle");
  FakeTier& far = fakes.add("far");
  far.objects[k_key.to_text(Mode::fast)] = object_named("object");
  std::optional<ChainHit> hit = fakes.chain.lookup(Mode::fast, k_key, soon());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 2U);
  EXPECT_EQ(hit->object.bytes, object_named("object").bytes);
  EXPECT_EQ(near.objects.count(k_key.to_text(Mode::fast)), 1U);
  EXPECT_EQ(middle.objects.count(k_key.to_text(Mode::fast)), 1U);
  EXPECT_EQ(far.stores.load(), 0) << "the tier that had it is not written";
  EXPECT_FALSE(fakes.chain.lookup(Mode::accuracy, k_key, soon())) << "modes are apart";

  hit = fakes.chain.lookup(Mode::fast, k_key, soon());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 0U) << "the nearest tier answers now";
  EXPECT_EQ(far.lookups.load(), 2) << "the accuracy lookup asked it, the second fast one did not";
  std::vector<TierHealth> health = fakes.chain.health();
  EXPECT_EQ(health[0].hits, 1);
  EXPECT_EQ(health[0].stores, 1);
  EXPECT_EQ(health[2].hits, 1);
}

TEST(TierChain, AFailingTierIsSkippedAndBackedOff)
{
  std::vector<std::string> log;
  Fakes fakes([&](const std::string& line) { log.push_back(line); });
  TierChain& chain = fakes.chain;
  FakeTier& down = fakes.add("down", TierPolicy{250ms, 100ms, 1000ms});
  FakeTier& up = fakes.add("up");
  down.failing = true;
  up.objects[k_key.to_text(Mode::fast)] = object_named("object");

  std::optional<ChainHit> hit = chain.lookup(Mode::fast, k_key, soon());
  ASSERT_TRUE(hit) << "the next tier answers";
  EXPECT_EQ(hit->tier, 1U);
  EXPECT_EQ(down.lookups.load(), 1);
  EXPECT_EQ(down.stores.load(), 0) << "no backfill into a tier that just failed";
  ASSERT_EQ(log.size(), 1U);
  EXPECT_NE(log[0].find("tier down: lookup failed: connection refused; skipped for 100 ms"),
            std::string::npos)
      << log[0];

  ASSERT_TRUE(chain.lookup(Mode::fast, k_key, soon()));
  EXPECT_EQ(down.lookups.load(), 1) << "backed off: not asked";
  EXPECT_TRUE(chain.health()[0].backed_off);
  // Skipped twice as often as asked: the lookup and the backfill after the next tier's hit.
  EXPECT_EQ(chain.health()[0].skipped, 3);

  std::this_thread::sleep_for(120ms);
  ASSERT_TRUE(chain.lookup(Mode::fast, k_key, soon()));
  EXPECT_EQ(down.lookups.load(), 2) << "asked again after its backoff";
  EXPECT_NE(log.back().find("skipped for 200 ms"), std::string::npos) << "doubled: " << log.back();

  down.failing = false;
  std::this_thread::sleep_for(220ms);
  hit = chain.lookup(Mode::fast, k_key, soon());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 1U);
  EXPECT_EQ(down.stores.load(), 1) << "answering again, it is backfilled";
  EXPECT_FALSE(chain.health()[0].backed_off);
  EXPECT_EQ(chain.lookup(Mode::fast, k_key, soon())->tier, 0U);
}

TEST(TierChain, ADistrustedTierIsNeverAskedOrGivenAnythingAgain)
{
  std::vector<std::string> log;
  Fakes fakes([&log](const std::string& line) { log.push_back(line); });
  FakeTier& local = fakes.add("local");
  FakeTier& upstream = fakes.add("upstream", TierPolicy{100ms, 10ms, 10ms});
  upstream.objects[k_key.to_text(Mode::fast)] = object_named("object");
  ASSERT_EQ(fakes.chain.lookup(Mode::fast, k_key, soon(), 1)->tier, 1U);
  EXPECT_EQ(upstream.lookups.load(), 1);

  fakes.chain.distrust(1, "served bytes this machine does not build");
  fakes.chain.distrust(1, "a second report"); // the first reason stays
  EXPECT_FALSE(fakes.chain.lookup(Mode::fast, k_key, soon(), 1)) << "not asked";
  std::this_thread::sleep_for(30ms); // past any backoff it could have had
  EXPECT_FALSE(fakes.chain.lookup(Mode::fast, k_key, soon(), 1));
  fakes.chain.store(Mode::fast, k_key, object_named("new"), soon(), 0);
  EXPECT_EQ(upstream.lookups.load(), 1);
  EXPECT_EQ(upstream.stores.load(), 0) << "given nothing";
  EXPECT_EQ(local.stores.load(), 2) << "the backfill, then the store";
  std::vector<TierHealth> health = fakes.chain.health();
  EXPECT_TRUE(health[1].distrusted);
  EXPECT_FALSE(health[0].distrusted);
  EXPECT_EQ(health[1].last_error, "served bytes this machine does not build");
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("tier upstream: distrusted"), std::string::npos) << log.back();
}

TEST(TierChain, AskedToBuildTheNearestBuildServerBuildsAndItsObjectIsFetched)
{
  Fakes fakes;
  FakeTier& local = fakes.add("local");
  FakeTier& shared = fakes.add("shared"); // builds, but its policy has no build budget
  FakeTier& server = fakes.add("server", TierPolicy{.budget = 250ms, .build_budget = 3000ms});
  FakeTier& second = fakes.add("second", TierPolicy{.budget = 250ms, .build_budget = 3000ms});
  shared.builds = true;
  server.builds = true;
  second.builds = true;
  std::optional<ChainHit> hit = fakes.chain.build(Mode::fast, k_key, "/modules/m.ptx", Clock::now() + 10s);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 2U);
  EXPECT_EQ(hit->object.bytes, object_named("built").bytes);
  EXPECT_EQ(shared.build_calls.load(), 0) << "a tier without a build budget is never asked";
  EXPECT_EQ(server.build_calls.load(), 1);
  EXPECT_EQ(second.build_calls.load(), 0) << "the nearest build server did it";
  EXPECT_EQ(server.last_module, "/modules/m.ptx");
  EXPECT_LE(server.last_build_budget, 3000ms);
  EXPECT_GT(server.last_build_budget, 2000ms) << "its build budget, not its lookup budget";
  EXPECT_EQ(local.objects.count(k_key.to_text(Mode::fast)), 1U) << "backfilled";
  std::vector<TierHealth> health = fakes.chain.health();
  EXPECT_EQ(health[2].builds, 1);
  EXPECT_EQ(health[2].hits, 1);
  // The caller's deadline bounds a build too.
  ASSERT_TRUE(fakes.chain.build(Mode::accuracy, k_key, {}, Clock::now() + 500ms));
  EXPECT_LE(server.last_build_budget, 500ms);
}

TEST(TierChain, ABuildServerThatFailsIsBackedOffOneThatDeclinesIsNot)
{
  std::vector<std::string> log;
  Fakes fakes([&log](const std::string& line) { log.push_back(line); });
  fakes.add("local");
  FakeTier& server = fakes.add("server", TierPolicy{.budget = 250ms, .backoff = 10s, .build_budget = 1000ms});
  // Declines (no recipe there): not a failure, asked again next time.
  EXPECT_FALSE(fakes.chain.build(Mode::fast, k_key, {}, Clock::now() + 5s));
  EXPECT_FALSE(fakes.chain.build(Mode::fast, k_key, {}, Clock::now() + 5s));
  EXPECT_EQ(server.build_calls.load(), 2);
  EXPECT_FALSE(fakes.chain.health()[1].backed_off);
  // Down: backed off, and the lookups skip it too.
  server.failing = true;
  EXPECT_FALSE(fakes.chain.build(Mode::fast, k_key, {}, Clock::now() + 5s));
  EXPECT_FALSE(fakes.chain.build(Mode::fast, k_key, {}, Clock::now() + 5s));
  EXPECT_EQ(server.build_calls.load(), 3);
  EXPECT_TRUE(fakes.chain.health()[1].backed_off);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("tier server: build failed: connection refused"), std::string::npos) << log.back();
}

TEST(TierChain, ADistrustedBuildServerIsNotAskedToBuild)
{
  Fakes fakes;
  fakes.add("local");
  FakeTier& server = fakes.add("server", TierPolicy{.budget = 250ms, .build_budget = 1000ms});
  server.builds = true;
  fakes.chain.distrust(1, "served bytes this machine does not build");
  EXPECT_FALSE(fakes.chain.build(Mode::fast, k_key, {}, Clock::now() + 5s));
  EXPECT_EQ(server.build_calls.load(), 0);
}

TEST(TierChain, WhatABuildServerBuiltUnderAnotherKeyIsNotTaken)
{
  std::vector<std::string> log;
  Fakes fakes([&log](const std::string& line) { log.push_back(line); });
  FakeTier& local = fakes.add("local");
  FakeTier& server = fakes.add("server", TierPolicy{.budget = 250ms, .build_budget = 1000ms});
  server.builds = true;
  server.builds_elsewhere = true;
  EXPECT_FALSE(fakes.chain.build(Mode::fast, k_key, {}, Clock::now() + 5s));
  EXPECT_EQ(local.stores.load(), 0);
  EXPECT_EQ(fakes.chain.health()[1].builds, 1);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("has no object under this machine's key"), std::string::npos) << log.back();
}

TEST(TierChain, TheFirstSharedTierDecidesWhoBuildsAndIsSettledAfter)
{
  Fakes fakes;
  fakes.add("local");
  FakeTier& upstream = fakes.add("upstream"); // no claim budget: not asked
  FakeTier& shared = fakes.add("shared", TierPolicy{.budget = 250ms, .claim_budget = 2000ms});
  FakeTier& second = fakes.add("second", TierPolicy{.budget = 250ms, .claim_budget = 2000ms});
  shared.claim_answer = Claim{ClaimState::yours, "token-1"};
  ChainClaim claim = fakes.chain.claim(Mode::fast, k_key, Clock::now() + 10s);
  ASSERT_TRUE(claim.tier);
  EXPECT_EQ(*claim.tier, 2U);
  EXPECT_EQ(claim.claim.token, "token-1");
  EXPECT_EQ(upstream.claim_calls.load(), 0);
  EXPECT_EQ(second.claim_calls.load(), 0) << "one shared tier decides";
  EXPECT_GT(shared.last_claim_budget, 1500ms) << "its claim budget";
  fakes.chain.settle(Mode::fast, k_key, claim);
  EXPECT_EQ(shared.settled, std::vector<std::string>{"token-1"});

  // Built by another host: nothing to settle.
  shared.claim_answer = Claim{ClaimState::built_elsewhere, ""};
  claim = fakes.chain.claim(Mode::fast, k_key, Clock::now() + 10s);
  EXPECT_EQ(claim.claim.state, ClaimState::built_elsewhere);
  fakes.chain.settle(Mode::fast, k_key, claim);
  EXPECT_EQ(shared.settled.size(), 1U);
}

TEST(TierChain, AFailingClaimIsBackedOffAndTheCallerBuilds)
{
  Fakes fakes;
  fakes.add("local");
  FakeTier& shared = fakes.add("shared", TierPolicy{.budget = 250ms, .backoff = 10s, .claim_budget = 2000ms});
  shared.failing = true;
  ChainClaim claim = fakes.chain.claim(Mode::fast, k_key, Clock::now() + 10s);
  EXPECT_FALSE(claim.tier) << "a claim that failed: the second shared tier, if any, would be asked";
  EXPECT_EQ(claim.claim.state, ClaimState::yours);
  claim = fakes.chain.claim(Mode::fast, k_key, Clock::now() + 10s);
  EXPECT_EQ(shared.claim_calls.load(), 1) << "backed off";
  fakes.chain.settle(Mode::fast, k_key, claim);
  EXPECT_TRUE(shared.settled.empty());
}

TEST(TierChain, ASlowTierPastItsBudgetIsBackedOff)
{
  Fakes fakes;
  FakeTier& slow = fakes.add("slow", TierPolicy{30ms, 10s, 60s});
  FakeTier& fast = fakes.add("fast");
  slow.delay = 150ms; // keeps no budget
  fast.objects[k_key.to_text(Mode::fast)] = object_named("object");

  ASSERT_TRUE(fakes.chain.lookup(Mode::fast, k_key, soon()));
  EXPECT_EQ(slow.last_budget, 30ms) << "each tier gets its own budget";
  std::vector<TierHealth> health = fakes.chain.health();
  EXPECT_EQ(health[0].timeouts, 1);
  EXPECT_TRUE(health[0].backed_off);

  const Clock::time_point start = Clock::now();
  ASSERT_TRUE(fakes.chain.lookup(Mode::fast, k_key, soon()));
  EXPECT_LT(Clock::now() - start, 100ms) << "the slow tier is not waited for again";
  EXPECT_EQ(slow.lookups.load(), 1);
}

TEST(TierChain, TheCallersDeadlineBoundsEveryBudget)
{
  Fakes fakes;
  FakeTier& first = fakes.add("first", TierPolicy{1000ms, 1s, 1s});
  FakeTier& second = fakes.add("second");
  first.delay = 60ms;
  (void)fakes.chain.lookup(Mode::fast, k_key, Clock::now() + 50ms);
  EXPECT_LE(first.last_budget, 50ms) << "clamped to what the caller has left";
  EXPECT_EQ(second.lookups.load(), 0) << "the deadline passed: no tier is asked after it";
}

// A caller with little time left (a game's 1 ms) cuts a tier's budget: the tier running out of
// that, or taking longer, is not the tier's failure and does not back it off.
TEST(TierChain, ABudgetTheCallerCutShortBacksNothingOff)
{
  Fakes fakes;
  fakes.add("local");
  FakeTier& shared = fakes.add("shared", TierPolicy{200ms, 10s, 10s});
  shared.timing_out = true;
  EXPECT_FALSE(fakes.chain.lookup(Mode::fast, k_key, Clock::now() + 5ms, 1));
  EXPECT_FALSE(fakes.chain.health()[1].backed_off);
  EXPECT_EQ(fakes.chain.health()[1].failures, 0);
  shared.timing_out = false;
  shared.delay = 30ms;
  EXPECT_FALSE(fakes.chain.lookup(Mode::fast, k_key, Clock::now() + 5ms, 1));
  EXPECT_FALSE(fakes.chain.health()[1].backed_off) << "slower than the caller, within its own budget";
  shared.timing_out = true;
  shared.delay = 0ms;
  EXPECT_FALSE(fakes.chain.lookup(Mode::fast, k_key, Clock::now() + 5s, 1));
  EXPECT_TRUE(fakes.chain.health()[1].backed_off) << "out of its own budget: backed off";
  EXPECT_EQ(shared.lookups.load(), 3);
}

TEST(TierChain, ADamagedObjectFallsThroughToTheNextTier)
{
  Fakes fakes;
  FakeTier& near = fakes.add("near");
  FakeTier& liar = fakes.add("liar");
  FakeTier& honest = fakes.add("honest");
  TierObject damaged = object_named("object");
  damaged.bytes[0] ^= std::byte{1};
  liar.objects[k_key.to_text(Mode::fast)] = damaged;
  honest.objects[k_key.to_text(Mode::fast)] = object_named("object");
  std::optional<ChainHit> hit = fakes.chain.lookup(Mode::fast, k_key, soon());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 2U);
  EXPECT_EQ(hit->object.bytes, object_named("object").bytes);
  EXPECT_EQ(near.objects[k_key.to_text(Mode::fast)].bytes, object_named("object").bytes);
  EXPECT_EQ(fakes.chain.health()[1].mismatches, 1);

  // The caller's check refuses what the digest cannot: the same fall-through.
  Fakes checked;
  checked.add("first").objects[k_key.to_text(Mode::fast)] = object_named("refused");
  checked.add("second").objects[k_key.to_text(Mode::fast)] = object_named("accepted");
  hit = checked.chain.lookup(Mode::fast, k_key, soon(), 0, [](const TierObject& object) {
    return object.bytes == object_named("accepted").bytes;
  });
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 1U);
  EXPECT_EQ(checked.chain.health()[0].mismatches, 1);
}

TEST(TierChain, TheLocalStoreIsTheFirstTierAndKeepsWhatAFartherOneHad)
{
  testing::TempDir dir;
  CacheOptions options;
  options.root = dir.path();
  Expected<std::unique_ptr<Cache>> cache = Cache::open(options);
  ASSERT_TRUE(cache) << cache.error().message;
  TierChain chain;
  chain.add(make_local_tier(**cache));
  auto remote = std::make_unique<FakeTier>("remote");
  remote->objects[k_key.to_text(Mode::accuracy)] = object_named("remote object");
  FakeTier& far = *remote;
  chain.add(std::move(remote));

  std::optional<ChainHit> hit = chain.lookup(Mode::accuracy, k_key, soon(), 1);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 1U);
  Expected<std::optional<Hit>> local = (*cache)->lookup(Mode::accuracy, k_key);
  ASSERT_TRUE(local && local->has_value()) << "backfilled into the local store";
  EXPECT_EQ((*local)->digest, object_named("remote object").digest);
  EXPECT_EQ((*local)->metadata, "meta");
  hit = chain.lookup(Mode::accuracy, k_key, soon());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 0U);
  EXPECT_EQ(hit->object.bytes, object_named("remote object").bytes) << "read back and verified";
  EXPECT_EQ(far.lookups.load(), 1);

  chain.store(Mode::fast, k_key, object_named("built here"), soon(), 1);
  EXPECT_EQ(far.objects.count(k_key.to_text(Mode::fast)), 1U) << "a build is published past local";
  EXPECT_FALSE((*cache)->lookup(Mode::fast, k_key).value()) << "and not stored locally by store(1)";
}

} // namespace
} // namespace d4r::cache
