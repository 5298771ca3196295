#pragma once
// A code object in the daemon's cache, named by path (the local path: the daemon sends a path and
// a digest instead of the bytes), read into memory and verified.
//
// Read, not mapped: an I/O error on a mapped page (a failing disk, a network home folder gone)
// would raise SIGBUS in the game; a read returns an error and the game falls back. The read stops
// at the caller's deadline, so a slow disk costs the game its budget and no more.
//
// VerifiedObjects keeps what this process read and verified, so that a warm Resolve whose object
// file has not changed costs a stat, not an open, a read and a SHA-256 (issue 12's hot path).

#include "util/digest.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace d4r::client {

// The bytes of `path`, which must be a regular file of exactly `size` bytes whose SHA-256 is
// `digest`. Errors: io (cannot open or read), corrupt (another size, another digest), timeout (the
// deadline passed before the last byte).
[[nodiscard]] Expected<std::string> read_verified_object(const std::string& path, int64_t size,
                                                         const Sha256& digest,
                                                         std::chrono::steady_clock::time_point deadline);

// A file as stat sees it. Any write, truncation, rename over it, chmod or link changes its inode
// or its ctime (which no unprivileged process can set back), so an equal stamp means the same
// file, unchanged, as long as both looks came after its ctime had settled (see VerifiedObjects).
struct FileStamp {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

using ObjectBytes = std::shared_ptr<const std::string>;

// The trust rule. Bytes are kept only after they hashed to their digest here, and are handed out
// again for that digest and path while the file's stamp is the one it had when they were read:
// what this process serves is always bytes it verified itself, whatever the disk does later. The
// stamp only decides when the file is read again, and with it when damage is found and reported
// to the daemon (which re-verifies, quarantines, rebuilds): at once for any change the stamp sees
// (a replaced, rewritten, truncated or touched file), within `recheck_after` for the rest (bits
// that rot under an unchanged inode), and at the first use in every new process.
//
// File times come from a coarse clock (a jiffy, 2 s on some filesystems): a change made within
// the same tick as the file's last one can leave its stamp as it was. So a file read before its
// ctime is `settled` old is never kept (git's "racily clean" rule): it is read and hashed again.
class VerifiedObjects {
public:
  struct Rules {
    std::chrono::milliseconds settled{2000};
    std::chrono::milliseconds recheck_after{10000};
  };
  // Past either bound the kept set starts again empty (a forgotten object costs one read).
  static constexpr size_t k_max_objects = 1024;
  static constexpr int64_t k_max_bytes = int64_t{64} << 20;

  VerifiedObjects() = default;
  explicit VerifiedObjects(Rules rules) : m_rules(rules) {}

  // As read_verified_object, but the bytes kept for `digest` when `path` still has their stamp.
  [[nodiscard]] Expected<ObjectBytes> read(const std::string& path, int64_t size,
                                           const Sha256& digest,
                                           std::chrono::steady_clock::time_point deadline);
  [[nodiscard]] size_t size() const;

private:
  struct Kept {
    std::string path;
    FileStamp stamp;
    ObjectBytes bytes;
    std::chrono::steady_clock::time_point verified_at;
  };
  [[nodiscard]] ObjectBytes find(const std::string& path, const Sha256& digest,
                                 const FileStamp& now);
  void keep(const std::string& path, const Sha256& digest, const FileStamp& stamp,
            ObjectBytes bytes);

  Rules m_rules;
  mutable std::mutex m_mutex;
  std::map<Sha256, Kept> m_kept;
  int64_t m_kept_bytes = 0;
};

// The one of this process, which KernelAnswer reads through. Never destroyed: a game's threads
// may still resolve while it exits.
[[nodiscard]] VerifiedObjects& verified_objects();

} // namespace d4r::client
