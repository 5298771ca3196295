#pragma once
// A POSIX file descriptor closed on every exit path.

#include <unistd.h>

#include <utility>

namespace d4r {

class FileDescriptor {
public:
  explicit FileDescriptor(int fd = -1) : m_fd(fd) {}
  ~FileDescriptor()
  {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  FileDescriptor(FileDescriptor&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  [[nodiscard]] int get() const { return m_fd; }
  [[nodiscard]] bool valid() const { return m_fd >= 0; }
  // close() can report a delayed write error (NFS, quota); callers that wrote must check it.
  [[nodiscard]] int close_checked() { return ::close(std::exchange(m_fd, -1)); }

private:
  int m_fd;
};

} // namespace d4r
