#pragma once
// `d4r-kernel config [--mode fast|accuracy] [--[no-]fp8] [--[no-]swin-encoders] [--target gfxNNNN]`,
// parsed (options.cpp hands over the command's options and positionals). The switch flags are
// d4r-kerneld's own (util/settings.hpp's k_switch_flag_names): they show what a daemon started with
// them would use, and win over the environment and the file.

#include "util/error.hpp"
#include "util/kernel_identity.hpp"
#include "util/settings.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace d4r::cli {

struct ConfigCommand {
  std::optional<Mode> mode; // --mode
  SwitchFlags switches{};   // --mode, --no-fp8, --fp8, ... as given (the last of each wins)
  std::string target;       // --target; empty: D4R_GPU_ARCH, else the daemon's GPU
};

[[nodiscard]] std::string_view config_help();

[[nodiscard]] Expected<ConfigCommand>
parse_config_command(const std::vector<std::pair<std::string, std::string>>& options,
                     const std::vector<std::string>& positionals);

} // namespace d4r::cli
