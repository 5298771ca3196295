#include "daemon/release/file_probe.hpp"

#include <cerrno>

namespace d4r::release {

namespace {

int64_t nanoseconds(const struct timespec& time)
{
  return static_cast<int64_t>(time.tv_sec) * 1'000'000'000 + static_cast<int64_t>(time.tv_nsec);
}

} // namespace

FileState file_state_of(int result, int error, const struct stat& st)
{
  FileState state;
  if (result != 0) {
    state.error = error != 0 ? error : -1;
    return state;
  }
  state.mode = static_cast<uint32_t>(st.st_mode);
  state.size = static_cast<int64_t>(st.st_size);
  state.mtime_ns = nanoseconds(st.st_mtim);
  state.ctime_ns = nanoseconds(st.st_ctim);
  state.device = static_cast<uint64_t>(st.st_dev);
  state.inode = static_cast<uint64_t>(st.st_ino);
  return state;
}

void note_probe(FileProbes* probes, const std::string& path, bool follow, int result, int error,
                const struct stat& st)
{
  if (probes == nullptr) {
    return;
  }
  FileProbe probe{path, follow, file_state_of(result, error, st)};
  // Where a path named no symlink, its stat and lstat said the same, and an lstat that reads the
  // same again proves the stat would too (the last component is still that very file): one call
  // checks both. Not for a symlink or an error, where the two differ.
  const bool plain = probe.state.error == 0 && !S_ISLNK(probe.state.mode);
  for (FileProbe& known : *probes) {
    if (plain && known.path == probe.path && known.state == probe.state) {
      if (!follow) {
        known.follow = false;
      }
      return;
    }
  }
  probes->push_back(std::move(probe));
}

bool probes_still_hold(const FileProbes& probes)
{
  for (const FileProbe& probe : probes) {
    struct stat st {};
    const int result = probe.follow ? ::stat(probe.path.c_str(), &st)
                                    : ::lstat(probe.path.c_str(), &st);
    if (file_state_of(result, result != 0 ? errno : 0, st) != probe.state) {
      return false;
    }
  }
  return true;
}

} // namespace d4r::release
