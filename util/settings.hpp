#pragma once
// d4r's three [Kernels] switches as every program of d4r-kerneld resolves them: an explicit choice
// (a flag, or a field of the client's C options) over the environment variable over the config
// file ($XDG_CONFIG_HOME/d4r-kerneld/config, util/config_file.hpp) over the default. A value none
// of the spellings (util/boolean_spelling.hpp) is a problem the caller reports (the daemon refuses
// to start, a game's client logs it and uses the next source), never read as false.

#include "util/config_file.hpp"
#include "util/environment.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r {

enum class SettingSource { flag, environment, file, default_value };
[[nodiscard]] std::string_view to_string(SettingSource source); // flag, env, file, default

enum class Switch { prefer_accuracy, native_fp8, native_swin_encoders };
inline constexpr size_t k_switch_count = 3;

struct SwitchInfo {
  Switch id;
  std::string_view variable;   // D4R_PREFER_ACCURACY
  std::string_view config_key; // PreferAccuracy ([Kernels] of d4r.ini and of our config file)
  bool default_value = false;
};

// Indexed by Switch.
extern const std::array<SwitchInfo, k_switch_count> k_switches;

struct SwitchSetting {
  bool value = false;
  SettingSource source = SettingSource::default_value;
  std::string origin; // what set it: "--mode accuracy", "D4R_PREFER_ACCURACY=true", "PATH:3"
};

// An explicit choice; unset leaves the switch to the environment, the file and the default.
struct SwitchFlag {
  std::optional<bool> value;
  std::string origin; // names the flag or option, for `d4r-kernel config`
};
using SwitchFlags = std::array<SwitchFlag, k_switch_count>;

struct Settings {
  std::array<SwitchSetting, k_switch_count> switches;
  std::optional<std::filesystem::path> config_path; // nullopt: neither XDG_CONFIG_HOME nor HOME
  bool config_present = false;
  std::vector<std::string> problems; // values and lines that were not understood
  std::vector<std::string> notes;    // what the file holds that d4r-kerneld does not read

  [[nodiscard]] const SwitchSetting& at(Switch id) const
  {
    return switches[static_cast<size_t>(id)];
  }
};

// The switch flags d4r-kerneld and `d4r-kernel config` both take, so the two read a command line
// alike (`--mode fast|accuracy` sets PreferAccuracy and is parsed by each with its mode's words).
// The positive spellings let a flag win over a variable or file that turned a switch off.
struct SwitchFlagName {
  std::string_view name; // --no-fp8
  Switch id;
  bool value;
};
inline constexpr std::array<SwitchFlagName, 4> k_switch_flag_names = {{
    {"--no-fp8", Switch::native_fp8, false},
    {"--fp8", Switch::native_fp8, true},
    {"--no-swin-encoders", Switch::native_swin_encoders, false},
    {"--swin-encoders", Switch::native_swin_encoders, true},
}};

// Records `--name` of k_switch_flag_names in `flags`; false when it is not one of them.
[[nodiscard]] bool apply_switch_flag(std::string_view name, SwitchFlags& flags);
// Records `--mode accuracy` (true) or `--mode fast` (false) as PreferAccuracy's flag.
void apply_mode_flag(bool accuracy, SwitchFlags& flags);

// `file` may be null (no config file to read).
[[nodiscard]] Settings resolve_settings(const SwitchFlags& flags, const EnvironmentMap& environment,
                                        const ConfigFile* file);
// Finds the config file from `environment` and reads it.
[[nodiscard]] Settings read_settings(const SwitchFlags& flags, const EnvironmentMap& environment);

// D4R_GPU_ARCH when it starts with "gfx", as d4r's bridge reads it; nullopt otherwise.
[[nodiscard]] std::optional<std::string> gpu_arch_from_environment(const EnvironmentMap& environment);

} // namespace d4r
