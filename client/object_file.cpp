#include "client/object_file.hpp"

#include "util/file_descriptor.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
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

FileStamp stamp_of(const struct stat& info)
{
  return FileStamp{static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino),
                   static_cast<int64_t>(info.st_size),
                   static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec,
                   static_cast<int64_t>(info.st_ctim.tv_sec) * 1'000'000'000 + info.st_ctim.tv_nsec};
}

int64_t realtime_ns()
{
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

struct ReadObject {
  std::string bytes;
  FileStamp stamp; // of the file the bytes came from, taken before they were read
};

Expected<ReadObject> read_object(const std::string& path, int64_t size, const Sha256& digest,
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
  ReadObject read{std::string(static_cast<size_t>(size), '\0'), stamp_of(info)};
  std::string& bytes = read.bytes;
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
  return read;
}

} // namespace

Expected<std::string> read_verified_object(const std::string& path, int64_t size,
                                           const Sha256& digest,
                                           std::chrono::steady_clock::time_point deadline)
{
  TRY_ASSIGN(ReadObject read, read_object(path, size, digest, deadline));
  return std::move(read.bytes);
}

Expected<ObjectBytes> VerifiedObjects::read(const std::string& path, int64_t size,
                                            const Sha256& digest,
                                            std::chrono::steady_clock::time_point deadline)
{
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size == size) {
    if (ObjectBytes kept = find(path, digest, stamp_of(info))) {
      return kept;
    }
  }
  const int64_t started_ns = realtime_ns();
  Expected<ReadObject> read = read_object(path, size, digest, deadline);
  if (!read) {
    std::lock_guard lock(m_mutex);
    if (auto found = m_kept.find(digest); found != m_kept.end()) {
      m_kept_bytes -= static_cast<int64_t>(found->second.bytes->size());
      m_kept.erase(found);
    }
    return std::unexpected(read.error());
  }
  auto bytes = std::make_shared<const std::string>(std::move(read->bytes));
  const int64_t settled_ns = std::chrono::nanoseconds(m_rules.settled).count();
  if (read->stamp.ctime_ns < started_ns - settled_ns && read->stamp.mtime_ns < started_ns - settled_ns) {
    keep(path, digest, read->stamp, bytes);
  }
  return bytes;
}

ObjectBytes VerifiedObjects::find(const std::string& path, const Sha256& digest,
                                  const FileStamp& now)
{
  std::lock_guard lock(m_mutex);
  auto found = m_kept.find(digest);
  if (found == m_kept.end()) {
    return nullptr;
  }
  const Kept& kept = found->second;
  if (kept.path != path || kept.stamp != now ||
      std::chrono::steady_clock::now() - kept.verified_at >= m_rules.recheck_after) {
    return nullptr; // read again; keep() replaces it if that read settles
  }
  return kept.bytes;
}

void VerifiedObjects::keep(const std::string& path, const Sha256& digest, const FileStamp& stamp,
                           ObjectBytes bytes)
{
  const auto size = static_cast<int64_t>(bytes->size());
  if (size > k_max_bytes) {
    return;
  }
  std::lock_guard lock(m_mutex);
  if (auto found = m_kept.find(digest); found != m_kept.end()) {
    m_kept_bytes -= static_cast<int64_t>(found->second.bytes->size());
    m_kept.erase(found);
  }
  if (m_kept.size() >= k_max_objects || m_kept_bytes + size > k_max_bytes) {
    m_kept.clear();
    m_kept_bytes = 0;
  }
  m_kept.emplace(digest, Kept{path, stamp, std::move(bytes), std::chrono::steady_clock::now()});
  m_kept_bytes += size;
}

size_t VerifiedObjects::size() const
{
  std::lock_guard lock(m_mutex);
  return m_kept.size();
}

VerifiedObjects& verified_objects()
{
  static VerifiedObjects* const objects = new VerifiedObjects(); // never destroyed, on purpose
  return *objects;
}

} // namespace d4r::client
