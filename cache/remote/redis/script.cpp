#include "cache/remote/redis/script.hpp"

#include <vector>

namespace d4r::cache::redis {

Expected<void> RedisScript::load(RedisConnection& connection, Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply, connection.call({"SCRIPT", "LOAD", m_source}, deadline));
  if (!reply.is_string() || reply.text.size() != 40) {
    return make_error(ErrorCode::internal, connection.name() + ": SCRIPT LOAD: unexpected reply");
  }
  m_sha = reply.text;
  return {};
}

Expected<RedisReply> RedisScript::run(RedisConnection& connection,
                                      std::span<const std::string_view> keys,
                                      std::span<const std::string_view> args, Deadline deadline)
{
  if (m_sha.empty()) {
    TRY(load(connection, deadline));
  }
  std::string key_count = std::to_string(keys.size());
  for (int attempt = 0;; ++attempt) {
    std::vector<std::string_view> argv{"EVALSHA", m_sha, key_count};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    TRY_ASSIGN(RedisReply reply, connection.command(argv, deadline));
    if (reply.is_error() && reply.text.starts_with("NOSCRIPT") && attempt == 0) {
      TRY(load(connection, deadline));
      continue;
    }
    if (reply.is_error()) {
      return make_error(ErrorCode::rejected, connection.name() + ": EVALSHA: " + reply.text);
    }
    return reply;
  }
}

} // namespace d4r::cache::redis
