#pragma once
// The index schema and its migrations. The version lives in the database's `meta` table; each
// migration step runs in its own transaction, so a crash leaves the index at a whole version.

#include "cache/db.hpp"
#include "util/error.hpp"

namespace d4r::cache {

inline constexpr int64_t k_schema_version = 5;

// The version the index records; 0 when it records none (a fresh file). Writes nothing.
[[nodiscard]] Expected<int64_t> read_schema_version(db::Database& database);

// Brings the index up to k_schema_version. An index written by a newer build is refused.
[[nodiscard]] Expected<void> migrate(db::Database& database);

} // namespace d4r::cache
