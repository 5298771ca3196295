#include "cache/remote/redis/objects.hpp"

#include <vector>

namespace d4r::cache::redis {

Expected<RedisPut> RedisObjects::put(std::span<const std::byte> bytes, Deadline deadline)
{
  Sha256 digest = sha256(bytes);
  std::string key = m_keys.object(digest);
  std::string_view value(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::string ttl = std::to_string(m_ttl.count());
  std::vector<std::string_view> args{"SET", key, value, "NX"};
  if (m_ttl.count() > 0) {
    args.insert(args.end(), {"PX", ttl});
  }
  TRY_ASSIGN(RedisReply reply, m_connection.call(args, deadline));
  // OK when written, nil when the key existed (NX).
  return RedisPut{.digest = digest, .stored = !reply.is_nil()};
}

Expected<std::string> RedisObjects::get(const Sha256& digest, Deadline deadline)
{
  std::string key = m_keys.object(digest);
  TRY_ASSIGN(RedisReply reply, m_connection.call({"GET", key}, deadline));
  if (reply.is_nil()) {
    return make_error(ErrorCode::not_found,
                      m_connection.name() + ": object " + to_hex(digest) + ": absent");
  }
  if (!reply.is_string()) {
    return make_error(ErrorCode::corrupt,
                      m_connection.name() + ": object " + to_hex(digest) + ": not a string value");
  }
  Sha256 actual = sha256(std::string_view(reply.text));
  if (actual != digest) {
    // Best effort: the refusal stands whether or not the delete reaches the server.
    (void)m_connection.call({"DEL", key}, deadline);
    return make_error(ErrorCode::corrupt, m_connection.name() + ": object " + to_hex(digest) +
                                              ": sha256 mismatch (" + to_hex(actual) + ", " +
                                              std::to_string(reply.text.size()) +
                                              " bytes), deleted");
  }
  return std::move(reply.text);
}

Expected<bool> RedisObjects::contains(const Sha256& digest, Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply, m_connection.call({"EXISTS", m_keys.object(digest)}, deadline));
  return reply.is_integer() && reply.integer == 1;
}

} // namespace d4r::cache::redis
