#include "cache/remote/redis/index.hpp"

namespace d4r::cache::redis {

Expected<void> RedisIndex::put(std::string_view key, const RedisIndexEntry& entry,
                               Deadline deadline)
{
  std::string name = m_keys.index(key);
  std::string digest = to_hex(entry.digest);
  TRY(m_connection.call({"HSET", name, "digest", digest, "meta", entry.meta}, deadline));
  if (m_ttl.count() > 0) {
    TRY(m_connection.call({"PEXPIRE", name, std::to_string(m_ttl.count())}, deadline));
  }
  return {};
}

Expected<RedisIndexEntry> RedisIndex::get(std::string_view key, Deadline deadline)
{
  std::string name = m_keys.index(key);
  TRY_ASSIGN(RedisReply reply, m_connection.call({"HMGET", name, "digest", "meta"}, deadline));
  if (!reply.is_array() || reply.elements.size() != 2) {
    return make_error(ErrorCode::internal,
                      m_connection.name() + ": HMGET " + name + ": unexpected reply");
  }
  const RedisReply& digest = reply.elements[0];
  const RedisReply& meta = reply.elements[1];
  if (digest.is_nil() && meta.is_nil()) {
    return make_error(ErrorCode::not_found,
                      m_connection.name() + ": index " + std::string(key) + ": absent");
  }
  std::optional<Sha256> parsed = digest.is_string() ? parse_sha256_hex(digest.text) : std::nullopt;
  if (!parsed || !meta.is_string()) {
    return make_error(ErrorCode::corrupt, m_connection.name() + ": index " + std::string(key) +
                                              ": not a digest and metadata");
  }
  return RedisIndexEntry{.digest = *parsed, .meta = meta.text};
}

Expected<void> RedisIndex::remove(std::string_view key, Deadline deadline)
{
  TRY(m_connection.call({"DEL", m_keys.index(key)}, deadline));
  return {};
}

} // namespace d4r::cache::redis
