#include "daemon/module_store.hpp"

#include "util/ptx_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace d4r::daemon {

namespace {

// How often a module's use is written to its mtime, the age collect() goes by.
constexpr auto k_use_mark_interval = std::chrono::hours(1);

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

// Links inside the cache are not followed (cache/file_ops.hpp): a folder of the module store that
// is a symbolic link is refused rather than written through.
Expected<void> refuse_link(const std::filesystem::path& folder)
{
  std::error_code ec;
  if (std::filesystem::is_symlink(folder, ec)) {
    return make_error(ErrorCode::io, "module store: " + folder.string() +
                                         " is a symbolic link (refused: links inside the cache "
                                         "are not followed)");
  }
  return {};
}

// A regular file that is not a link.
bool is_plain_file(const std::filesystem::path& path)
{
  std::error_code ec;
  return std::filesystem::symlink_status(path, ec).type() == std::filesystem::file_type::regular;
}

// Writes `data` to `target` whole or not at all: a temporary file, fsync, rename.
Expected<void> write_durably(const std::filesystem::path& target, std::string_view data)
{
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) {
    return make_error(ErrorCode::io, "module store: " + target.parent_path().string() + ": " + ec.message());
  }
  TRY(refuse_link(target.parent_path().parent_path())); // modules/
  TRY(refuse_link(target.parent_path()));
  std::filesystem::path temp = target;
  temp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(gettid());
  // A new file, never one that was there (a leftover, or a link planted to make us write
  // elsewhere: O_EXCL does not follow it).
  unlink(temp.c_str());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
  if (!is_plain_file(index_path(m_root, fnv1a64))) {
    return std::nullopt;
  }
  std::ifstream in(index_path(m_root, fnv1a64));
  std::string hex;
  if (!(in >> hex)) {
    return std::nullopt;
  }
  std::optional<Sha256> digest = parse_sha256_hex(hex);
  if (!digest || !contains(*digest)) {
    return std::nullopt;
  }
  std::filesystem::path path = path_of(*digest);
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  if (now - std::filesystem::last_write_time(path, ec) > k_use_mark_interval && !ec) {
    // A lost mark only ages the module. Never through a link (contains() refused links already;
    // this closes the gap of one swapped in since).
    static_cast<void>(utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW));
  }
  return path;
}

namespace {

struct StoredFile {
  std::filesystem::path path;
  std::filesystem::file_time_type time;
  int64_t size = 0;
};

bool is_temporary(const std::filesystem::path& path)
{
  return path.filename().string().find(".tmp.") != std::string::npos;
}

} // namespace

ModuleStore::Collected ModuleStore::collect(int64_t max_total_bytes,
                                            std::chrono::seconds stale_after) const
{
  Collected collected;
  const auto now = std::filesystem::file_time_type::clock::now();
  std::vector<StoredFile> modules;
  std::error_code ec;
  auto remove = [&](const std::filesystem::path& path, int64_t size) {
    std::error_code ignored;
    if (std::filesystem::remove(path, ignored)) {
      ++collected.files;
      collected.bytes += size;
    }
  };
  for (auto it = std::filesystem::recursive_directory_iterator(m_root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code stat_error;
    if (!it->is_regular_file(stat_error)) {
      continue;
    }
    StoredFile file{it->path(), it->last_write_time(stat_error),
                    static_cast<int64_t>(it->file_size(stat_error))};
    if (stat_error) {
      continue;
    }
    if (is_temporary(file.path)) {
      if (now - file.time > stale_after) {
        remove(file.path, file.size);
      }
    } else if (file.path.extension() == ".ptx") {
      modules.push_back(std::move(file));
    }
  }
  int64_t total = 0;
  for (const StoredFile& file : modules) {
    total += file.size;
  }
  std::sort(modules.begin(), modules.end(),
            [](const StoredFile& a, const StoredFile& b) { return a.time < b.time; });
  for (const StoredFile& file : modules) {
    if (total <= max_total_bytes) {
      break;
    }
    remove(file.path, file.size);
    total -= file.size;
  }
  collected.kept_bytes = total;
  // An index entry whose module is gone answers nothing; drop it.
  for (auto it = std::filesystem::directory_iterator(m_root / "by-fnv", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::ifstream in(it->path());
    std::string hex;
    std::optional<Sha256> digest = (in >> hex) ? parse_sha256_hex(hex) : std::nullopt;
    if (!is_temporary(it->path()) && (!digest || !contains(*digest))) {
      in.close();
      remove(it->path(), 0);
    }
  }
  return collected;
}

ModuleStore::Collected ModuleStore::remove_all() const
{
  return collect(0, std::chrono::seconds(0));
}

bool ModuleStore::contains(const Sha256& digest) const
{
  return is_plain_file(path_of(digest));
}

Expected<void> ModuleStore::verify(const std::filesystem::path& path)
{
  std::optional<Sha256> named = parse_sha256_hex(path.parent_path().filename().string() +
                                                 path.stem().string());
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (!named || fd < 0) {
    int error = errno;
    return make_error(ErrorCode::not_found, "module store: " + path.string() + ": " +
                                                (named ? std::strerror(error) : "not a module"));
  }
  Sha256Hasher hasher;
  std::vector<std::byte> chunk(256 * 1024);
  ssize_t n = 0;
  while ((n = read(fd, chunk.data(), chunk.size())) > 0 || (n < 0 && errno == EINTR)) {
    hasher.update(std::span<const std::byte>(chunk.data(), static_cast<size_t>(std::max<ssize_t>(n, 0))));
  }
  close(fd);
  if (n < 0 || hasher.finish() != *named) {
    // Not the input's fault: the next Prepare asks the client for the module again.
    unlink(path.c_str());
    return make_error(ErrorCode::not_found, "module store: " + path.string() +
                                                ": damaged (its bytes no longer hash to its name), "
                                                "removed; the client uploads it again");
  }
  return {};
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
