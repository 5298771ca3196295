// The command lines of export, pin / unpin and purge --older-than, parsed as d4r-kernel parses
// them (parse_command_line): what each becomes, and a clear usage error for each bad spelling.

#include "cli/options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace d4r::cli {
namespace {

Expected<ParsedCommand> parse(std::vector<std::string> args)
{
  Environment env;
  env.xdg_runtime_dir = "/run/user/1000";
  env.uid = 1000;
  return parse_command_line(args, env);
}

TEST(CliReleaseOptions, DurationsInEveryUnit)
{
  EXPECT_EQ(parse_duration_ms("--older-than", "45s"), 45'000);
  EXPECT_EQ(parse_duration_ms("--older-than", "90m"), 90 * 60'000);
  EXPECT_EQ(parse_duration_ms("--older-than", "12h"), 12 * 3'600'000);
  EXPECT_EQ(parse_duration_ms("--older-than", "30d"), 30LL * 86'400'000);
  EXPECT_EQ(parse_duration_ms("--older-than", "2w"), 14LL * 86'400'000);
}

TEST(CliReleaseOptions, BadDurationsAreUsageErrorsThatSayWhatIsMeant)
{
  for (const char* bad : {"30", "d", "30 d", "30D", "30days", "-1d", "0d", "1.5h", "", "99999999999w"}) {
    Expected<ParsedCommand> parsed = parse({"purge", "--older-than", bad, "--yes"});
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::invalid_argument) << bad;
    EXPECT_NE(parsed.error().message.find("is not a duration"), std::string::npos)
        << parsed.error().message;
    EXPECT_NE(parsed.error().message.find("30d"), std::string::npos) << "names an example";
  }
}

TEST(CliReleaseOptions, PurgeOlderThanAndForce)
{
  Expected<ParsedCommand> parsed = parse({"purge", "--older-than=30d", "--force", "--yes"});
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const auto& purge = std::get<PurgeCommand>(parsed->command);
  EXPECT_EQ(purge.older_than_ms, 30LL * 86'400'000);
  EXPECT_TRUE(purge.force);
  EXPECT_TRUE(purge.yes);
  Expected<ParsedCommand> plain = parse({"purge", "--yes"});
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(std::get<PurgeCommand>(plain->command).older_than_ms, 0);
  EXPECT_FALSE(std::get<PurgeCommand>(plain->command).force);
}

TEST(CliReleaseOptions, ExportTakesAnAbsoluteDirTargetsAndModes)
{
  Expected<ParsedCommand> parsed =
      parse({"export", "/tmp/out/", "--target", "gfx1201-fp8,gfx1101", "--target=gfx1100",
             "--mode", "accuracy"});
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const auto& cmd = std::get<ExportCommand>(parsed->command);
  EXPECT_EQ(cmd.directory, "/tmp/out");
  EXPECT_EQ(cmd.targets, (std::vector<std::string>{"gfx1201-fp8", "gfx1101", "gfx1100"}));
  EXPECT_EQ(cmd.mode, Mode::accuracy);
  Expected<ParsedCommand> both = parse({"export", "rel", "--mode", "both"});
  ASSERT_TRUE(both.has_value());
  EXPECT_FALSE(std::get<ExportCommand>(both->command).mode.has_value());
  EXPECT_TRUE(std::get<ExportCommand>(both->command).directory.starts_with("/"));

  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"export"}, {"export", "a", "b"}, {"export", "d", "--target", "gfx1101-fp8"},
           {"export", "d", "--target", "gfx906"}, {"export", "d", "--mode", "fastest"}}) {
    Expected<ParsedCommand> refused = parse(bad);
    EXPECT_FALSE(refused.has_value()) << bad.back();
  }
}

TEST(CliReleaseOptions, PinByKernelModuleOrBothAndUnpinNeedsOne)
{
  Expected<ParsedCommand> parsed = parse({"pin", "--kernel", "d4r_test_layer", "--module-hash",
                                          "8baeb925f177af87", "--label", "Game.exe"});
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const auto& pin = std::get<PinCommand>(parsed->command);
  EXPECT_FALSE(pin.unpin);
  EXPECT_EQ(pin.kernel, "d4r_test_layer");
  EXPECT_EQ(pin.module_hash, 0x8baeb925f177af87ULL);
  EXPECT_EQ(pin.label, "Game.exe");
  EXPECT_FALSE(pin.lists());
  Expected<ParsedCommand> list = parse({"pin"});
  ASSERT_TRUE(list.has_value());
  EXPECT_TRUE(std::get<PinCommand>(list->command).lists());
  EXPECT_FALSE(parse({"unpin"}).has_value());
  EXPECT_FALSE(parse({"pin", "--kernel", "../x"}).has_value());
  EXPECT_FALSE(parse({"pin", "--module-hash", "8baeb925"}).has_value());
  Expected<ParsedCommand> unpin = parse({"unpin", "--module-hash", "8baeb925f177af87"});
  ASSERT_TRUE(unpin.has_value());
  EXPECT_TRUE(std::get<PinCommand>(unpin->command).unpin);
}

} // namespace
} // namespace d4r::cli
