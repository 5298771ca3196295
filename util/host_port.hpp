#pragma once
// A TCP address as the daemon's flags take it (--listen, --upstream): "HOST:PORT" or
// "[V6]:PORT", with a port of 0 to 65535.

#include "util/error.hpp"

#include <string>
#include <string_view>
#include <utility>

namespace d4r {

// The host and the port, or invalid_argument naming `flag` and what is wrong.
[[nodiscard]] Expected<std::pair<std::string, int>> split_host_port(std::string_view address,
                                                                    std::string_view flag);

} // namespace d4r
