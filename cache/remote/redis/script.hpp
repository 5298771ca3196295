#pragma once
// A Lua script run by EVALSHA, loaded on first use and again when the server lost it (a restart
// empties the script cache, and the server answers NOSCRIPT), so that the script's text crosses
// the network once per server lifetime rather than with every call.

#include "cache/remote/redis/connection.hpp"

#include <span>
#include <string>
#include <string_view>

namespace d4r::cache::redis {

class RedisScript {
public:
  explicit RedisScript(std::string source) : m_source(std::move(source)) {}

  // EVALSHA sha numkeys keys... args...; an error reply becomes ErrorCode::rejected.
  [[nodiscard]] Expected<RedisReply> run(RedisConnection& connection,
                                         std::span<const std::string_view> keys,
                                         std::span<const std::string_view> args, Deadline deadline);

private:
  [[nodiscard]] Expected<void> load(RedisConnection& connection, Deadline deadline);

  std::string m_source;
  std::string m_sha; // empty until loaded
};

} // namespace d4r::cache::redis
