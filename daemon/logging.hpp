#pragma once
// spdlog set up for where the daemon runs: the journal under systemd (priorities kept, no
// duplicate timestamps), the terminal otherwise.

#include "util/error.hpp"

#include <string_view>

namespace d4r::daemon {

[[nodiscard]] Expected<void> setup_logging(std::string_view level);

} // namespace d4r::daemon
