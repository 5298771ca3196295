// The sweep of a cache root's leftovers, on a real cache (SQLite, files) with files aged by
// setting their mtime, and the housekeeping thread.

#include "daemon/housekeeping.hpp"

#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <span>
#include <thread>

#include <stdlib.h>

namespace d4r::daemon {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t k_sr_module_hash_for_tests = 0x8baeb925f177af87ULL;

class HousekeepingTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "d4r-sweep-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_root = pattern;
    cache::CacheOptions options;
    options.root = m_root;
    Expected<std::unique_ptr<cache::Cache>> opened = cache::Cache::open(options);
    ASSERT_TRUE(opened) << opened.error().message;
    m_cache = std::move(*opened);
  }
  void TearDown() override
  {
    m_cache.reset();
    std::filesystem::remove_all(m_root);
  }

  // A file (or folder) of `bytes` bytes, last written `age` ago.
  std::filesystem::path make(const std::filesystem::path& relative, std::chrono::seconds age,
                             size_t bytes = 16, bool folder = false) const
  {
    std::filesystem::path path = m_root / relative;
    std::filesystem::create_directories(folder ? path : path.parent_path());
    if (!folder) {
      std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
    }
    std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() - age);
    return path;
  }

  std::filesystem::path m_root;
  std::unique_ptr<cache::Cache> m_cache;
};

std::string module_text(int i)
{
  return ".version 8.0\n.target sm_90\n.address_size 64\n// module " + std::to_string(i) + "\n" +
         std::string(1000, ' ') + "\n";
}

TEST_F(HousekeepingTest, OldLeftoversGoAndWhatMayBeInUseStays)
{
  const auto old = 48h;
  make("builds/worker-dead01/work/a.o", old);
  std::filesystem::path dead_build = make("builds/worker-dead01", old, 0, true);
  std::filesystem::path running_build = make("builds/worker-live01", 10s, 0, true);
  std::filesystem::path not_ours = make("builds/notes", old, 0, true);
  std::filesystem::path old_quarantine = make("fast/quarantine/abc.1", 30 * 24h);
  std::filesystem::path new_quarantine = make("accuracy/quarantine/abc.2", 1h);
  std::filesystem::path old_failure = make("failures/fast/k1", 60 * 24h);
  std::filesystem::path new_failure = make("failures/accuracy/k2", 24h);
  std::filesystem::path stale_temp = make("fast/tmp/123-1-00.tmp", old);

  ModuleStore modules(m_root / "modules", 1 << 20);
  HousekeepingReport report = sweep_cache_root(*m_cache, modules, HousekeepingLimits{});
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_FALSE(std::filesystem::exists(dead_build));
  EXPECT_TRUE(std::filesystem::exists(running_build));
  EXPECT_TRUE(std::filesystem::exists(not_ours));
  EXPECT_FALSE(std::filesystem::exists(old_quarantine));
  EXPECT_TRUE(std::filesystem::exists(new_quarantine));
  EXPECT_FALSE(std::filesystem::exists(old_failure));
  EXPECT_TRUE(std::filesystem::exists(new_failure));
  EXPECT_FALSE(std::filesystem::exists(stale_temp));
  EXPECT_EQ(report.scratch_folders, 1);
  EXPECT_EQ(report.quarantine_files, 1);
  EXPECT_EQ(report.failure_files, 1);
  EXPECT_EQ(report.cache_files, 1);
  EXPECT_EQ(report.removed(), 4);
}

TEST_F(HousekeepingTest, AQuarantineOverItsSizeLosesItsOldestObjectsFirst)
{
  std::filesystem::path oldest = make("fast/quarantine/a.1", 3h, 4000);
  std::filesystem::path older = make("fast/quarantine/b.1", 2h, 4000);
  std::filesystem::path newer = make("fast/quarantine/c.1", 1h, 4000);
  std::filesystem::path newest = make("fast/quarantine/d.1", 10s, 4000);
  std::filesystem::path other_mode = make("accuracy/quarantine/e.1", 3h, 4000);

  ModuleStore modules(m_root / "modules", 1 << 20);
  HousekeepingLimits limits;
  limits.max_quarantine_bytes = 9000; // room for two of fast's four
  HousekeepingReport report = sweep_cache_root(*m_cache, modules, limits);
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_FALSE(std::filesystem::exists(oldest));
  EXPECT_FALSE(std::filesystem::exists(older));
  EXPECT_TRUE(std::filesystem::exists(newer));
  EXPECT_TRUE(std::filesystem::exists(newest));
  EXPECT_TRUE(std::filesystem::exists(other_mode)) << "each mode has its own cap";
  EXPECT_EQ(report.quarantine_files, 2);
}

TEST_F(HousekeepingTest, ModulesBeyondTheirCapGoLeastRecentlyUsedFirst)
{
  ModuleStore modules(m_root / "modules", 1 << 20);
  std::vector<uint64_t> hashes;
  std::vector<std::filesystem::path> paths;
  for (int i = 0; i < 3; ++i) {
    std::string text = module_text(i);
    hashes.push_back(ptx_module_hash(text));
    Expected<int64_t> stored = modules.put(hashes.back(), sha256(text), text);
    ASSERT_TRUE(stored) << stored.error().message;
    paths.push_back(modules.path_of(sha256(text)));
    // Module 1 is the oldest, then 0, then 2.
    std::filesystem::last_write_time(paths.back(), std::filesystem::file_time_type::clock::now() -
                                                       std::chrono::hours(i == 1 ? 30 : i == 0 ? 20 : 10));
  }
  make("modules/ab/cdef.ptx.tmp.1.2", 48h); // a write that died
  const auto size = static_cast<int64_t>(std::filesystem::file_size(paths[0]));
  HousekeepingLimits limits;
  limits.max_module_bytes = 2 * size;
  HousekeepingReport report = sweep_cache_root(*m_cache, modules, limits);
  EXPECT_EQ(report.module_files, 3); // module 1, its by-fnv entry and the temp file
  EXPECT_FALSE(std::filesystem::exists(paths[1]));
  EXPECT_TRUE(std::filesystem::exists(paths[0]));
  EXPECT_TRUE(std::filesystem::exists(paths[2]));
  EXPECT_FALSE(modules.find_by_fnv(hashes[1]).has_value());
  EXPECT_FALSE(std::filesystem::exists(m_root / "modules" / "by-fnv" / hash_to_hex(hashes[1])));
  // A module found is marked used: module 0 is now the youngest, so a smaller cap takes 2.
  ASSERT_TRUE(modules.find_by_fnv(hashes[0]).has_value());
  limits.max_module_bytes = size;
  (void)sweep_cache_root(*m_cache, modules, limits);
  EXPECT_TRUE(std::filesystem::exists(paths[0]));
  EXPECT_FALSE(std::filesystem::exists(paths[2]));
  EXPECT_EQ(modules.remove_all().files, 2); // module 0 and its by-fnv entry
  EXPECT_FALSE(modules.find_by_fnv(hashes[0]).has_value());
}

TEST(Housekeeper, SweepsAfterItsFirstDelayAndStopsAtOnce)
{
  std::atomic<int> sweeps = 0;
  auto started = std::chrono::steady_clock::now();
  {
    Housekeeper housekeeper([&] { ++sweeps; }, 0s, std::chrono::hours(1));
    for (int i = 0; i < 500 && sweeps.load() == 0; ++i) {
      std::this_thread::sleep_for(10ms);
    }
  }
  EXPECT_EQ(sweeps.load(), 1);
  {
    Housekeeper idle([&] { ++sweeps; }, std::chrono::hours(1), std::chrono::hours(1));
  }
  EXPECT_EQ(sweeps.load(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s) << "destruction waited for the timer";
}

TEST(Housekeeper, RunsItsOftenJobBetweenSweeps)
{
  std::atomic<int> sweeps = 0;
  std::atomic<int> often = 0;
  {
    Housekeeper housekeeper([&] { ++sweeps; }, std::chrono::hours(1), std::chrono::hours(1),
                            [&] { ++often; }, 1s);
    for (int i = 0; i < 500 && often.load() < 2; ++i) {
      std::this_thread::sleep_for(10ms);
    }
  }
  EXPECT_GE(often.load(), 2);
  EXPECT_EQ(sweeps.load(), 0);
}

// A purge's objects wait out their grace in the trash, then the often job collects them.
TEST(Housekeeping, TrashIsCollectedOnceItsGraceHasPassed)
{
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / "d4r-trash-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const std::filesystem::path root = pattern;
  {
    cache::CacheOptions options;
    options.root = root;
    options.trash_grace = 300ms;
    Expected<std::unique_ptr<cache::Cache>> cache = cache::Cache::open(options);
    ASSERT_TRUE(cache) << cache.error().message;
    cache::CacheKey key{k_sr_module_hash_for_tests, "d4r_test_layer", "gfx1201", "", "t", "r"};
    const std::string bytes(4000, 'o');
    Expected<cache::Hit> hit = (*cache)->insert(
        Mode::fast, key, std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "", "");
    ASSERT_TRUE(hit) << hit.error().message;
    ASSERT_TRUE((*cache)->purge(Mode::fast));
    std::vector<std::string> errors;
    EXPECT_EQ(collect_cache_trash(**cache, errors), 0);
    EXPECT_TRUE(std::filesystem::exists(hit->object_path)) << "collected within its grace";
    std::this_thread::sleep_for(400ms);
    EXPECT_EQ(collect_cache_trash(**cache, errors), 1);
    EXPECT_FALSE(std::filesystem::exists(hit->object_path));
    EXPECT_TRUE(errors.empty());
  }
  std::filesystem::remove_all(root);
}

} // namespace
} // namespace d4r::daemon
