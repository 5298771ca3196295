#include "cache/remote/redis/redis_tier.hpp"

#include "cache/remote/redis/connection_pool.hpp"
#include "cache/remote/redis/heartbeats.hpp"
#include "cache/remote/redis/index.hpp"
#include "cache/remote/redis/jobs.hpp"
#include "cache/remote/redis/lock.hpp"
#include "cache/remote/redis/objects.hpp"
#include "cache/remote/redis/result_waits.hpp"
#include "cache/remote/redis/results.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstring>

namespace d4r::cache::redis {

namespace {

// What a claim's wait leaves of its budget for the look after an announcement.
constexpr std::chrono::milliseconds k_last_look{50};

std::unexpected<TierFailure> to_failure(Error error)
{
  bool timeout = error.code == ErrorCode::timeout;
  return std::unexpected(TierFailure{.error = std::move(error), .timeout = timeout});
}


class RedisTier final : public Tier {
public:
  explicit RedisTier(RedisTierOptions options)
      : m_options(std::move(options)), m_pool(m_options.connection, m_options.max_connections),
        m_name("redis:" + to_string(m_options.connection.endpoint))
  {
    if (m_options.lock_ttl.count() > 0) {
      m_waits = std::make_unique<RedisResultWaits>(m_options.connection, m_options.keys);
    }
    if (m_options.heartbeat.count() > 0) {
      m_beating = std::jthread([this](const std::stop_token& stop) { beat(stop); });
    }
  }

  ~RedisTier() override
  {
    if (m_beating.joinable()) {
      m_beating.request_stop();
      m_beating.join();
    }
  }
  RedisTier(const RedisTier&) = delete;
  RedisTier& operator=(const RedisTier&) = delete;

  [[nodiscard]] std::string name() const override { return m_name; }

  [[nodiscard]] TierResult<std::optional<TierObject>>
  lookup(Mode mode, const CacheKey& key, std::chrono::milliseconds budget) override
  {
    Deadline deadline = Clock::now() + budget;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return to_failure(std::move(lease).error());
    }
    RedisIndex index(**lease, m_options.keys, m_options.index_ttl);
    std::string text = key.to_text(mode);
    Expected<RedisIndexEntry> entry = index.get(text, deadline);
    if (!entry) {
      return miss_or_failure(std::move(entry).error(), index, text, deadline);
    }
    RedisObjects objects(**lease, m_options.keys, m_options.object_ttl);
    Expected<std::string> bytes = objects.get(entry->digest, deadline);
    if (!bytes) {
      // Evicted before its index entry, or damaged (and deleted by get): a miss of this tier.
      if (bytes.error().code == ErrorCode::not_found || bytes.error().code == ErrorCode::corrupt) {
        return std::optional<TierObject>();
      }
      return to_failure(std::move(bytes).error());
    }
    TierObject object{.digest = entry->digest,
                      .bytes = std::vector<std::byte>(bytes->size()),
                      .metadata = std::move(entry->meta),
                      .source = m_name};
    std::memcpy(object.bytes.data(), bytes->data(), bytes->size());
    return std::optional<TierObject>(std::move(object));
  }

  [[nodiscard]] TierResult<void> store(Mode mode, const CacheKey& key, const TierObject& object,
                                       std::chrono::milliseconds budget) override
  {
    Deadline deadline = Clock::now() + budget;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return to_failure(std::move(lease).error());
    }
    RedisObjects objects(**lease, m_options.keys, m_options.object_ttl);
    // Another host may have stored these bytes already: ask before sending them.
    Expected<bool> present = objects.contains(object.digest, deadline);
    if (!present) {
      return to_failure(std::move(present).error());
    }
    if (!*present) {
      Expected<RedisPut> put = objects.put(object.bytes, deadline);
      if (!put) {
        return to_failure(std::move(put).error());
      }
      if (put->digest != object.digest) {
        return to_failure(
            Error{ErrorCode::invalid_argument, m_name + ": store " + key.describe() +
                                                   ": bytes do not hash to the digest given"});
      }
    }
    // The object before its index entry, so that no host finds an entry without its object.
    RedisIndex index(**lease, m_options.keys, m_options.index_ttl);
    Expected<void> indexed =
        index.put(key.to_text(mode),
                  RedisIndexEntry{.digest = object.digest, .meta = object.metadata}, deadline);
    if (!indexed) {
      return to_failure(std::move(indexed).error());
    }
    return {};
  }

  // The key's lock (SET NX PX, lock.hpp) taken: this host builds. Held by another host: its
  // build is waited for, woken by the announcement settle() makes (or, at growing intervals up to
  // claim_poll, by looking anyway), until the index holds the entry it stores before giving the
  // lock up, or the lock is free again (given up after a failure, or expired with a host that
  // died), when this host takes it over.
  [[nodiscard]] TierResult<Claim> claim(Mode mode, const CacheKey& key,
                                        std::chrono::milliseconds budget) override
  {
    if (m_options.lock_ttl.count() <= 0) {
      return Claim{};
    }
    const std::string text = key.to_text(mode);
    const Deadline end = Clock::now() + budget;
    std::chrono::milliseconds pause{20};
    RedisResultWaits::Ticket announcement(*m_waits, text); // before the first look
    for (;;) {
      const Deadline step = std::min(end, Clock::now() + m_options.connection.command_timeout);
      {
        Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(step);
        if (!lease) {
          return to_failure(std::move(lease).error());
        }
        // The index first: a host that built the key stores it before giving the claim up, so
        // a free claim with an entry means built, not unclaimed.
        RedisIndex index(**lease, m_options.keys, m_options.index_ttl);
        Expected<bool> built = indexed(index, text, step);
        if (!built) {
          return to_failure(std::move(built).error());
        }
        if (*built) {
          return Claim{.state = ClaimState::built_elsewhere, .token = {}};
        }
        RedisLock lock(**lease, m_options.keys);
        Expected<std::optional<RedisLockToken>> taken = lock.try_acquire(text, m_options.lock_ttl, step);
        if (!taken) {
          return to_failure(std::move(taken).error());
        }
        if (*taken) {
          // Built and given up between the two looks: not this host's to build again.
          Expected<bool> built_meanwhile = indexed(index, text, step);
          if (!built_meanwhile) {
            static_cast<void>(lock.release(**taken, step));
            return to_failure(std::move(built_meanwhile).error());
          }
          if (*built_meanwhile) {
            static_cast<void>(lock.release(**taken, step));
            return Claim{.state = ClaimState::built_elsewhere, .token = {}};
          }
          return Claim{.state = ClaimState::yours, .token = std::move((*taken)->token)};
        }
      }
      if (Clock::now() + pause >= end) {
        // The last wait, leaving time for one more look should the build end within it.
        if (!announcement.wait(end - k_last_look)) {
          return Claim{}; // still held past the budget: built here too, unclaimed
        }
        continue;
      }
      static_cast<void>(announcement.wait(Clock::now() + pause));
      pause = std::min(pause * 2, m_options.claim_poll);
    }
  }

  void settle(Mode mode, const CacheKey& key, const Claim& claim) override
  {
    const Deadline deadline = Clock::now() + m_options.connection.command_timeout;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return; // the lock expires on its own
    }
    RedisLock lock(**lease, m_options.keys);
    const std::string text = key.to_text(mode);
    const RedisLockToken token{.key = m_options.keys.lock(text), .token = claim.token};
    static_cast<void>(lock.release(token, deadline));
    // The waiters look again now: the entry is stored (or the key is free to take over).
    static_cast<void>(publish_result(**lease, m_options.keys, text, "settled", deadline));
  }

  // A job's stream entry: "d4r-job 1 MODULE ORIGIN\n" and the body, MODULE the hex SHA-256 of
  // the module, stored as an object first, or "-" for none; ORIGIN the offering host's consumer
  // name.
  [[nodiscard]] TierResult<bool> offer(std::string_view body, std::span<const std::byte> module,
                                       std::chrono::milliseconds budget) override
  {
    const Deadline deadline = Clock::now() + budget;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return to_failure(std::move(lease).error());
    }
    std::string module_name = "-";
    if (!module.empty()) {
      RedisObjects objects(**lease, m_options.keys, m_options.object_ttl);
      const Sha256 digest = sha256(module);
      Expected<bool> present = objects.contains(digest, deadline);
      if (!present) {
        return to_failure(std::move(present).error());
      }
      if (!*present) {
        Expected<RedisPut> put = objects.put(module, deadline);
        if (!put) {
          return to_failure(std::move(put).error());
        }
      }
      module_name = to_hex(digest);
    }
    RedisJobs jobs(**lease, m_options.keys, m_options.consumer);
    Expected<std::string> added = jobs.add(
        std::string(k_job_magic) + module_name + " " + m_options.consumer + "\n" + std::string(body), deadline);
    if (!added) {
      return to_failure(std::move(added).error());
    }
    return true;
  }

  // A job another host left unfinished past job_timeout first, else a new one. One whose module
  // is gone from the server (evicted) or whose entry is not ours is finished unbuilt: its host
  // builds it itself.
  [[nodiscard]] TierResult<std::optional<TierJob>> take(std::chrono::milliseconds wait,
                                                        std::chrono::milliseconds budget) override
  {
    const Deadline deadline = Clock::now() + wait + budget;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return to_failure(std::move(lease).error());
    }
    RedisJobs jobs(**lease, m_options.keys, m_options.consumer);
    if (!m_group_made.load()) {
      Expected<void> made = jobs.ensure_group(deadline);
      if (!made) {
        return to_failure(std::move(made).error());
      }
      m_group_made = true;
    }
    Expected<std::vector<RedisJob>> taken = jobs.claim_stale(m_options.job_timeout, 1, deadline);
    if (taken && taken->empty()) {
      taken = jobs.read(1, wait, deadline);
    }
    if (!taken) {
      return to_failure(std::move(taken).error());
    }
    if (taken->empty()) {
      return std::optional<TierJob>();
    }
    RedisJob& entry = taken->front();
    std::optional<TierJob> job = unpack(**lease, entry, deadline);
    if (!job) {
      static_cast<void>(jobs.ack(entry.id, deadline));
    }
    return job;
  }

  void finish(const TierJob& job) override
  {
    const Deadline deadline = Clock::now() + m_options.connection.command_timeout;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return; // taken again after job_timeout: built twice at worst, and found built the second time
    }
    RedisJobs jobs(**lease, m_options.keys, m_options.consumer);
    static_cast<void>(jobs.ack(job.id, deadline));
  }

  [[nodiscard]] TierResult<std::vector<std::string>> hosts(std::chrono::milliseconds budget) override
  {
    const Deadline deadline = Clock::now() + budget;
    Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline);
    if (!lease) {
      return to_failure(std::move(lease).error());
    }
    Expected<std::vector<std::string>> alive = RedisHeartbeats(**lease, m_options.keys).hosts(deadline);
    if (!alive) {
      return to_failure(std::move(alive).error());
    }
    return std::move(*alive);
  }

private:
  static constexpr std::string_view k_job_magic = "d4r-job 1 ";

  // Rewrites this host's heartbeat until stopped, then takes it away (a host that dies instead
  // leaves when its expiry passes). A beat the server misses is simply the next one's to make.
  void beat(const std::stop_token& stop)
  {
    std::mutex mutex;
    std::condition_variable_any wake;
    const auto ttl = 3 * m_options.heartbeat;
    while (!stop.stop_requested()) {
      const Deadline deadline = Clock::now() + m_options.connection.command_timeout;
      if (Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline)) {
        static_cast<void>(RedisHeartbeats(**lease, m_options.keys).beat(m_options.consumer, m_options.consumer, ttl, deadline));
      }
      std::unique_lock lock(mutex);
      wake.wait_for(lock, stop, m_options.heartbeat, [] { return false; });
    }
    const Deadline deadline = Clock::now() + m_options.connection.command_timeout;
    if (Expected<RedisConnectionPool::Lease> lease = m_pool.acquire(deadline)) {
      static_cast<void>(RedisHeartbeats(**lease, m_options.keys).leave(m_options.consumer, deadline));
    }
  }

  std::optional<TierJob> unpack(RedisConnection& connection, RedisJob& entry, Deadline deadline) const
  {
    const size_t line_end = entry.body.find('\n');
    if (!entry.body.starts_with(k_job_magic) || line_end == std::string::npos) {
      return std::nullopt;
    }
    const std::string header = entry.body.substr(k_job_magic.size(), line_end - k_job_magic.size());
    const size_t space = header.find(' ');
    if (space == std::string::npos) {
      return std::nullopt;
    }
    const std::string module_name = header.substr(0, space);
    TierJob job{.id = entry.id,
                .body = entry.body.substr(line_end + 1),
                .module = {},
                .own = header.substr(space + 1) == m_options.consumer};
    if (module_name == "-") {
      return job;
    }
    std::optional<Sha256> digest = parse_sha256_hex(module_name);
    if (!digest) {
      return std::nullopt;
    }
    RedisObjects objects(connection, m_options.keys, m_options.object_ttl);
    Expected<std::string> bytes = objects.get(*digest, deadline);
    if (!bytes) {
      return std::nullopt;
    }
    job.module.resize(bytes->size());
    std::memcpy(job.module.data(), bytes->data(), bytes->size());
    return job;
  }

  // Whether the index has an entry for the key (one it cannot read counts as none).
  static Expected<bool> indexed(RedisIndex& index, const std::string& text, Deadline deadline)
  {
    Expected<RedisIndexEntry> entry = index.get(text, deadline);
    if (entry) {
      return true;
    }
    if (entry.error().code == ErrorCode::not_found || entry.error().code == ErrorCode::corrupt) {
      return false;
    }
    return std::unexpected(std::move(entry).error());
  }

  // An absent entry is a miss; one this tier cannot read is removed (so the next store rewrites
  // it) and is a miss too; anything else is the tier failing.
  TierResult<std::optional<TierObject>> miss_or_failure(Error error, RedisIndex& index,
                                                        const std::string& text, Deadline deadline)
  {
    if (error.code == ErrorCode::not_found) {
      return std::optional<TierObject>();
    }
    if (error.code == ErrorCode::corrupt) {
      (void)index.remove(text, deadline);
      return std::optional<TierObject>();
    }
    return to_failure(std::move(error));
  }

  RedisTierOptions m_options;
  RedisConnectionPool m_pool;
  std::string m_name;
  std::unique_ptr<RedisResultWaits> m_waits; // with claims only
  std::atomic<bool> m_group_made{false};      // the job stream's consumer group, once per tier
  std::jthread m_beating;                     // last: it uses the pool (stopped in the destructor)
};

} // namespace

std::unique_ptr<Tier> make_redis_tier(RedisTierOptions options)
{
  return std::make_unique<RedisTier>(std::move(options));
}

} // namespace d4r::cache::redis
