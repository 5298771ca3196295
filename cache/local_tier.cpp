#include "cache/local_tier.hpp"

namespace d4r::cache {

namespace {

TierFailure failure_of(const Error& error)
{
  return TierFailure{error, error.code == ErrorCode::timeout};
}

class LocalTier final : public Tier {
public:
  explicit LocalTier(Cache& cache) : m_cache(cache) {}

  std::string name() const override { return "local"; }

  TierResult<std::optional<TierObject>> lookup(Mode mode, const CacheKey& key,
                                               std::chrono::milliseconds) override
  {
    Expected<std::optional<Hit>> hit = m_cache.lookup(mode, key);
    if (!hit) {
      // A damaged row was dropped: for the chain, a miss (the next tier may have the object).
      return hit.error().code == ErrorCode::corrupt ? TierResult<std::optional<TierObject>>()
                                                    : std::unexpected(failure_of(hit.error()));
    }
    if (!hit->has_value()) {
      return std::optional<TierObject>();
    }
    Expected<std::vector<std::byte>> bytes = m_cache.read_object(mode, **hit);
    if (!bytes) {
      // A digest mismatch quarantined the object and dropped its rows: a miss as well.
      return bytes.error().code == ErrorCode::corrupt ? TierResult<std::optional<TierObject>>()
                                                      : std::unexpected(failure_of(bytes.error()));
    }
    return std::optional<TierObject>(
        TierObject{(*hit)->digest, std::move(*bytes), (*hit)->metadata, (*hit)->source});
  }

  TierResult<void> store(Mode mode, const CacheKey& key, const TierObject& object,
                         std::chrono::milliseconds) override
  {
    Expected<Hit> inserted = m_cache.insert(mode, key, object.bytes, object.metadata, object.source);
    if (!inserted) {
      return std::unexpected(failure_of(inserted.error()));
    }
    return {};
  }

private:
  Cache& m_cache;
};

} // namespace

std::unique_ptr<Tier> make_local_tier(Cache& cache)
{
  return std::make_unique<LocalTier>(cache);
}

} // namespace d4r::cache
