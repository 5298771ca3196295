// Store across processes: a crash between the object's rename and the index commit, and several
// processes using one store at once.

#include "cache/cache.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

namespace d4r::cache {
namespace {

using testing::count_files;
using testing::make_key;
using testing::object_of;
using testing::open_store;
using testing::TempDir;

// Forks a child that inserts `object` under `key` with the crash hook on; returns its exit code.
int crash_while_inserting(const std::filesystem::path& root, const CacheKey& key,
                          const std::vector<std::byte>& object)
{
  const pid_t child = ::fork();
  if (child == 0) {
    std::unique_ptr<Store> store = open_store(root);
    if (!store) {
      ::_exit(2);
    }
    store->set_crash_before_commit_for_testing(true);
    Expected<Hit> hit = store->insert(key, object, "meta", "built");
    ::_exit(hit.has_value() ? 3 : 4); // reached only if the hook did not fire
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
    return -1;
  }
  return WEXITSTATUS(status);
}

TEST(CacheProcesses, CrashBeforeCommitLeavesOnlyAnOrphan)
{
  TempDir dir;
  const std::vector<std::byte> object = object_of(5000, 60);
  ASSERT_EQ(crash_while_inserting(dir.path(), make_key("d4r_test_layer"), object),
            Store::k_crash_exit_code);

  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  const std::string hex = to_hex(sha256(object));
  const std::filesystem::path orphan = dir.path() / "objects" / hex.substr(0, 2) / hex.substr(2);
  EXPECT_TRUE(std::filesystem::exists(orphan)); // renamed into place before the "crash"
  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(hit.has_value()) << hit.error().message;
  EXPECT_FALSE(hit->has_value());
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->entries, 0);
  EXPECT_EQ(stats->inserts, 0);
  EXPECT_EQ(stats->bytes, 0);

  Expected<int64_t> removed = store->collect_garbage(std::chrono::seconds(0));
  ASSERT_TRUE(removed.has_value()) << removed.error().message;
  EXPECT_EQ(*removed, 1);
  EXPECT_FALSE(std::filesystem::exists(orphan));

  Expected<Hit> again = store->insert(make_key("d4r_test_layer"), object, "meta", "built");
  ASSERT_TRUE(again.has_value()) << again.error().message;
  hit = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, object);
}

TEST(CacheProcesses, ReinsertAfterCrashAdoptsTheOrphan)
{
  TempDir dir;
  const std::vector<std::byte> object = object_of(3000, 61);
  ASSERT_EQ(crash_while_inserting(dir.path(), make_key("d4r_test_simple"), object),
            Store::k_crash_exit_code);
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->insert(make_key("d4r_test_simple"), object, "", "").has_value());
  Expected<int64_t> removed = store->collect_garbage(std::chrono::seconds(0));
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(*removed, 0); // the file is named now
  EXPECT_EQ(count_files(dir.path() / "objects"), 1);
  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_test_simple"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  EXPECT_TRUE(store->verify_object(**hit).has_value());
}

// Each child inserts its own keys (objects shared with the other children), then looks every one
// up and reads it back. Exit code 0 means every call succeeded and every byte matched.
int run_worker(const std::filesystem::path& root, int worker, int keys)
{
  std::unique_ptr<Store> store = open_store(root);
  if (!store) {
    return 10;
  }
  for (int i = 0; i < keys; ++i) {
    const CacheKey key = make_key("w" + std::to_string(worker) + "_k" + std::to_string(i));
    Expected<Hit> hit = store->insert(key, object_of(4096, static_cast<uint32_t>(i)), "m", "");
    if (!hit) {
      std::fprintf(stderr, "worker %d insert: %s\n", worker, hit.error().message.c_str());
      return 11;
    }
  }
  for (int i = 0; i < keys; ++i) {
    const CacheKey key = make_key("w" + std::to_string(worker) + "_k" + std::to_string(i));
    Expected<std::optional<Hit>> hit = store->lookup(key);
    if (!hit || !hit->has_value()) {
      std::fprintf(stderr, "worker %d lookup %d: %s\n", worker, i,
                   hit ? "miss" : hit.error().message.c_str());
      return 12;
    }
    Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
    if (!bytes || *bytes != object_of(4096, static_cast<uint32_t>(i))) {
      std::fprintf(stderr, "worker %d read %d failed\n", worker, i);
      return 13;
    }
  }
  return 0;
}

TEST(CacheProcesses, SeveralProcessesShareOneStore)
{
  TempDir dir;
  constexpr int k_workers = 4;
  constexpr int k_keys = 25;
  std::vector<pid_t> children;
  for (int worker = 0; worker < k_workers; ++worker) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::_exit(run_worker(dir.path(), worker, k_keys));
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << child;
  }
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->entries, k_workers * k_keys);
  EXPECT_EQ(stats->inserts, k_workers * k_keys);
  EXPECT_EQ(stats->hits, k_workers * k_keys);
  EXPECT_EQ(stats->misses, 0);
  EXPECT_EQ(stats->bytes, k_keys * 4096); // one object per i, shared by every worker
  EXPECT_EQ(count_files(dir.path() / "objects"), k_keys);
  EXPECT_EQ(count_files(dir.path() / "tmp"), 0);
  Expected<std::vector<Entry>> entries = store->list();
  ASSERT_TRUE(entries.has_value());
  std::set<std::string> kernels;
  for (const Entry& entry : *entries) {
    kernels.insert(entry.key.kernel);
  }
  EXPECT_EQ(kernels.size(), static_cast<size_t>(k_workers * k_keys));
}

// A store's lookups reach the shared counters within about a second, without a write of its own.
TEST(CacheProcesses, UsesReachOtherConnectionsWithinASecond)
{
  TempDir dir;
  std::unique_ptr<Store> reader = open_store(dir.path());
  std::unique_ptr<Store> observer = open_store(dir.path());
  ASSERT_NE(reader, nullptr);
  ASSERT_NE(observer, nullptr);
  ASSERT_TRUE(reader->insert(make_key("k_a"), object_of(10, 1), "", "").has_value());
  ASSERT_TRUE(reader->lookup(make_key("k_a")).has_value());
  ASSERT_TRUE(reader->lookup(make_key("k_missing")).has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(reader->lookup(make_key("k_a")).has_value()); // due: writes all three uses
  Expected<StoreStats> seen = observer->stats();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->hits, 2);
  EXPECT_EQ(seen->misses, 1);
}

} // namespace
} // namespace d4r::cache
