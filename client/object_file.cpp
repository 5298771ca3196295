#include "client/mapped_file.hpp"

#include "util/file_descriptor.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r::client {

namespace {


Error io_error(const std::string& path, const char* what)
{
  return Error{ErrorCode::io, "object " + path + ": " + what + ": " + std::strerror(errno)};
}

} // namespace

Expected<std::unique_ptr<MappedFile>> MappedFile::map_verified(const std::string& path,
                                                               int64_t size, const Sha256& digest)
{
  if (size <= 0) {
    return make_error(ErrorCode::corrupt,
                      "object " + path + ": size " + std::to_string(size) + " is not positive");
  }
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    return std::unexpected(io_error(path, "cannot open"));
  }
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) {
    return std::unexpected(io_error(path, "cannot stat"));
  }
  if (!S_ISREG(info.st_mode) || info.st_size != size) {
    return make_error(ErrorCode::corrupt, "object " + path + ": expected a file of " +
                                              std::to_string(size) + " bytes, found " +
                                              std::to_string(info.st_size));
  }
  void* data = mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (data == MAP_FAILED) {
    return std::unexpected(io_error(path, "cannot map"));
  }
  std::unique_ptr<MappedFile> mapping(
      new MappedFile(static_cast<const std::byte*>(data), static_cast<size_t>(size)));
  if (sha256(mapping->bytes()) != digest) {
    return make_error(ErrorCode::corrupt,
                      "object " + path + ": sha256 mismatch (expected " + to_hex(digest) + ")");
  }
  return mapping;
}

MappedFile::~MappedFile()
{
  munmap(const_cast<std::byte*>(m_data), m_size);
}

} // namespace d4r::client
