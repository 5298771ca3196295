// `d4r-kernel config`: the command line, and the effective values with their sources computed
// from a given environment and config file.

#include "cli/commands.hpp"
#include "cli/config_command.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace d4r::cli {
namespace {

Expected<ParsedCommand> parse(std::vector<std::string> args)
{
  Environment env;
  env.xdg_runtime_dir = "/run/user/1000";
  env.uid = 1000;
  return parse_command_line(args, env);
}

const EffectiveValue& find(const EffectiveConfig& config, const std::string& name)
{
  for (const EffectiveValue& value : config.values) {
    if (value.name == name) {
      return value;
    }
  }
  static const EffectiveValue none;
  ADD_FAILURE() << "no value " << name;
  return none;
}

class ConfigCommandTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = ::testing::TempDir() + "d4r-cli-config-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_inputs.environment = {"XDG_CONFIG_HOME=" + (m_dir / "cfg").string(), "HOME=/nonexistent"};
    m_inputs.socket = "/run/user/1000/d4r-kerneld/socket";
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  void write_config(const std::string& text)
  {
    std::filesystem::create_directories(m_dir / "cfg/d4r-kerneld");
    std::ofstream(m_dir / "cfg/d4r-kerneld/config") << text;
  }

  std::filesystem::path m_dir;
  ConfigInputs m_inputs;
};

TEST(ConfigCommandLine, FlagsAndRefusals)
{
  Expected<ParsedCommand> parsed =
      parse({"config", "--mode", "accuracy", "--no-fp8", "--target=gfx1201", "--socket", "/s"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  const ConfigCommand* command = std::get_if<ConfigCommand>(&parsed->command);
  ASSERT_NE(command, nullptr);
  EXPECT_EQ(command->mode, Mode::accuracy);
  EXPECT_EQ(command->switches[static_cast<size_t>(Switch::native_fp8)].value, false);
  EXPECT_FALSE(command->switches[static_cast<size_t>(Switch::native_swin_encoders)].value);
  EXPECT_EQ(command->target, "gfx1201");
  EXPECT_TRUE(parsed->global.socket_given);
  EXPECT_FALSE(parse({"config"})->global.socket_given);
  EXPECT_FALSE(parse({"config", "--mode", "quick"}));
  EXPECT_FALSE(parse({"config", "--target", "gfx9"}));
  EXPECT_FALSE(parse({"config", "positional"}));
  EXPECT_FALSE(parse({"config", "--kernel", "k"})) << "resolve's options are not config's";
  Expected<ParsedCommand> help = parse({"config", "--help"});
  ASSERT_TRUE(help);
  std::stringstream out;
  std::stringstream err;
  Io io{out, err, false, {}};
  EXPECT_EQ(run_command(*help, io), 0);
  EXPECT_NE(out.str().find("usage: d4r-kernel config"), std::string::npos) << out.str();
}

TEST_F(ConfigCommandTest, DefaultsNameTheirRule)
{
  EffectiveConfig config = effective_config(m_inputs);
  EXPECT_EQ(config.config_file, m_dir / "cfg/d4r-kerneld/config");
  EXPECT_FALSE(config.config_file_present);
  EXPECT_TRUE(config.problems.empty());
  const EffectiveValue& socket = find(config, "socket");
  EXPECT_EQ(socket.source, SettingSource::default_value);
  EXPECT_NE(socket.origin.find("$XDG_RUNTIME_DIR/d4r-kerneld/socket"), std::string::npos);
  EXPECT_EQ(find(config, "PreferAccuracy").switch_value, false);
  EXPECT_EQ(find(config, "NativeFp8").switch_value, true);
  EXPECT_EQ(find(config, "NativeSwinEncoders").switch_value, true);
  EXPECT_EQ(find(config, "target").source, SettingSource::default_value);
  EXPECT_EQ(find(config, "native_dir").value, "none");
}

TEST_F(ConfigCommandTest, EachSourceInItsPlace)
{
  write_config("[Kernels]\nPreferAccuracy = yes\nNativeFp8 = off\nNativeSwinEncoders = off\n");
  m_inputs.environment.push_back("D4R_ZLUDA_WMMA_FP8_NATIVE=TRUE");
  m_inputs.environment.push_back("D4R_GPU_ARCH=gfx1101");
  m_inputs.environment.push_back("D4R_ZLUDA_NATIVE_DIR=/opt/d4r/kernels");
  EXPECT_TRUE(apply_switch_flag("--no-swin-encoders", m_inputs.command.switches));
  EffectiveConfig config = effective_config(m_inputs);
  EXPECT_TRUE(config.config_file_present);
  const EffectiveValue& prefer = find(config, "PreferAccuracy");
  EXPECT_EQ(prefer.switch_value, true);
  EXPECT_EQ(prefer.source, SettingSource::file);
  EXPECT_EQ(prefer.origin, (m_dir / "cfg/d4r-kerneld/config").string() + ":2");
  const EffectiveValue& fp8 = find(config, "NativeFp8");
  EXPECT_EQ(fp8.switch_value, true);
  EXPECT_EQ(fp8.source, SettingSource::environment);
  EXPECT_EQ(fp8.origin, "D4R_ZLUDA_WMMA_FP8_NATIVE=TRUE");
  const EffectiveValue& swin = find(config, "NativeSwinEncoders");
  EXPECT_EQ(swin.source, SettingSource::flag);
  EXPECT_EQ(swin.origin, "--no-swin-encoders");
  EXPECT_EQ(find(config, "target").value, "gfx1101");
  EXPECT_EQ(find(config, "native_dir").value, "/opt/d4r/kernels");
  EXPECT_EQ(find(config, "native_dir").source, SettingSource::environment);
}

TEST_F(ConfigCommandTest, TextAndJsonAndTheExitStatus)
{
  m_inputs.environment.push_back("D4R_NATIVE_SWIN_ENCODERS=perhaps");
  m_inputs.environment.push_back("D4R_GPU_ARCH=sm_90");
  std::ostringstream text;
  EXPECT_EQ(run_config(m_inputs, false, text), 1);
  EXPECT_NE(text.str().find("problem: D4R_NATIVE_SWIN_ENCODERS=perhaps: not a switch value"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("note: D4R_GPU_ARCH=sm_90: ignored"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("NativeSwinEncoders  true"), std::string::npos) << text.str();
  std::ostringstream json;
  EXPECT_EQ(run_config(m_inputs, true, json), 1);
  EXPECT_NE(json.str().find(R"({"name":"NativeSwinEncoders","variable":"D4R_NATIVE_SWIN_ENCODERS","value":true,"source":"default")"),
            std::string::npos)
      << json.str();
  m_inputs.environment.pop_back();
  m_inputs.environment.pop_back();
  std::ostringstream clean;
  EXPECT_EQ(run_config(m_inputs, false, clean), 0);
}

} // namespace
} // namespace d4r::cli
