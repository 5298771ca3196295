// The Redis connection against a real redis-server: both transports, and what a caller sees when
// the server is absent, killed, frozen or restarted: a clear error within its budget, fast
// failures while backing off, and service again after the restart.

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/endpoint.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisTest;

TEST(RedisEndpoint, ParsesTheThreeSpellings)
{
  Expected<RedisEndpoint> unix_socket = parse_endpoint("unix:/run/redis/redis.sock");
  ASSERT_TRUE(unix_socket) << unix_socket.error().message;
  EXPECT_EQ(unix_socket->unix_path, "/run/redis/redis.sock");
  EXPECT_EQ(to_string(*unix_socket), "unix:/run/redis/redis.sock");

  Expected<RedisEndpoint> url = parse_endpoint("redis://10.0.0.2:6380/");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(url->host, "10.0.0.2");
  EXPECT_EQ(url->port, 6380);

  Expected<RedisEndpoint> v6 = parse_endpoint("[::1]:6379");
  ASSERT_TRUE(v6) << v6.error().message;
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(to_string(*v6), "[::1]:6379");
}

TEST(RedisEndpoint, RefusesBadSpellings)
{
  for (std::string_view bad :
       {"", "unix:", "unix:relative.sock", "localhost", "host:", ":6379", "host:0", "host:65536",
        "host:12x", "redis://user:secret@host:6379"}) {
    Expected<RedisEndpoint> endpoint = parse_endpoint(bad);
    ASSERT_FALSE(endpoint) << bad;
    EXPECT_EQ(endpoint.error().code, ErrorCode::invalid_argument) << bad;
    EXPECT_EQ(endpoint.error().message.find("secret"), std::string::npos)
        << "credentials in a message";
  }
}

TEST_F(RedisTest, AnswersOverUnixSocketAndTcp)
{
  RedisConnection unix_connection(m_server.unix_options());
  RedisConnection tcp_connection(m_server.tcp_options());
  Expected<RedisReply> set =
      unix_connection.call({"SET", "k", std::string_view("a\0b", 3)}, in(1s));
  ASSERT_TRUE(set) << set.error().message;
  Expected<RedisReply> got = tcp_connection.call({"GET", "k"}, in(1s));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->text, std::string("a\0b", 3));
  EXPECT_EQ(unix_connection.generation(), 1);
  EXPECT_EQ(tcp_connection.generation(), 1);
}

TEST_F(RedisTest, AnErrorReplyIsRejectedAndKeepsTheConnection)
{
  RedisConnection connection(m_server.unix_options());
  Expected<RedisReply> wrong = connection.call({"NOSUCHCOMMAND", "x"}, in(1s));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::rejected);
  EXPECT_NE(wrong.error().message.find("NOSUCHCOMMAND x"), std::string::npos)
      << wrong.error().message;
  EXPECT_TRUE(connection.connected());
  EXPECT_TRUE(connection.call({"PING"}, in(1s)));
  EXPECT_EQ(connection.generation(), 1);
}

TEST(RedisConnection, NoServerFailsFastThenBacksOff)
{
  RedisOptions options;
  options.endpoint.unix_path = ::testing::TempDir() + "d4r-no-redis-here.sock";
  options.backoff_initial = 500ms;
  RedisConnection connection(options);
  Clock::time_point start = Clock::now();
  Expected<RedisReply> first = connection.call({"PING"}, Clock::now() + 1s);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, ErrorCode::unavailable);
  EXPECT_NE(first.error().message.find("redis unix:" + options.endpoint.unix_path + ": connect: "),
            std::string::npos)
      << first.error().message;
  Expected<RedisReply> second = connection.call({"PING"}, Clock::now() + 1s);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("down (connect: "), std::string::npos)
      << second.error().message;
  EXPECT_NE(second.error().message.find("next attempt in"), std::string::npos)
      << second.error().message;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count(),
            50);
}

TEST(RedisConnection, ASpentBudgetSendsNothing)
{
  RedisOptions options;
  options.endpoint = RedisEndpoint{.unix_path = {}, .host = "127.0.0.1", .port = 9};
  RedisConnection connection(options);
  Expected<RedisReply> reply = connection.call({"PING"}, Clock::now() - 1ms);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().code, ErrorCode::timeout);
  EXPECT_NE(reply.error().message.find("no budget left"), std::string::npos)
      << reply.error().message;
}

TEST_F(RedisTest, KilledServerFailsWithinBudgetAndRecoversAfterRestart)
{
  // The default disposition: a SIGPIPE raised by a write to the dead socket would end this test.
  std::signal(SIGPIPE, SIG_DFL);
  RedisConnection connection(m_server.unix_options());
  ASSERT_TRUE(connection.call({"SET", "before", "1"}, in(1s)));
  m_server.kill();

  Clock::time_point start = Clock::now();
  Expected<RedisReply> reply = connection.call({"GET", "before"}, in(200ms));
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().code, ErrorCode::unavailable) << reply.error().message;
  EXPECT_NE(reply.error().message.find("GET before"), std::string::npos) << reply.error().message;
  EXPECT_LT(elapsed_ms(start), 200);

  // While the server is down, each call fails at once: the daemon serves locally, never waiting.
  for (int i = 0; i < 20; ++i) {
    Clock::time_point call_start = Clock::now();
    EXPECT_FALSE(connection.call({"PING"}, in(200ms)));
    EXPECT_LT(elapsed_ms(call_start), 50);
    std::this_thread::sleep_for(5ms);
  }

  ASSERT_TRUE(m_server.start());
  Deadline give_up = in(2s);
  Expected<RedisReply> again = connection.call({"PING"}, in(200ms));
  while (!again && Clock::now() < give_up) {
    std::this_thread::sleep_for(10ms);
    again = connection.call({"PING"}, in(200ms));
  }
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->text, "PONG");
  EXPECT_EQ(connection.generation(), 2);
}

TEST_F(RedisTest, FrozenServerTimesOutWithinBudget)
{
  RedisConnection connection(m_server.unix_options());
  ASSERT_TRUE(connection.call({"PING"}, in(1s)));
  m_server.freeze();
  Clock::time_point start = Clock::now();
  Expected<RedisReply> reply = connection.call({"PING"}, in(150ms));
  int64_t took = elapsed_ms(start);
  m_server.thaw();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().code, ErrorCode::timeout) << reply.error().message;
  EXPECT_GE(took, 140);
  EXPECT_LT(took, 250) << "the budget plus scheduling slack on a loaded machine";

  Deadline give_up = in(2s);
  Expected<RedisReply> again = connection.call({"PING"}, in(200ms));
  while (!again && Clock::now() < give_up) {
    std::this_thread::sleep_for(10ms);
    again = connection.call({"PING"}, in(200ms));
  }
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->text, "PONG")
      << "a late reply to the timed-out PING must not be read as this one's";
}

TEST_F(RedisTest, TheCommandTimeoutCapsALongBudget)
{
  RedisOptions options = m_server.unix_options();
  options.command_timeout = 100ms;
  RedisConnection connection(options);
  ASSERT_TRUE(connection.call({"PING"}, in(1s)));
  m_server.freeze();
  Clock::time_point start = Clock::now();
  Expected<RedisReply> reply = connection.call({"PING"}, in(10s));
  int64_t took = elapsed_ms(start);
  m_server.thaw();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().code, ErrorCode::timeout);
  EXPECT_LT(took, 250);
}

} // namespace
} // namespace d4r::cache::redis
