#pragma once
// The check of an index row (schema version 2): a digest of everything the row says, so that a
// bit flipped inside a record, which SQLite's page checks pass, is found at lookup. Written by
// the store and by migrations that rewrite a row (metadata_migration.hpp).

#include "cache/cache_key.hpp"
#include "util/digest.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace d4r::cache {

// Each field with its length, so that no two rows encode alike; the first 16 bytes of the
// SHA-256, plenty against damage (no defence against someone who can write the index: they could
// write the objects too).
[[nodiscard]] std::string row_check_of(const CacheKey& key, const Sha256& digest, int64_t size,
                                       std::string_view metadata, std::string_view source);

} // namespace d4r::cache
