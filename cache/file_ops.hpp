#pragma once
// The POSIX file operations the store needs, each returning an Error that names the file and the
// reason ("cache: cannot write /x/tmp/ab.tmp: No space left on device").
//
// Symbolic links: the cache root may be one (it is followed like any path the user gives), but
// nothing inside it is followed: files are opened with O_NOFOLLOW, sizes come from lstat (a link
// is "not a file": its row is dropped and the object written again over the link), and a link
// where the store wants a folder is refused with its path. So a link planted in the cache can
// neither be served nor make the daemon read or write a file elsewhere.

#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <sys/types.h>
#include <vector>

namespace d4r::cache::files {

// The Error for a failed system call: ErrorCode::io, "cache: cannot <verb> <path>: <strerror>".
[[nodiscard]] Error errno_error(const char* verb, const std::filesystem::path& path, int error);

// mkdir with `mode`; true when it was created, false when a directory was there already; anything
// else in the way (a file, a symbolic link) is an error.
[[nodiscard]] Expected<bool> make_directory(const std::filesystem::path& path, mode_t mode);

// Flushes a directory so that a rename or unlink in it survives a power loss.
[[nodiscard]] Expected<void> sync_directory(const std::filesystem::path& path);

// Writes `bytes` to a new file in `tmp_dir` (mode 0444), fsyncs it, renames it to `final_path`
// and fsyncs the destination folder. The temp file is removed on any failure.
[[nodiscard]] Expected<void> write_durably(const std::filesystem::path& tmp_dir,
                                           const std::filesystem::path& final_path,
                                           std::span<const std::byte> bytes);

[[nodiscard]] Expected<std::vector<std::byte>> read_file(const std::filesystem::path& path);

struct FileDigest {
  Sha256 digest{};
  int64_t size = 0;
};
// SHA-256 of a file read in chunks (nothing kept in memory).
[[nodiscard]] Expected<FileDigest> hash_file(const std::filesystem::path& path);

// The size of a regular file, or -1 when it does not exist or is not a regular file (a symbolic
// link included); other failures are errors.
[[nodiscard]] Expected<int64_t> file_size_or_missing(const std::filesystem::path& path);

} // namespace d4r::cache::files
