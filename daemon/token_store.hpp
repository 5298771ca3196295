#pragma once
// The token file as the daemon reads it (util/tokens.hpp): looked at again on every check, by a
// stat (device, inode, size, mtime), and re-read when any of them changed, so `d4r-kernel token
// revoke` takes effect with the next request and no restart. A file that cannot be read or
// parsed keeps the last good one (and says so once per change); a missing file has no clients.
//
// Thread-safe: gRPC's threads check tokens at once.

#include "util/tokens.hpp"

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace d4r::daemon {

enum class TokenVerdict { accepted, missing, unknown, revoked };

struct TokenCheck {
  TokenVerdict verdict = TokenVerdict::missing;
  std::string client; // accepted, revoked: the client's name
};

class TokenStore {
public:
  explicit TokenStore(std::filesystem::path path);

  // `authorization` is the metadata's value ("Bearer TOKEN"); empty when absent.
  [[nodiscard]] TokenCheck check(std::string_view authorization);
  // The clients as the file lists them now (for status).
  [[nodiscard]] std::shared_ptr<const TokenFile> clients();
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  struct Stamp {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = -1;
    int64_t mtime_ns = -1;
    bool operator==(const Stamp&) const = default;
  };
  std::shared_ptr<const TokenFile> current();

  std::filesystem::path m_path;
  std::mutex m_mutex;
  Stamp m_stamp;
  std::shared_ptr<const TokenFile> m_file = std::make_shared<const TokenFile>();
};

[[nodiscard]] const char* to_string(TokenVerdict verdict);

} // namespace d4r::daemon
