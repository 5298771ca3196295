#pragma once
// The file-system facts a catalog answer was judged on, kept so that the answer can be trusted
// again without judging it again: each is one stat (or lstat) of one path as it was made, and
// checking it again is the same call compared field by field. Any difference (a file replaced,
// rewritten, added, removed, retargeted, an error that changes) means "judge again". A fact is
// recorded from the very call whose result the answer used, never from a later look, so an answer
// is never paired with facts newer than the ones it was judged on.

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

namespace d4r::release {

// What one stat or lstat said.
struct FileState {
  int error = 0; // the call's errno, 0 when it succeeded (then the fields below are set)
  uint32_t mode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0; // changes with any write or rename, even one that restores the mtime
  uint64_t device = 0;
  uint64_t inode = 0;

  bool operator==(const FileState&) const = default;
};

struct FileProbe {
  std::string path;
  bool follow = true; // stat, else lstat
  FileState state;
};

using FileProbes = std::vector<FileProbe>;

// `result` and `error`: the call's return value and the errno it left.
[[nodiscard]] FileState file_state_of(int result, int error, const struct stat& st);

// Appends to `probes` unless it is null (callers that do not remember answers pass none).
void note_probe(FileProbes* probes, const std::string& path, bool follow, int result, int error,
                const struct stat& st);

// Stats each path again: true when every probe reads as it did.
[[nodiscard]] bool probes_still_hold(const FileProbes& probes);

} // namespace d4r::release
