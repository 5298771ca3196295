#pragma once
// A code object in the daemon's cache, named by path (the local path: the daemon sends a path and
// a digest instead of the bytes), read into memory and verified.
//
// Read, not mapped: an I/O error on a mapped page (a failing disk, a network home folder gone)
// would raise SIGBUS in the game; a read returns an error and the game falls back. The read stops
// at the caller's deadline, so a slow disk costs the game its budget and no more.

#include "util/digest.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace d4r::client {

// The bytes of `path`, which must be a regular file of exactly `size` bytes whose SHA-256 is
// `digest`. Errors: io (cannot open or read), corrupt (another size, another digest), timeout (the
// deadline passed before the last byte).
[[nodiscard]] Expected<std::string> read_verified_object(const std::string& path, int64_t size,
                                                         const Sha256& digest,
                                                         std::chrono::steady_clock::time_point deadline);

} // namespace d4r::client
