#pragma once
// Whether anything along some paths may have changed since a moment, told by the kernel instead of
// a stat per file: one inotify instance watches each directory on a path and every directory above
// it, and a look drains the instance's queue (one non-blocking read) and moves a generation on for
// any event. The kernel queues an event before the call that made the change returns, so a change
// that happened before a look is seen by it; a look whose generation is the one an earlier check
// started at means nothing watched changed since that check began.
//
// What inotify does not report is not seen: a mount over a watched directory, writes through a
// shared mapping, another machine's writes on a network filesystem. Callers that rely on the
// generation still check by stat now and then (KernelCore::still_ready: at least every second).

#include "util/file_descriptor.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>

namespace d4r::daemon {

class ChangeWatch {
public:
  // Null where this process may have no inotify instance (its limit reached, no kernel support).
  [[nodiscard]] static std::unique_ptr<ChangeWatch> open();

  // Watches `directory` and each directory above it, every one as its path names it now (through
  // symlinks, whose own swaps their parent's watch sees): entries created, removed, renamed,
  // written or changed in their attributes, the directory itself moved or removed. False when one
  // of them cannot be watched (gone, not a directory, the watch limit reached): then nothing
  // about `directory` may be trusted to this watch.
  [[nodiscard]] bool watch_path_to(const std::filesystem::path& directory);

  // The generation after every event queued so far; an overflowed queue or a failed read moves it
  // too. Never 0.
  [[nodiscard]] uint64_t generation();

private:
  explicit ChangeWatch(FileDescriptor fd) : m_fd(std::move(fd)) {}

  FileDescriptor m_fd;
  std::mutex m_mutex;
  uint64_t m_generation = 1;
  bool m_full = false; // the watch limit was reached: no more watches are added
};

} // namespace d4r::daemon
