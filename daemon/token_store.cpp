#include "daemon/token_store.hpp"

#include <sys/stat.h>

#include <spdlog/spdlog.h>

namespace d4r::daemon {

TokenStore::TokenStore(std::filesystem::path path) : m_path(std::move(path)) {}

std::shared_ptr<const TokenFile> TokenStore::current()
{
  Stamp stamp;
  struct stat info {};
  if (::stat(m_path.c_str(), &info) == 0) {
    stamp = Stamp{info.st_dev, info.st_ino, info.st_size,
                  static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
  }
  std::lock_guard lock(m_mutex);
  if (stamp == m_stamp) {
    return m_file;
  }
  m_stamp = stamp;
  if (stamp.size < 0) {
    spdlog::warn("remote: token file {} is missing: every TCP request is refused "
                 "(d4r-kernel token add NAME)",
                 m_path.string());
    m_file = std::make_shared<const TokenFile>();
    return m_file;
  }
  Expected<TokenFile> read = read_token_file(m_path);
  if (!read) {
    spdlog::error("remote: {}; the clients read before stay", read.error().message);
    return m_file;
  }
  if ((info.st_mode & 077) != 0) {
    spdlog::warn("remote: token file {} is readable by others (mode {:04o}); it should be 0600",
                 m_path.string(), info.st_mode & 07777);
  }
  m_file = std::make_shared<const TokenFile>(std::move(*read));
  spdlog::info("remote: {} client tokens from {}", m_file->clients.size(), m_path.string());
  return m_file;
}

std::shared_ptr<const TokenFile> TokenStore::clients()
{
  return current();
}

TokenCheck TokenStore::check(std::string_view authorization)
{
  constexpr std::string_view k_scheme = "Bearer ";
  if (!authorization.starts_with(k_scheme) || authorization.size() == k_scheme.size()) {
    return TokenCheck{TokenVerdict::missing, {}};
  }
  std::shared_ptr<const TokenFile> file = current();
  const TokenClient* client = find_token(*file, authorization.substr(k_scheme.size()));
  if (client == nullptr) {
    return TokenCheck{TokenVerdict::unknown, {}};
  }
  return TokenCheck{client->revoked_unix != 0 ? TokenVerdict::revoked : TokenVerdict::accepted,
                    client->name};
}

const char* to_string(TokenVerdict verdict)
{
  switch (verdict) {
  case TokenVerdict::accepted:
    return "accepted";
  case TokenVerdict::missing:
    return "missing";
  case TokenVerdict::unknown:
    return "unknown";
  case TokenVerdict::revoked:
    return "revoked";
  }
  D4R_UNREACHABLE("a verdict the switch covers");
}

} // namespace d4r::daemon
