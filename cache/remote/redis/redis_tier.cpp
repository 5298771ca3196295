#include "cache/remote/redis/redis_tier.hpp"

#include "cache/remote/redis/connection_pool.hpp"
#include "cache/remote/redis/index.hpp"
#include "cache/remote/redis/objects.hpp"

#include <cstring>

namespace d4r::cache::redis {

namespace {

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
  }

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

private:
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
};

} // namespace

std::unique_ptr<Tier> make_redis_tier(RedisTierOptions options)
{
  return std::make_unique<RedisTier>(std::move(options));
}

} // namespace d4r::cache::redis
