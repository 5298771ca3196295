#include "client/object_file.hpp"

#include "util/file_descriptor.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r::client {

namespace {

// Between two looks at the clock; small enough that a slow disk is noticed within the budget.
constexpr size_t k_chunk_bytes = size_t{1} << 20;

Error io_error(const std::string& path, const char* what, int error)
{
  return Error{ErrorCode::io, "object " + path + ": " + what + ": " + std::strerror(error)};
}

} // namespace

Expected<std::string> read_verified_object(const std::string& path, int64_t size,
                                           const Sha256& digest,
                                           std::chrono::steady_clock::time_point deadline)
{
  if (size <= 0) {
    return make_error(ErrorCode::corrupt,
                      "object " + path + ": size " + std::to_string(size) + " is not positive");
  }
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    return std::unexpected(io_error(path, "cannot open", errno));
  }
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) {
    return std::unexpected(io_error(path, "cannot stat", errno));
  }
  if (!S_ISREG(info.st_mode) || info.st_size != size) {
    return make_error(ErrorCode::corrupt, "object " + path + ": expected a file of " +
                                              std::to_string(size) + " bytes, found " +
                                              std::to_string(info.st_size));
  }
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return make_error(ErrorCode::timeout, "object " + path + ": not read within the budget (" +
                                                std::to_string(done) + " of " +
                                                std::to_string(size) + " bytes)");
    }
    size_t chunk = std::min(k_chunk_bytes, bytes.size() - done);
    ssize_t got = pread(fd.get(), bytes.data() + done, chunk, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return std::unexpected(io_error(path, "cannot read", errno));
    }
    if (got == 0) {
      return make_error(ErrorCode::corrupt, "object " + path + ": ends after " +
                                                std::to_string(done) + " of " +
                                                std::to_string(size) + " bytes");
    }
    done += static_cast<size_t>(got);
  }
  if (sha256(bytes) != digest) {
    return make_error(ErrorCode::corrupt,
                      "object " + path + ": sha256 mismatch (expected " + to_hex(digest) + ")");
  }
  return bytes;
}

} // namespace d4r::client
