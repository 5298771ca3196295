#pragma once
// The pins table of a store's index (schema version 4, cache/schema.cpp): the SQL that tells
// whether an entry is pinned, used by eviction, purge and list in store.cpp, and the reads and
// writes of the rules themselves. Inside cache/ only: callers go through Store and Cache.

#include "cache/db.hpp"
#include "cache/pin_rule.hpp"
#include "util/error.hpp"

#include <vector>

// True for a row of `entries` that some pin matches. A macro so that it joins the static SQL
// texts the statement cache is keyed by (db.hpp).
#define D4R_CACHE_ENTRY_PINNED                                                                     \
  "EXISTS (SELECT 1 FROM pins WHERE (pins.kernel = '' OR pins.kernel = entries.kernel) AND "        \
  "(pins.any_hash = 1 OR pins.module_hash = entries.module_hash))"

namespace d4r::cache::pins {

// invalid_argument for a rule that names neither a kernel nor a module (it would pin
// everything), or a kernel name that is not one.
[[nodiscard]] Expected<void> validate(const PinRule& rule);

// Inside a write transaction. Adding a rule that exists already keeps it (its label is updated).
// Returns how many entries the rule matches now.
[[nodiscard]] Expected<int64_t> add(db::Database& database, const PinRule& rule, int64_t now_ms);
// Inside a write transaction: false when no such rule was there.
[[nodiscard]] Expected<bool> remove(db::Database& database, const PinRule& rule);
// Every rule, ordered by kernel, then module hash.
[[nodiscard]] Expected<std::vector<PinRule>> list(db::Database& database);

} // namespace d4r::cache::pins
