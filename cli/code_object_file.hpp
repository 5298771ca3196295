#pragma once
// `resolve --out FILE`: the received code object is checked against the digest and size the daemon
// sent, then written to a temporary file beside FILE, synced and renamed over it, so FILE is either
// the old file or the whole verified object, never a torn or unverified one.

#include "util/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace d4r::cli {

// `sha256` is the 32 raw digest bytes from the reply.
[[nodiscard]] Expected<void> verify_code_object(std::string_view bytes,
                                                std::string_view expected_sha256, int64_t size);

[[nodiscard]] Expected<void> write_file_atomically(const std::string& path, std::string_view bytes);

// Reads a whole file (a daemon may answer with a cache path even when bytes were asked for).
[[nodiscard]] Expected<std::string> read_whole_file(const std::string& path);

} // namespace d4r::cli
