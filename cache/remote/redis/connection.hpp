#pragma once
// One connection to a Redis server through hiredis, owned (RAII) and used by one thread at a time,
// like a SQLite connection (STYLE.md rule 12). Every call takes the caller's deadline and returns
// by it: connect, write and read each wait in poll() for at most what is left of the budget (and
// of the command timeout), so a frozen or vanished server costs a caller its budget at most.
// A transport failure drops the connection and starts a backoff; until it ends, calls fail at
// once with `unavailable` and the last error, which is what lets the daemon skip the tier and
// serve from its local store without waiting on Redis.

#include "cache/remote/redis/endpoint.hpp"
#include "cache/remote/redis/reply.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

struct redisContext;

namespace d4r::cache::redis {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

struct RedisOptions {
  RedisEndpoint endpoint;
  std::chrono::milliseconds connect_timeout{250};
  // The most one command may take, whatever the caller's budget (blocking reads add their wait).
  std::chrono::milliseconds command_timeout{1000};
  // After a failure the next connect waits backoff_initial, doubling per failure up to
  // backoff_max, each drawn between half and all of it (jitter, so that hosts do not reconnect in
  // step after a restart).
  std::chrono::milliseconds backoff_initial{100};
  std::chrono::milliseconds backoff_max{5000};
};

class RedisConnection {
public:
  explicit RedisConnection(RedisOptions options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and reads its reply, connecting first if needed. `server_wait` is how long
  // the server itself may hold the reply (XREADGROUP BLOCK), added to the command timeout. A reply
  // of type error comes back as a reply: the connection is fine, the command was refused.
  [[nodiscard]] Expected<RedisReply> command(std::span<const std::string_view> args,
                                             Deadline deadline,
                                             std::chrono::milliseconds server_wait = {});
  [[nodiscard]] Expected<RedisReply> command(std::initializer_list<std::string_view> args,
                                             Deadline deadline,
                                             std::chrono::milliseconds server_wait = {});
  // As command(), with an error reply turned into ErrorCode::rejected naming the command.
  [[nodiscard]] Expected<RedisReply> call(std::span<const std::string_view> args, Deadline deadline,
                                          std::chrono::milliseconds server_wait = {});
  [[nodiscard]] Expected<RedisReply> call(std::initializer_list<std::string_view> args,
                                          Deadline deadline,
                                          std::chrono::milliseconds server_wait = {});

  // Pub/sub: the next reply the server pushes, or nullopt when none came by the deadline (the
  // connection stays usable). Does not connect: a new connection has no subscriptions.
  [[nodiscard]] Expected<std::optional<RedisReply>> read_pushed(Deadline deadline);

  // Connects unless connected; fails at once while backing off.
  [[nodiscard]] Expected<void> connect(Deadline deadline);
  void disconnect();
  [[nodiscard]] bool connected() const { return m_context != nullptr; }
  // Counts the connections made: what a subscriber compares to know its subscriptions are gone.
  [[nodiscard]] int64_t generation() const { return m_generation; }
  // "redis unix:/run/redis.sock": how every message names this server.
  [[nodiscard]] const std::string& name() const { return m_name; }

private:
  [[nodiscard]] Expected<void> flush(Deadline until, std::string_view what);
  // Reads into `reply`: true when one came, false when `until` passed first (then, unless
  // `none_is_timeout` is false, the connection is dropped: the reply may still come).
  [[nodiscard]] Expected<bool> receive(Deadline until, std::string_view what, bool none_is_timeout,
                                       RedisReply& reply);
  // Drops the connection, schedules the next attempt and returns the error, named.
  [[nodiscard]] std::unexpected<Error> fail(ErrorCode code, std::string_view what,
                                            std::string detail);

  RedisOptions m_options;
  std::string m_name;
  redisContext* m_context = nullptr;
  int64_t m_generation = 0;
  int64_t m_failures = 0; // consecutive, reset by a reply
  Deadline m_retry_at{};
  std::string m_last_error;
};

// "GET d4r:obj:3f2a...": a command as messages name it; never its values (objects are bytes).
[[nodiscard]] std::string describe_command(std::span<const std::string_view> args);

} // namespace d4r::cache::redis
