#pragma once
// The shared index: a cache key's text form to the digest of its object and the launch metadata
// (opaque bytes in the cache's own versioned encoding; this tier neither reads nor checks them).
// One hash per key (fields "digest" and "meta"), written by one HSET so a reader never sees one
// without the other.

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"
#include "util/digest.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace d4r::cache::redis {

struct RedisIndexEntry {
  Sha256 digest{};
  std::string meta;
};

class RedisIndex {
public:
  RedisIndex(RedisConnection& connection, RedisKeyspace keys,
             std::chrono::milliseconds ttl = std::chrono::milliseconds(0))
      : m_connection(connection), m_keys(std::move(keys)), m_ttl(ttl)
  {
  }

  // The last writer wins: builds are deterministic, so two writers of one key write the same.
  [[nodiscard]] Expected<void> put(std::string_view key, const RedisIndexEntry& entry,
                                   Deadline deadline);
  // not_found when absent; corrupt when the entry is not one this tier wrote.
  [[nodiscard]] Expected<RedisIndexEntry> get(std::string_view key, Deadline deadline);
  [[nodiscard]] Expected<void> remove(std::string_view key, Deadline deadline);

private:
  RedisConnection& m_connection;
  RedisKeyspace m_keys;
  std::chrono::milliseconds m_ttl;
};

} // namespace d4r::cache::redis
