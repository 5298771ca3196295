// `d4r-kernel config` and d4r-kerneld read the same command line, environment and config file to
// the same three switches: for each case the daemon's parsed configuration (daemon/config) and the
// values `d4r-kernel config` prints (cli/config_command) are compared, and a value either of them
// does not understand is refused by both (the daemon does not start, config exits 1).

#include "cli/commands.hpp"
#include "cli/config_command.hpp"
#include "daemon/config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace d4r::cli {
namespace {

struct Case {
  std::vector<std::string> flags; // the daemon's, given to `config` as they are
  std::vector<std::string> env;   // D4R_* entries
  std::string file;               // the config file's text; empty: no file
  bool accuracy = false;          // what both must read, when `understood`
  bool fp8 = true;
  bool swin = true;
  bool understood = true;
};

class ConfigAgreement : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = ::testing::TempDir() + "d4r-config-agree-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  void check(const Case& c, size_t index)
  {
    const std::filesystem::path home = m_dir / std::to_string(index);
    std::filesystem::create_directories(home / "d4r-kerneld");
    if (!c.file.empty()) {
      std::ofstream(home / "d4r-kerneld" / "config") << c.file;
    }
    std::vector<std::string> env = c.env;
    env.push_back("XDG_CONFIG_HOME=" + home.string());
    env.push_back("HOME=/nonexistent");
    std::string what = "case " + std::to_string(index) + ":";
    for (const std::string& flag : c.flags) {
      what += " " + flag;
    }
    for (const std::string& entry : c.env) {
      what += " " + entry;
    }
    what += " file [" + c.file + "]";

    Expected<daemon::ParsedConfig> daemon = daemon::parse_config(c.flags, env);

    std::vector<std::string> line = {"config"};
    line.insert(line.end(), c.flags.begin(), c.flags.end());
    Environment cli_env;
    cli_env.xdg_runtime_dir = "/run/user/1000";
    cli_env.uid = 1000;
    Expected<ParsedCommand> parsed = parse_command_line(line, cli_env);
    ASSERT_TRUE(parsed) << what << ": " << parsed.error().message;
    const ConfigCommand* command = std::get_if<ConfigCommand>(&parsed->command);
    ASSERT_NE(command, nullptr) << what;
    ConfigInputs inputs;
    inputs.command = *command;
    inputs.environment = env;
    inputs.socket = "/run/user/1000/d4r-kerneld/socket";
    EffectiveConfig config = effective_config(inputs);

    EXPECT_EQ(bool(daemon), c.understood)
        << what << (daemon ? "" : ": " + daemon.error().message);
    EXPECT_EQ(config.problems.empty(), c.understood) << what;
    if (!c.understood || !daemon) {
      return;
    }
    auto printed = [&](const std::string& name) {
      for (const EffectiveValue& value : config.values) {
        if (value.name == name) {
          return value.switch_value;
        }
      }
      return std::optional<bool>();
    };
    EXPECT_EQ(daemon->config.default_mode == Mode::accuracy, c.accuracy) << what;
    EXPECT_EQ(printed("PreferAccuracy"), c.accuracy) << what;
    EXPECT_EQ(daemon->config.fp8_native, c.fp8) << what;
    EXPECT_EQ(printed("NativeFp8"), c.fp8) << what;
    EXPECT_EQ(daemon->config.native_swin_encoders, c.swin) << what;
    EXPECT_EQ(printed("NativeSwinEncoders"), c.swin) << what;
  }

  std::filesystem::path m_dir;
};

TEST_F(ConfigAgreement, FlagsOverEnvironmentOverFileOverDefaults)
{
  const std::vector<Case> cases = {
      {{}, {}, "", false, true, true},
      {{}, {}, "[Kernels]\nPreferAccuracy = on\nNativeFp8 = no\n", true, false, true},
      {{}, {"D4R_PREFER_ACCURACY=0"}, "[Kernels]\nPreferAccuracy = on\n", false, true, true},
      {{"--mode", "accuracy"}, {"D4R_PREFER_ACCURACY=0"}, "[Kernels]\nPreferAccuracy = off\n",
       true, true, true},
      {{"--mode=fast"}, {"D4R_PREFER_ACCURACY=yes"}, "", false, true, true},
      {{"--fp8"}, {"D4R_ZLUDA_WMMA_FP8_NATIVE=off"}, "[Kernels]\nNativeFp8 = false\n", false,
       true, true},
      {{"--no-fp8"}, {"D4R_ZLUDA_WMMA_FP8_NATIVE=TRUE"}, "", false, false, true},
      {{"--no-fp8", "--fp8"}, {}, "", false, true, true},
      {{"--swin-encoders"}, {}, "[Kernels]\nNativeSwinEncoders = off\n", false, true, true},
      {{"--no-swin-encoders"}, {"D4R_NATIVE_SWIN_ENCODERS=1"}, "", false, true, false},
      {{"--mode", "accuracy", "--no-fp8", "--no-swin-encoders"}, {}, "", true, false, false},
      // Not understood: refused by both, a flag over the value or not.
      {{}, {"D4R_PREFER_ACCURACY=maybe"}, "", false, true, true, false},
      {{"--mode", "fast"}, {"D4R_PREFER_ACCURACY=maybe"}, "", false, true, true, false},
      {{"--fp8"}, {}, "[Kernels]\nNativeFp8 = perhaps\n", false, true, true, false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], i);
  }
}

TEST_F(ConfigAgreement, BadSwitchFlagsAreRefusedByBoth)
{
  Environment cli_env;
  cli_env.uid = 1000;
  for (std::vector<std::string> flags : {std::vector<std::string>{"--mode", "quick"},
                                         {"--mode"}, {"--fp8=yes"}}) {
    EXPECT_FALSE(daemon::parse_config(flags, {"HOME=/nonexistent"})) << flags[0];
    flags.insert(flags.begin(), "config");
    EXPECT_FALSE(parse_command_line(flags, cli_env)) << flags[1];
  }
}

} // namespace
} // namespace d4r::cli
