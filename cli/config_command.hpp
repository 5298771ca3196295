#pragma once
// `d4r-kernel config`: every effective setting and where it came from (flag, env, file, default),
// computed by the code the client library and the daemon use (util/settings.hpp,
// util/socket_path.hpp), so what it prints is what they read.

#include "cli/config_options.hpp"
#include "cli/options.hpp"
#include "util/settings.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace d4r::cli {

struct ConfigInputs {
  ConfigCommand command;
  std::vector<std::string> environment; // "NAME=value", the process's
  std::string socket;                   // GlobalOptions::socket
  bool socket_given = false;            // --socket was on the line
};

struct EffectiveValue {
  std::string name;     // socket, PreferAccuracy, NativeFp8, NativeSwinEncoders, target, native_dir
  std::string variable; // the D4R_* variable that can set it
  std::string value;    // "true"/"false" for a switch
  std::optional<bool> switch_value; // set for the three switches
  SettingSource source = SettingSource::default_value;
  std::string origin; // what set it (a flag, NAME=value, PATH:LINE), or what the default is
};

struct EffectiveConfig {
  std::optional<std::filesystem::path> config_file;
  bool config_file_present = false;
  std::vector<EffectiveValue> values;
  std::vector<std::string> problems; // values and lines not understood
  std::vector<std::string> notes;    // what is ignored on purpose
};

[[nodiscard]] ConfigInputs config_inputs_from_process(const GlobalOptions& global,
                                                      const ConfigCommand& command);

[[nodiscard]] EffectiveConfig effective_config(const ConfigInputs& inputs);

// A table (or, with `json`, one document); 1 when a value was not understood, else 0.
[[nodiscard]] int run_config(const ConfigInputs& inputs, bool json, std::ostream& out);

} // namespace d4r::cli
