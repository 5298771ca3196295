#pragma once
// Objects shared by build hosts, content-addressed: an object's key is the SHA-256 of its bytes, so
// a write never changes what a key means (SET NX) and a read is checked against its own name. A
// value that fails the check is refused and deleted, so that the next writer can put the right
// bytes back (SET NX would otherwise keep the damaged copy forever).

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"
#include "util/digest.hpp"

#include <chrono>
#include <span>
#include <string>

namespace d4r::cache::redis {

struct RedisPut {
  Sha256 digest{};
  bool stored = false; // false: the server had these bytes already
};

class RedisObjects {
public:
  // `ttl` zero: objects live until the server evicts them (maxmemory-policy allkeys-lru is how a
  // shared cache is meant to be run); otherwise each write sets this expiry.
  RedisObjects(RedisConnection& connection, RedisKeyspace keys,
               std::chrono::milliseconds ttl = std::chrono::milliseconds(0))
      : m_connection(connection), m_keys(std::move(keys)), m_ttl(ttl)
  {
  }

  [[nodiscard]] Expected<RedisPut> put(std::span<const std::byte> bytes, Deadline deadline);
  // not_found when absent, corrupt (and deleted) when the bytes do not hash to `digest`.
  [[nodiscard]] Expected<std::string> get(const Sha256& digest, Deadline deadline);
  // Whether the server has the object: what an uploader asks before sending the bytes.
  [[nodiscard]] Expected<bool> contains(const Sha256& digest, Deadline deadline);

private:
  RedisConnection& m_connection;
  RedisKeyspace m_keys;
  std::chrono::milliseconds m_ttl;
};

} // namespace d4r::cache::redis
