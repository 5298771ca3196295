// Pins and filtered purges (cache/pins.hpp, Store::purge_where): a pinned entry survives the size
// cap and a purge until it is unpinned or the purge is forced; `purge --older-than` removes only
// entries whose last use is older than its bound; and an index of schema version 3 (before pins)
// is migrated to version 4 with its entries still served.

#include "cache/cache.hpp"
#include "cache/schema.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>

namespace d4r::cache {
namespace {

using testing::make_key;
using testing::object_of;
using testing::open_store;
using testing::TempDir;

int64_t now_ms()
{
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A second connection, as another process (or the test) writes the index.
void sql(const std::filesystem::path& root, const std::string& statement)
{
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open((root / "index.sqlite").c_str(), &handle), SQLITE_OK);
  sqlite3_busy_timeout(handle, 5000);
  char* message = nullptr;
  int rc = sqlite3_exec(handle, statement.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << statement << ": " << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(handle);
}

bool present(Store& store, const CacheKey& key)
{
  Expected<std::optional<Hit>> hit = store.lookup(key);
  EXPECT_TRUE(hit.has_value()) << (hit ? "" : hit.error().message);
  return hit && hit->has_value();
}

PinRule kernel_pin(std::string kernel)
{
  PinRule rule;
  rule.kernel = std::move(kernel);
  rule.label = "Game.exe";
  return rule;
}

TEST(CachePins, APinnedEntrySurvivesTheCapWhileUnpinnedOnesAreEvicted)
{
  TempDir dir;
  // Room for two 4000-byte objects (less the trash's sixteenth), not three.
  std::unique_ptr<Store> store = open_store(dir.path(), 9000);
  ASSERT_NE(store, nullptr);
  const CacheKey pinned = make_key("dlss_kernel_a");
  ASSERT_TRUE(store->insert(pinned, object_of(4000, 1), "m", "").has_value());
  Expected<int64_t> matched = store->add_pin(kernel_pin("dlss_kernel_a"));
  ASSERT_TRUE(matched.has_value()) << matched.error().message;
  EXPECT_EQ(*matched, 1);
  // The pinned entry is the least recently used from here on, so it is the first a cap takes.
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(store->insert(make_key("other_" + std::to_string(i)), object_of(4000, 10 + i), "m", "")
                    .has_value());
  }
  EXPECT_TRUE(present(*store, pinned)) << "a pinned entry is never evicted";
  EXPECT_FALSE(present(*store, make_key("other_0")));
  EXPECT_FALSE(present(*store, make_key("other_2")));
  EXPECT_TRUE(present(*store, make_key("other_3")));
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->evictions, 3);
  Expected<std::vector<Entry>> listed = store->list();
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->size(), 2U);
  for (const Entry& entry : *listed) {
    EXPECT_EQ(entry.pinned, entry.key.kernel == "dlss_kernel_a") << entry.key.kernel;
  }

  // Unpinned, it is an ordinary entry again: the next insert over the cap takes it.
  Expected<bool> removed = store->remove_pin(kernel_pin("dlss_kernel_a"));
  ASSERT_TRUE(removed.has_value());
  EXPECT_TRUE(*removed);
  ASSERT_TRUE(store->insert(make_key("other_9"), object_of(4000, 99), "m", "").has_value());
  EXPECT_FALSE(present(*store, pinned));
}

TEST(CachePins, AModuleHashPinKeepsOnlyThatModulesEntries)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  const CacheKey game = make_key("shared_name", "gfx1201", 0x1111222233334444ULL);
  const CacheKey other = make_key("shared_name", "gfx1201", 0x5555666677778888ULL);
  ASSERT_TRUE(store->insert(game, object_of(100, 1), "m", "").has_value());
  ASSERT_TRUE(store->insert(other, object_of(100, 2), "m", "").has_value());
  PinRule rule;
  rule.module_hash = 0x1111222233334444ULL;
  Expected<int64_t> matched = store->add_pin(rule);
  ASSERT_TRUE(matched.has_value()) << matched.error().message;
  EXPECT_EQ(*matched, 1);
  Expected<PurgeResult> purged = store->purge_where(PurgeFilter{});
  ASSERT_TRUE(purged.has_value()) << purged.error().message;
  EXPECT_EQ(purged->removed_entries, 1);
  EXPECT_EQ(purged->removed_bytes, 100);
  EXPECT_EQ(purged->kept_pinned, 1);
  EXPECT_TRUE(present(*store, game));
  EXPECT_FALSE(present(*store, other));

  // Forced, the pinned one goes too; the rule stays for what comes next.
  Expected<PurgeResult> forced = store->purge_where(PurgeFilter{std::nullopt, true});
  ASSERT_TRUE(forced.has_value());
  EXPECT_EQ(forced->removed_entries, 1);
  EXPECT_FALSE(present(*store, game));
  Expected<std::vector<PinRule>> rules = store->pins();
  ASSERT_TRUE(rules.has_value());
  ASSERT_EQ(rules->size(), 1U);
  EXPECT_EQ(rules->front().module_hash, 0x1111222233334444ULL);
  EXPECT_TRUE(rules->front().kernel.empty());
}

TEST(CachePins, ARuleNamingNothingIsRefused)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<int64_t> added = store->add_pin(PinRule{});
  ASSERT_FALSE(added.has_value());
  EXPECT_EQ(added.error().code, ErrorCode::invalid_argument);
  Expected<int64_t> bad = store->add_pin(kernel_pin("../etc"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::invalid_argument);
}

TEST(CachePurge, OlderThanRemovesOnlyEntriesUnusedSinceTheBound)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  for (const char* name : {"used_40_days_ago", "used_10_days_ago", "used_now", "pinned_old"}) {
    ASSERT_TRUE(store->insert(make_key(name), object_of(1000, static_cast<uint32_t>(name[5])), "m", "")
                    .has_value());
  }
  ASSERT_TRUE(store->add_pin(kernel_pin("pinned_old")).has_value());
  store.reset(); // its pending uses written, the index is the test's to set
  const int64_t day = 86'400'000;
  const int64_t now = now_ms();
  sql(dir.path(), "UPDATE entries SET last_used_ms = " + std::to_string(now - 40 * day) +
                      " WHERE kernel IN ('used_40_days_ago', 'pinned_old')");
  sql(dir.path(), "UPDATE entries SET last_used_ms = " + std::to_string(now - 10 * day) +
                      " WHERE kernel = 'used_10_days_ago'");
  store = open_store(dir.path());
  ASSERT_NE(store, nullptr);

  Expected<PurgeResult> purged = store->purge_where(PurgeFilter{now - 30 * day, false});
  ASSERT_TRUE(purged.has_value()) << purged.error().message;
  EXPECT_EQ(purged->removed_entries, 1);
  EXPECT_EQ(purged->removed_bytes, 1000);
  EXPECT_FALSE(present(*store, make_key("used_40_days_ago")));
  EXPECT_TRUE(present(*store, make_key("used_10_days_ago")));
  EXPECT_TRUE(present(*store, make_key("used_now")));
  EXPECT_TRUE(present(*store, make_key("pinned_old")));

  // A use moves an entry past the bound: the lookup above made used_10_days_ago recent.
  Expected<PurgeResult> again = store->purge_where(PurgeFilter{now - 5 * day, false});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->removed_entries, 0) << "every remaining entry was used just now or is pinned";
}

TEST(CacheMigration, AVersion3IndexGainsPinsAndKeepsItsEntries)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  // No launch metadata (as the hook's compiled modules store): version 5 rewrites only rows that
  // have some (test_cache_metadata_migration.cpp).
  ASSERT_TRUE(store->insert(make_key("kept_kernel"), object_of(3000, 7), "", "release:x")
                  .has_value());
  store.reset();
  // Back to what version 3 wrote: no pins table, no last-use index, version 3 recorded.
  sql(dir.path(), "DROP TABLE pins; DROP INDEX entries_last_used; "
                  "UPDATE meta SET value = 3 WHERE name = 'version'");

  store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<std::optional<Hit>> hit = store->lookup(make_key("kept_kernel"));
  ASSERT_TRUE(hit.has_value() && hit->has_value()) << "the row (and its row check) survived";
  EXPECT_EQ((*hit)->metadata, "");
  Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, object_of(3000, 7));
  Expected<int64_t> matched = store->add_pin(kernel_pin("kept_kernel"));
  ASSERT_TRUE(matched.has_value()) << matched.error().message;
  EXPECT_EQ(*matched, 1);
  store.reset();

  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "index.sqlite").c_str(), &handle), SQLITE_OK);
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(handle, "SELECT value FROM meta WHERE name = 'version'", -1,
                               &select, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(select), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(select, 0), k_schema_version);
  sqlite3_finalize(select);
  sqlite3_close(handle);
}

} // namespace
} // namespace d4r::cache
