// The cross-host single-flight lock against a real redis-server, with two connections as two
// hosts: one wins, the expiry frees a dead holder's lock, and only the holder's token releases.

#include "cache/remote/redis/lock.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisTest;

class RedisLockTest : public RedisTest {
protected:
  RedisKeyspace m_keys{.prefix = "t:"};
  RedisConnection m_host_a{m_server.unix_options()};
  RedisConnection m_host_b{m_server.tcp_options()};
  RedisLock m_lock_a{m_host_a, m_keys};
  RedisLock m_lock_b{m_host_b, m_keys};
};

TEST_F(RedisLockTest, OneOfTwoHostsWins)
{
  Expected<std::optional<RedisLockToken>> a = m_lock_a.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(a->has_value());
  Expected<std::optional<RedisLockToken>> b = m_lock_b.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_FALSE(b->has_value());

  Expected<std::optional<RedisLockToken>> other_key = m_lock_b.try_acquire("other", 10s, in(1s));
  ASSERT_TRUE(other_key);
  EXPECT_TRUE(other_key->has_value()) << "locks are per key";

  Expected<bool> released = m_lock_a.release(**a, in(1s));
  ASSERT_TRUE(released) << released.error().message;
  EXPECT_TRUE(*released);
  Expected<std::optional<RedisLockToken>> b_again = m_lock_b.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(b_again);
  EXPECT_TRUE(b_again->has_value());
}

TEST_F(RedisLockTest, AWrongTokenCannotRelease)
{
  Expected<std::optional<RedisLockToken>> a = m_lock_a.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(a && a->has_value());
  RedisLockToken forged{.key = (*a)->key, .token = random_token()};
  EXPECT_NE(forged.token, (*a)->token);
  Expected<bool> released = m_lock_b.release(forged, in(1s));
  ASSERT_TRUE(released) << released.error().message;
  EXPECT_FALSE(*released);
  Expected<std::optional<RedisLockToken>> b = m_lock_b.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->has_value()) << "the holder still holds it";
}

TEST_F(RedisLockTest, ExpiryFreesADeadHoldersLockAndTheLateHolderCannotTakeItBack)
{
  Expected<std::optional<RedisLockToken>> a = m_lock_a.try_acquire("key", 100ms, in(1s));
  ASSERT_TRUE(a && a->has_value());
  Expected<std::optional<RedisLockToken>> b = m_lock_b.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->has_value());
  std::this_thread::sleep_for(150ms);
  b = m_lock_b.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->has_value()) << "A never released; its expiry did";

  Expected<bool> late_release = m_lock_a.release(**a, in(1s));
  ASSERT_TRUE(late_release);
  EXPECT_FALSE(*late_release);
  Expected<bool> late_extend = m_lock_a.extend(**a, 10s, in(1s));
  ASSERT_TRUE(late_extend);
  EXPECT_FALSE(*late_extend);
  Expected<RedisReply> holder = m_host_a.call({"GET", (*b)->key}, in(1s));
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->text, (*b)->token);
}

TEST_F(RedisLockTest, ExtendKeepsALongBuildsLock)
{
  Expected<std::optional<RedisLockToken>> a = m_lock_a.try_acquire("key", 100ms, in(1s));
  ASSERT_TRUE(a && a->has_value());
  Expected<bool> extended = m_lock_a.extend(**a, 5s, in(1s));
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_TRUE(*extended);
  std::this_thread::sleep_for(150ms);
  Expected<std::optional<RedisLockToken>> b = m_lock_b.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->has_value());
}

TEST_F(RedisLockTest, ReleaseSurvivesAnEmptiedScriptCache)
{
  Expected<std::optional<RedisLockToken>> first = m_lock_a.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(first && first->has_value());
  ASSERT_TRUE(m_lock_a.release(**first, in(1s)));
  // What a restart does: the cached script is gone and EVALSHA answers NOSCRIPT.
  ASSERT_TRUE(m_host_b.call({"SCRIPT", "FLUSH"}, in(1s)));
  Expected<std::optional<RedisLockToken>> second = m_lock_a.try_acquire("key", 10s, in(1s));
  ASSERT_TRUE(second && second->has_value());
  Expected<bool> released = m_lock_a.release(**second, in(1s));
  ASSERT_TRUE(released) << released.error().message;
  EXPECT_TRUE(*released);
}

TEST_F(RedisLockTest, ManyContendersOneWinner)
{
  std::vector<std::unique_ptr<RedisConnection>> hosts;
  for (int i = 0; i < 16; ++i) {
    hosts.push_back(std::make_unique<RedisConnection>(m_server.unix_options()));
  }
  std::vector<std::thread> threads;
  std::atomic<int> won{0};
  std::atomic<int> failed{0};
  for (std::unique_ptr<RedisConnection>& host : hosts) {
    threads.emplace_back([&, connection = host.get()] {
      RedisLock lock(*connection, m_keys);
      Expected<std::optional<RedisLockToken>> token = lock.try_acquire("hot", 10s, in(2s));
      if (!token) {
        ++failed;
      } else if (token->has_value()) {
        ++won;
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(won.load(), 1);
}

} // namespace
} // namespace d4r::cache::redis
