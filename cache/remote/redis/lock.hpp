#pragma once
// Single flight across hosts: one lock per cache key, taken with SET NX PX and a random token, so
// that only one host builds a key at a time and a host that dies frees it when the expiry passes.
// Only the holder can release or extend it: a Lua script compares the token and deletes (or
// re-expires) in one step on the server, so a holder whose lock already expired and was taken by
// another host cannot release that other host's lock.

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"
#include "cache/remote/redis/script.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::cache::redis {

struct RedisLockToken {
  std::string key;   // the Redis key of the lock
  std::string token; // 128 random bits, hex
};

class RedisLock {
public:
  RedisLock(RedisConnection& connection, RedisKeyspace keys);

  // nullopt when another holder has it.
  [[nodiscard]] Expected<std::optional<RedisLockToken>>
  try_acquire(std::string_view key, std::chrono::milliseconds ttl, Deadline deadline);
  // false when the lock is no longer this token's (expired, or taken by another since).
  [[nodiscard]] Expected<bool> release(const RedisLockToken& token, Deadline deadline);
  // Pushes the expiry out for a build that runs long; false as for release().
  [[nodiscard]] Expected<bool> extend(const RedisLockToken& token, std::chrono::milliseconds ttl,
                                      Deadline deadline);

private:
  RedisConnection& m_connection;
  RedisKeyspace m_keys;
  RedisScript m_release;
  RedisScript m_extend;
};

// 128 bits from the kernel's random source, hex: unguessable by another host.
[[nodiscard]] std::string random_token();

} // namespace d4r::cache::redis
