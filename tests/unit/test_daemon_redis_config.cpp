// The daemon's Redis flags: off by default, an endpoint checked when parsed (a bad one refuses to
// start with the reason), the per-call budget.

#include "daemon/config.hpp"

#include <gtest/gtest.h>

namespace d4r::daemon {
namespace {

TEST(DaemonRedisConfig, OffByDefaultWithAFiftyMillisecondBudget)
{
  Expected<ParsedConfig> parsed = parse_config({}, {"HOME=/h"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(parsed->config.redis.empty());
  EXPECT_EQ(parsed->config.redis_budget_ms, 50);
}

TEST(DaemonRedisConfig, TakesAUnixSocketOrATcpAddress)
{
  Expected<ParsedConfig> parsed =
      parse_config({"--redis", "unix:/run/redis/redis.sock", "--redis-budget-ms=120"}, {"HOME=/h"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.redis, "unix:/run/redis/redis.sock");
  EXPECT_EQ(parsed->config.redis_budget_ms, 120);
  parsed = parse_config({"--redis=redis://10.0.0.5:6379"}, {"HOME=/h"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.redis, "redis://10.0.0.5:6379");
}

TEST(DaemonRedisConfig, ABadEndpointOrBudgetRefusesToStart)
{
  for (const char* bad : {"", "unix:", "redis://10.0.0.5", "redis://10.0.0.5:notaport",
                          "redis://user:secret@10.0.0.5:6379"}) {
    Expected<ParsedConfig> parsed = parse_config({"--redis", bad}, {"HOME=/h"});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().message.rfind("--redis: ", 0), 0U) << parsed.error().message;
    EXPECT_EQ(parsed.error().message.find("secret"), std::string::npos) << parsed.error().message;
  }
  for (const char* bad : {"0", "-5", "fast"}) {
    Expected<ParsedConfig> parsed = parse_config({"--redis-budget-ms", bad}, {"HOME=/h"});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("--redis-budget-ms: '"), std::string::npos)
        << parsed.error().message;
  }
  Expected<ParsedConfig> parsed = parse_config({"--redis"}, {"HOME=/h"});
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "--redis needs a value");
}

TEST(DaemonRedisConfig, HelpNamesBothFlags)
{
  EXPECT_NE(usage_text().find("--redis ENDPOINT"), std::string::npos);
  EXPECT_NE(usage_text().find("--redis-budget-ms N"), std::string::npos);
}

} // namespace
} // namespace d4r::daemon
