// Store::still_current: a remembered hit stays servable only while nothing it was read under
// changed (this process's writes, another connection's commits, the index, the object file).

#include "cache/cache.hpp"
#include "cache/db.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace d4r::cache {
namespace {

using testing::make_key;
using testing::object_of;
using testing::open_store;
using testing::TempDir;

Hit looked_up(Store& store, const CacheKey& key)
{
  Expected<std::optional<Hit>> hit = store.lookup(key);
  EXPECT_TRUE(hit.has_value() && hit->has_value()) << (hit ? "miss" : hit.error().message);
  return hit && *hit ? **hit : Hit{};
}

bool current(Store& store, const Hit& hit)
{
  Expected<bool> answer = store.still_current(hit);
  EXPECT_TRUE(answer.has_value()) << answer.error().message;
  return answer && *answer;
}

class StillCurrent : public ::testing::Test {
protected:
  void SetUp() override
  {
    m_store = open_store(m_dir.path());
    ASSERT_NE(m_store, nullptr);
    ASSERT_TRUE(m_store->insert(make_key("k_a"), object_of(512, 1), "meta", "src").has_value());
    ASSERT_TRUE(m_store->insert(make_key("k_b"), object_of(512, 2), "meta", "src").has_value());
  }

  TempDir m_dir;
  std::unique_ptr<Store> m_store;
};

TEST_F(StillCurrent, AHitStaysCurrentWhileNothingChangesAndCountsItsUses)
{
  const Hit hit = looked_up(*m_store, make_key("k_a"));
  ASSERT_TRUE(hit.stamp.has_value());
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(current(*m_store, hit));
  }
  // Lookups (and their use writes) change nothing a hit depends on.
  (void)looked_up(*m_store, make_key("k_b"));
  EXPECT_TRUE(current(*m_store, hit));
  Expected<StoreStats> stats = m_store->stats();
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->hits, 8); // two lookups and six checks
}

TEST_F(StillCurrent, AnInsertHereMakesEveryHitStale)
{
  const Hit hit = looked_up(*m_store, make_key("k_a"));
  ASSERT_TRUE(m_store->insert(make_key("k_a"), object_of(512, 3), "meta", "src").has_value());
  EXPECT_FALSE(current(*m_store, hit)); // the key names another object now
  const Hit again = looked_up(*m_store, make_key("k_a"));
  EXPECT_NE(again.digest, hit.digest);
  EXPECT_TRUE(current(*m_store, again));
}

TEST_F(StillCurrent, APurgeMakesItStaleThoughTheFileWaitsInTheTrash)
{
  const Hit hit = looked_up(*m_store, make_key("k_a"));
  ASSERT_TRUE(m_store->purge().has_value());
  ASSERT_TRUE(std::filesystem::exists(hit.object_path)); // kept for clients told a moment ago
  EXPECT_FALSE(current(*m_store, hit));
}

TEST_F(StillCurrent, AnotherProcesssCommitMakesItStale)
{
  const Hit hit = looked_up(*m_store, make_key("k_a"));
  // Another connection, as another process sharing the store would write it.
  db::DatabaseOptions options;
  options.path = m_dir.path() / "index.sqlite";
  Expected<std::unique_ptr<db::Database>> other = db::Database::open(options);
  ASSERT_TRUE(other.has_value()) << other.error().message;
  Expected<db::Statement*> remove = (*other)->cached("DELETE FROM entries WHERE kernel = 'k_a'");
  ASSERT_TRUE(remove.has_value()) << remove.error().message;
  ASSERT_TRUE((*remove)->run().has_value());
  EXPECT_FALSE(current(*m_store, hit));
  Expected<std::optional<Hit>> gone = m_store->lookup(make_key("k_a"));
  ASSERT_TRUE(gone.has_value()) << gone.error().message;
  EXPECT_FALSE(gone->has_value());
}

TEST_F(StillCurrent, AnotherStoreOnTheSameFolderIsAnotherProcess)
{
  const Hit hit = looked_up(*m_store, make_key("k_a"));
  std::unique_ptr<Store> other = open_store(m_dir.path());
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(current(*m_store, hit)); // opening it wrote nothing
  ASSERT_TRUE(other->insert(make_key("k_c"), object_of(512, 4), "", "").has_value());
  EXPECT_FALSE(current(*m_store, hit));
}

TEST_F(StillCurrent, AMissingOrTruncatedFileIsNotCurrent)
{
  const Hit a = looked_up(*m_store, make_key("k_a"));
  const Hit b = looked_up(*m_store, make_key("k_b"));
  ASSERT_EQ(::unlink(a.object_path.c_str()), 0);
  EXPECT_FALSE(current(*m_store, a));
  ASSERT_EQ(::truncate(b.object_path.c_str(), 100), 0);
  EXPECT_FALSE(current(*m_store, b));
}

TEST_F(StillCurrent, AHitWithoutAStampIsNeverCurrent)
{
  Expected<Hit> inserted = m_store->insert(make_key("k_d"), object_of(512, 5), "", "");
  ASSERT_TRUE(inserted.has_value()) << inserted.error().message;
  EXPECT_FALSE(inserted->stamp.has_value()); // the insert's own write: no stamp to trust
  EXPECT_FALSE(current(*m_store, *inserted));
}

// Told that no other process touched the store, it compares only this process's writes: it
// trusts what it is told (the missing file and the other connection's commit go unseen), and
// still sees its own inserts and purges.
TEST_F(StillCurrent, WithTheOutsideUnchangedOnlyThisProcesssWritesCount)
{
  const Hit a = looked_up(*m_store, make_key("k_a"));
  ASSERT_EQ(::unlink(a.object_path.c_str()), 0);
  Expected<bool> trusted = m_store->still_current(a, Outside::unchanged);
  ASSERT_TRUE(trusted.has_value()) << trusted.error().message;
  EXPECT_TRUE(*trusted);
  EXPECT_FALSE(current(*m_store, a)); // looking finds the file gone
  const Hit b = looked_up(*m_store, make_key("k_b"));
  ASSERT_TRUE(m_store->insert(make_key("k_c"), object_of(512, 6), "", "").has_value());
  Expected<bool> after_insert = m_store->still_current(b, Outside::unchanged);
  ASSERT_TRUE(after_insert.has_value()) << after_insert.error().message;
  EXPECT_FALSE(*after_insert);
}

} // namespace
} // namespace d4r::cache
