#include "cache/remote/redis/lock.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <sys/random.h>

namespace d4r::cache::redis {

namespace {

constexpr std::string_view k_release_lua = "if redis.call('GET', KEYS[1]) == ARGV[1] then return "
                                           "redis.call('DEL', KEYS[1]) else return 0 end";
constexpr std::string_view k_extend_lua =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) "
    "else return 0 end";

} // namespace

std::string random_token()
{
  std::array<uint8_t, 16> bytes{};
  size_t filled = 0;
  while (filled < bytes.size()) {
    ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    assert(got > 0 && "getrandom cannot fail for 16 bytes once the pool is initialised");
    filled += static_cast<size_t>(got);
  }
  return to_hex(bytes);
}

RedisLock::RedisLock(RedisConnection& connection, RedisKeyspace keys)
    : m_connection(connection), m_keys(std::move(keys)), m_release(std::string(k_release_lua)),
      m_extend(std::string(k_extend_lua))
{
}

Expected<std::optional<RedisLockToken>>
RedisLock::try_acquire(std::string_view key, std::chrono::milliseconds ttl, Deadline deadline)
{
  assert(ttl.count() > 0 && "a lock without expiry would outlive a dead holder");
  RedisLockToken token{.key = m_keys.lock(key), .token = random_token()};
  TRY_ASSIGN(RedisReply reply, m_connection.call({"SET", token.key, token.token, "NX", "PX",
                                                  std::to_string(ttl.count())},
                                                 deadline));
  if (reply.is_nil()) {
    return std::optional<RedisLockToken>();
  }
  return std::optional<RedisLockToken>(std::move(token));
}

Expected<bool> RedisLock::release(const RedisLockToken& token, Deadline deadline)
{
  std::array<std::string_view, 1> keys{token.key};
  std::array<std::string_view, 1> args{token.token};
  TRY_ASSIGN(RedisReply reply, m_release.run(m_connection, keys, args, deadline));
  return reply.is_integer() && reply.integer == 1;
}

Expected<bool> RedisLock::extend(const RedisLockToken& token, std::chrono::milliseconds ttl,
                                 Deadline deadline)
{
  std::string ttl_text = std::to_string(ttl.count());
  std::array<std::string_view, 1> keys{token.key};
  std::array<std::string_view, 2> args{token.token, ttl_text};
  TRY_ASSIGN(RedisReply reply, m_extend.run(m_connection, keys, args, deadline));
  return reply.is_integer() && reply.integer == 1;
}

} // namespace d4r::cache::redis
