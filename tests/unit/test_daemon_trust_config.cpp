// The daemon's trust flags: where its signing key is, and the share of remote results it rebuilds.

#include "daemon/config.hpp"

#include <gtest/gtest.h>

namespace d4r::daemon {
namespace {

TEST(DaemonTrustConfig, SigningKeyDefaultsToTheStateFolder)
{
  Expected<ParsedConfig> parsed = parse_config({}, {"HOME=/h", "XDG_STATE_HOME=/state"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.signing_key, "/state/d4r-kerneld/signing.key");
  EXPECT_EQ(parsed->config.verify_remote_sample, 0.05);
  parsed = parse_config({}, {"HOME=/h"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->config.signing_key, "/h/.local/state/d4r-kerneld/signing.key");
}

TEST(DaemonTrustConfig, FlagsWin)
{
  Expected<ParsedConfig> parsed =
      parse_config({"--signing-key", "/keys/server.key", "--verify-remote-sample=25%"},
                   {"HOME=/h", "XDG_STATE_HOME=/state"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.signing_key, "/keys/server.key");
  EXPECT_EQ(parsed->config.verify_remote_sample, 0.25);
  parsed = parse_config({"--verify-remote-sample", "0"}, {"HOME=/h"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->config.verify_remote_sample, 0.0);
}

TEST(DaemonTrustConfig, ABadRateRefusesToStart)
{
  for (const char* bad : {"1.01", "-1", "half", "5%%"}) {
    Expected<ParsedConfig> parsed = parse_config({"--verify-remote-sample", bad}, {"HOME=/h"});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("--verify-remote-sample: '"), std::string::npos)
        << parsed.error().message;
  }
}

} // namespace
} // namespace d4r::daemon
