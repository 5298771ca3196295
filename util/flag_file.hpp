#pragma once
// The small files a flag names (a PEM certificate or key, a token): read whole at start-up, so
// that one that cannot be read stops the daemon with the flag's name, not a later request.

#include "util/error.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace d4r {

// The file's bytes; io "FLAG PATH: cannot be read" when it cannot be opened or read, or is empty.
[[nodiscard]] Expected<std::string> read_flag_file(std::string_view flag,
                                                   const std::filesystem::path& path);

} // namespace d4r
