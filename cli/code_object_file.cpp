#include "cli/code_object_file.hpp"

#include "util/digest.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r::cli {

namespace {

Error io_error(const std::string& what, const std::string& path, int error_number)
{
  return Error{ErrorCode::io, what + " " + path + ": " + std::strerror(error_number)};
}

Expected<void> write_all(int fd, std::string_view bytes, const std::string& path)
{
  while (!bytes.empty()) {
    ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return std::unexpected(io_error("cannot write", path, written < 0 ? errno : EIO));
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return {};
}

// Writes, syncs and closes the temporary file; the caller renames or removes it.
Expected<void> fill_temp_file(int fd, std::string_view bytes, const std::string& temp_path)
{
  Expected<void> written = write_all(fd, bytes, temp_path);
  if (written && ::fchmod(fd, 0644) != 0) {
    written = std::unexpected(io_error("cannot chmod", temp_path, errno));
  }
  if (written && ::fsync(fd) != 0) {
    written = std::unexpected(io_error("cannot sync", temp_path, errno));
  }
  if (::close(fd) != 0 && written) {
    written = std::unexpected(io_error("cannot close", temp_path, errno));
  }
  return written;
}

} // namespace

Expected<void> verify_code_object(std::string_view bytes, std::string_view expected_sha256,
                                  int64_t size)
{
  if (expected_sha256.size() != 32) {
    return make_error(ErrorCode::corrupt, "code object: the reply has a " +
                                              std::to_string(expected_sha256.size()) +
                                              "-byte sha256 (expected 32)");
  }
  if (static_cast<int64_t>(bytes.size()) != size) {
    return make_error(ErrorCode::corrupt, "code object: received " + std::to_string(bytes.size()) +
                                              " bytes, the reply says " + std::to_string(size));
  }
  Sha256 actual = d4r::sha256(bytes);
  if (std::string_view(reinterpret_cast<const char*>(actual.data()), actual.size()) !=
      expected_sha256) {
    return make_error(
        ErrorCode::corrupt,
        "code object: sha256 mismatch (received " + to_hex(actual) + ", the reply says " +
            to_hex(std::span(reinterpret_cast<const uint8_t*>(expected_sha256.data()), 32)) + ")");
  }
  return {};
}

Expected<void> write_file_atomically(const std::string& path, std::string_view bytes)
{
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
  std::string temp_path = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(temp_path.data());
  if (fd < 0) {
    return std::unexpected(io_error("cannot create a temporary file in", dir.string(), errno));
  }
  Expected<void> filled = fill_temp_file(fd, bytes, temp_path);
  if (filled && ::rename(temp_path.c_str(), path.c_str()) != 0) {
    filled = std::unexpected(io_error("cannot rename " + temp_path + " to", path, errno));
  }
  if (!filled) {
    ::unlink(temp_path.c_str());
  }
  return filled;
}

Expected<std::string> read_whole_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::unexpected(io_error("cannot open", path, errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return std::unexpected(io_error("cannot read", path, errno));
  }
  return std::move(buffer).str();
}

} // namespace d4r::cli
