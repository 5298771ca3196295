#pragma once
// The name the daemon counts this process's requests under (ResolveRequest.game): the basename of
// /proc/self/exe; under Wine, whose executable is its loader, the Windows executable's name from
// argv[0] (Wine sets it to the Windows path, "C:\Games\Foo\Game.exe"). Sent to the local daemon
// only, for `d4r-kernel status`; never a path, at most k_max_game_bytes of valid UTF-8 with no
// control characters.

#include <cstddef>
#include <string>
#include <string_view>

namespace d4r::client {

inline constexpr size_t k_max_game_bytes = 64;

// From the executable's path and the process's argv[0]: what this_game() computes.
[[nodiscard]] std::string game_name_from(std::string_view exe_path, std::string_view argv0);

// This process's name, read once (two small reads of /proc/self), "" when neither can be read.
[[nodiscard]] const std::string& this_game();

} // namespace d4r::client
