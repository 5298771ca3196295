#pragma once
// Which build hosts are alive: each host rewrites a key of its own with an expiry, so a host that
// stops (killed, cut off) disappears from the list by itself once the expiry passes. The value is
// opaque bytes the host chooses (its version, its capacity).

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::cache::redis {

class RedisHeartbeats {
public:
  RedisHeartbeats(RedisConnection& connection, RedisKeyspace keys)
      : m_connection(connection), m_keys(std::move(keys))
  {
  }

  [[nodiscard]] Expected<void> beat(std::string_view host, std::string_view info,
                                    std::chrono::milliseconds ttl, Deadline deadline);
  [[nodiscard]] Expected<bool> alive(std::string_view host, Deadline deadline);
  // The hosts alive now, sorted (SCAN: never blocks the server the way KEYS would).
  [[nodiscard]] Expected<std::vector<std::string>> hosts(Deadline deadline);
  // A host that stops cleanly says so instead of waiting for its expiry.
  [[nodiscard]] Expected<void> leave(std::string_view host, Deadline deadline);

private:
  RedisConnection& m_connection;
  RedisKeyspace m_keys;
};

} // namespace d4r::cache::redis
