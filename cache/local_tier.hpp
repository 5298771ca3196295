#pragma once
// The local store as a tier (tier.hpp): the first of the chain the daemon core asks, and where
// the farther tiers' hits are backfilled. A lookup reads and verifies the object's bytes (the
// core's own hit path, which hands out paths, asks the Cache directly and comes here only to
// backfill); the budget is not needed: a local store answers at disk speed or fails.

#include "cache/cache.hpp"
#include "cache/tier.hpp"

#include <memory>

namespace d4r::cache {

[[nodiscard]] std::unique_ptr<Tier> make_local_tier(Cache& cache);

} // namespace d4r::cache
