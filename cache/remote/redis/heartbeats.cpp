#include "cache/remote/redis/heartbeats.hpp"

#include <algorithm>

namespace d4r::cache::redis {

Expected<void> RedisHeartbeats::beat(std::string_view host, std::string_view info,
                                     std::chrono::milliseconds ttl, Deadline deadline)
{
  assert(ttl.count() > 0 && "a heartbeat without expiry would keep a dead host listed");
  TRY(m_connection.call({"SET", m_keys.host(host), info, "PX", std::to_string(ttl.count())},
                        deadline));
  return {};
}

Expected<bool> RedisHeartbeats::alive(std::string_view host, Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply, m_connection.call({"EXISTS", m_keys.host(host)}, deadline));
  return reply.is_integer() && reply.integer == 1;
}

Expected<std::vector<std::string>> RedisHeartbeats::hosts(Deadline deadline)
{
  std::string pattern = m_keys.host_pattern();
  std::string prefix = m_keys.host("");
  std::vector<std::string> names;
  std::string cursor = "0";
  do {
    TRY_ASSIGN(RedisReply reply,
               m_connection.call({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}, deadline));
    if (!reply.is_array() || reply.elements.size() != 2 || !reply.elements[1].is_array()) {
      return make_error(ErrorCode::internal, m_connection.name() + ": SCAN: unexpected reply");
    }
    cursor = reply.elements[0].text;
    for (const RedisReply& key : reply.elements[1].elements) {
      names.push_back(key.text.substr(prefix.size()));
    }
  } while (cursor != "0");
  // SCAN may return a key twice.
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Expected<void> RedisHeartbeats::leave(std::string_view host, Deadline deadline)
{
  TRY(m_connection.call({"DEL", m_keys.host(host)}, deadline));
  return {};
}

} // namespace d4r::cache::redis
