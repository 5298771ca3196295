// The precedence flag > environment > file > default for d4r's three switches, every spelling
// through each source, and the D4R_* table.

#include "util/settings.hpp"
#include "util/variables.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace d4r {
namespace {

constexpr Switch k_all[] = {Switch::prefer_accuracy, Switch::native_fp8,
                            Switch::native_swin_encoders};

EnvironmentMap env(std::vector<std::string> entries)
{
  return environment_from_entries(entries);
}

ConfigFile file_with(const std::string& kernels_lines)
{
  return parse_config_text("[Kernels]\n" + kernels_lines, "/cfg");
}

SwitchFlags flag(Switch id, bool value)
{
  SwitchFlags flags;
  flags[static_cast<size_t>(id)] = {value, "--test-flag"};
  return flags;
}

TEST(Settings, DefaultsAreD4rs)
{
  Settings settings = resolve_settings({}, {}, nullptr);
  EXPECT_FALSE(settings.at(Switch::prefer_accuracy).value);
  EXPECT_TRUE(settings.at(Switch::native_fp8).value);
  EXPECT_TRUE(settings.at(Switch::native_swin_encoders).value);
  for (Switch id : k_all) {
    EXPECT_EQ(settings.at(id).source, SettingSource::default_value);
  }
  EXPECT_TRUE(settings.problems.empty());
  EXPECT_FALSE(settings.config_path);
}

TEST(Settings, EverySpellingFromTheEnvironment)
{
  for (Switch id : k_all) {
    const std::string name(k_switches[static_cast<size_t>(id)].variable);
    for (const char* on : {"1", "true", "TRUE", "True", "on", "ON", "yes", "Yes"}) {
      Settings settings = resolve_settings({}, env({name + "=" + on}), nullptr);
      EXPECT_TRUE(settings.at(id).value) << name << "=" << on;
      EXPECT_EQ(settings.at(id).source, SettingSource::environment);
      EXPECT_EQ(settings.at(id).origin, name + "=" + on);
      EXPECT_TRUE(settings.problems.empty());
    }
    for (const char* off : {"0", "false", "FALSE", "off", "Off", "no", "NO"}) {
      Settings settings = resolve_settings({}, env({name + "=" + off}), nullptr);
      EXPECT_FALSE(settings.at(id).value) << name << "=" << off;
      EXPECT_EQ(settings.at(id).source, SettingSource::environment);
    }
  }
}

TEST(Settings, EverySpellingFromTheFileWithAnyKeyCase)
{
  for (Switch id : k_all) {
    const std::string key(k_switches[static_cast<size_t>(id)].config_key);
    for (const char* on : {"1", "true", "True", "on", "yes", "YES"}) {
      ConfigFile file = file_with(key + " = " + on + "\n");
      Settings settings = resolve_settings({}, {}, &file);
      EXPECT_TRUE(settings.at(id).value) << key << " = " << on;
      EXPECT_EQ(settings.at(id).source, SettingSource::file);
      EXPECT_EQ(settings.at(id).origin, "/cfg:2");
    }
    for (const char* off : {"0", "false", "False", "off", "no"}) {
      ConfigFile file = file_with(key + "=" + off + "\n");
      EXPECT_FALSE(resolve_settings({}, {}, &file).at(id).value) << key << " = " << off;
    }
  }
  ConfigFile lower = parse_config_text("[kernels]\npreferaccuracy = true\n", "/cfg");
  EXPECT_TRUE(resolve_settings({}, {}, &lower).at(Switch::prefer_accuracy).value)
      << "sections and keys match without regard to case, as Windows reads d4r.ini";
}

TEST(Settings, FlagBeatsEnvironmentBeatsFileBeatsDefault)
{
  for (Switch id : k_all) {
    const SwitchInfo& info = k_switches[static_cast<size_t>(id)];
    const bool d = info.default_value;
    const std::string variable(info.variable);
    // The file says the opposite of the default.
    ConfigFile file = file_with(std::string(info.config_key) + " = " + (d ? "false" : "true") + "\n");
    Settings from_file = resolve_settings({}, {}, &file);
    EXPECT_EQ(from_file.at(id).value, !d);
    EXPECT_EQ(from_file.at(id).source, SettingSource::file);
    // The environment says the default back: it wins over the file.
    Settings from_env = resolve_settings({}, env({variable + "=" + (d ? "on" : "off")}), &file);
    EXPECT_EQ(from_env.at(id).value, d);
    EXPECT_EQ(from_env.at(id).source, SettingSource::environment);
    // A flag wins over both.
    Settings from_flag =
        resolve_settings(flag(id, !d), env({variable + "=" + (d ? "on" : "off")}), &file);
    EXPECT_EQ(from_flag.at(id).value, !d);
    EXPECT_EQ(from_flag.at(id).source, SettingSource::flag);
    EXPECT_EQ(from_flag.at(id).origin, "--test-flag");
    // Only its own switch moves.
    for (Switch other : k_all) {
      if (other != id) {
        EXPECT_EQ(from_flag.at(other).source, SettingSource::default_value);
      }
    }
  }
}

TEST(Settings, AValueNoSpellingMatchesIsAProblemAndTheNextSourceServes)
{
  ConfigFile file = file_with("PreferAccuracy = true\nNativeFp8 = perhaps\n");
  Settings settings = resolve_settings(
      {}, env({"D4R_PREFER_ACCURACY=maybe", "D4R_NATIVE_SWIN_ENCODERS=2"}), &file);
  ASSERT_EQ(settings.problems.size(), 3u);
  EXPECT_EQ(settings.problems[0],
            "/cfg:3: NativeFp8 = perhaps: not a switch value (write 1/true/on/yes or "
            "0/false/off/no)");
  EXPECT_EQ(settings.problems[1], "D4R_PREFER_ACCURACY=maybe: not a switch value (write "
                                  "1/true/on/yes or 0/false/off/no)");
  EXPECT_EQ(settings.problems[2].substr(0, 27), "D4R_NATIVE_SWIN_ENCODERS=2:");
  // Never silently false: the file's true, and the defaults, serve.
  EXPECT_TRUE(settings.at(Switch::prefer_accuracy).value);
  EXPECT_EQ(settings.at(Switch::prefer_accuracy).source, SettingSource::file);
  EXPECT_TRUE(settings.at(Switch::native_fp8).value);
  EXPECT_EQ(settings.at(Switch::native_fp8).source, SettingSource::default_value);
  EXPECT_TRUE(settings.at(Switch::native_swin_encoders).value);
}

TEST(Settings, EmptyVariableIsUnset)
{
  ConfigFile file = file_with("PreferAccuracy = on\n");
  Settings settings = resolve_settings({}, env({"D4R_PREFER_ACCURACY="}), &file);
  EXPECT_TRUE(settings.problems.empty());
  EXPECT_TRUE(settings.at(Switch::prefer_accuracy).value);
  EXPECT_EQ(settings.at(Switch::prefer_accuracy).source, SettingSource::file);
}

TEST(Settings, TheLastLineOfAKeyWinsAndOtherKeysAreNoted)
{
  ConfigFile file = parse_config_text("[Kernels]\nPreferAccuracy = on\nIgnoreDenormals = true\n"
                                      "PreferAccuracy = off\n[Interop]\nA = 1\nB = 2\n",
                                      "/cfg");
  Settings settings = resolve_settings({}, {}, &file);
  EXPECT_FALSE(settings.at(Switch::prefer_accuracy).value);
  EXPECT_EQ(settings.at(Switch::prefer_accuracy).origin, "/cfg:4");
  EXPECT_TRUE(settings.problems.empty());
  ASSERT_EQ(settings.notes.size(), 2u) << "one note per unknown key, one per other section";
  EXPECT_NE(settings.notes[0].find("IgnoreDenormals"), std::string::npos);
  EXPECT_NE(settings.notes[1].find("[Interop]"), std::string::npos);
}

TEST(Settings, ReadSettingsFindsTheFileUnderXdgConfigHome)
{
  std::string pattern = ::testing::TempDir() + "d4r-settings-XXXXXX";
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  std::filesystem::path dir(pattern);
  std::filesystem::create_directories(dir / "xdg/d4r-kerneld");
  std::ofstream(dir / "xdg/d4r-kerneld/config") << "[Kernels]\nNativeSwinEncoders = no\n";
  std::filesystem::create_directories(dir / "home/.config/d4r-kerneld");
  std::ofstream(dir / "home/.config/d4r-kerneld/config") << "[Kernels]\nNativeFp8 = no\n";

  Settings xdg = read_settings({}, env({"XDG_CONFIG_HOME=" + (dir / "xdg").string(),
                                        "HOME=" + (dir / "home").string()}));
  EXPECT_EQ(xdg.config_path, dir / "xdg/d4r-kerneld/config");
  EXPECT_TRUE(xdg.config_present);
  EXPECT_FALSE(xdg.at(Switch::native_swin_encoders).value);
  EXPECT_TRUE(xdg.at(Switch::native_fp8).value) << "only one file is read";

  Settings home = read_settings({}, env({"HOME=" + (dir / "home").string()}));
  EXPECT_EQ(home.config_path, dir / "home/.config/d4r-kerneld/config");
  EXPECT_FALSE(home.at(Switch::native_fp8).value);
  EXPECT_EQ(home.at(Switch::native_fp8).source, SettingSource::file);

  Settings none = read_settings({}, env({"HOME=" + (dir / "nobody").string()}));
  EXPECT_FALSE(none.config_present);
  EXPECT_TRUE(none.problems.empty());
  EXPECT_EQ(none.at(Switch::native_fp8).source, SettingSource::default_value);
  std::filesystem::remove_all(dir);
}

TEST(Settings, GpuArchOnlyWhenItStartsWithGfx)
{
  EXPECT_EQ(gpu_arch_from_environment(env({"D4R_GPU_ARCH=gfx1201"})), "gfx1201");
  EXPECT_EQ(gpu_arch_from_environment(env({"D4R_GPU_ARCH=sm_89"})), std::nullopt);
  EXPECT_EQ(gpu_arch_from_environment({}), std::nullopt);
}

TEST(Variables, OneTableForEveryName)
{
  for (const SwitchInfo& info : k_switches) {
    const VariableInfo* variable = find_variable(info.variable);
    ASSERT_NE(variable, nullptr) << info.variable;
    EXPECT_EQ(variable->config_key, info.config_key);
  }
  for (const VariableInfo& info : k_variables) {
    EXPECT_TRUE(info.name.starts_with("D4R_")) << info.name;
    EXPECT_FALSE(info.meaning.empty());
    EXPECT_FALSE(info.default_text.empty());
    EXPECT_FALSE(info.read_by.empty());
  }
  EXPECT_TRUE(is_known_variable("D4R_HIP_DEVICE")) << "d4r's bridge's own";
  EXPECT_TRUE(is_known_variable("D4R_KERNELD_SOCKET"));
  EXPECT_FALSE(is_known_variable("D4R_PREFER_ACURACY"));
  EXPECT_FALSE(is_known_variable("d4r_prefer_accuracy")) << "names are case-sensitive";
  EXPECT_EQ(to_string(SettingSource::environment), "env");
  EXPECT_EQ(to_string(SettingSource::default_value), "default");
}

} // namespace
} // namespace d4r
