#pragma once
// Build jobs shared by the build hosts: one Redis Stream, one consumer group, each host a consumer.
// Delivery is at least once: a job read (XREADGROUP) stays pending for its consumer until acked
// (XACK); a host that dies with jobs pending has them claimed by another host once they have been
// idle for the timeout (XAUTOCLAIM). A live host building longer than that keeps its jobs with
// touch(), which resets their idle time. Jobs are opaque bytes: what a job says is the daemon's.

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace d4r::cache::redis {

struct RedisJob {
  std::string id; // the stream entry's ID, "1700000000000-0"
  std::string body;
};

class RedisJobs {
public:
  // `max_length`: XADD trims the stream to about this many entries (acked jobs are also deleted).
  RedisJobs(RedisConnection& connection, RedisKeyspace keys, std::string consumer,
            int64_t max_length = 100000);

  // Creates the stream and the group if absent (from the stream's start, so jobs added before
  // the group existed are delivered too).
  [[nodiscard]] Expected<void> ensure_group(Deadline deadline);
  [[nodiscard]] Expected<std::string> add(std::string_view body, Deadline deadline);
  // Up to `count` new jobs for this consumer, waiting at most `block` for one to arrive, and
  // 130 ms less than the budget (the server's own timing slack): a budget under that reads
  // without waiting. Empty when none came.
  [[nodiscard]] Expected<std::vector<RedisJob>> read(int64_t count, std::chrono::milliseconds block,
                                                     Deadline deadline);
  // Done: removed from the pending list and the stream.
  [[nodiscard]] Expected<void> ack(std::string_view id, Deadline deadline);
  // Takes over up to `count` jobs pending with any consumer for at least `min_idle`.
  [[nodiscard]] Expected<std::vector<RedisJob>> claim_stale(std::chrono::milliseconds min_idle,
                                                            int64_t count, Deadline deadline);
  // Resets the idle time of jobs this consumer is still working on.
  [[nodiscard]] Expected<void> touch(std::span<const std::string> ids, Deadline deadline);
  // How many jobs are read but not acked, all consumers together.
  [[nodiscard]] Expected<int64_t> pending_count(Deadline deadline);

  [[nodiscard]] const std::string& consumer() const { return m_consumer; }

private:
  // A command on the group that makes the group again if the server lost it.
  [[nodiscard]] Expected<RedisReply> group_call(std::span<const std::string_view> args,
                                                Deadline deadline,
                                                std::chrono::milliseconds server_wait);

  RedisConnection& m_connection;
  RedisKeyspace m_keys;
  std::string m_consumer;
  int64_t m_max_length;
};

} // namespace d4r::cache::redis
