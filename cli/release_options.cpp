#include "cli/release_options.hpp"

#include "util/digest.hpp"

#include <charconv>
#include <filesystem>

namespace d4r::cli {

namespace {

Expected<void> no_positionals(std::string_view command, const std::vector<std::string>& positionals,
                              size_t allowed)
{
  if (positionals.size() > allowed) {
    return make_error(ErrorCode::invalid_argument, std::string(command) + ": unexpected argument '" +
                                                       positionals[allowed].substr(0, 64) + "'");
  }
  return {};
}

// "gfx1201" or "gfx1201-fp8" (only a gfx12 target has an -fp8 folder).
Expected<std::string> parse_folder_target(std::string_view text)
{
  const bool fp8 = text.ends_with("-fp8");
  std::string_view arch = fp8 ? text.substr(0, text.size() - 4) : text;
  Expected<std::string> target = validate_target(arch);
  if (!target) {
    return make_error(ErrorCode::invalid_argument, "--target: " + target.error().message);
  }
  if (fp8 && !target_has_native_fp8(*target)) {
    return make_error(ErrorCode::invalid_argument,
                      "--target: " + *target + " has no -fp8 folder (only gfx12 targets do)");
  }
  return fp8 ? *target + "-fp8" : *target;
}

constexpr std::string_view k_export_help =
    R"(usage: d4r-kernel export DIR [--target T]... [--mode fast|accuracy|both] [--json]

Writes the daemon's cached objects as a d4r release directory, so that another machine can serve
it (d4r-kerneld --native-dir DIR, or d4r's own bridge) and `d4r-kernel import` it: DIR/<target>/
for the fast set, DIR/accuracy/<target>/ with its d4r-accuracy.txt marker for the accuracy set,
gfx12 -fp8 builds in <arch>-fp8/, each folder with NAME.hsaco files and a d4r-kernels.txt listing
`NAME HASH sr|rr` (cuda_dldn_engine_* names only with ray reconstruction hashes). The daemon writes
a hidden sibling and renames it to DIR when complete: DIR never exists half-written. DIR must not
exist, or be an empty folder. --target gfx1201 also takes gfx1201-fp8 (repeat it, or T1,T2).
Prints the folders written and one line per cached object left out, and why.
)";

constexpr std::string_view k_pin_help =
    R"(usage: d4r-kernel pin [--kernel NAME] [--module-hash HASH] [--mode fast|accuracy|both]
                      [--label GAME] [--json]
       d4r-kernel unpin [--kernel NAME] [--module-hash HASH] [--mode ...] [--json]

pin keeps a game's objects in the cache: every entry of kernel NAME, of module HASH, or of both,
now and later, is left alone by the size cap (--cache-max-bytes) and by purge (unless
purge --force). unpin removes the rule. Without --kernel and --module-hash, pin lists the pins.
`d4r-kernel list` says which entries are pinned. Without --mode, both modes.
)";

} // namespace

std::string_view export_help()
{
  return k_export_help;
}

std::string_view pin_help()
{
  return k_pin_help;
}

Expected<int64_t> parse_duration_ms(std::string_view option, std::string_view text)
{
  int64_t number = 0;
  std::from_chars_result parsed = std::from_chars(text.data(), text.data() + text.size(), number);
  std::string_view unit = text.substr(static_cast<size_t>(parsed.ptr - text.data()));
  int64_t unit_ms = 0;
  if (unit == "s") {
    unit_ms = 1000;
  } else if (unit == "m") {
    unit_ms = 60'000;
  } else if (unit == "h") {
    unit_ms = 3'600'000;
  } else if (unit == "d") {
    unit_ms = 86'400'000;
  } else if (unit == "w") {
    unit_ms = 7 * 86'400'000LL;
  }
  // A hundred years bounds it far from overflow.
  constexpr int64_t k_max_ms = 100LL * 365 * 86'400'000;
  if (parsed.ec != std::errc() || parsed.ptr == text.data() || unit_ms == 0 || number <= 0 ||
      number > k_max_ms / unit_ms) {
    return make_error(ErrorCode::invalid_argument,
                      std::string(option) + ": '" + std::string(text.substr(0, 32)) +
                          "' is not a duration (a positive whole number and a unit: s, m, h, d "
                          "or w, as in 30d or 12h)");
  }
  return number * unit_ms;
}

Expected<std::optional<Mode>> parse_mode_or_both(std::string_view text)
{
  if (text == "both") {
    return std::optional<Mode>();
  }
  Expected<Mode> mode = parse_mode(text);
  if (!mode) {
    return make_error(ErrorCode::invalid_argument,
                      "--mode: " + mode.error().message + " (or both)");
  }
  return std::optional<Mode>(*mode);
}

Expected<ExportCommand>
parse_export_command(const std::vector<std::pair<std::string, std::string>>& options,
                     const std::vector<std::string>& positionals)
{
  TRY(no_positionals("export", positionals, 1));
  if (positionals.empty() || positionals.front().empty()) {
    return make_error(ErrorCode::invalid_argument, "export: a DIR to write is required");
  }
  ExportCommand cmd;
  // The daemon writes it from its own working directory: a relative path means nothing there.
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(positionals.front(), ec);
  if (ec) {
    return make_error(ErrorCode::invalid_argument,
                      "export: cannot make '" + positionals.front() + "' absolute: " + ec.message());
  }
  cmd.directory = absolute.lexically_normal().string();
  while (cmd.directory.size() > 1 && cmd.directory.ends_with('/')) {
    cmd.directory.pop_back();
  }
  for (const auto& [name, value] : options) {
    if (name == "--mode") {
      TRY_ASSIGN(cmd.mode, parse_mode_or_both(value));
      continue;
    }
    // --target T, repeated or as a comma list.
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      std::string_view one = std::string_view(value).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start);
      TRY_ASSIGN(std::string target, parse_folder_target(one));
      cmd.targets.push_back(std::move(target));
      if (comma == std::string::npos) {
        break;
      }
      start = comma + 1;
    }
  }
  return cmd;
}

Expected<PinCommand>
parse_pin_command(bool unpin, const std::vector<std::pair<std::string, std::string>>& options,
                  const std::vector<std::string>& positionals)
{
  const char* command = unpin ? "unpin" : "pin";
  TRY(no_positionals(command, positionals, 0));
  PinCommand cmd;
  cmd.unpin = unpin;
  for (const auto& [name, value] : options) {
    if (name == "--kernel") {
      Expected<void> valid = validate_kernel_name(value);
      if (!valid) {
        return make_error(ErrorCode::invalid_argument, "--kernel: " + valid.error().message);
      }
      cmd.kernel = value;
    } else if (name == "--module-hash") {
      cmd.module_hash = parse_hash_hex(value);
      if (!cmd.module_hash) {
        return make_error(ErrorCode::invalid_argument,
                          "--module-hash: '" + value.substr(0, 32) + "' is not 16 hex digits");
      }
    } else if (name == "--mode") {
      TRY_ASSIGN(cmd.mode, parse_mode_or_both(value));
    } else {
      cmd.label = value;
    }
  }
  if (unpin && cmd.lists()) {
    return make_error(ErrorCode::invalid_argument,
                      "unpin: --kernel NAME, --module-hash HASH or both name the pin to remove");
  }
  return cmd;
}

} // namespace d4r::cli
