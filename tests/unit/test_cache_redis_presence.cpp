// Host heartbeats and result announcements against a real redis-server: a host that stops
// beating drops out by its expiry; a subscriber wakes on a published result at once and, after
// the server came back, says that it may have missed some; and the cross-host protocol on these
// parts (subscribe, look, lose the lock, wake on the builder's result).

#include "cache/remote/redis/heartbeats.hpp"
#include "cache/remote/redis/index.hpp"
#include "cache/remote/redis/lock.hpp"
#include "cache/remote/redis/objects.hpp"
#include "cache/remote/redis/results.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include <gtest/gtest.h>

#include <span>
#include <thread>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisTest;

class RedisPresenceTest : public RedisTest {
protected:
  RedisKeyspace m_keys{.prefix = "t:"};
  RedisConnection m_connection{m_server.unix_options()};
};

TEST_F(RedisPresenceTest, HeartbeatsExpire)
{
  RedisHeartbeats heartbeats(m_connection, m_keys);
  ASSERT_TRUE(heartbeats.beat("host-a", "v1 cores=2", 150ms, in(1s)));
  ASSERT_TRUE(heartbeats.beat("host-b", "v1 cores=8", 10s, in(1s)));
  ASSERT_TRUE(heartbeats.beat("host-c", "", 10s, in(1s)));
  Expected<std::vector<std::string>> hosts = heartbeats.hosts(in(1s));
  ASSERT_TRUE(hosts) << hosts.error().message;
  EXPECT_EQ(*hosts, (std::vector<std::string>{"host-a", "host-b", "host-c"}));

  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(heartbeats.beat("host-b", "v1 cores=8", 10s, in(1s)));
  std::this_thread::sleep_for(100ms);
  Expected<bool> a = heartbeats.alive("host-a", in(1s));
  Expected<bool> b = heartbeats.alive("host-b", in(1s));
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(*a) << "host-a stopped beating 200 ms ago with a 150 ms expiry";
  EXPECT_TRUE(*b);
  ASSERT_TRUE(heartbeats.leave("host-c", in(1s)));
  hosts = heartbeats.hosts(in(1s));
  ASSERT_TRUE(hosts);
  EXPECT_EQ(*hosts, std::vector<std::string>{"host-b"});
}

TEST_F(RedisPresenceTest, AWaiterWakesOnThePublishedResult)
{
  RedisSubscriber subscriber(m_server.unix_options(), m_keys);
  ASSERT_TRUE(subscriber.subscribe("key-1", in(1s)));
  Expected<std::optional<RedisMessage>> nothing = subscriber.next(in(50ms));
  ASSERT_TRUE(nothing) << nothing.error().message;
  EXPECT_FALSE(nothing->has_value());

  std::thread publisher([this] {
    std::this_thread::sleep_for(100ms);
    RedisConnection connection(m_server.unix_options());
    EXPECT_EQ(publish_result(connection, m_keys, "key-2", "other", in(1s)).value_or(-1), 0);
    EXPECT_EQ(publish_result(connection, m_keys, "key-1", "digest abc", in(1s)).value_or(-1), 1);
  });
  Clock::time_point start = Clock::now();
  Expected<std::optional<RedisMessage>> message = subscriber.next(in(3s));
  int64_t took = elapsed_ms(start);
  publisher.join();
  ASSERT_TRUE(message) << message.error().message;
  ASSERT_TRUE(message->has_value());
  EXPECT_EQ((*message)->key, "key-1");
  EXPECT_EQ((*message)->payload, "digest abc");
  EXPECT_FALSE((*message)->gap);
  EXPECT_LT(took, 1000) << "woken by the message, not by the budget";
}

TEST_F(RedisPresenceTest, ADispatcherHearsEveryKey)
{
  RedisSubscriber subscriber(m_server.unix_options(), m_keys);
  ASSERT_TRUE(subscriber.subscribe_all(in(1s)));
  ASSERT_TRUE(subscriber.subscribe("key-1", in(1s)))
      << "a message before this confirmation is kept";
  ASSERT_TRUE(publish_result(m_connection, m_keys, "key-9", "nine", in(1s)));
  ASSERT_TRUE(publish_result(m_connection, m_keys, "key-1", "one", in(1s)));
  std::vector<std::string> heard;
  for (int i = 0; i < 3; ++i) {
    Expected<std::optional<RedisMessage>> message = subscriber.next(in(1s));
    ASSERT_TRUE(message && message->has_value());
    heard.push_back((*message)->key + "=" + (*message)->payload);
  }
  // key-1 arrives twice: once for the pattern, once for the channel.
  EXPECT_EQ(heard, (std::vector<std::string>{"key-9=nine", "key-1=one", "key-1=one"}));
}

TEST_F(RedisPresenceTest, ARestartIsReportedAsAGapAndSubscriptionsReturn)
{
  RedisSubscriber subscriber(m_server.unix_options(), m_keys);
  ASSERT_TRUE(subscriber.subscribe("key-1", in(1s)));
  m_server.kill();
  Clock::time_point start = Clock::now();
  Expected<std::optional<RedisMessage>> lost = subscriber.next(in(300ms));
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().code, ErrorCode::unavailable) << lost.error().message;
  EXPECT_LT(elapsed_ms(start), 300);
  ASSERT_TRUE(m_server.start());

  Deadline give_up = in(3s);
  Expected<std::optional<RedisMessage>> gap = subscriber.next(in(200ms));
  while (!gap && Clock::now() < give_up) {
    std::this_thread::sleep_for(10ms);
    gap = subscriber.next(in(200ms));
  }
  ASSERT_TRUE(gap) << gap.error().message;
  ASSERT_TRUE(gap->has_value());
  EXPECT_TRUE((*gap)->gap) << "waiters must look in the index again";

  RedisConnection publisher(m_server.unix_options());
  Expected<int64_t> receivers = publish_result(publisher, m_keys, "key-1", "after", in(1s));
  ASSERT_TRUE(receivers);
  EXPECT_EQ(*receivers, 1) << "subscribed again after the restart";
  Expected<std::optional<RedisMessage>> message = subscriber.next(in(1s));
  ASSERT_TRUE(message && message->has_value());
  EXPECT_EQ((*message)->payload, "after");
}

// The protocol a daemon follows across hosts, end to end on the parts: a waiter subscribes before
// it looks in the index, loses the lock to the builder and wakes on the builder's announcement.
TEST_F(RedisPresenceTest, AWaiterLosesTheLockAndWakesOnTheBuildersResult)
{
  RedisConnection builder_connection(m_server.tcp_options());
  RedisLock builder_lock(builder_connection, m_keys);
  Expected<std::optional<RedisLockToken>> held = builder_lock.try_acquire("k", 5s, in(1s));
  ASSERT_TRUE(held && held->has_value());

  RedisSubscriber subscriber(m_server.unix_options(), m_keys);
  ASSERT_TRUE(subscriber.subscribe("k", in(1s)));
  RedisIndex index(m_connection, m_keys);
  Expected<RedisIndexEntry> before = index.get("k", in(1s));
  ASSERT_FALSE(before);
  ASSERT_EQ(before.error().code, ErrorCode::not_found);
  RedisLock waiter_lock(m_connection, m_keys);
  Expected<std::optional<RedisLockToken>> lost = waiter_lock.try_acquire("k", 5s, in(1s));
  ASSERT_TRUE(lost);
  ASSERT_FALSE(lost->has_value());

  std::thread builder([&] {
    std::this_thread::sleep_for(50ms);
    std::string bytes = "built object";
    RedisObjects objects(builder_connection, m_keys);
    Expected<RedisPut> put =
        objects.put(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), in(1s));
    ASSERT_TRUE(put);
    RedisIndex builder_index(builder_connection, m_keys);
    ASSERT_TRUE(
        builder_index.put("k", RedisIndexEntry{.digest = put->digest, .meta = "m"}, in(1s)));
    ASSERT_TRUE(publish_result(builder_connection, m_keys, "k", to_hex(put->digest), in(1s)));
    ASSERT_TRUE(builder_lock.release(**held, in(1s)));
  });
  Clock::time_point start = Clock::now();
  Expected<std::optional<RedisMessage>> woke = subscriber.next(in(3s));
  int64_t took = elapsed_ms(start);
  builder.join();
  ASSERT_TRUE(woke && woke->has_value());
  EXPECT_LT(took, 1000);
  Expected<RedisIndexEntry> after = index.get("k", in(1s));
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(to_hex(after->digest), (*woke)->payload);
  RedisObjects objects(m_connection, m_keys);
  Expected<std::string> bytes = objects.get(after->digest, in(1s));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, "built object");
}

} // namespace
} // namespace d4r::cache::redis
