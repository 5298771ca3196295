#include "daemon/change_watch.hpp"

#include <sys/inotify.h>

#include <array>
#include <cerrno>

namespace d4r::daemon {

namespace {

constexpr uint32_t k_events = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                              IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

} // namespace

std::unique_ptr<ChangeWatch> ChangeWatch::open()
{
  FileDescriptor fd(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!fd.valid()) {
    return nullptr;
  }
  return std::unique_ptr<ChangeWatch>(new ChangeWatch(std::move(fd)));
}

bool ChangeWatch::watch_path_to(const std::filesystem::path& directory)
{
  if (!directory.is_absolute()) {
    return false;
  }
  std::lock_guard lock(m_mutex);
  if (m_full) {
    return false;
  }
  std::filesystem::path prefix;
  for (const std::filesystem::path& part : directory.lexically_normal()) {
    if (part.empty()) {
      continue; // the trailing separator of "/a/b/"
    }
    prefix /= part;
    // Added again each time: where a symlink on the path now names another directory, that one
    // is watched (the kernel hands back the same descriptor for a directory already watched).
    if (inotify_add_watch(m_fd.get(), prefix.c_str(), k_events) < 0) {
      m_full = errno == ENOSPC;
      return false;
    }
  }
  return true;
}

uint64_t ChangeWatch::generation()
{
  std::lock_guard lock(m_mutex);
  // Room for many events at once; what they say does not matter, only that there were some.
  alignas(inotify_event) std::array<char, 4096> events;
  for (;;) {
    const ssize_t got = ::read(m_fd.get(), events.data(), events.size());
    if (got > 0) {
      ++m_generation;
      continue;
    }
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0 && errno != EAGAIN) {
      ++m_generation; // cannot tell: as if something changed
    }
    return m_generation;
  }
}

} // namespace d4r::daemon
