#include "trust/key_file.hpp"

#include "util/file_descriptor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace d4r::trust {

namespace {

// A PEM Ed25519 key is 119 bytes; anything far larger is not one and is not read into memory.
constexpr int64_t k_max_key_file_bytes = 64 << 10;

std::string errno_text(int error)
{
  return std::strerror(error);
}

std::string octal_mode(mode_t mode)
{
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

Expected<std::string> read_all(int fd, const std::string& name)
{
  std::string text;
  char buffer[4096];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return make_error(ErrorCode::io, name + ": cannot read: " + errno_text(errno));
    }
    if (got == 0) {
      return text;
    }
    text.append(buffer, static_cast<size_t>(got));
    if (static_cast<int64_t>(text.size()) > k_max_key_file_bytes) {
      return make_error(ErrorCode::corrupt, name + ": over 64 KiB, not a signing key");
    }
  }
}

// Ownership and mode of the open key file; a mode others could use is fixed, with a warning.
Expected<void> check_file(int fd, const std::string& name, std::vector<std::string>& warnings)
{
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return make_error(ErrorCode::io, name + ": cannot stat: " + errno_text(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::permission_denied, name + ": not a regular file, refused");
  }
  if (st.st_uid != ::geteuid()) {
    return make_error(ErrorCode::permission_denied,
                      name + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                          std::to_string(::geteuid()) + " running this; refused");
  }
  mode_t mode = st.st_mode & 07777;
  if ((mode & 077) == 0) {
    return {};
  }
  if (::fchmod(fd, 0600) != 0) {
    return make_error(ErrorCode::permission_denied,
                      name + ": mode " + octal_mode(mode) + " lets others use the key and " +
                          "cannot be fixed: " + errno_text(errno) + "; refused");
  }
  warnings.push_back(name + ": was mode " + octal_mode(mode) + ", readable or writable by others; now 0600. " +
                     "If others may have copied it, remove it to make a new key (clients then pin " +
                     "the new one)");
  return {};
}

Expected<void> write_all(int fd, std::string_view text, const std::string& name)
{
  while (!text.empty()) {
    ssize_t wrote = ::write(fd, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote < 0) {
      return make_error(ErrorCode::io, name + ": cannot write: " + errno_text(errno));
    }
    text.remove_prefix(static_cast<size_t>(wrote));
  }
  return {};
}

Expected<void> make_folder(const std::filesystem::path& folder)
{
  std::error_code error;
  if (std::filesystem::is_directory(folder, error)) {
    return {};
  }
  std::filesystem::create_directories(folder, error);
  if (!error) {
    std::filesystem::permissions(folder, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, error);
  }
  if (error) {
    return make_error(ErrorCode::io, folder.string() + ": cannot create: " + error.message());
  }
  return {};
}

// The PEM in a fresh 0600 temporary file of the same folder, fsynced; its path.
Expected<std::filesystem::path> write_temporary(const std::filesystem::path& path,
                                                std::string_view pem)
{
  std::string pattern = (path.parent_path() / ("." + path.filename().string() + ".tmp-XXXXXX"))
                            .string();
  FileDescriptor fd(::mkstemp(pattern.data())); // mkstemp makes it 0600
  std::string name = pattern;
  if (!fd.valid()) {
    return make_error(ErrorCode::io, name + ": cannot create: " + errno_text(errno));
  }
  Expected<void> written = write_all(fd.get(), pem, name);
  if (written && (::fchmod(fd.get(), 0600) != 0 || ::fsync(fd.get()) != 0)) {
    written = make_error(ErrorCode::io, name + ": cannot fsync: " + errno_text(errno));
  }
  if (written && fd.close_checked() != 0) {
    written = make_error(ErrorCode::io, name + ": cannot close: " + errno_text(errno));
  }
  if (!written) {
    ::unlink(pattern.c_str());
    return std::unexpected(written.error());
  }
  return std::filesystem::path(pattern);
}

// true: `key` is now at `path`; false: another file was there first (left as it is).
Expected<bool> link_new_key(const std::filesystem::path& path, const SigningKey& key)
{
  TRY(make_folder(path.parent_path()));
  TRY_ASSIGN(std::string pem, key.to_pem());
  TRY_ASSIGN(std::filesystem::path temporary, write_temporary(path, pem));
  // link(), unlike rename(), never replaces: a key clients may already pin is never overwritten.
  int linked = ::link(temporary.c_str(), path.c_str());
  int link_error = errno;
  ::unlink(temporary.c_str());
  if (linked != 0 && link_error == EEXIST) {
    return false;
  }
  if (linked != 0) {
    return make_error(ErrorCode::io, path.string() + ": cannot create: " + errno_text(link_error));
  }
  FileDescriptor folder(::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!folder.valid() || ::fsync(folder.get()) != 0) {
    return make_error(ErrorCode::io,
                      path.parent_path().string() + ": cannot fsync: " + errno_text(errno));
  }
  return true;
}

} // namespace

Expected<LoadedKey> load_key_file(const std::filesystem::path& path)
{
  std::string name = "signing key " + path.string();
  // O_NOFOLLOW: a link could point the daemon at a key someone else controls. O_NONBLOCK: a FIFO
  // put there must not hang the open (it is refused below as not a regular file).
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid() && errno == ENOENT) {
    return make_error(ErrorCode::not_found, name + ": no such file");
  }
  if (!fd.valid() && errno == ELOOP) {
    return make_error(ErrorCode::permission_denied, name + ": a symbolic link, refused");
  }
  if (!fd.valid()) {
    return make_error(ErrorCode::io, name + ": cannot open: " + errno_text(errno));
  }
  std::vector<std::string> warnings;
  TRY(check_file(fd.get(), name, warnings));
  TRY_ASSIGN(std::string pem, read_all(fd.get(), name));
  TRY_ASSIGN(SigningKey key, SigningKey::from_pem(pem, name));
  return LoadedKey{std::move(key), false, std::move(warnings)};
}

Expected<void> create_key_file(const std::filesystem::path& path, const SigningKey& key)
{
  TRY_ASSIGN(bool linked, link_new_key(path, key));
  if (!linked) {
    return make_error(ErrorCode::io, "signing key " + path.string() + ": " + errno_text(EEXIST) +
                                         ", left as it is");
  }
  return {};
}

Expected<LoadedKey> load_or_create_key_file(const std::filesystem::path& path)
{
  Expected<LoadedKey> loaded = load_key_file(path);
  if (loaded || loaded.error().code != ErrorCode::not_found) {
    return loaded;
  }
  TRY_ASSIGN(SigningKey key, SigningKey::generate());
  TRY_ASSIGN(bool linked, link_new_key(path, key));
  if (!linked) {
    return load_key_file(path); // another process made it first: theirs is the key
  }
  return LoadedKey{std::move(key), true, {}};
}

} // namespace d4r::trust
