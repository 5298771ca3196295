#pragma once
// The --help texts of d4r-kernel, global and per command.

#include <string>
#include <string_view>

namespace d4r::cli {

// `topic` is a command name, or empty for the global help.
[[nodiscard]] std::string help_text(std::string_view topic);
[[nodiscard]] std::string version_text();

} // namespace d4r::cli
