#include "daemon/module_store.hpp"

#include "util/ptx_identity.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace d4r::daemon {

namespace {

Expected<void> write_all(int fd, std::string_view data, const std::filesystem::path& path)
{
  while (!data.empty()) {
    ssize_t written = write(fd, data.data(), data.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return make_error(ErrorCode::io, "module store: " + path.string() + ": " + std::strerror(errno));
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  return {};
}

// Writes `data` to `target` whole or not at all: a temporary file, fsync, rename.
Expected<void> write_durably(const std::filesystem::path& target, std::string_view data)
{
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) {
    return make_error(ErrorCode::io, "module store: " + target.parent_path().string() + ": " + ec.message());
  }
  std::filesystem::path temp = target;
  temp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(gettid());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return make_error(ErrorCode::io, "module store: " + temp.string() + ": " + std::strerror(errno));
  }
  Expected<void> written = write_all(fd, data, temp);
  bool synced = written && fsync(fd) == 0;
  close(fd);
  if (!synced || rename(temp.c_str(), target.c_str()) != 0) {
    int error = errno;
    unlink(temp.c_str());
    return written ? make_error(ErrorCode::io, "module store: " + target.string() + ": " + std::strerror(error))
                   : std::unexpected(written.error());
  }
  return {};
}

std::filesystem::path index_path(const std::filesystem::path& root, uint64_t fnv1a64)
{
  return root / "by-fnv" / hash_to_hex(fnv1a64);
}

} // namespace

ModuleStore::ModuleStore(std::filesystem::path root, int64_t max_module_bytes)
    : m_root(std::move(root)), m_max_module_bytes(max_module_bytes)
{
}

std::filesystem::path ModuleStore::path_of(const Sha256& digest) const
{
  std::string hex = to_hex(digest);
  return m_root / hex.substr(0, 2) / (hex.substr(2) + ".ptx");
}

std::optional<std::filesystem::path> ModuleStore::find_by_fnv(uint64_t fnv1a64) const
{
  std::ifstream in(index_path(m_root, fnv1a64));
  std::string hex;
  if (!(in >> hex)) {
    return std::nullopt;
  }
  std::optional<Sha256> digest = parse_sha256_hex(hex);
  if (!digest || !contains(*digest)) {
    return std::nullopt;
  }
  return path_of(*digest);
}

bool ModuleStore::contains(const Sha256& digest) const
{
  std::error_code ec;
  return std::filesystem::is_regular_file(path_of(digest), ec);
}

Expected<int64_t> ModuleStore::put(uint64_t fnv1a64, const Sha256& digest, std::string_view ptx)
{
  if (static_cast<int64_t>(ptx.size()) > m_max_module_bytes) {
    return make_error(ErrorCode::resource_exhausted,
                      "module " + hash_to_hex(fnv1a64) + ": " + std::to_string(ptx.size()) +
                          " bytes is over the limit of " + std::to_string(m_max_module_bytes));
  }
  if (sha256(ptx) != digest) {
    return make_error(ErrorCode::invalid_argument,
                      "module " + hash_to_hex(fnv1a64) + ": bytes do not match their sha256");
  }
  if (ptx_module_hash(ptx) != fnv1a64) {
    return make_error(ErrorCode::invalid_argument,
                      "module " + hash_to_hex(fnv1a64) + ": bytes hash to " +
                          hash_to_hex(ptx_module_hash(ptx)) + " (fnv-1a 64)");
  }
  TRY(write_durably(path_of(digest), ptx));
  // The index by the manifests' hash: a resolve names a module by FNV-1a 64 only.
  TRY(write_durably(index_path(m_root, fnv1a64), to_hex(digest)));
  return static_cast<int64_t>(ptx.size());
}

} // namespace d4r::daemon
