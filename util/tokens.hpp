#pragma once
// The bearer tokens of a build server's named clients (`d4r-kernel token add NAME`, read by
// d4r-kerneld --listen): one file, one client a line, each token kept only as its SHA-256, so a
// copy of the file lets nobody in. The file is 0600 in a 0700 folder and replaced whole (a temp
// file, fsync, rename), so the daemon, which re-reads it when it changes, never sees half of one.
//
//   # d4r-kerneld tokens v1: NAME SHA256-OF-TOKEN CREATED-UNIX [REVOKED-UNIX]
//   handheld 3f2a...64 hex... 1764680000
//   old-laptop 9d0c... 1764000000 1764600000
//
// A revoked client keeps its line (so a refusal can say "revoked" and `token list` shows when);
// `token add` of its name again replaces it with a new token.

#include "util/digest.hpp"
#include "util/environment.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r {

struct TokenClient {
  std::string name;
  Sha256 hash{};              // SHA-256 of the token's text as the client sends it
  int64_t created_unix = 0;   // seconds
  int64_t revoked_unix = 0;   // 0: not revoked
};

struct TokenFile {
  std::vector<TokenClient> clients; // in the file's order
};

// 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-': safe in a log line and a metric label.
[[nodiscard]] Expected<void> validate_client_name(std::string_view name);

// $XDG_STATE_HOME/d4r-kerneld/tokens (when absolute), else $HOME/.local/state/d4r-kerneld/tokens.
[[nodiscard]] Expected<std::filesystem::path> default_token_file(const EnvironmentMap& environment);

// A new token: "d4r_" and 32 bytes from OpenSSL's RAND_bytes in base64url without padding.
[[nodiscard]] Expected<std::string> generate_token();
[[nodiscard]] Sha256 token_hash(std::string_view token);

[[nodiscard]] Expected<TokenFile> parse_token_file(std::string_view text);
[[nodiscard]] std::string format_token_file(const TokenFile& file);

// A missing file is an empty one.
[[nodiscard]] Expected<TokenFile> read_token_file(const std::filesystem::path& path);
// Replaces the file atomically at 0600, making its folder (0700) when missing.
[[nodiscard]] Expected<void> write_token_file(const std::filesystem::path& path,
                                              const TokenFile& file);
// Read, change and write under an exclusive lock of PATH.lock, so that two `token add`s at once
// both land.
[[nodiscard]] Expected<void> update_token_file(const std::filesystem::path& path,
                                               const std::function<Expected<void>(TokenFile&)>& change);

// The client whose hash is the token's, compared in constant time against every line (the
// work does not depend on where, or whether, the token matches). Null: none.
[[nodiscard]] const TokenClient* find_token(const TokenFile& file, std::string_view token);

} // namespace d4r
