#include "util/settings.hpp"

#include "util/boolean_spelling.hpp"
#include "util/error.hpp"
#include "util/variables.hpp"

#include <algorithm>
#include <cctype>

namespace d4r {

const std::array<SwitchInfo, k_switch_count> k_switches = {{
    {Switch::prefer_accuracy, k_env_prefer_accuracy, "PreferAccuracy", false},
    {Switch::native_fp8, k_env_native_fp8, "NativeFp8", true},
    {Switch::native_swin_encoders, k_env_native_swin_encoders, "NativeSwinEncoders", true},
}};

namespace {

constexpr std::string_view k_section = "Kernels";

bool same_ignoring_case(std::string_view a, std::string_view b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string not_a_switch(const std::string& what)
{
  return what + ": not a switch value (write " + std::string(k_boolean_spellings) + ")";
}

const SwitchInfo* switch_of_key(std::string_view key)
{
  for (const SwitchInfo& info : k_switches) {
    if (same_ignoring_case(info.config_key, key)) {
      return &info;
    }
  }
  return nullptr;
}

// The file's [Kernels] values, last one of a key winning; problems and notes on the rest.
void apply_file(const ConfigFile& file, Settings& settings)
{
  settings.problems.insert(settings.problems.end(), file.problems.begin(), file.problems.end());
  std::vector<std::string> noted_sections;
  for (const ConfigEntry& entry : file.entries) {
    const std::string where = file.path.string() + ":" + std::to_string(entry.line);
    if (!same_ignoring_case(entry.section, k_section)) {
      if (std::find(noted_sections.begin(), noted_sections.end(), entry.section) ==
          noted_sections.end()) {
        noted_sections.push_back(entry.section);
        settings.notes.push_back(where + ": section [" + entry.section +
                                 "] is not read (only [Kernels])");
      }
      continue;
    }
    const SwitchInfo* info = switch_of_key(entry.key);
    if (info == nullptr) {
      settings.notes.push_back(where + ": [Kernels] " + entry.key +
                               " is not read by d4r-kerneld (d4r's bridge may read it)");
      continue;
    }
    std::optional<bool> value = parse_boolean(entry.value);
    if (!value) {
      settings.problems.push_back(not_a_switch(where + ": " + entry.key + " = " + entry.value));
      continue;
    }
    SwitchSetting& setting = settings.switches[static_cast<size_t>(info->id)];
    setting = {*value, SettingSource::file, where};
  }
}

void apply_environment(const EnvironmentMap& environment, Settings& settings)
{
  for (const SwitchInfo& info : k_switches) {
    std::optional<std::string> text = environment_value(environment, info.variable);
    if (!text) {
      continue;
    }
    const std::string entry = std::string(info.variable) + "=" + *text;
    std::optional<bool> value = parse_boolean(*text);
    if (!value) {
      settings.problems.push_back(not_a_switch(entry));
      continue;
    }
    settings.switches[static_cast<size_t>(info.id)] = {*value, SettingSource::environment, entry};
  }
}

} // namespace

std::string_view to_string(SettingSource source)
{
  switch (source) {
  case SettingSource::flag:
    return "flag";
  case SettingSource::environment:
    return "env";
  case SettingSource::file:
    return "file";
  case SettingSource::default_value:
    return "default";
  }
  D4R_UNREACHABLE("every source is named");
}

bool apply_switch_flag(std::string_view name, SwitchFlags& flags)
{
  for (const SwitchFlagName& flag : k_switch_flag_names) {
    if (flag.name == name) {
      flags[static_cast<size_t>(flag.id)] = {flag.value, std::string(flag.name)};
      return true;
    }
  }
  return false;
}

void apply_mode_flag(bool accuracy, SwitchFlags& flags)
{
  flags[static_cast<size_t>(Switch::prefer_accuracy)] = {
      accuracy, accuracy ? "--mode accuracy" : "--mode fast"};
}

Settings resolve_settings(const SwitchFlags& flags, const EnvironmentMap& environment,
                          const ConfigFile* file)
{
  Settings settings;
  for (const SwitchInfo& info : k_switches) {
    settings.switches[static_cast<size_t>(info.id)] = {info.default_value,
                                                       SettingSource::default_value, ""};
  }
  if (file != nullptr) {
    settings.config_path = file->path;
    settings.config_present = file->present;
    apply_file(*file, settings);
  }
  apply_environment(environment, settings);
  for (const SwitchInfo& info : k_switches) {
    const SwitchFlag& flag = flags[static_cast<size_t>(info.id)];
    if (flag.value) {
      settings.switches[static_cast<size_t>(info.id)] = {*flag.value, SettingSource::flag,
                                                         flag.origin};
    }
  }
  return settings;
}

Settings read_settings(const SwitchFlags& flags, const EnvironmentMap& environment)
{
  std::optional<std::filesystem::path> path = config_file_path(environment);
  if (!path) {
    return resolve_settings(flags, environment, nullptr);
  }
  ConfigFile file = read_config_file(*path);
  return resolve_settings(flags, environment, &file);
}

std::optional<std::string> gpu_arch_from_environment(const EnvironmentMap& environment)
{
  std::optional<std::string> arch = environment_value(environment, k_env_gpu_arch);
  if (arch && arch->starts_with("gfx")) {
    return arch;
  }
  return std::nullopt;
}

} // namespace d4r
