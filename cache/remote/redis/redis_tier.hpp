#pragma once
// The Redis tier (cache/tier.hpp) for build hosts sharing one store: objects by digest, the
// index by the key's text form, a lock per key so that one host builds it while the others wait
// for its result (claim/settle, woken by the builder's announcement), builds offered on a job
// stream for idle hosts to take (offer/take/finish), and each host's heartbeat (hosts()). Only the
// factory is public (ccache's remote storage backends).

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"
#include "cache/tier.hpp"

#include <chrono>
#include <cstdint>
#include <memory>

namespace d4r::cache::redis {

struct RedisTierOptions {
  RedisOptions connection;
  RedisKeyspace keys;
  int64_t max_connections = 8;
  // Zero: entries live until the server evicts them (run it with maxmemory-policy allkeys-lru).
  std::chrono::milliseconds object_ttl{0};
  std::chrono::milliseconds index_ttl{0};
  // How long a host's claim on a key lasts: longer than any build may take, so that it never
  // ends under a live build, and short enough that a host that died frees its keys. 0: no claims.
  std::chrono::milliseconds lock_ttl{0};
  // While another host builds a key this one waits for, the longest pause between two looks for
  // its result. The building host announces the end of its build (result_waits.hpp), which
  // wakes the waiter at once; the looks only cover an announcement lost with the server.
  std::chrono::milliseconds claim_poll{500};
  // Work sharing (tier.hpp offer/take): this host's name among the job stream's consumers, and
  // how long a job it took may go unfinished before another host takes it over (longer than any
  // build; a host that died frees its jobs after it).
  std::string consumer = "host";
  std::chrono::milliseconds job_timeout{60000};
  // This host's heartbeat (heartbeats.hpp, under its consumer name) is rewritten this often and
  // lasts three times as long; hosts() lists those alive. 0: no heartbeat.
  std::chrono::milliseconds heartbeat{0};
};

[[nodiscard]] std::unique_ptr<Tier> make_redis_tier(RedisTierOptions options);

} // namespace d4r::cache::redis
