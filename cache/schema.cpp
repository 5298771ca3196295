#include "cache/schema.hpp"

#include "cache/metadata_migration.hpp"

#include <array>
#include <span>
#include <string>

namespace d4r::cache {

namespace {

static constexpr char k_create_meta[] =
    "CREATE TABLE IF NOT EXISTS meta ("
    "name TEXT PRIMARY KEY NOT NULL, "
    "value INTEGER NOT NULL)";
static constexpr char k_select_version[] = "SELECT value FROM meta WHERE name = 'version'";
static constexpr char k_set_version[] =
    "INSERT INTO meta (name, value) VALUES ('version', ?) "
    "ON CONFLICT (name) DO UPDATE SET value = excluded.value";

// Version 1. `use_seq` orders entries by last use (a logical clock: two uses in the same
// millisecond still have an order); `objects` holds each distinct object once, for the byte total.
static constexpr char k_v1_create_entries[] =
    "CREATE TABLE entries ("
    "id INTEGER PRIMARY KEY, "
    "module_hash INTEGER NOT NULL, "
    "kernel TEXT NOT NULL, "
    "target TEXT NOT NULL, "
    "variant TEXT NOT NULL, "
    "toolchain TEXT NOT NULL, "
    "recipe TEXT NOT NULL, "
    "digest BLOB NOT NULL, "
    "size INTEGER NOT NULL, "
    "metadata BLOB NOT NULL, "
    "source TEXT NOT NULL, "
    "created_ms INTEGER NOT NULL, "
    "last_used_ms INTEGER NOT NULL, "
    "use_seq INTEGER NOT NULL, "
    "UNIQUE (module_hash, kernel, target, variant, toolchain, recipe))";
static constexpr char k_v1_index_digest[] = "CREATE INDEX entries_digest ON entries (digest)";
static constexpr char k_v1_index_use_seq[] = "CREATE INDEX entries_use_seq ON entries (use_seq)";
static constexpr char k_v1_create_objects[] =
    "CREATE TABLE objects ("
    "digest BLOB PRIMARY KEY NOT NULL, "
    "size INTEGER NOT NULL)";
static constexpr char k_v1_create_counters[] =
    "CREATE TABLE counters ("
    "name TEXT PRIMARY KEY NOT NULL, "
    "value INTEGER NOT NULL)";
static constexpr char k_v1_seed_counters[] =
    "INSERT INTO counters (name, value) VALUES "
    "('hits', 0), ('misses', 0), ('inserts', 0), ('evictions', 0), ('quarantined', 0)";

constexpr std::array<const char*, 6> k_v1_steps = {
    k_v1_create_entries,  k_v1_index_digest,    k_v1_index_use_seq,
    k_v1_create_objects, k_v1_create_counters, k_v1_seed_counters};

// Version 2. SQLite checks pages, not payloads: a bit flipped inside a row's record passes
// quick_check, and in `metadata` it would hand the hook wrong launch shapes for the right object.
// `row_check` is a digest of the row's fields (store.cpp, row_check_of); a row that no longer
// matches it is dropped at lookup. Rows from version 1 have an empty check: they are dropped
// quietly at their first lookup (one re-import or rebuild each), not reported as damage.
static constexpr char k_v2_add_row_check[] =
    "ALTER TABLE entries ADD COLUMN row_check BLOB NOT NULL DEFAULT x''";
static constexpr char k_v2_seed_counter[] =
    "INSERT INTO counters (name, value) VALUES ('damaged_rows', 0) ON CONFLICT (name) DO NOTHING";

constexpr std::array<const char*, 2> k_v2_steps = {k_v2_add_row_check, k_v2_seed_counter};

// Version 3. An object no row names any more is not unlinked at once: a client may hold its path
// from an answer given a moment before and not have opened it yet. It waits in `trash` (its file
// stays where the answer said) until its grace period has passed, counted toward the size cap
// meanwhile; an insert of the same content takes it back. `trash_cut_short` counts those the cap
// made go before their time.
static constexpr char k_v3_create_trash[] =
    "CREATE TABLE IF NOT EXISTS trash ("
    "digest BLOB PRIMARY KEY NOT NULL, "
    "size INTEGER NOT NULL, "
    "removed_ms INTEGER NOT NULL)";
static constexpr char k_v3_index_removed[] =
    "CREATE INDEX IF NOT EXISTS trash_removed ON trash (removed_ms)";
static constexpr char k_v3_seed_counter[] =
    "INSERT INTO counters (name, value) VALUES ('trash_cut_short', 0) "
    "ON CONFLICT (name) DO NOTHING";

constexpr std::array<const char*, 3> k_v3_steps = {k_v3_create_trash, k_v3_index_removed,
                                                   k_v3_seed_counter};

// Version 4. Pins (cache/pins.hpp): rules naming a kernel, a module hash or both whose entries
// the size cap and purge leave alone. Rules rather than a flag per row, so that an object rebuilt
// or imported again under a pinned name or module is pinned without being pinned anew.
static constexpr char k_v4_create_pins[] =
    "CREATE TABLE IF NOT EXISTS pins ("
    "id INTEGER PRIMARY KEY, "
    "kernel TEXT NOT NULL, "
    "any_hash INTEGER NOT NULL, "
    "module_hash INTEGER NOT NULL, "
    "label TEXT NOT NULL, "
    "created_ms INTEGER NOT NULL, "
    "UNIQUE (kernel, any_hash, module_hash))";
static constexpr char k_v4_index_last_used[] =
    "CREATE INDEX IF NOT EXISTS entries_last_used ON entries (last_used_ms)";

constexpr std::array<const char*, 2> k_v4_steps = {k_v4_create_pins, k_v4_index_last_used};

// Version 5. Launch metadata in the cache's own encoding (launch_metadata.hpp) rather than the
// RPC's protobuf message: no statement, the rows are rewritten by convert_launch_metadata_v1.
constexpr std::array<const char*, 0> k_v5_steps = {};

// Index i holds the statements that take the schema from version i to version i + 1.
constexpr std::array<std::span<const char* const>, 5> k_migrations = {
    std::span<const char* const>(k_v1_steps), std::span<const char* const>(k_v2_steps),
    std::span<const char* const>(k_v3_steps), std::span<const char* const>(k_v4_steps),
    std::span<const char* const>(k_v5_steps)};

static_assert(k_migrations.size() == k_schema_version);

Expected<int64_t> read_version(db::Database& database)
{
  TRY_ASSIGN(db::Statement* select, database.cached(k_select_version));
  TRY_ASSIGN(const bool row, select->step());
  const int64_t version = row ? select->column_int64(0) : 0;
  select->reset();
  return version;
}

// Runs one step in its own transaction; another process may have run it already.
Expected<void> migrate_step(db::Database& database, int64_t target_version)
{
  db::Transaction transaction(database);
  TRY(transaction.begin());
  TRY(database.execute(k_create_meta));
  TRY_ASSIGN(const int64_t version, read_version(database));
  if (version > k_schema_version) {
    return make_error(ErrorCode::rejected,
                      "cache: " + database.path().string() + ": schema version " +
                          std::to_string(version) + " is newer than this build supports (" +
                          std::to_string(k_schema_version) + ")");
  }
  if (version >= target_version) {
    return transaction.commit();
  }
  for (const char* sql : k_migrations[static_cast<size_t>(target_version - 1)]) {
    TRY(database.execute(sql));
  }
  if (target_version == 5) {
    TRY(convert_launch_metadata_v1(database));
  }
  TRY_ASSIGN(db::Statement* set, database.cached(k_set_version));
  set->bind_int64(1, target_version);
  TRY(set->run());
  return transaction.commit();
}

} // namespace

Expected<int64_t> read_schema_version(db::Database& database)
{
  return read_version(database);
}

Expected<void> migrate(db::Database& database)
{
  // A quick look first: an index at the current version needs no write lock.
  Expected<int64_t> version = read_version(database);
  if (version && *version == k_schema_version) {
    return {};
  }
  if (!version && version.error().code == ErrorCode::corrupt) {
    return std::unexpected(version.error());
  }
  for (int64_t target = 1; target <= k_schema_version; ++target) {
    TRY(migrate_step(database, target));
  }
  return {};
}

} // namespace d4r::cache
