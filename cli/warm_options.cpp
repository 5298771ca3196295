#include "cli/warm_options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

namespace d4r::cli {

namespace {

std::vector<std::string> split_list(const std::string& text)
{
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) {
      items.push_back(item);
    }
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return items;
}

Expected<std::vector<std::string>> parse_targets(const std::string& value)
{
  std::vector<std::string> targets;
  if (value == "all") {
    for (std::string_view target : k_known_targets) {
      targets.emplace_back(target);
    }
    return targets;
  }
  for (const std::string& item : split_list(value)) {
    TRY_ASSIGN(std::string target, validate_target(item));
    if (std::find(targets.begin(), targets.end(), target) == targets.end()) {
      targets.push_back(std::move(target));
    }
  }
  if (targets.empty()) {
    return make_error(ErrorCode::invalid_argument, "--targets: expected all or gfxNNNN[,gfxNNNN...]");
  }
  return targets;
}

Expected<std::vector<Mode>> parse_modes(const std::string& value)
{
  if (value == "fast") {
    return std::vector<Mode>{Mode::fast};
  }
  if (value == "accuracy") {
    return std::vector<Mode>{Mode::accuracy};
  }
  if (value == "both") {
    return std::vector<Mode>{Mode::fast, Mode::accuracy};
  }
  return make_error(ErrorCode::invalid_argument,
                    "--mode: expected fast, accuracy or both, got '" + value.substr(0, 32) + "'");
}

// SIZE as the other commands read it: a number with an optional K, M or G suffix.
Expected<int64_t> parse_size(const std::string& value)
{
  int64_t number = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  std::string_view suffix(end, static_cast<size_t>(value.data() + value.size() - end));
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : -1;
  if (error != std::errc() || number <= 0 || shift < 0 || number > (INT64_MAX >> shift)) {
    return make_error(ErrorCode::invalid_argument,
                      "--max-decompressed: expected a size such as 512M, got '" + value.substr(0, 32) + "'");
  }
  return number << shift;
}

constexpr std::string_view k_warm_help =
    R"(usage: d4r-kernel warm FILE... [--rr-dll FILE]... [--targets all|LIST]
                       [--mode fast|accuracy|both] [--no-fp8] [--no-swin-encoders]
                       [--max-decompressed SIZE] [--json]

Builds ahead, as background work of the daemon, every kernel its release and recipes would serve
for the PTX modules of FILE (a DLL such as nvngx_dlss.dll, a fatbin, or PTX text): release
objects are imported, recipes built, modules a ptx recipe translates uploaded first. A game's
request always goes before this work. Run it again to do only what is missing: what is in the
cache counts as already done.

  --targets all|LIST  gfx targets, comma-separated, or all six (default: the daemon's GPU)
  --mode MODE         fast, accuracy or both (default: the daemon's default mode)
  --rr-dll FILE       FILE is the ray reconstruction library: its hashes warm only
                      cuda_dldn_engine_* kernels, and no other file's warm those (the RR/SR split
                      of d4r's manifests). A FILE named nvngx_dlssd*.dll is taken as one.
  --no-fp8, --no-swin-encoders   as a game with D4R_ZLUDA_WMMA_FP8_NATIVE=0 or
                      D4R_NATIVE_SWIN_ENCODERS=0 would ask
  --max-decompressed SIZE   the PTX a file may decompress to, in all (default 1G)

On a terminal a progress bar shows kernels done of the total, failures, the time and what is
left; otherwise one line per kernel built or failed; --json prints one event per line (start,
item, end). Ctrl-C stops waiting: the daemon drops what it has not started, and the builds it has
started (at most its --build-jobs) finish and are stored.
exit status: 0 every kernel ready, 1 some failed, 5 daemon, 6 a FILE unreadable, 130 interrupted
)";

} // namespace

std::string_view warm_help()
{
  return k_warm_help;
}

WarmOrigin origin_of_name(const std::string& path)
{
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name.starts_with("nvngx_dlssd") && name.ends_with(".dll") ? WarmOrigin::ray_reconstruction
                                                                   : WarmOrigin::super_resolution;
}

Expected<WarmCommand> parse_warm_command(
    const std::vector<std::pair<std::string, std::string>>& options,
    const std::vector<std::string>& positionals)
{
  WarmCommand cmd;
  for (const std::string& path : positionals) {
    cmd.files.push_back(WarmFile{path, origin_of_name(path)});
  }
  for (const auto& [name, value] : options) {
    if (name == "--rr-dll") {
      cmd.files.push_back(WarmFile{value, WarmOrigin::ray_reconstruction});
    } else if (name == "--targets") {
      TRY_ASSIGN(cmd.targets, parse_targets(value));
    } else if (name == "--mode") {
      TRY_ASSIGN(cmd.modes, parse_modes(value));
    } else if (name == "--no-fp8") {
      cmd.fp8_native = false;
    } else if (name == "--no-swin-encoders") {
      cmd.native_swin_encoders = false;
    } else if (name == "--max-decompressed") {
      TRY_ASSIGN(cmd.max_decompressed, parse_size(value));
    } else {
      return make_error(ErrorCode::invalid_argument, "warm: unknown option '" + name + "'");
    }
  }
  if (cmd.files.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "warm: name at least one FILE (a DLL, a fatbin or PTX text)");
  }
  for (const WarmFile& file : cmd.files) {
    if (file.path.empty()) {
      return make_error(ErrorCode::invalid_argument, "warm: a FILE name is empty");
    }
  }
  return cmd;
}

} // namespace d4r::cli
