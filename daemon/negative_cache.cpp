#include "daemon/negative_cache.hpp"

#include "util/digest.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace d4r::daemon {

NegativeCache::NegativeCache(std::filesystem::path cache_root) : m_root(std::move(cache_root)) {}

std::filesystem::path NegativeCache::path_of(Mode mode, const std::string& key) const
{
  return m_root / "failures" / to_string(mode) / (to_hex(sha256(key)) + ".txt");
}

std::optional<std::string> NegativeCache::find(Mode mode, const std::string& key) const
{
  std::string memory_key = std::string(to_string(mode)) + '|' + key;
  std::lock_guard lock(m_mutex);
  auto it = m_memory.find(memory_key);
  if (it != m_memory.end()) {
    return it->second;
  }
  std::ifstream file(path_of(mode, key));
  if (!file) {
    return std::nullopt;
  }
  std::ostringstream reason;
  reason << file.rdbuf();
  m_memory[memory_key] = reason.str();
  return reason.str();
}

void NegativeCache::remember(Mode mode, const std::string& key, const std::string& reason)
{
  std::lock_guard lock(m_mutex);
  m_memory[std::string(to_string(mode)) + '|' + key] = reason;
  std::filesystem::path path = path_of(mode, key);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  // Best effort: losing this file only means one more failing build after a restart.
  std::filesystem::path temp = path;
  temp += ".tmp";
  // A new file, never through a link planted in its place (links inside the cache are not
  // followed: cache/file_ops.hpp).
  ::unlink(temp.c_str());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return;
  }
  bool written = ::write(fd, reason.data(), reason.size()) == static_cast<ssize_t>(reason.size());
  written = ::close(fd) == 0 && written;
  if (!written) {
    ::unlink(temp.c_str());
    return;
  }
  std::filesystem::rename(temp, path, ec);
}

void NegativeCache::clear()
{
  std::lock_guard lock(m_mutex);
  m_memory.clear();
  std::error_code ec;
  std::filesystem::remove_all(m_root / "failures", ec);
}

} // namespace d4r::daemon
