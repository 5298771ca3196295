// Cache facade: one store per accuracy mode, purge, list order, threads and bad roots.

#include "cache/cache.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

namespace d4r::cache {
namespace {

using testing::count_files;
using testing::make_key;
using testing::object_of;
using testing::TempDir;

std::unique_ptr<Cache> open_cache(const std::filesystem::path& root)
{
  CacheOptions options;
  options.root = root;
  Expected<std::unique_ptr<Cache>> cache = Cache::open(options);
  EXPECT_TRUE(cache.has_value()) << (cache ? "" : cache.error().message);
  return cache ? std::move(*cache) : nullptr;
}

TEST(CacheFacade, ModesHaveSeparateStores)
{
  TempDir dir;
  std::unique_ptr<Cache> cache = open_cache(dir.path() / "root");
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->root(), dir.path() / "root");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "root" / "fast" / "index.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "root" / "accuracy" / "index.sqlite"));

  const CacheKey key = make_key("d4r_test_layer");
  ASSERT_TRUE(cache->insert(Mode::fast, key, object_of(128, 1), "", "").has_value());
  Expected<std::optional<Hit>> accuracy = cache->lookup(Mode::accuracy, key);
  ASSERT_TRUE(accuracy.has_value());
  EXPECT_FALSE(accuracy->has_value());
  Expected<std::optional<Hit>> fast = cache->lookup(Mode::fast, key);
  ASSERT_TRUE(fast.has_value());
  ASSERT_TRUE(fast->has_value());
  EXPECT_EQ(count_files(dir.path() / "root" / "fast" / "objects"), 1);
  EXPECT_EQ(count_files(dir.path() / "root" / "accuracy" / "objects"), 0);

  Expected<StoreStats> accuracy_stats = cache->stats(Mode::accuracy);
  Expected<StoreStats> fast_stats = cache->stats(Mode::fast);
  ASSERT_TRUE(accuracy_stats.has_value() && fast_stats.has_value());
  EXPECT_EQ(accuracy_stats->mode, Mode::accuracy);
  EXPECT_EQ(accuracy_stats->misses, 1);
  EXPECT_EQ(accuracy_stats->entries, 0);
  EXPECT_EQ(fast_stats->mode, Mode::fast);
  EXPECT_EQ(fast_stats->hits, 1);
  EXPECT_EQ(fast_stats->entries, 1);

  // The same bytes inserted in accuracy mode get their own copy in their own store.
  Expected<Hit> copy = cache->insert(Mode::accuracy, key, object_of(128, 1), "", "");
  ASSERT_TRUE(copy.has_value());
  EXPECT_NE(copy->object_path, (*fast)->object_path);
  Expected<std::vector<std::byte>> bytes = cache->read_object(Mode::accuracy, *copy);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, object_of(128, 1));
}

TEST(CacheFacade, PurgeEmptiesOneMode)
{
  TempDir dir;
  std::unique_ptr<Cache> cache = open_cache(dir.path());
  ASSERT_NE(cache, nullptr);
  ASSERT_TRUE(cache->insert(Mode::fast, make_key("k_a"), object_of(100, 1), "", "").has_value());
  ASSERT_TRUE(cache->insert(Mode::fast, make_key("k_b"), object_of(200, 2), "", "").has_value());
  ASSERT_TRUE(cache->insert(Mode::fast, make_key("k_c"), object_of(200, 2), "", "").has_value());
  ASSERT_TRUE(
      cache->insert(Mode::accuracy, make_key("k_a"), object_of(100, 1), "", "").has_value());

  Expected<PurgeResult> purged = cache->purge(Mode::fast);
  ASSERT_TRUE(purged.has_value()) << purged.error().message;
  EXPECT_EQ(purged->removed_entries, 3);
  EXPECT_EQ(purged->removed_bytes, 300);
  // Their files wait out the grace period in the trash, for clients that hold their paths.
  EXPECT_EQ(count_files(dir.path() / "fast" / "objects"), 2);
  Expected<std::vector<Entry>> fast = cache->list(Mode::fast);
  ASSERT_TRUE(fast.has_value());
  EXPECT_TRUE(fast->empty());
  Expected<StoreStats> stats = cache->stats(Mode::fast);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->entries, 0);
  EXPECT_EQ(stats->bytes, 0);
  EXPECT_EQ(stats->trash_bytes, 300);
  Expected<std::optional<Hit>> accuracy = cache->lookup(Mode::accuracy, make_key("k_a"));
  ASSERT_TRUE(accuracy.has_value());
  EXPECT_TRUE(accuracy->has_value());

  // The store keeps working after a purge.
  ASSERT_TRUE(cache->insert(Mode::fast, make_key("k_a"), object_of(100, 1), "", "").has_value());
  Expected<std::optional<Hit>> again = cache->lookup(Mode::fast, make_key("k_a"));
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->has_value());
}

TEST(CacheFacade, ListIsOrderedByKernelThenTarget)
{
  TempDir dir;
  std::unique_ptr<Cache> cache = open_cache(dir.path());
  ASSERT_NE(cache, nullptr);
  const std::vector<std::pair<std::string, std::string>> inserted = {
      {"zeta", "gfx1100"}, {"alpha", "gfx1201"}, {"alpha", "gfx1100"}, {"mid", "gfx1201-fp8"}};
  uint32_t seed = 0;
  for (const auto& [kernel, target] : inserted) {
    ASSERT_TRUE(cache->insert(Mode::fast, make_key(kernel, target), object_of(10, ++seed), "",
                              "release:" + kernel)
                    .has_value());
  }
  Expected<std::vector<Entry>> entries = cache->list(Mode::fast);
  ASSERT_TRUE(entries.has_value());
  std::vector<std::pair<std::string, std::string>> listed;
  for (const Entry& entry : *entries) {
    listed.emplace_back(entry.key.kernel, entry.key.target);
    EXPECT_EQ(entry.source, "release:" + entry.key.kernel);
    EXPECT_EQ(entry.size, 10);
    EXPECT_EQ(entry.key.module_hash, testing::k_sr_module_hash);
    EXPECT_GT(entry.created_unix_ms, 0);
    EXPECT_GE(entry.last_used_unix_ms, entry.created_unix_ms);
  }
  EXPECT_EQ(listed, (std::vector<std::pair<std::string, std::string>>{
                        {"alpha", "gfx1100"}, {"alpha", "gfx1201"}, {"mid", "gfx1201-fp8"},
                        {"zeta", "gfx1100"}}));
}

TEST(CacheFacade, LookupUpdatesLastUsed)
{
  TempDir dir;
  std::unique_ptr<Cache> cache = open_cache(dir.path());
  ASSERT_NE(cache, nullptr);
  ASSERT_TRUE(cache->insert(Mode::fast, make_key("k_a"), object_of(10, 1), "", "").has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Expected<std::optional<Hit>> hit = cache->lookup(Mode::fast, make_key("k_a"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  Expected<std::vector<Entry>> entries = cache->list(Mode::fast);
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->size(), 1U);
  EXPECT_GE(entries->front().last_used_unix_ms, entries->front().created_unix_ms + 20);
}

TEST(CacheFacade, CollectGarbagePerMode)
{
  TempDir dir;
  std::unique_ptr<Cache> cache = open_cache(dir.path());
  ASSERT_NE(cache, nullptr);
  std::ofstream(dir.path() / "accuracy" / "tmp" / "1-1-1.tmp") << "partial";
  Expected<int64_t> fast = cache->collect_garbage(Mode::fast, std::chrono::seconds(0));
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(*fast, 0);
  Expected<int64_t> accuracy = cache->collect_garbage(Mode::accuracy, std::chrono::seconds(0));
  ASSERT_TRUE(accuracy.has_value());
  EXPECT_EQ(*accuracy, 1);
}

TEST(CacheFacade, ThreadsShareTheFacade)
{
  TempDir dir;
  std::unique_ptr<Cache> cache = open_cache(dir.path());
  ASSERT_NE(cache, nullptr);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, &failures, t] {
      const Mode mode = t % 2 == 0 ? Mode::fast : Mode::accuracy;
      for (int i = 0; i < 20; ++i) {
        const CacheKey key = make_key("t" + std::to_string(t) + "_" + std::to_string(i));
        if (!cache->insert(mode, key, object_of(64, static_cast<uint32_t>(i)), "", "")) {
          ++failures;
        }
        Expected<std::optional<Hit>> hit = cache->lookup(mode, key);
        if (!hit || !hit->has_value() || !cache->verify_object(mode, **hit)) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(failures.load(), 0);
  for (const Mode mode : {Mode::fast, Mode::accuracy}) {
    Expected<StoreStats> stats = cache->stats(mode);
    ASSERT_TRUE(stats.has_value());
    EXPECT_EQ(stats->entries, 40);
    EXPECT_EQ(stats->hits, 40);
  }
}

TEST(CacheFacade, UnwritableRootIsAClearError)
{
  TempDir dir;
  const std::filesystem::path file = dir.path() / "plain-file";
  std::ofstream(file) << "x";
  CacheOptions options;
  options.root = file / "cache";
  Expected<std::unique_ptr<Cache>> cache = Cache::open(options);
  ASSERT_FALSE(cache.has_value());
  EXPECT_EQ(cache.error().code, ErrorCode::io);
  EXPECT_NE(cache.error().message.find(options.root.string()), std::string::npos)
      << cache.error().message;

  options.root.clear();
  cache = Cache::open(options);
  ASSERT_FALSE(cache.has_value());
  EXPECT_EQ(cache.error().code, ErrorCode::invalid_argument);
}

TEST(CacheFacade, CorruptIndexInOneModeIsSetAsideAndTheOtherModeKeepsItsEntries)
{
  TempDir dir;
  const CacheKey key = make_key("d4r_test_layer");
  {
    std::unique_ptr<Cache> cache = open_cache(dir.path());
    ASSERT_NE(cache, nullptr);
    ASSERT_TRUE(cache->insert(Mode::fast, key, object_of(128, 1), "", "").has_value());
  }
  std::ofstream(dir.path() / "accuracy" / "index.sqlite", std::ios::binary | std::ios::trunc)
      << std::string(4096, '\x7f');
  std::unique_ptr<Cache> cache = open_cache(dir.path());
  ASSERT_NE(cache, nullptr);
  ASSERT_EQ(cache->recovery_notes().size(), 1u);
  EXPECT_NE(cache->recovery_notes()[0].find("accuracy/index.sqlite"), std::string::npos)
      << cache->recovery_notes()[0];
  Expected<std::optional<Hit>> fast = cache->lookup(Mode::fast, key);
  ASSERT_TRUE(fast.has_value() && fast->has_value());
  ASSERT_TRUE(cache->insert(Mode::accuracy, key, object_of(128, 1), "", "").has_value());
}

} // namespace
} // namespace d4r::cache
