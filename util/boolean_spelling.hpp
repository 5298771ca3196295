#pragma once
// How d4r users write a switch: 1/true/on/yes or 0/false/off/no, in any case. d4r.ini's [Kernels]
// keys take true/false, the environment variables 1/0, and people mix them; every program of
// d4r-kerneld (the client a game loads, the daemon, the CLI) reads switches through this one
// function, so a game and the daemon cannot disagree on what `true` means.

#include <optional>
#include <string_view>

namespace d4r {

// For messages: what a switch accepts.
inline constexpr std::string_view k_boolean_spellings = "1/true/on/yes or 0/false/off/no";

// nullopt when `text` is none of the spellings: the caller says so (a warning or a refusal),
// never reads it as false.
[[nodiscard]] std::optional<bool> parse_boolean(std::string_view text);

} // namespace d4r
