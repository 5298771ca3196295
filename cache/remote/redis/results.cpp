#include "cache/remote/redis/results.hpp"

namespace d4r::cache::redis {

Expected<int64_t> publish_result(RedisConnection& connection, const RedisKeyspace& keys,
                                 std::string_view key, std::string_view payload, Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply,
             connection.call({"PUBLISH", keys.done_channel(key), payload}, deadline));
  return reply.integer;
}

RedisSubscriber::RedisSubscriber(RedisOptions options, RedisKeyspace keys)
    : m_connection(std::move(options)), m_keys(std::move(keys))
{
}

std::optional<RedisMessage> RedisSubscriber::to_message(const RedisReply& reply) const
{
  // ["message", channel, payload] or ["pmessage", pattern, channel, payload].
  if (!reply.is_array() || reply.elements.size() < 3) {
    return std::nullopt;
  }
  const std::vector<RedisReply>& parts = reply.elements;
  bool pattern = parts[0].text == "pmessage" && parts.size() == 4;
  if (parts[0].text != "message" && !pattern) {
    return std::nullopt;
  }
  const std::string& channel = parts[pattern ? 2 : 1].text;
  std::string prefix = m_keys.done_channel("");
  if (!channel.starts_with(prefix)) {
    return std::nullopt;
  }
  return RedisMessage{
      .key = channel.substr(prefix.size()), .payload = parts[pattern ? 3 : 2].text, .gap = false};
}

// Sends one (P)(UN)SUBSCRIBE and reads up to its confirmation, keeping messages that arrive first.
Expected<void> RedisSubscriber::send(std::string_view verb, std::string_view channel,
                                     Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply, m_connection.call({verb, channel}, deadline));
  for (;;) {
    if (std::optional<RedisMessage> message = to_message(reply)) {
      m_queue.push_back(std::move(*message));
    } else if (reply.is_array() && !reply.elements.empty() &&
               reply.elements[0].text.ends_with("subscribe")) {
      return {};
    }
    TRY_ASSIGN(std::optional<RedisReply> pushed, m_connection.read_pushed(deadline));
    if (!pushed) {
      m_connection.disconnect();
      return make_error(ErrorCode::timeout, m_connection.name() + ": " + std::string(verb) +
                                                ": no confirmation within the budget");
    }
    reply = std::move(*pushed);
  }
}

Expected<void> RedisSubscriber::resubscribe(Deadline deadline)
{
  TRY(m_connection.connect(deadline));
  if (m_connection.generation() == m_generation) {
    return {};
  }
  bool had_connection = m_generation != 0;
  for (const std::string& channel : m_channels) {
    TRY(send("SUBSCRIBE", channel, deadline));
  }
  if (m_all) {
    TRY(send("PSUBSCRIBE", m_keys.done_pattern(), deadline));
  }
  m_generation = m_connection.generation();
  m_gap = m_gap || had_connection;
  return {};
}

Expected<void> RedisSubscriber::subscribe(std::string_view key, Deadline deadline)
{
  std::string channel = m_keys.done_channel(key);
  bool added = m_channels.insert(channel).second;
  int64_t before = m_generation;
  TRY(resubscribe(deadline));
  if (added && m_generation == before) {
    TRY(send("SUBSCRIBE", channel, deadline));
  }
  return {};
}

Expected<void> RedisSubscriber::unsubscribe(std::string_view key, Deadline deadline)
{
  std::string channel = m_keys.done_channel(key);
  if (m_channels.erase(channel) == 0 || !m_connection.connected()) {
    return {};
  }
  return send("UNSUBSCRIBE", channel, deadline);
}

Expected<void> RedisSubscriber::subscribe_all(Deadline deadline)
{
  bool added = !m_all;
  m_all = true;
  int64_t before = m_generation;
  TRY(resubscribe(deadline));
  if (added && m_generation == before) {
    TRY(send("PSUBSCRIBE", m_keys.done_pattern(), deadline));
  }
  return {};
}

Expected<std::optional<RedisMessage>> RedisSubscriber::next(Deadline deadline)
{
  if (!m_queue.empty()) {
    RedisMessage message = std::move(m_queue.front());
    m_queue.pop_front();
    return message;
  }
  TRY(resubscribe(deadline));
  if (m_gap) {
    m_gap = false;
    return RedisMessage{.key = {}, .payload = {}, .gap = true};
  }
  for (;;) {
    TRY_ASSIGN(std::optional<RedisReply> reply, m_connection.read_pushed(deadline));
    if (!reply) {
      return std::optional<RedisMessage>();
    }
    if (std::optional<RedisMessage> message = to_message(*reply)) {
      return message;
    }
  }
}

} // namespace d4r::cache::redis
