#include "cache/file_ops.hpp"

#include "util/file_descriptor.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r::cache::files {

namespace {

constexpr size_t k_chunk_size = 256 * 1024;


int open_retrying(const char* path, int flags, mode_t mode)
{
  int fd = -1;
  do {
    fd = ::open(path, flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

std::filesystem::path temp_name(const std::filesystem::path& tmp_dir)
{
  static std::atomic<uint64_t> counter{0};
  const uint64_t sequence = counter.fetch_add(1);
  const uint64_t now = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  return tmp_dir / (std::to_string(::getpid()) + "-" + std::to_string(sequence) + "-" +
                    hash_to_hex(now) + ".tmp");
}

Expected<void> write_all(int fd, const std::filesystem::path& path,
                         std::span<const std::byte> bytes)
{
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return std::unexpected(errno_error("write", path, errno));
    }
    written += static_cast<size_t>(n);
  }
  return {};
}

Expected<void> write_and_sync(const std::filesystem::path& path, std::span<const std::byte> bytes)
{
  // 0444 from the start: the descriptor that creates the file may still write it.
  FileDescriptor fd(open_retrying(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0444));
  if (fd.get() < 0) {
    return std::unexpected(errno_error("create", path, errno));
  }
  TRY(write_all(fd.get(), path, bytes));
  if (::fsync(fd.get()) != 0) {
    return std::unexpected(errno_error("fsync", path, errno));
  }
  if (fd.close_checked() != 0) {
    return std::unexpected(errno_error("close", path, errno));
  }
  return {};
}

} // namespace

Error errno_error(const char* verb, const std::filesystem::path& path, int error)
{
  return Error{ErrorCode::io,
               std::string("cache: cannot ") + verb + " " + path.string() + ": " +
                   std::strerror(error)};
}

Expected<bool> make_directory(const std::filesystem::path& path, mode_t mode)
{
  if (::mkdir(path.c_str(), mode) == 0) {
    return true;
  }
  const int error = errno;
  struct stat info {};
  const bool exists = error == EEXIST && ::lstat(path.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) {
    return false;
  }
  if (exists && S_ISLNK(info.st_mode)) {
    return make_error(ErrorCode::io, "cache: " + path.string() +
                                         " is a symbolic link (refused: links inside the cache "
                                         "are not followed; only the cache root may be one)");
  }
  return std::unexpected(errno_error("create directory", path, error == EEXIST ? ENOTDIR : error));
}

Expected<void> sync_directory(const std::filesystem::path& path)
{
  FileDescriptor fd(open_retrying(path.c_str(), O_RDONLY | O_DIRECTORY, 0));
  if (fd.get() < 0) {
    return std::unexpected(errno_error("open directory", path, errno));
  }
  if (::fsync(fd.get()) != 0) {
    return std::unexpected(errno_error("fsync directory", path, errno));
  }
  return {};
}

Expected<void> write_durably(const std::filesystem::path& tmp_dir,
                             const std::filesystem::path& final_path,
                             std::span<const std::byte> bytes)
{
  const std::filesystem::path tmp_path = temp_name(tmp_dir);
  Expected<void> written = write_and_sync(tmp_path, bytes);
  if (written && ::rename(tmp_path.c_str(), final_path.c_str()) != 0) {
    written = std::unexpected(errno_error("rename into", final_path, errno));
  }
  if (!written) {
    ::unlink(tmp_path.c_str());
    return written;
  }
  return sync_directory(final_path.parent_path());
}

Expected<std::vector<std::byte>> read_file(const std::filesystem::path& path)
{
  FileDescriptor fd(open_retrying(path.c_str(), O_RDONLY | O_NOFOLLOW, 0));
  if (fd.get() < 0) {
    return std::unexpected(errno_error("open", path, errno));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    return std::unexpected(errno_error("stat", path, errno));
  }
  std::vector<std::byte> bytes(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (true) {
    if (done == bytes.size()) {
      bytes.resize(bytes.size() + k_chunk_size); // the file may have grown since fstat
    }
    const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return std::unexpected(errno_error("read", path, errno));
    }
    if (n == 0) {
      break;
    }
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

Expected<FileDigest> hash_file(const std::filesystem::path& path)
{
  FileDescriptor fd(open_retrying(path.c_str(), O_RDONLY | O_NOFOLLOW, 0));
  if (fd.get() < 0) {
    return std::unexpected(errno_error("open", path, errno));
  }
  Sha256Hasher hasher;
  std::vector<std::byte> chunk(k_chunk_size);
  FileDigest result;
  while (true) {
    const ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return std::unexpected(errno_error("read", path, errno));
    }
    if (n == 0) {
      break;
    }
    hasher.update(std::span<const std::byte>(chunk.data(), static_cast<size_t>(n)));
    result.size += n;
  }
  result.digest = hasher.finish();
  return result;
}

Expected<int64_t> file_size_or_missing(const std::filesystem::path& path)
{
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return -1;
    }
    return std::unexpected(errno_error("stat", path, errno));
  }
  if (!S_ISREG(info.st_mode)) {
    return -1;
  }
  return static_cast<int64_t>(info.st_size);
}

} // namespace d4r::cache::files
