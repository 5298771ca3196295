#pragma once
// d4r-kerneld's config file, $XDG_CONFIG_HOME/d4r-kerneld/config (else ~/.config/...), written in
// d4r.ini's syntax so that its [Kernels] section can be copied over as it is:
//
//   ; comment (or #)
//   [Kernels]
//   PreferAccuracy = true
//
// Sections and keys are matched without regard to case, as Windows reads d4r.ini. This file only
// splits the text into entries; util/settings.hpp decides which keys mean something.

#include "util/environment.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r {

// A file this large is not a config file; the client reads it in a game's process.
inline constexpr int64_t k_config_file_max_bytes = 64 * 1024;

struct ConfigEntry {
  std::string section; // as written, without brackets; "" before the first section
  std::string key;     // as written, trimmed
  std::string value;   // trimmed, a trailing " ; comment" or " # comment" removed
  int64_t line = 0;    // 1-based
};

struct ConfigFile {
  std::filesystem::path path;
  bool present = false;              // the file exists (read, or refused in `problems`)
  std::vector<ConfigEntry> entries;  // in file order
  std::vector<std::string> problems; // "PATH:LINE: why", or why the file could not be read
};

// $XDG_CONFIG_HOME/d4r-kerneld/config when XDG_CONFIG_HOME is absolute, else
// $HOME/.config/d4r-kerneld/config; nullopt with neither.
[[nodiscard]] std::optional<std::filesystem::path>
config_file_path(const EnvironmentMap& environment);

[[nodiscard]] ConfigFile parse_config_text(std::string_view text, const std::filesystem::path& path);

// A missing file is not a problem (present = false); an unreadable or oversized one is.
[[nodiscard]] ConfigFile read_config_file(const std::filesystem::path& path);

} // namespace d4r
