#include "daemon/release/release_file.hpp"

#include "util/file_descriptor.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace d4r::release {

namespace {


FileIdentity identity_of(const struct stat& st, bool through_symlink)
{
  FileIdentity identity;
  identity.size = static_cast<int64_t>(st.st_size);
  identity.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                      static_cast<int64_t>(st.st_mtim.tv_nsec);
  identity.device = static_cast<uint64_t>(st.st_dev);
  identity.inode = static_cast<uint64_t>(st.st_ino);
  identity.through_symlink = through_symlink;
  return identity;
}

std::string prefix(std::string_view label)
{
  return "release: " + std::string(label) + ": ";
}

} // namespace

std::string FileIdentity::to_string() const
{
  return std::to_string(size) + ":" + std::to_string(mtime_ns) + ":" + std::to_string(inode);
}

std::string errno_message(int error)
{
  std::string text = std::strerror(error);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return text;
}

Expected<FileIdentity> identify_regular_file(const std::filesystem::path& path,
                                             std::string_view label, std::string_view missing,
                                             FileProbes* probes)
{
  struct stat link_stat {};
  const int link_result = ::lstat(path.c_str(), &link_stat);
  const int link_error = link_result != 0 ? errno : 0;
  note_probe(probes, path.native(), false, link_result, link_error, link_stat);
  if (link_result != 0) {
    int error = link_error;
    if (error == ENOENT) {
      return make_error(ErrorCode::not_found,
                        prefix(label) + (missing.empty() ? "no such file" : std::string(missing)));
    }
    return make_error(ErrorCode::io, prefix(label) + "cannot stat: " + errno_message(error));
  }
  bool through_symlink = S_ISLNK(link_stat.st_mode);
  struct stat target_stat = link_stat;
  int target_result = 0;
  int target_error = 0;
  if (through_symlink) {
    target_result = ::stat(path.c_str(), &target_stat);
    target_error = target_result != 0 ? errno : 0;
    note_probe(probes, path.native(), true, target_result, target_error, target_stat);
  }
  if (target_result != 0) {
    int error = target_error;
    if (error == ENOENT || error == ELOOP) {
      // A broken release, not a partial one: reported as io so that it is never mistaken for a
      // kernel a developer set simply lacks.
      return make_error(ErrorCode::io,
                        prefix(label) + "dangling symlink (its target does not exist)");
    }
    return make_error(ErrorCode::io,
                      prefix(label) + "cannot stat the symlink's target: " + errno_message(error));
  }
  if (!S_ISREG(target_stat.st_mode)) {
    return make_error(ErrorCode::rejected, prefix(label) + "not a regular file");
  }
  return identity_of(target_stat, through_symlink);
}

Expected<void> check_readable(const std::filesystem::path& path, std::string_view label)
{
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    return make_error(ErrorCode::io, prefix(label) + "cannot open: " + errno_message(errno));
  }
  return {};
}

template <typename Buffer>
Expected<Buffer> read_regular_file(const std::filesystem::path& path, int64_t max_bytes,
                                   std::string_view label, std::string_view expected_identity)
{
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    int error = errno;
    ErrorCode code = error == ENOENT ? ErrorCode::not_found : ErrorCode::io;
    return make_error(code, prefix(label) + "cannot open: " + errno_message(error));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return make_error(ErrorCode::io, prefix(label) + "cannot stat: " + errno_message(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::rejected, prefix(label) + "not a regular file");
  }
  if (!expected_identity.empty() && identity_of(st, false).to_string() != expected_identity) {
    return make_error(ErrorCode::not_found, prefix(label) + "changed since it was selected (was " +
                                                std::string(expected_identity) + ", now " +
                                                identity_of(st, false).to_string() + ")");
  }
  if (st.st_size > max_bytes) {
    return make_error(ErrorCode::resource_exhausted,
                      prefix(label) + std::to_string(st.st_size) + " bytes (at most " +
                          std::to_string(max_bytes) + ")");
  }
  Buffer buffer(static_cast<size_t>(st.st_size), typename Buffer::value_type{});
  size_t done = 0;
  while (done < buffer.size()) {
    ssize_t got = ::read(fd.get(), buffer.data() + done, buffer.size() - done);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return make_error(ErrorCode::io, prefix(label) + "cannot read: " + errno_message(errno));
    }
    if (got == 0) {
      // Truncated while we read it: serve nothing rather than a short object.
      return make_error(ErrorCode::io, prefix(label) + "shrank while being read");
    }
    done += static_cast<size_t>(got);
  }
  return buffer;
}

template Expected<std::string> read_regular_file<std::string>(const std::filesystem::path&,
                                                              int64_t, std::string_view,
                                                              std::string_view);
template Expected<std::vector<std::byte>>
read_regular_file<std::vector<std::byte>>(const std::filesystem::path&, int64_t, std::string_view,
                                          std::string_view);

} // namespace d4r::release
