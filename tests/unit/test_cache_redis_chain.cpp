// The Redis tier behind each host's local store in the real tier chain (cache/tier_chain.hpp),
// two hosts with stores of their own on one real redis-server: what one builds the other finds
// and keeps; with Redis gone each host serves what it has locally at local speed, stores
// locally, and misses (never waits) for what only Redis had; once Redis is back they share again.

#include "cache/local_tier.hpp"
#include "cache/remote/redis/redis_tier.hpp"
#include "cache/tier_chain.hpp"
#include "tests/unit/test_cache_redis_support.hpp"
#include "tests/unit/test_cache_support.hpp"

#include <gtest/gtest.h>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;

TierObject object_named(std::string_view text)
{
  std::vector<std::byte> bytes = cache::testing::bytes_of(text);
  return TierObject{sha256(std::span<const std::byte>(bytes)), bytes, "meta", "build:test"};
}

// One build host: its own local store, then the shared Redis tier.
struct Host {
  explicit Host(const RedisOptions& redis)
  {
    CacheOptions options;
    options.root = dir.path();
    Expected<std::unique_ptr<Cache>> opened = Cache::open(options);
    EXPECT_TRUE(opened) << opened.error().message;
    cache = std::move(*opened);
    chain.add(make_local_tier(*cache));
    RedisTierOptions tier;
    tier.connection = redis;
    tier.keys.prefix = "t:";
    chain.add(make_redis_tier(tier),
              TierPolicy{.budget = 200ms, .backoff = 50ms, .max_backoff = 100ms});
  }

  cache::testing::TempDir dir;
  std::unique_ptr<Cache> cache;
  TierChain chain;
};

class RedisChainTest : public testing::RedisTest {
protected:
  void SetUp() override
  {
    RedisTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
      return;
    }
    m_host_a = std::make_unique<Host>(m_server.unix_options());
    m_host_b = std::make_unique<Host>(m_server.tcp_options());
  }

  std::unique_ptr<Host> m_host_a;
  std::unique_ptr<Host> m_host_b;
};

TEST_F(RedisChainTest, WhatOneHostBuildsTheOtherFindsAndKeeps)
{
  CacheKey key = cache::testing::make_key("vector_add");
  m_host_a->chain.store(Mode::fast, key, object_named("built on a"), in(1s));
  std::optional<ChainHit> hit = m_host_b->chain.lookup(Mode::fast, key, in(1s));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 1U) << "from Redis";
  EXPECT_EQ(hit->object.bytes, object_named("built on a").bytes);
  EXPECT_EQ(hit->object.metadata, "meta");
  Expected<std::optional<Hit>> local = m_host_b->cache->lookup(Mode::fast, key);
  ASSERT_TRUE(local && local->has_value()) << "backfilled into b's own store";
  hit = m_host_b->chain.lookup(Mode::fast, key, in(1s));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tier, 0U);
}

TEST_F(RedisChainTest, RedisGoneEachHostServesLocallyAndSharesAgainOnceBack)
{
  CacheKey before = cache::testing::make_key("before");
  CacheKey during = cache::testing::make_key("during");
  CacheKey after = cache::testing::make_key("after");
  m_host_a->chain.store(Mode::fast, before, object_named("before"), in(1s));
  m_server.kill();

  Clock::time_point start = Clock::now();
  std::optional<ChainHit> local_hit = m_host_a->chain.lookup(Mode::fast, before, in(1s));
  ASSERT_TRUE(local_hit);
  EXPECT_EQ(local_hit->tier, 0U);
  m_host_a->chain.store(Mode::fast, during, object_named("during"), in(1s));
  local_hit = m_host_a->chain.lookup(Mode::fast, during, in(1s));
  ASSERT_TRUE(local_hit) << "committed locally while Redis was down";
  EXPECT_EQ(local_hit->tier, 0U);
  std::optional<ChainHit> miss = m_host_b->chain.lookup(Mode::fast, before, in(1s));
  EXPECT_FALSE(miss) << "only Redis had it: a miss, so b builds it itself";
  EXPECT_LT(elapsed_ms(start), 200) << "no call waited on the dead server";
  std::vector<TierHealth> health = m_host_a->chain.health();
  ASSERT_EQ(health.size(), 2U);
  EXPECT_GE(health[1].failures, 1);
  EXPECT_NE(health[1].last_error.find("redis unix:"), std::string::npos) << health[1].last_error;

  ASSERT_TRUE(m_server.start());
  Deadline give_up = in(3s);
  std::optional<ChainHit> shared;
  while (!shared && Clock::now() < give_up) {
    m_host_a->chain.store(Mode::fast, after, object_named("after"), in(1s));
    shared = m_host_b->chain.lookup(Mode::fast, after, in(1s));
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(shared) << "shared again after the restart";
  EXPECT_EQ(shared->tier, 1U);
  local_hit = m_host_a->chain.lookup(Mode::fast, during, in(1s));
  ASSERT_TRUE(local_hit);
  EXPECT_EQ(local_hit->object.bytes, object_named("during").bytes) << "nothing local was lost";
}

} // namespace
} // namespace d4r::cache::redis
