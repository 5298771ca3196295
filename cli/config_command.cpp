#include "cli/config_command.hpp"

#include "cli/json_writer.hpp"
#include "util/environment.hpp"
#include "util/socket_path.hpp"
#include "util/variables.hpp"

#include <algorithm>

extern char** environ;

namespace d4r::cli {

namespace {

EffectiveValue socket_value(const ConfigInputs& inputs, const EnvironmentMap& environment)
{
  EffectiveValue value{"socket", std::string(k_env_kerneld_socket), inputs.socket, std::nullopt,
                       SettingSource::default_value, std::string(k_socket_rule)};
  std::optional<std::string> from_env = environment_value(environment, k_env_kerneld_socket);
  if (inputs.socket_given) {
    value.source = SettingSource::flag;
    value.origin = "--socket";
  } else if (from_env && *from_env == inputs.socket) {
    value.source = SettingSource::environment;
    value.origin = std::string(k_env_kerneld_socket) + "=" + *from_env +
                   " (d4r-kernel only; games use the rule)";
  }
  return value;
}

EffectiveValue target_value(const ConfigInputs& inputs, const EnvironmentMap& environment,
                            EffectiveConfig& config)
{
  EffectiveValue value{"target", std::string(k_env_gpu_arch), "the daemon's GPU", std::nullopt,
                       SettingSource::default_value, "KFD: the GPU with the most SIMDs"};
  std::optional<std::string> text = environment_value(environment, k_env_gpu_arch);
  std::optional<std::string> arch = gpu_arch_from_environment(environment);
  if (text && !arch) {
    config.notes.push_back(std::string(k_env_gpu_arch) + "=" + *text +
                           ": ignored (read only when it starts with gfx)");
  }
  if (!inputs.command.target.empty()) {
    value.value = inputs.command.target;
    value.source = SettingSource::flag;
    value.origin = "--target";
  } else if (arch) {
    value.value = *arch;
    value.source = SettingSource::environment;
    value.origin = std::string(k_env_gpu_arch) + "=" + *arch;
  }
  return value;
}

EffectiveValue native_dir_value(const EnvironmentMap& environment)
{
  EffectiveValue value{"native_dir", std::string(k_env_native_dir), "none", std::nullopt,
                       SettingSource::default_value,
                       "nothing is served from a release (the daemon's --native-dir)"};
  if (std::optional<std::string> dir = environment_value(environment, k_env_native_dir)) {
    value.value = *dir;
    value.source = SettingSource::environment;
    value.origin = std::string(k_env_native_dir) + "=" + *dir + " (read by the daemon)";
  }
  return value;
}

void print_text(const EffectiveConfig& config, std::ostream& out)
{
  out << "config file: ";
  if (!config.config_file) {
    out << "none (neither XDG_CONFIG_HOME nor HOME is set)\n";
  } else {
    out << config.config_file->string() << (config.config_file_present ? "" : " (not there)")
        << "\n";
  }
  size_t name_width = 4;
  size_t value_width = 5;
  for (const EffectiveValue& value : config.values) {
    name_width = std::max(name_width, value.name.size());
    value_width = std::max(value_width, value.value.size());
  }
  auto pad = [](const std::string& text, size_t width) {
    return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
  };
  out << pad("NAME", name_width) << "  " << pad("VALUE", value_width) << "  SOURCE   FROM\n";
  for (const EffectiveValue& value : config.values) {
    out << pad(value.name, name_width) << "  " << pad(value.value, value_width) << "  "
        << pad(std::string(to_string(value.source)), 7) << "  " << value.origin << "\n";
  }
  for (const std::string& problem : config.problems) {
    out << "problem: " << problem << ": a game ignores it (and logs it), d4r-kerneld refuses to "
                                     "start\n";
  }
  for (const std::string& note : config.notes) {
    out << "note: " << note << "\n";
  }
}

void print_json(const EffectiveConfig& config, std::ostream& out)
{
  JsonWriter doc;
  doc.begin_object().key("config_file").begin_object().key("path");
  if (config.config_file) {
    doc.string(config.config_file->string());
  } else {
    doc.null();
  }
  doc.key("present").boolean(config.config_file_present).end_object();
  doc.key("settings").begin_array();
  for (const EffectiveValue& value : config.values) {
    doc.begin_object().key("name").string(value.name).key("variable").string(value.variable);
    doc.key("value");
    if (value.switch_value) {
      doc.boolean(*value.switch_value);
    } else {
      doc.string(value.value);
    }
    doc.key("source").string(to_string(value.source)).key("from").string(value.origin);
    doc.end_object();
  }
  doc.end_array().key("problems").begin_array();
  for (const std::string& problem : config.problems) {
    doc.string(problem);
  }
  doc.end_array().key("notes").begin_array();
  for (const std::string& note : config.notes) {
    doc.string(note);
  }
  doc.end_array().end_object();
  out << doc.text() << "\n";
}

} // namespace

ConfigInputs config_inputs_from_process(const GlobalOptions& global, const ConfigCommand& command)
{
  ConfigInputs inputs;
  inputs.command = command;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    inputs.environment.emplace_back(*entry);
  }
  inputs.socket = global.socket;
  inputs.socket_given = global.socket_given;
  return inputs;
}

EffectiveConfig effective_config(const ConfigInputs& inputs)
{
  const EnvironmentMap environment = environment_from_entries(inputs.environment);
  Settings settings = read_settings(inputs.command.switches, environment);
  EffectiveConfig config;
  config.config_file = settings.config_path;
  config.config_file_present = settings.config_present;
  config.problems = settings.problems;
  config.notes = settings.notes;
  config.values.push_back(socket_value(inputs, environment));
  for (const SwitchInfo& info : k_switches) {
    const SwitchSetting& setting = settings.at(info.id);
    std::string origin = setting.origin;
    if (setting.source == SettingSource::default_value) {
      origin = std::string("d4r's default (") + (info.default_value ? "on" : "off") + ")";
    }
    config.values.push_back({std::string(info.config_key), std::string(info.variable),
                             setting.value ? "true" : "false", setting.value, setting.source,
                             origin});
  }
  config.values.push_back(target_value(inputs, environment, config));
  config.values.push_back(native_dir_value(environment));
  return config;
}

int run_config(const ConfigInputs& inputs, bool json, std::ostream& out)
{
  EffectiveConfig config = effective_config(inputs);
  if (json) {
    print_json(config, out);
  } else {
    print_text(config, out);
  }
  return config.problems.empty() ? 0 : 1;
}

} // namespace d4r::cli
