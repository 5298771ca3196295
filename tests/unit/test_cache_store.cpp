// Store: round trips, counters, shared objects, corruption, eviction order, garbage and bad roots.

#include "cache/cache.hpp"
#include "cache/db.hpp"

#include "tests/support/read_file.hpp"
#include "test_cache_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace d4r::cache {
namespace {

using testing::bytes_of;
using testing::count_files;
using testing::make_key;
using testing::object_of;
using testing::open_store;
using d4r::testing::read_file;
using testing::TempDir;

mode_t mode_of(const std::filesystem::path& path)
{
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

double cpu_seconds()
{
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void flip_byte(const std::filesystem::path& path, size_t offset)
{
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(file.good());
  file.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  file.get(c);
  file.seekp(static_cast<std::streamoff>(offset));
  file.put(static_cast<char>(c ^ 0x5a));
}

TEST(CacheStore, InsertLookupReadRoundTrip)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  const std::vector<std::byte> object = object_of(4096, 1);
  Expected<Hit> inserted = store->insert(make_key("d4r_test_layer"), object, "meta-1", "release:x");
  ASSERT_TRUE(inserted.has_value()) << inserted.error().message;
  EXPECT_EQ(inserted->digest, sha256(object));

  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(hit.has_value()) << hit.error().message;
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->digest, sha256(object));
  EXPECT_EQ((*hit)->size, 4096);
  EXPECT_EQ((*hit)->metadata, "meta-1");
  EXPECT_EQ((*hit)->source, "release:x");
  EXPECT_EQ((*hit)->key.kernel, "d4r_test_layer");

  const std::string hex = to_hex(sha256(object));
  const std::filesystem::path expected_path = dir.path() / "objects" / hex.substr(0, 2) /
                                              hex.substr(2);
  EXPECT_EQ((*hit)->object_path, expected_path);
  EXPECT_EQ(mode_of(expected_path), 0444U);
  EXPECT_EQ(mode_of(expected_path.parent_path()), 0700U);
  EXPECT_EQ(mode_of(dir.path() / "objects"), 0700U);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "index.sqlite"));

  Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
  EXPECT_EQ(*bytes, object);
  EXPECT_TRUE(store->verify_object(**hit).has_value());
  EXPECT_EQ(count_files(dir.path() / "tmp"), 0);
}

TEST(CacheStore, KeyFieldsAllMatter)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  const CacheKey key = make_key("d4r_test_simple");
  ASSERT_TRUE(store->insert(key, object_of(64, 2), "", "built").has_value());
  std::vector<CacheKey> others(6, key);
  others[0].module_hash ^= 1;
  others[1].kernel = "d4r_test_layer";
  others[2].target = "gfx1201-fp8";
  others[3].variant = "wave32";
  others[4].toolchain = "clang-19";
  others[5].recipe = "other-recipe";
  for (const CacheKey& other : others) {
    Expected<std::optional<Hit>> hit = store->lookup(other);
    ASSERT_TRUE(hit.has_value()) << hit.error().message;
    EXPECT_FALSE(hit->has_value()) << other.kernel << " " << other.target;
  }
  Expected<std::optional<Hit>> same = store->lookup(key);
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(same->has_value());
}

TEST(CacheStore, CountsMissesHitsAndInserts)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 3; ++i) {
    Expected<std::optional<Hit>> miss = store->lookup(make_key("dl4rt_input_kernel"));
    ASSERT_TRUE(miss.has_value());
    EXPECT_FALSE(miss->has_value());
  }
  ASSERT_TRUE(store->insert(make_key("dl4rt_input_kernel"), object_of(100, 3), "", "").has_value());
  ASSERT_TRUE(store->insert(make_key("rrlite_enc1_4x4"), object_of(200, 4), "", "").has_value());
  for (int i = 0; i < 2; ++i) {
    Expected<std::optional<Hit>> hit = store->lookup(make_key("dl4rt_input_kernel"));
    ASSERT_TRUE(hit.has_value());
    EXPECT_TRUE(hit->has_value());
  }
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->misses, 3);
  EXPECT_EQ(stats->hits, 2);
  EXPECT_EQ(stats->inserts, 2);
  EXPECT_EQ(stats->entries, 2);
  EXPECT_EQ(stats->bytes, 300);
  EXPECT_EQ(stats->evictions, 0);
  EXPECT_EQ(stats->quarantined, 0);
  EXPECT_EQ(stats->mode, Mode::fast);
  EXPECT_EQ(stats->root, dir.path());

  // The counters live in the database: a second connection sees them.
  store.reset();
  std::unique_ptr<Store> reopened = open_store(dir.path());
  ASSERT_NE(reopened, nullptr);
  Expected<StoreStats> again = reopened->stats();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->misses, 3);
  EXPECT_EQ(again->hits, 2);
  EXPECT_EQ(again->entries, 2);
}

TEST(CacheStore, TwoKeysShareOneObject)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  const std::vector<std::byte> object = object_of(1000, 5);
  Expected<Hit> first = store->insert(make_key("rrlite_enc1_4x4"), object, "a", "");
  Expected<Hit> second = store->insert(make_key("rrlite_enc2_4x4"), object, "b", "");
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->object_path, second->object_path);
  EXPECT_EQ(count_files(dir.path() / "objects"), 1);
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->entries, 2);
  EXPECT_EQ(stats->bytes, 1000);

  // Re-keying one entry to new content keeps the shared object for the other.
  ASSERT_TRUE(store->insert(make_key("rrlite_enc1_4x4"), object_of(500, 6), "", "").has_value());
  EXPECT_EQ(count_files(dir.path() / "objects"), 2);
  Expected<std::optional<Hit>> other = store->lookup(make_key("rrlite_enc2_4x4"));
  ASSERT_TRUE(other.has_value() && other->has_value());
  Expected<std::vector<std::byte>> bytes = store->read_object(**other);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, object);

  // Re-keying the last user drops the object; its file waits out its grace period in the trash
  // (a client may hold its path), counted apart.
  ASSERT_TRUE(store->insert(make_key("rrlite_enc2_4x4"), object_of(500, 6), "", "").has_value());
  EXPECT_EQ(count_files(dir.path() / "objects"), 2);
  EXPECT_TRUE(std::filesystem::exists(first->object_path));
  stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->bytes, 500);
  EXPECT_EQ(stats->trash_objects, 1);
  EXPECT_EQ(stats->trash_bytes, 1000);
}

TEST(CacheStore, CorruptObjectIsQuarantinedNotServed)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  const std::vector<std::byte> object = object_of(2048, 7);
  ASSERT_TRUE(store->insert(make_key("d4r_test_layer"), object, "m", "").has_value());
  ASSERT_TRUE(store->insert(make_key("d4r_test_simple"), object, "m", "").has_value());
  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  flip_byte((*hit)->object_path, 1000);

  Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
  ASSERT_FALSE(bytes.has_value());
  EXPECT_EQ(bytes.error().code, ErrorCode::corrupt);
  EXPECT_EQ(bytes.error().message,
            "cache: kernel d4r_test_layer (ptx 8baeb925f177af87): sha256 mismatch, quarantined");
  EXPECT_FALSE(std::filesystem::exists((*hit)->object_path));
  EXPECT_EQ(count_files(dir.path() / "quarantine"), 1);

  // Every key that named the bad object misses now.
  for (const char* kernel : {"d4r_test_layer", "d4r_test_simple"}) {
    Expected<std::optional<Hit>> after = store->lookup(make_key(kernel));
    ASSERT_TRUE(after.has_value());
    EXPECT_FALSE(after->has_value()) << kernel;
  }
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->quarantined, 1);
  EXPECT_EQ(stats->entries, 0);
  EXPECT_EQ(stats->bytes, 0);

  Expected<Hit> again = store->insert(make_key("d4r_test_layer"), object, "m", "");
  ASSERT_TRUE(again.has_value()) << again.error().message;
  Expected<std::vector<std::byte>> good = store->read_object(*again);
  ASSERT_TRUE(good.has_value()) << good.error().message;
  EXPECT_EQ(*good, object);
}

TEST(CacheStore, VerifyObjectQuarantinesToo)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<Hit> hit = store->insert(make_key("d4r_test_layer"), object_of(300, 8), "", "");
  ASSERT_TRUE(hit.has_value());
  flip_byte(hit->object_path, 0);
  Expected<void> verified = store->verify_object(*hit);
  ASSERT_FALSE(verified.has_value());
  EXPECT_EQ(verified.error().code, ErrorCode::corrupt);
  EXPECT_NE(verified.error().message.find("sha256 mismatch, quarantined"), std::string::npos);
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->quarantined, 1);
}

TEST(CacheStore, TruncatedObjectIsAMissAndQuarantined)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<Hit> hit = store->insert(make_key("d4r_test_layer"), object_of(300, 9), "", "");
  ASSERT_TRUE(hit.has_value());
  ASSERT_EQ(::chmod(hit->object_path.c_str(), 0644), 0);
  std::filesystem::resize_file(hit->object_path, 100);
  Expected<std::optional<Hit>> lookup = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(lookup.has_value());
  EXPECT_FALSE(lookup->has_value());
  EXPECT_EQ(count_files(dir.path() / "quarantine"), 1);
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->quarantined, 1);
  EXPECT_EQ(stats->misses, 1);
}

TEST(CacheStore, MissingObjectFileDropsTheRow)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<Hit> hit = store->insert(make_key("d4r_test_layer"), object_of(300, 10), "", "");
  ASSERT_TRUE(hit.has_value());
  ASSERT_TRUE(std::filesystem::remove(hit->object_path));
  Expected<std::vector<std::byte>> read = store->read_object(*hit);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::not_found) << read.error().message;
  Expected<std::optional<Hit>> lookup = store->lookup(make_key("d4r_test_layer"));
  ASSERT_TRUE(lookup.has_value());
  EXPECT_FALSE(lookup->has_value());
  Expected<std::vector<Entry>> entries = store->list();
  ASSERT_TRUE(entries.has_value());
  EXPECT_TRUE(entries->empty());
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->misses, 1);
  EXPECT_EQ(stats->hits, 0);
  EXPECT_EQ(stats->quarantined, 0);
}

TEST(CacheStore, EvictsLeastRecentlyUsed)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path(), 350);
  ASSERT_NE(store, nullptr);
  std::vector<Hit> hits;
  for (const char* kernel : {"k_first", "k_second", "k_third"}) {
    Expected<Hit> hit = store->insert(make_key(kernel), object_of(100, static_cast<uint32_t>(hits.size() + 20)), "", "");
    ASSERT_TRUE(hit.has_value());
    hits.push_back(*hit);
  }
  Expected<std::optional<Hit>> touched = store->lookup(make_key("k_first"));
  ASSERT_TRUE(touched.has_value() && touched->has_value());
  ASSERT_TRUE(store->insert(make_key("k_fourth"), object_of(100, 30), "", "").has_value());

  Expected<std::vector<Entry>> entries = store->list();
  ASSERT_TRUE(entries.has_value());
  std::vector<std::string> kernels;
  for (const Entry& entry : *entries) {
    kernels.push_back(entry.key.kernel);
  }
  EXPECT_EQ(kernels, (std::vector<std::string>{"k_first", "k_fourth", "k_third"}));
  EXPECT_FALSE(std::filesystem::exists(hits[1].object_path));
  EXPECT_TRUE(std::filesystem::exists(hits[0].object_path));
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->evictions, 1);
  EXPECT_EQ(stats->bytes, 300);
  EXPECT_LE(stats->bytes, stats->max_bytes);
}

TEST(CacheStore, AnEntrysLastUseOrdersItHoweverOftenItWasUsed)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path(), 350);
  ASSERT_NE(store, nullptr);
  for (const char* kernel : {"k_first", "k_second", "k_third"}) {
    ASSERT_TRUE(store->insert(make_key(kernel), object_of(100, kernel[2]), "", "").has_value());
  }
  // In one batch of uses (fewer than 512, within a second), the first entry's before and after
  // the others'.
  auto use = [&](const char* kernel, int times) {
    for (int i = 0; i < times; ++i) {
      Expected<std::optional<Hit>> hit = store->lookup(make_key(kernel));
      ASSERT_TRUE(hit.has_value() && hit->has_value());
    }
  };
  use("k_first", 200);
  use("k_second", 1);
  use("k_third", 1);
  use("k_first", 200);
  ASSERT_TRUE(store->insert(make_key("k_fourth"), object_of(100, 40), "", "").has_value());
  Expected<std::vector<Entry>> entries = store->list();
  ASSERT_TRUE(entries.has_value());
  std::vector<std::string> kernels;
  for (const Entry& entry : *entries) {
    kernels.push_back(entry.key.kernel);
  }
  // k_second was used least recently (k_first last, whatever its earlier uses).
  EXPECT_EQ(kernels, (std::vector<std::string>{"k_first", "k_fourth", "k_third"}));
}

TEST(CacheStore, NeverEvictsTheEntryJustInserted)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path(), 50);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->insert(make_key("k_small"), object_of(40, 1), "", "").has_value());
  Expected<Hit> big = store->insert(make_key("k_big"), object_of(100, 2), "", "");
  ASSERT_TRUE(big.has_value());
  Expected<std::optional<Hit>> hit = store->lookup(make_key("k_big"));
  ASSERT_TRUE(hit.has_value());
  EXPECT_TRUE(hit->has_value());
  Expected<std::optional<Hit>> small = store->lookup(make_key("k_small"));
  ASSERT_TRUE(small.has_value());
  EXPECT_FALSE(small->has_value());
}

TEST(CacheStore, CollectGarbageRemovesStaleTempFiles)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<Hit> kept = store->insert(make_key("d4r_test_layer"), object_of(64, 40), "", "");
  ASSERT_TRUE(kept.has_value());
  std::ofstream(dir.path() / "tmp" / "123-0-abc.tmp") << "half written";
  std::ofstream(dir.path() / "objects" / "README") << "not an object";

  Expected<int64_t> young = store->collect_garbage(std::chrono::seconds(3600));
  ASSERT_TRUE(young.has_value());
  EXPECT_EQ(*young, 0);
  Expected<int64_t> removed = store->collect_garbage(std::chrono::seconds(0));
  ASSERT_TRUE(removed.has_value()) << removed.error().message;
  EXPECT_EQ(*removed, 1);
  EXPECT_EQ(count_files(dir.path() / "tmp"), 0);
  EXPECT_TRUE(std::filesystem::exists(kept->object_path)); // named by a row
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "objects" / "README")); // not ours
}

// The one folder under <root>/damaged/, or empty.
std::filesystem::path damaged_set(const std::filesystem::path& root)
{
  std::vector<std::filesystem::path> sets;
  if (std::filesystem::exists(root / "damaged")) {
    for (const auto& entry : std::filesystem::directory_iterator(root / "damaged")) {
      sets.push_back(entry.path());
    }
  }
  EXPECT_EQ(sets.size(), 1u);
  return sets.empty() ? std::filesystem::path() : sets.front();
}

TEST(CacheStore, GarbageIndexIsSetAsideAndAFreshOneServes)
{
  TempDir dir;
  std::filesystem::create_directories(dir.path());
  const std::filesystem::path index = dir.path() / "index.sqlite";
  const std::string garbage(8192, 'x');
  std::ofstream(index, std::ios::binary) << garbage;
  StoreOptions options;
  options.root = dir.path();
  Expected<std::unique_ptr<Store>> store = Store::open(options);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  const std::string& note = (*store)->recovery_note();
  EXPECT_NE(note.find(index.string()), std::string::npos) << note;
  EXPECT_NE(note.find("set aside"), std::string::npos) << note;
  // Nothing is lost: the damaged file is kept, byte for byte, for whoever wants to look.
  std::filesystem::path aside = damaged_set(dir.path());
  EXPECT_EQ(read_file(aside / "index.sqlite"), garbage);
  ASSERT_TRUE((*store)->insert(make_key("d4r_after"), object_of(64, 3), "", "").has_value());
  Expected<std::optional<Hit>> hit = (*store)->lookup(make_key("d4r_after"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  // A healthy index opens without a note.
  store->reset();
  Expected<std::unique_ptr<Store>> again = Store::open(options);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ((*again)->recovery_note(), "");
}

TEST(CacheStore, DamagedPagesFailTheIntegrityCheckAndAreSetAside)
{
  TempDir dir;
  {
    std::unique_ptr<Store> store = open_store(dir.path());
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(store->insert(make_key("d4r_kernel_" + std::to_string(i)), object_of(32, i), "", "")
                      .has_value());
    }
  }
  // The header page stays readable; the b-tree pages after it are overwritten, as a bad sector
  // or a stray write would.
  const std::filesystem::path index = dir.path() / "index.sqlite";
  ASSERT_FALSE(std::filesystem::exists(dir.path() / "index.sqlite-wal") &&
               std::filesystem::file_size(dir.path() / "index.sqlite-wal") > 0)
      << "the WAL was not checkpointed at close; the damage would not reach the pages";
  const auto size = std::filesystem::file_size(index);
  ASSERT_GT(size, 8192u);
  {
    std::fstream file(index, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4096);
    file << std::string(static_cast<size_t>(size) - 4096, '\x5a');
  }
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_NE(store->recovery_note().find("damaged"), std::string::npos) << store->recovery_note();
  EXPECT_FALSE(damaged_set(dir.path()).empty());
  Expected<std::optional<Hit>> hit = store->lookup(make_key("d4r_kernel_7"));
  ASSERT_TRUE(hit.has_value()) << hit.error().message;
  EXPECT_FALSE(hit->has_value()); // a fresh index: rebuilt on demand, never a wrong row
}

TEST(CacheStore, NewerSchemaIsRefused)
{
  TempDir dir;
  ASSERT_NE(open_store(dir.path()), nullptr);
  {
    static constexpr char k_bump[] = "UPDATE meta SET value = 99 WHERE name = 'version'";
    Expected<std::unique_ptr<db::Database>> database =
        db::Database::open({dir.path() / "index.sqlite", 1000});
    ASSERT_TRUE(database.has_value());
    ASSERT_TRUE((*database)->execute(k_bump).has_value());
  }
  StoreOptions options;
  options.root = dir.path();
  Expected<std::unique_ptr<Store>> store = Store::open(options);
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, ErrorCode::rejected);
  EXPECT_NE(store.error().message.find("schema version 99"), std::string::npos);
}

TEST(CacheStore, RootUnderAFileIsAClearError)
{
  TempDir dir;
  const std::filesystem::path file = dir.path() / "plain-file";
  std::ofstream(file) << "x";
  StoreOptions options;
  options.root = file / "fast";
  Expected<std::unique_ptr<Store>> store = Store::open(options);
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, ErrorCode::io);
  EXPECT_NE(store.error().message.find(options.root.string()), std::string::npos)
      << store.error().message;
  EXPECT_NE(store.error().message.find("Not a directory"), std::string::npos);
}

// Runs in a child that, when the tests run as root, drops to "nobody": root ignores permissions.
TEST(CacheStore, ReadOnlyRootIsAClearError)
{
  TempDir dir;
  const std::filesystem::path locked = dir.path() / "locked";
  std::filesystem::create_directories(locked);
  ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      ::_exit(2);
    }
    StoreOptions options;
    options.root = locked / "fast";
    Expected<std::unique_ptr<Store>> store = Store::open(options);
    if (store.has_value()) {
      ::_exit(3);
    }
    std::fprintf(stderr, "child saw: %s\n", store.error().message.c_str());
    const bool clear = store.error().code == ErrorCode::io &&
                       store.error().message.find(options.root.string()) != std::string::npos &&
                       store.error().message.find("Permission denied") != std::string::npos;
    ::_exit(clear ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A write that the filesystem refuses (here RLIMIT_FSIZE, as a full disk would) is an io error,
// leaves no temp file and loses nothing committed. Runs in a child: the limit is process-wide.
TEST(CacheStore, RefusedWriteLosesNothing)
{
  TempDir dir;
  const std::vector<std::byte> small = object_of(1000, 50);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::unique_ptr<Store> store = open_store(dir.path());
    if (!store || !store->insert(make_key("k_small"), small, "", "").has_value()) {
      ::_exit(2);
    }
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    Expected<Hit> big = store->insert(make_key("k_big"), object_of(1 << 20, 51), "", "");
    if (big.has_value()) {
      ::_exit(3);
    }
    std::fprintf(stderr, "child saw: %s\n", big.error().message.c_str());
    ::_exit(big.error().code == ErrorCode::io &&
                    big.error().message.find("cannot write") != std::string::npos
                ? 0
                : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(count_files(dir.path() / "tmp"), 0);
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<std::optional<Hit>> hit = store->lookup(make_key("k_small"));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, small);
  Expected<std::optional<Hit>> big = store->lookup(make_key("k_big"));
  ASSERT_TRUE(big.has_value());
  EXPECT_FALSE(big->has_value());
}

TEST(CacheStore, InvalidKernelNameIsRefused)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  Expected<Hit> inserted = store->insert(make_key("../etc"), object_of(10, 1), "", "");
  ASSERT_FALSE(inserted.has_value());
  EXPECT_EQ(inserted.error().code, ErrorCode::invalid_argument);
  Expected<std::optional<Hit>> hit = store->lookup(make_key(""));
  ASSERT_FALSE(hit.has_value());
  EXPECT_EQ(hit.error().code, ErrorCode::invalid_argument);
}

// Printed, and bounded loosely so that an fsync per lookup would still fail it.
TEST(CacheStore, WarmLookupIsCheap)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  for (uint32_t i = 0; i < 200; ++i) {
    ASSERT_TRUE(
        store->insert(make_key("k_" + std::to_string(i)), object_of(256, i), "", "").has_value());
  }
  constexpr int k_rounds = 2000;
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < k_rounds; ++i) {
    Expected<std::optional<Hit>> hit = store->lookup(make_key("k_" + std::to_string(i % 200)));
    ASSERT_TRUE(hit.has_value() && hit->has_value());
  }
  const double micros = std::chrono::duration<double, std::micro>(
                            std::chrono::steady_clock::now() - start)
                            .count() /
                        k_rounds;
  // CPU time too: on a loaded machine the wall clock mostly measures the other processes.
  const double cpu_micros = (cpu_seconds() - cpu_start) * 1e6 / k_rounds;
  std::printf("warm lookup: %.1f us wall, %.1f us cpu\n", micros, cpu_micros);
  EXPECT_LT(micros, 1000.0);
}

TEST(CacheStore, LookupsNeverWaitForAnotherProcesssWrite)
{
  TempDir dir;
  std::unique_ptr<Store> store = open_store(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->insert(make_key("k_busy"), object_of(256, 1), "", "").has_value());
  // Another connection (another process, for SQLite) holds the write lock.
  db::DatabaseOptions options;
  options.path = dir.path() / "index.sqlite";
  Expected<std::unique_ptr<db::Database>> other = db::Database::open(options);
  ASSERT_TRUE(other.has_value()) << other.error().message;
  auto writer = std::make_unique<db::Transaction>(**other);
  ASSERT_TRUE(writer->begin().has_value());
  // Past the use-flush interval each lookup would write the uses, and wait for that lock.
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    const auto start = std::chrono::steady_clock::now();
    Expected<std::optional<Hit>> hit = store->lookup(make_key("k_busy"));
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(hit.has_value() && hit->has_value()) << (hit ? "miss" : hit.error().message);
    EXPECT_LT(took, std::chrono::milliseconds(200)) << "a lookup waited for another writer";
  }
  writer.reset(); // rolls back, the lock goes
  // The uses waited in memory and are written once the index is free.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(store->lookup(make_key("k_busy")).has_value());
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->hits, 4);
}

} // namespace
} // namespace d4r::cache
