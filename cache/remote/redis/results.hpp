#pragma once
// Finished builds announced, so that requests waiting on another host's build wake at once
// instead of polling the index. Pub/sub delivers only to those subscribed at the moment, so a
// waiter subscribes first, then looks in the index, then waits; and a subscriber that lost its
// connection (messages may have been missed meanwhile) says so, so that its waiters look again.

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"

#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace d4r::cache::redis {

// PUBLISH on the key's channel; the number of subscribers that received it.
[[nodiscard]] Expected<int64_t> publish_result(RedisConnection& connection,
                                               const RedisKeyspace& keys, std::string_view key,
                                               std::string_view payload, Deadline deadline);

struct RedisMessage {
  std::string key;     // the cache key whose build finished
  std::string payload; // what the publisher sent (the digest, or a failure)
  // True instead of a message: the subscription was re-made after a lost connection, messages
  // may have been missed, and every waiter should look in the index again.
  bool gap = false;
};

// A connection of its own in subscribed mode (it can send no other command).
class RedisSubscriber {
public:
  RedisSubscriber(RedisOptions options, RedisKeyspace keys);

  [[nodiscard]] Expected<void> subscribe(std::string_view key, Deadline deadline);
  [[nodiscard]] Expected<void> unsubscribe(std::string_view key, Deadline deadline);
  // Every key's results (PSUBSCRIBE): what one dispatcher per daemon uses.
  [[nodiscard]] Expected<void> subscribe_all(Deadline deadline);
  // The next message, or nullopt when none came by the deadline.
  [[nodiscard]] Expected<std::optional<RedisMessage>> next(Deadline deadline);

private:
  [[nodiscard]] Expected<void> send(std::string_view verb, std::string_view channel,
                                    Deadline deadline);
  [[nodiscard]] Expected<void> resubscribe(Deadline deadline);
  [[nodiscard]] std::optional<RedisMessage> to_message(const RedisReply& reply) const;

  RedisConnection m_connection;
  RedisKeyspace m_keys;
  std::set<std::string> m_channels;
  bool m_all = false;
  bool m_gap = false;               // a re-subscription not yet reported by next()
  std::deque<RedisMessage> m_queue; // messages read while waiting for a confirmation
  int64_t m_generation = 0;         // the connection's, when the subscriptions were last made
};

} // namespace d4r::cache::redis
