// ClientLimits (daemon/client_limits.hpp) on a clock the test steps: each client has its own call
// bucket (a second's burst, refilled at the rate), its own hourly upload volume, its own count of
// Resolve/Build calls in flight; a limit of 0 is none; waits are shortened, never lengthened.

#include "daemon/client_limits.hpp"
#include "daemon/config.hpp"

#include <gtest/gtest.h>

namespace d4r::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = ClientLimits::Clock;

ClientLimitSettings settings(double rate, int64_t module, int64_t per_hour, int64_t builds)
{
  ClientLimitSettings s;
  s.calls_per_second = rate;
  s.max_module_bytes = module;
  s.upload_bytes_per_hour = per_hour;
  s.max_builds = builds;
  return s;
}

TEST(ClientLimits, ASecondsBurstThenTheRatePerClient)
{
  ClientLimits limits(settings(5, 100, 0, 0));
  Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(limits.admit_call("deck", t0)) << "call " << i << " of the first second's burst";
  }
  std::optional<LimitRefusal> sixth = limits.admit_call("deck", t0);
  ASSERT_TRUE(sixth);
  EXPECT_EQ(sixth->reason, LimitReason::rate);
  EXPECT_NE(sixth->message.find("client deck"), std::string::npos) << sixth->message;
  EXPECT_NE(sixth->message.find("5 calls a second"), std::string::npos) << sixth->message;
  EXPECT_FALSE(limits.admit_call("laptop", t0)) << "another client has its own allowance";
  // 250 ms at 5/s refill one call, not two.
  EXPECT_FALSE(limits.admit_call("deck", t0 + 250ms));
  EXPECT_TRUE(limits.admit_call("deck", t0 + 250ms));
  // A long pause refills to the burst, no more.
  int admitted = 0;
  for (int i = 0; i < 20; ++i) {
    admitted += limits.admit_call("deck", t0 + 1h) ? 0 : 1;
  }
  EXPECT_EQ(admitted, 5);
}

TEST(ClientLimits, ARateOfZeroIsNoLimit)
{
  ClientLimits limits(settings(0, 100, 0, 0));
  Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_FALSE(limits.admit_call("deck", t0));
  }
}

TEST(ClientLimits, OneModulesSizeAndTheHourlyVolume)
{
  ClientLimits limits(settings(0, 1000, 3000, 0));
  Clock::time_point t0 = Clock::now();
  std::optional<LimitRefusal> big = limits.admit_upload("deck", 1001, t0);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->reason, LimitReason::module_size);
  EXPECT_NE(big->message.find("1001 bytes"), std::string::npos) << big->message;
  EXPECT_FALSE(limits.admit_upload("deck", 1000, t0));
  EXPECT_FALSE(limits.admit_upload("deck", 1000, t0));
  EXPECT_FALSE(limits.admit_upload("deck", 1000, t0));
  std::optional<LimitRefusal> fourth = limits.admit_upload("deck", 1000, t0);
  ASSERT_TRUE(fourth);
  EXPECT_EQ(fourth->reason, LimitReason::upload_volume);
  EXPECT_FALSE(limits.admit_upload("laptop", 1000, t0)) << "another client's volume is its own";
  // The volume refills evenly: 3000 bytes an hour are 1000 in 20 minutes.
  EXPECT_TRUE(limits.admit_upload("deck", 1000, t0 + 19min));
  EXPECT_FALSE(limits.admit_upload("deck", 1000, t0 + 21min));
  EXPECT_TRUE(limits.admit_upload("deck", 100, t0 + 21min)) << "50 bytes are left";
}

TEST(ClientLimits, BuildsInFlightCountTheCallItself)
{
  ClientLimits limits(settings(0, 100, 0, 2));
  limits.enter_build("deck");
  EXPECT_FALSE(limits.check_builds("deck"));
  limits.enter_build("deck");
  EXPECT_FALSE(limits.check_builds("deck"));
  limits.enter_build("deck");
  std::optional<LimitRefusal> third = limits.check_builds("deck");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->reason, LimitReason::builds);
  EXPECT_FALSE(limits.check_builds("laptop"));
  limits.leave_build("deck");
  EXPECT_FALSE(limits.check_builds("deck"));
  limits.leave_build("deck");
  limits.leave_build("deck");
  limits.leave_build("deck"); // one too many is not a credit
  limits.enter_build("deck");
  limits.enter_build("deck");
  limits.enter_build("deck");
  EXPECT_TRUE(limits.check_builds("deck"));
}

TEST(ClientLimits, WaitsAreShortenedNeverLengthened)
{
  ClientLimitSettings s;
  s.max_wait_ms = 5000;
  ClientLimits limits(s);
  EXPECT_EQ(limits.clamp_wait(0), 0U);
  EXPECT_EQ(limits.clamp_wait(40), 40U);
  EXPECT_EQ(limits.clamp_wait(30 * 60'000), 5000U);
}

TEST(ClientLimits, TheReasonsKeysAreStable)
{
  EXPECT_EQ(to_string(LimitReason::rate), "rate");
  EXPECT_EQ(to_string(LimitReason::module_size), "module_size");
  EXPECT_EQ(to_string(LimitReason::upload_volume), "upload_volume");
  EXPECT_EQ(to_string(LimitReason::builds), "builds");
}

TEST(ClientLimits, FlagsSetThemAndZeroTurnsRatesOff)
{
  Expected<ParsedConfig> parsed =
      parse_config({"--cache-dir", "/tmp/x", "--client-rate", "7", "--client-max-module", "2M",
                    "--client-upload-per-hour", "0", "--client-max-builds=3",
                    "--client-max-wait-ms", "1500"},
                   {});
  ASSERT_TRUE(parsed) << parsed.error().message;
  const ClientLimitSettings& limits = parsed->config.client_limits;
  EXPECT_EQ(limits.calls_per_second, 7);
  EXPECT_EQ(limits.max_module_bytes, 2 << 20);
  EXPECT_EQ(limits.upload_bytes_per_hour, 0);
  EXPECT_EQ(limits.max_builds, 3);
  EXPECT_EQ(limits.max_wait_ms, 1500U);
  Expected<ParsedConfig> defaults = parse_config({"--cache-dir", "/tmp/x"}, {});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->config.client_limits.calls_per_second, 200);
  EXPECT_EQ(defaults->config.client_limits.max_builds, 4);
  Expected<ParsedConfig> bad = parse_config({"--cache-dir", "/tmp/x", "--client-max-module", "0"}, {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--client-max-module"), std::string::npos);
}

} // namespace
} // namespace d4r::daemon
