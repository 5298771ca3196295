#pragma once
// Private to daemon/release: reading and identifying the files of a release directory with POSIX
// calls, so that every failure (missing, dangling symlink, not a regular file, EACCES, too large)
// gets its own message naming the file.

#include "daemon/release/file_probe.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace d4r::release {

// What a stat says about the file a path finally names (through symlinks).
struct FileIdentity {
  int64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t device = 0;
  uint64_t inode = 0;
  bool through_symlink = false;

  // "size:mtime_ns:inode": changes whenever the file is replaced or rewritten.
  [[nodiscard]] std::string to_string() const;
  bool operator==(const FileIdentity&) const = default;
};

// `label` names the file in messages ("gfx1101/foo.hsaco"). Errors: not_found for a missing file
// (with `missing`, default "no such file"), rejected for a non-regular file, io for a dangling
// symlink or anything else. With `probes`, its lstat (and the stat through a symlink) are appended.
[[nodiscard]] Expected<FileIdentity> identify_regular_file(const std::filesystem::path& path,
                                                           std::string_view label,
                                                           std::string_view missing = {},
                                                           FileProbes* probes = nullptr);

// Reads a whole regular file into `Buffer` (std::string or std::vector<std::byte>); over
// `max_bytes` is resource_exhausted. When `expected_identity` is given, an opened file whose
// identity (FileIdentity::to_string) differs, because it was replaced since it was selected, is
// refused as not_found.
template <typename Buffer>
[[nodiscard]] Expected<Buffer> read_regular_file(const std::filesystem::path& path,
                                                 int64_t max_bytes, std::string_view label,
                                                 std::string_view expected_identity = {});

// Opens and closes the file: catches EACCES, which a stat does not.
[[nodiscard]] Expected<void> check_readable(const std::filesystem::path& path, std::string_view label);

// Lowercased strerror, for LLVM-style messages.
[[nodiscard]] std::string errno_message(int error);

} // namespace d4r::release
