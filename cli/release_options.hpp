#pragma once
// `d4r-kernel export DIR [--target T]... [--mode fast|accuracy|both]`,
// `pin|unpin [--kernel NAME] [--module-hash HASH] [--mode M] [--label GAME]` and the duration of
// `purge --older-than`, parsed (options.cpp hands over each command's options and positionals).

#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace d4r::cli {

struct ExportCommand {
  std::string directory;            // absolute (the daemon writes it, from elsewhere)
  std::vector<std::string> targets; // "gfx1201" or "gfx1201-fp8"; empty: every target
  std::optional<Mode> mode;         // unset: both
};

struct PinCommand {
  bool unpin = false;
  std::string kernel;                  // empty: any kernel of the module
  std::optional<uint64_t> module_hash; // unset: every module of the kernel
  std::optional<Mode> mode;            // unset: both
  std::string label;                   // who asked (a game's name)
  // Neither kernel nor module: `pin` lists the pins (an `unpin` of nothing is refused).
  [[nodiscard]] bool lists() const { return kernel.empty() && !module_hash; }
};

// "30d", "12h", "90m", "45s", "2w": a positive whole number and one unit (s, m, h, d, w), in
// milliseconds. A bare number is refused: "30" could mean seconds or days.
[[nodiscard]] Expected<int64_t> parse_duration_ms(std::string_view option, std::string_view text);

// "fast", "accuracy" or "both" (nullopt).
[[nodiscard]] Expected<std::optional<Mode>> parse_mode_or_both(std::string_view text);

[[nodiscard]] std::string_view export_help();
[[nodiscard]] std::string_view pin_help();

[[nodiscard]] Expected<ExportCommand>
parse_export_command(const std::vector<std::pair<std::string, std::string>>& options,
                     const std::vector<std::string>& positionals);

[[nodiscard]] Expected<PinCommand>
parse_pin_command(bool unpin, const std::vector<std::pair<std::string, std::string>>& options,
                  const std::vector<std::string>& positionals);

} // namespace d4r::cli
