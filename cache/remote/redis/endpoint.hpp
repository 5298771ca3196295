#pragma once
// Where a Redis server listens: a unix socket ("unix:/run/redis/redis.sock") or a TCP address
// ("redis://127.0.0.1:6379" or "127.0.0.1:6379"). Parsed once, so that a bad spelling is a clear
// configuration error rather than a connect failure at the first request.

#include "util/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace d4r::cache::redis {

struct RedisEndpoint {
  std::string unix_path; // set for a unix socket; then host and port are unused
  std::string host;
  int64_t port = 0;

  [[nodiscard]] bool is_unix() const { return !unix_path.empty(); }
};

[[nodiscard]] Expected<RedisEndpoint> parse_endpoint(std::string_view text);
// The spelling used in every message: "unix:/path" or "host:port".
[[nodiscard]] std::string to_string(const RedisEndpoint& endpoint);

} // namespace d4r::cache::redis
