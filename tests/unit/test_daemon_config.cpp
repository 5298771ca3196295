#include "daemon/config.hpp"

#include <gtest/gtest.h>

namespace d4r::daemon {
namespace {

TEST(DaemonConfig, DefaultsFollowXdgFolders)
{
  Expected<ParsedConfig> parsed =
      parse_config({}, {"XDG_RUNTIME_DIR=/run/user/1000", "XDG_CACHE_HOME=/home/u/.cache"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.socket_path, "/run/user/1000/d4r-kerneld/socket");
  EXPECT_EQ(parsed->config.cache_dir, "/home/u/.cache/d4r-kerneld");
  EXPECT_FALSE(parsed->config.native_dir);
  EXPECT_EQ(parsed->config.default_mode, Mode::fast);
  EXPECT_TRUE(parsed->config.fp8_native);
  EXPECT_TRUE(parsed->config.native_swin_encoders);
  EXPECT_EQ(parsed->config.max_ptx_bytes, 64LL << 20);
}

TEST(DaemonConfig, EveryQueueAndUploadBufferIsBounded)
{
  Expected<ParsedConfig> defaults = parse_config({}, {"HOME=/h"});
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->config.max_queued_requests, 1024);
  EXPECT_EQ(defaults->config.max_queued_builds, 256);
  EXPECT_EQ(defaults->config.upload_memory_bytes, 256LL << 20);
  Expected<ParsedConfig> parsed = parse_config(
      {"--max-queued-requests", "8", "--max-queued-builds=3", "--upload-memory", "2M"}, {"HOME=/h"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.max_queued_requests, 8);
  EXPECT_EQ(parsed->config.max_queued_builds, 3);
  EXPECT_EQ(parsed->config.upload_memory_bytes, 2LL << 20);
  EXPECT_FALSE(parse_config({"--max-queued-requests", "0"}, {"HOME=/h"})) << "no unbounded 0";
  EXPECT_FALSE(parse_config({"--upload-memory", "-1"}, {"HOME=/h"}));
  EXPECT_NE(usage_text().find("--max-queued-builds"), std::string::npos);
}

TEST(DaemonConfig, CacheFallsBackToHome)
{
  Expected<ParsedConfig> parsed = parse_config({}, {"HOME=/home/u"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->config.cache_dir, "/home/u/.cache/d4r-kerneld");
  EXPECT_FALSE(parse_config({}, {})) << "no cache folder at all is an error";
}

TEST(DaemonConfig, D4rVariablesAreRead)
{
  Expected<ParsedConfig> parsed = parse_config(
      {}, {"HOME=/h", "D4R_ZLUDA_NATIVE_DIR=/opt/d4r/kernels", "D4R_GPU_ARCH=gfx1201",
           "D4R_PREFER_ACCURACY=1", "D4R_ZLUDA_WMMA_FP8_NATIVE=0", "D4R_NATIVE_SWIN_ENCODERS=off"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.native_dir, std::filesystem::path("/opt/d4r/kernels"));
  EXPECT_EQ(parsed->config.gpu_arch, "gfx1201");
  EXPECT_EQ(parsed->config.default_mode, Mode::accuracy);
  EXPECT_FALSE(parsed->config.fp8_native);
  EXPECT_FALSE(parsed->config.native_swin_encoders);
}

TEST(DaemonConfig, GpuArchWithoutGfxPrefixIsIgnoredAsTheBridgeDoes)
{
  Expected<ParsedConfig> parsed = parse_config({}, {"HOME=/h", "D4R_GPU_ARCH=auto"});
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->config.gpu_arch);
}

TEST(DaemonConfig, FlagsWinOverEnvironment)
{
  Expected<ParsedConfig> parsed =
      parse_config({"--native-dir", "/a", "--socket=/tmp/s", "--cache-dir", "/c", "--gpu-arch",
                    "gfx1100", "--max-ptx-bytes", "1M", "--foreground"},
                   {"HOME=/h", "D4R_ZLUDA_NATIVE_DIR=/b", "D4R_GPU_ARCH=gfx1201"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.native_dir, std::filesystem::path("/a"));
  EXPECT_EQ(parsed->config.socket_path, "/tmp/s");
  EXPECT_EQ(parsed->config.cache_dir, "/c");
  EXPECT_EQ(parsed->config.gpu_arch, "gfx1100");
  EXPECT_EQ(parsed->config.max_ptx_bytes, 1LL << 20);
  EXPECT_TRUE(parsed->config.foreground);
}

TEST(DaemonConfig, RelativePathsBecomeAbsolute)
{
  Expected<ParsedConfig> parsed =
      parse_config({"--cache-dir", "c", "--native-dir", "kernels", "--socket", "s"}, {"HOME=/h"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.cache_dir, std::filesystem::current_path() / "c");
  EXPECT_EQ(*parsed->config.native_dir, std::filesystem::current_path() / "kernels");
  EXPECT_TRUE(parsed->config.socket_path.is_absolute());
}

TEST(DaemonConfig, BadInputGetsAClearError)
{
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--bogus"}, {"--socket"}, {"--gpu-arch", "gfx803"},
        {"--max-ptx-bytes", "-5"}, {"--max-ptx-bytes", "12Q"}, {"--workers", "0"}}) {
    Expected<ParsedConfig> parsed = parse_config(args, {"HOME=/h"});
    ASSERT_FALSE(parsed) << args[0];
    EXPECT_EQ(parsed.error().code, ErrorCode::invalid_argument);
    EXPECT_FALSE(parsed.error().message.empty());
  }
  EXPECT_FALSE(parse_config({}, {"HOME=/h", "D4R_PREFER_ACCURACY=maybe"}));
}

// An upstream is taken only with a pinned key and a token; each flag's spelling is checked when
// parsed, so a mistake refuses to start with its reason.
TEST(DaemonConfig, AnUpstreamNeedsAPinnedKeyAndAToken)
{
  const std::string key = "ed25519:gsJ4H1zjSeRn6IEGNmd5QOnRthNSLyDPoGK3ixtlhfc=";
  Expected<ParsedConfig> parsed =
      parse_config({"--upstream", "desk.lan:7467", "--upstream-key", key, "--upstream-token-file",
                    "rel/token", "--upstream-budget-ms", "400"},
                   {"HOME=/h"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->config.upstream, "desk.lan:7467");
  EXPECT_EQ(parsed->config.upstream_key, key);
  EXPECT_TRUE(parsed->config.upstream_token_file.is_absolute());
  EXPECT_EQ(parsed->config.upstream_budget_ms, 400);
  EXPECT_EQ(parsed->config.upstream_build_ms, 60000) << "asked to build by default";
  EXPECT_FALSE(parsed->config.upstream_ca);
  EXPECT_TRUE(parse_config({}, {"HOME=/h"})->config.upstream.empty()) << "off by default";
  Expected<ParsedConfig> never =
      parse_config({"--upstream", "desk.lan:7467", "--upstream-key", key, "--upstream-token-file",
                    "rel/token", "--upstream-build-ms", "0"},
                   {"HOME=/h"});
  ASSERT_TRUE(never) << never.error().message;
  EXPECT_EQ(never->config.upstream_build_ms, 0) << "0: never asked to build";

  auto refusal = [](std::vector<std::string> args) {
    Expected<ParsedConfig> refused = parse_config(args, {"HOME=/h"});
    return refused ? std::string("accepted") : refused.error().message;
  };
  EXPECT_NE(refusal({"--upstream", "desk.lan:7467", "--upstream-token-file", "t"})
                .find("--upstream needs --upstream-key"),
            std::string::npos);
  EXPECT_NE(refusal({"--upstream", "desk.lan:7467", "--upstream-key", key})
                .find("--upstream needs --upstream-token-file"),
            std::string::npos);
  EXPECT_NE(refusal({"--upstream", "desk.lan", "--upstream-key", key, "--upstream-token-file", "t"})
                .find("--upstream desk.lan: expected HOST:PORT"),
            std::string::npos);
  EXPECT_NE(refusal({"--upstream", "desk.lan:7467", "--upstream-key", "ssh-ed25519 AAAA",
                     "--upstream-token-file", "t"})
                .find("--upstream-key: "),
            std::string::npos);
  EXPECT_NE(refusal({"--upstream-key", key}).find("need --upstream HOST:PORT"), std::string::npos);
  EXPECT_NE(usage_text().find("--upstream-key ed25519:KEY"), std::string::npos);
}

TEST(DaemonConfig, HelpAndVersion)
{
  EXPECT_EQ(parse_config({"--help"}, {"HOME=/h"})->status, ParseStatus::help);
  EXPECT_EQ(parse_config({"--version"}, {"HOME=/h"})->status, ParseStatus::version);
  EXPECT_NE(usage_text().find("--native-dir"), std::string::npos);
}

} // namespace
} // namespace d4r::daemon
