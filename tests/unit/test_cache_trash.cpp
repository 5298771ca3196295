// The trash: an object whose last row goes (purge, eviction, re-keying) keeps its file where an
// answer named it for the grace period, so that a client told of it a moment ago still reads the
// right bytes; it counts toward the size cap meanwhile and is collected once the grace is out.
// And an index that SQLite finds damaged while the store runs: set aside, a fresh one serves.

#include "cache/cache.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

namespace d4r::cache {
namespace {

using namespace std::chrono_literals;
using testing::count_files;
using testing::make_key;
using testing::object_of;
using testing::open_store;
using testing::TempDir;

// What a client does with a path answer, done after the fact: open the file and read it all.
std::vector<std::byte> read_as_client(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

TEST(CacheTrash, APurgedObjectIsReadableUntilItsGraceHasPassedThenCollected)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path(), 1LL << 30, Mode::fast, 400ms);
  ASSERT_NE(store, nullptr);
  const std::vector<std::byte> object = object_of(5000, 1);
  ASSERT_TRUE(store->insert(make_key("d4r_test_layer"), object, "m", "").has_value());
  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());

  // The answer named the path; the purge comes before the client opens it.
  Expected<PurgeResult> purged = store->purge();
  ASSERT_TRUE(purged.has_value()) << purged.error().message;
  EXPECT_EQ(purged->removed_entries, 1);
  EXPECT_EQ(purged->removed_bytes, 5000);
  EXPECT_EQ(read_as_client((*hit)->object_path), object);
  Expected<std::optional<Hit>> gone = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(gone.has_value());
  EXPECT_FALSE(gone->has_value()) << "a purged entry is not served again";
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->entries, 0);
  EXPECT_EQ(stats->bytes, 0);
  EXPECT_EQ(stats->trash_objects, 1);
  EXPECT_EQ(stats->trash_bytes, 5000);

  // Within the grace the collector leaves it; after it, it goes.
  Expected<int64_t> early = store->collect_garbage(3600s);
  ASSERT_TRUE(early.has_value()) << early.error().message;
  EXPECT_EQ(*early, 0);
  EXPECT_TRUE(std::filesystem::exists((*hit)->object_path));
  std::this_thread::sleep_for(500ms);
  Expected<int64_t> late = store->collect_garbage(3600s);
  ASSERT_TRUE(late.has_value()) << late.error().message;
  EXPECT_EQ(*late, 1);
  EXPECT_FALSE(std::filesystem::exists((*hit)->object_path));
  stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->trash_objects, 0);
  EXPECT_EQ(stats->trash_bytes, 0);
  EXPECT_EQ(count_files(dir.path() / "objects"), 0);
}

TEST(CacheTrash, EvictedObjectsWaitInTheTrashWithinTheCapOldestCutShortFirst)
{
  TempDir dir;
  // 3 200 bytes: eviction keeps 1/16 (200 bytes) for the trash, so 30 objects of 100 bytes live.
  std::unique_ptr<Store> store = open_store(dir.path(), 3200);
  ASSERT_NE(store, nullptr);
  std::vector<Hit> hits;
  for (uint32_t i = 0; i < 30; ++i) {
    Expected<Hit> hit =
        store->insert(make_key("k_" + std::to_string(i)), object_of(100, 100 + i), "", "");
    ASSERT_TRUE(hit.has_value()) << hit.error().message;
    hits.push_back(*hit);
  }
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->evictions, 0);

  // Each insert now evicts the least recently used; its file stays for a client that holds it.
  ASSERT_TRUE(store->insert(make_key("k_30"), object_of(100, 130), "", "").has_value());
  EXPECT_EQ(read_as_client(hits[0].object_path), object_of(100, 100));
  ASSERT_TRUE(store->insert(make_key("k_31"), object_of(100, 131), "", "").has_value());
  EXPECT_EQ(read_as_client(hits[0].object_path), object_of(100, 100));
  EXPECT_EQ(read_as_client(hits[1].object_path), object_of(100, 101));
  stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->evictions, 2);
  EXPECT_EQ(stats->trash_objects, 2);
  EXPECT_EQ(stats->trash_cut_short, 0);
  EXPECT_LE(stats->bytes + stats->trash_bytes, stats->max_bytes);

  // The trash is full: the oldest trashed file goes early so that the store stays in its cap.
  ASSERT_TRUE(store->insert(make_key("k_32"), object_of(100, 132), "", "").has_value());
  EXPECT_FALSE(std::filesystem::exists(hits[0].object_path));
  EXPECT_EQ(read_as_client(hits[1].object_path), object_of(100, 101));
  EXPECT_EQ(read_as_client(hits[2].object_path), object_of(100, 102));
  stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->evictions, 3);
  EXPECT_EQ(stats->trash_objects, 2);
  EXPECT_EQ(stats->trash_cut_short, 1);
  EXPECT_LE(stats->bytes + stats->trash_bytes, stats->max_bytes);
  EXPECT_EQ(count_files(dir.path() / "objects"), 32);
}

TEST(CacheTrash, AnInsertOfTheSameBytesTakesItsFileBackFromTheTrash)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path(), 1LL << 30, Mode::fast, 200ms);
  ASSERT_NE(store, nullptr);
  const std::vector<std::byte> object = object_of(3000, 2);
  ASSERT_TRUE(store->insert(make_key("d4r_test_layer"), object, "m", "").has_value());
  ASSERT_TRUE(store->purge().has_value());
  // Built again after the purge: the same bytes, so the same file, named again.
  ASSERT_TRUE(store->insert(make_key("d4r_test_layer"), object, "m", "").has_value());
  std::this_thread::sleep_for(300ms);
  Expected<int64_t> collected = store->collect_garbage(0s);
  ASSERT_TRUE(collected.has_value()) << collected.error().message;
  EXPECT_EQ(*collected, 0);
  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
  EXPECT_EQ(*bytes, object);
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->trash_objects, 0);
}

TEST(CacheTrash, WithoutAGraceRemovedObjectsGoAtOnce)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path(), 1LL << 30, Mode::fast, 0ms);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->insert(make_key("k_a"), object_of(100, 1), "", "").has_value());
  ASSERT_TRUE(store->insert(make_key("k_b"), object_of(100, 2), "", "").has_value());
  ASSERT_TRUE(store->insert(make_key("k_a"), object_of(100, 3), "", "").has_value()); // re-keyed
  EXPECT_EQ(count_files(dir.path() / "objects"), 2);
  Expected<PurgeResult> purged = store->purge();
  ASSERT_TRUE(purged.has_value());
  EXPECT_EQ(purged->removed_bytes, 200);
  EXPECT_EQ(count_files(dir.path() / "objects"), 0);
}

// Overwrites every page of `index` but the first (the header and the schema) with `fill`, as a
// failing disk or a stray writer would, in a way the connection that has it open will see: its
// pages are moved out of the WAL into the file first, and afterwards a write of the header alone
// tells every connection that the file changed (else it would go on using its cached pages).
void damage_pages_under_a_running_store(const std::filesystem::path& index, char fill)
{
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  {
    std::fstream file(index, std::ios::binary | std::ios::in | std::ios::out);
    file.seekg(0, std::ios::end);
    const std::streamoff size = file.tellg();
    ASSERT_GT(size, 4096) << "an index of one page has nothing to damage";
    file.seekp(4096);
    const std::string pages(static_cast<size_t>(size - 4096), fill);
    file.write(pages.data(), static_cast<std::streamsize>(pages.size()));
  }
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(CacheIndexDamage, FoundWhileRunningTheIndexIsSetAsideAndAFreshOneServes)
{
  TempDir dir;
  CacheOptions options;
  options.root = dir.path();
  Expected<std::unique_ptr<Cache>> opened = Cache::open(options);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  Cache& cache = **opened;
  std::vector<std::string> notes;
  cache.on_index_replaced([&](Mode mode, const std::string& note) {
    EXPECT_EQ(mode, Mode::fast);
    notes.push_back(note);
  });
  for (uint32_t i = 0; i < 40; ++i) {
    ASSERT_TRUE(cache.insert(Mode::fast, make_key("k_" + std::to_string(i)), object_of(200, i),
                             std::string(300, 'm'), "")
                    .has_value());
  }
  ASSERT_TRUE(cache.insert(Mode::accuracy, make_key("k_0"), object_of(200, 0), "", "").has_value());
  damage_pages_under_a_running_store(dir.path() / "fast" / "index.sqlite", 'x');

  // Every call keeps answering: misses on the fresh index, never an error.
  int misses = 0;
  for (uint32_t i = 0; i < 40; ++i) {
    Expected<std::optional<Hit>> hit = cache.lookup(Mode::fast, make_key("k_" + std::to_string(i)));
    ASSERT_TRUE(hit.has_value()) << i << ": " << hit.error().message;
    misses += hit->has_value() ? 0 : 1;
  }
  EXPECT_EQ(misses, 40);
  ASSERT_EQ(notes.size(), 1u) << "reported once";
  EXPECT_NE(notes[0].find("set aside in " + (dir.path() / "fast" / "damaged").string()),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("malformed"), std::string::npos) << notes[0];
  std::vector<std::filesystem::path> kept;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path() / "fast" /
                                                                         "damaged")) {
    kept.push_back(entry.path().filename());
  }
  EXPECT_NE(std::find(kept.begin(), kept.end(), "index.sqlite"), kept.end());

  // The fresh index takes new entries (the same bytes: their files are still there) and serves.
  ASSERT_TRUE(cache.insert(Mode::fast, make_key("k_3"), object_of(200, 3), "m", "").has_value());
  Expected<std::optional<Hit>> hit = cache.lookup(Mode::fast, make_key("k_3"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  Expected<std::vector<std::byte>> bytes = cache.read_object(Mode::fast, **hit);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
  EXPECT_EQ(*bytes, object_of(200, 3));
  Expected<StoreStats> stats = cache.stats(Mode::fast);
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->entries, 1);
  EXPECT_EQ(stats->index_replacements, 1);
  // The other mode never noticed.
  Expected<std::optional<Hit>> other = cache.lookup(Mode::accuracy, make_key("k_0"));
  ASSERT_TRUE(other.has_value() && other->has_value());
  EXPECT_EQ(notes.size(), 1u);
}

// After a damaged index was set aside, the fresh one names none of the files the old one did,
// some of which clients were just told of: a purge then puts them in the trash for the grace, as
// it does named ones (before the fix it unlinked them at once).
TEST(CacheIndexDamage, APurgeOnAReplacedIndexKeepsTheOldFilesForTheGrace)
{
  TempDir dir;
  CacheOptions options;
  options.root = dir.path();
  options.trash_grace = 400ms;
  Expected<std::unique_ptr<Cache>> opened = Cache::open(options);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  Cache& cache = **opened;
  for (uint32_t i = 0; i < 40; ++i) {
    ASSERT_TRUE(cache.insert(Mode::fast, make_key("k_" + std::to_string(i)), object_of(200, i),
                             std::string(300, 'm'), "")
                    .has_value());
  }
  Expected<std::optional<Hit>> told = cache.lookup(Mode::fast, make_key("k_5"));
  ASSERT_TRUE(told.has_value() && told->has_value());
  const std::filesystem::path path = (*told)->object_path;
  damage_pages_under_a_running_store(dir.path() / "fast" / "index.sqlite", 'x');
  Expected<std::optional<Hit>> miss = cache.lookup(Mode::fast, make_key("k_5"));
  ASSERT_TRUE(miss.has_value() && !miss->has_value()) << "the fresh index serves";
  Expected<PurgeResult> purged = cache.purge(Mode::fast);
  ASSERT_TRUE(purged.has_value()) << purged.error().message;
  EXPECT_GE(purged->removed_bytes, 40 * 200) << "the old files count as removed";
  EXPECT_EQ(read_as_client(path), object_of(200, 5)) << "still there for the client told of it";
  Expected<StoreStats> stats = cache.stats(Mode::fast);
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->trash_objects, 40);
  std::this_thread::sleep_for(500ms);
  Expected<int64_t> collected = cache.collect_trash(Mode::fast);
  ASSERT_TRUE(collected.has_value()) << collected.error().message;
  EXPECT_EQ(*collected, 40);
  EXPECT_FALSE(std::filesystem::exists(path)) << "collected once the grace is out";
}

} // namespace
} // namespace d4r::cache
