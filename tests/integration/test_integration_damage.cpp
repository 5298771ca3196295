// Damage to a live cache, done from outside as failing disks and people do it: flipped bits at
// random offsets of the objects, of the SQLite index and of its WAL (with the daemon running, and
// across a kill -9 and restart), truncated objects, index and WAL. Whatever was damaged, every
// READY answer is the release's object (bytes, digest, size) with the metadata the undamaged
// daemon gave, a path answer whose file the client finds damaged is reported and answered again
// with a good one, the daemon stays up or restarts cleanly, and a damaged index is set aside with
// a log line naming it. D4R_DAMAGE_TRIALS sets the number of rounds (CI: a bounded sample).
// test_integration_exhaustion.cpp has the full, read-only and symlinked cache.

#include "damage_support.hpp"

#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

namespace d4r::testing {
namespace {

int trials(int fallback)
{
  const char* text = std::getenv("D4R_DAMAGE_TRIALS");
  return text != nullptr ? std::max(1, std::atoi(text)) : fallback;
}

std::filesystem::path store_of(const DaemonProcess& daemon)
{
  return daemon.cache_dir() / "fast";
}

// Everything the release serves is in the cache, each answer checked.
void fill(const DaemonProcess& daemon, Checker& checker)
{
  RoundCounts counts = checker.round(daemon);
  ASSERT_EQ(counts.ready, 2 * static_cast<int>(served_kernels().size()));
}

TEST(Damage, FlippedBitsAndTruncatedObjectsAreNeverServed)
{
  TempDir dir;
  DaemonProcess daemon(DaemonOptions{dir.path()});
  ASSERT_TRUE(daemon.start());
  Checker checker;
  fill(daemon, checker);
  std::mt19937 random(20261202);
  RoundCounts total;
  int damaged = 0;
  for (int trial = 0; trial < trials(40); ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<std::filesystem::path> objects = files_under(store_of(daemon) / "objects");
    ASSERT_FALSE(objects.empty());
    const std::filesystem::path& victim = objects[random() % objects.size()];
    if (trial % 4 == 3) {
      std::error_code error;
      const auto size = std::filesystem::file_size(victim, error);
      std::filesystem::resize_file(victim, size == 0 ? 0 : random() % size, error);
      ASSERT_FALSE(error) << victim;
    } else {
      (void)flip_random_bit(victim, random);
    }
    ++damaged;
    RoundCounts counts = checker.round(daemon);
    total.ready += counts.ready;
    total.not_served += counts.not_served;
    total.named_damaged += counts.named_damaged;
    // The release holds every object: a damaged copy costs a re-import, never an answer.
    EXPECT_EQ(counts.not_served, 0);
    ASSERT_TRUE(process_alive(daemon.pid()));
  }
  // Each damaged object was found by the daemon's own check (a quarantine) or by the client's.
  EXPECT_GE(daemon.counter("cache.corrupt_object") + total.named_damaged, damaged / 2);
  EXPECT_FALSE(files_under(store_of(daemon) / "quarantine").empty());
  std::printf("damage: %d objects damaged, %d READY answers checked, %d path answers the client "
              "found damaged (reported, then answered good), %lld quarantined by the daemon\n",
              damaged, total.ready, total.named_damaged,
              static_cast<long long>(daemon.counter("cache.corrupt_object")));
}

// One of the index files, damaged: `which` 0 the index, 1 its WAL (when there is one).
void damage_index_file(const std::filesystem::path& store, std::mt19937& random, int flips,
                       bool truncate)
{
  std::vector<std::filesystem::path> candidates;
  for (const char* name : {"index.sqlite", "index.sqlite-wal"}) {
    std::error_code error;
    if (std::filesystem::file_size(store / name, error) > 0 && !error) {
      candidates.push_back(store / name);
    }
  }
  ASSERT_FALSE(candidates.empty());
  const std::filesystem::path& victim = candidates[random() % candidates.size()];
  if (truncate) {
    std::error_code error;
    const auto size = std::filesystem::file_size(victim);
    std::filesystem::resize_file(victim, random() % size, error);
    ASSERT_FALSE(error);
    return;
  }
  for (int i = 0; i < flips; ++i) {
    (void)flip_random_bit(victim, random);
  }
}

int count_lines_with(const std::string& text, const std::string& needle)
{
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(Damage, IndexAndWalDamageWhileRunningAndAcrossKillAndRestart)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.log_file = dir.path() / "daemon.log";
  std::mt19937 random(7);
  Checker checker;
  RoundCounts total;
  int restarts = 0;
  int truncations = 0;
  for (int trial = 0; trial < trials(30); ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start()) << "no restart after damage:\n" << read_file(*options.log_file);
    ++restarts;
    RoundCounts before = checker.round(daemon); // fills what the last damage lost
    // Bits flipped under the running daemon, in whichever file; it keeps serving only good answers.
    damage_index_file(store_of(daemon), random, 1 + static_cast<int>(random() % 8), false);
    RoundCounts running = checker.round(daemon);
    ASSERT_TRUE(process_alive(daemon.pid())) << read_file(*options.log_file);
    // Killed with its WAL in place, then damaged again (flips or a truncation) before the restart.
    daemon.send_signal(SIGKILL);
    (void)daemon.stop();
    const bool truncate = trial % 3 == 2;
    truncations += truncate ? 1 : 0;
    damage_index_file(store_of(daemon), random, 1 + static_cast<int>(random() % 32), truncate);
    for (const RoundCounts& counts : {before, running}) {
      total.ready += counts.ready;
      total.not_served += counts.not_served;
      total.named_damaged += counts.named_damaged;
    }
  }
  DaemonProcess last(options);
  ASSERT_TRUE(last.start()) << read_file(*options.log_file);
  RoundCounts final_round = checker.round(last);
  EXPECT_EQ(final_round.not_served, 0) << read_file(*options.log_file);
  std::string log = read_file(*options.log_file);
  int set_aside = count_lines_with(log, "set aside in");
  std::error_code error;
  const bool damaged_folder = std::filesystem::exists(store_of(last) / "damaged", error);
  EXPECT_EQ(set_aside > 0, damaged_folder) << log;
  std::printf("damage: %d restarts after index/WAL damage (%d truncations), %d READY answers "
              "checked, %d not served, %d indexes set aside\n",
              restarts, truncations, total.ready + final_round.ready, total.not_served, set_aside);
}

TEST(Damage, AnIndexThatIsNotADatabaseIsSetAsideWithALogLine)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.log_file = dir.path() / "daemon.log";
  Checker checker;
  {
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start());
    fill(daemon, checker);
    ASSERT_EQ(daemon.stop(), 0);
  }
  const std::filesystem::path index = dir.path() / "cache" / "fast" / "index.sqlite";
  {
    std::string bytes = read_file(index);
    ASSERT_GT(bytes.size(), 100u);
    std::fill(bytes.begin(), bytes.begin() + 100, 'x'); // the header: "file is not a database"
    std::ofstream(index, std::ios::binary | std::ios::trunc) << bytes;
  }
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << read_file(*options.log_file);
  RoundCounts counts = checker.round(daemon);
  EXPECT_EQ(counts.not_served, 0);
  const std::string log = read_file(*options.log_file);
  EXPECT_NE(log.find(index.string()), std::string::npos) << log;
  EXPECT_NE(log.find("set aside in " + (index.parent_path() / "damaged").string()),
            std::string::npos)
      << log;
  std::vector<std::filesystem::path> kept = files_under(index.parent_path() / "damaged");
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front().filename(), "index.sqlite") << "the damaged index is kept for a look";
}

// Pages of the index overwritten under the running daemon, where its connection must read them:
// the WAL checkpointed into the file first (else the WAL's copies of the pages would hide the
// damage), then every page but the first (header and schema) overwritten, then the header alone
// written through SQLite so that the daemon's connection drops its cached pages.
void overwrite_index_pages(const std::filesystem::path& index)
{
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  {
    std::fstream file(index, std::ios::binary | std::ios::in | std::ios::out);
    file.seekg(0, std::ios::end);
    const std::streamoff size = file.tellg();
    ASSERT_GT(size, 4096);
    file.seekp(4096);
    const std::string pages(static_cast<size_t>(size - 4096), '\x5a');
    file.write(pages.data(), static_cast<std::streamsize>(pages.size()));
  }
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "PRAGMA user_version = 12", nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// SQLite finds the damage while the daemon serves (a lookup reads a page that is not a page):
// the daemon sets the index aside as a start does, says so once (a log line, a counter), opens a
// fresh index and keeps answering: the release's objects are imported again, nothing crashes.
TEST(Damage, AnIndexDamagedWhileRunningIsSetAsideAndAFreshOneServes)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.log_file = dir.path() / "daemon.log";
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  Checker checker;
  fill(daemon, checker);
  const std::filesystem::path index = store_of(daemon) / "index.sqlite";
  overwrite_index_pages(index);

  RoundCounts total;
  for (int round = 0; round < trials(20); ++round) {
    RoundCounts counts = checker.round(daemon);
    total.ready += counts.ready;
    total.not_served += counts.not_served;
    ASSERT_TRUE(process_alive(daemon.pid())) << read_file(*options.log_file);
  }
  // Each answer was checked by the Checker; the release holds every object, so none was lost.
  EXPECT_EQ(total.not_served, 0) << read_file(*options.log_file);
  EXPECT_EQ(daemon.counter("cache.index_replaced"), 1);
  const std::string log = read_file(*options.log_file);
  EXPECT_EQ(count_lines_with(log, "found while running"), 1) << log;
  EXPECT_NE(log.find("set aside in " + (store_of(daemon) / "damaged").string()), std::string::npos)
      << log;
  std::vector<std::filesystem::path> kept = files_under(store_of(daemon) / "damaged");
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front().filename(), "index.sqlite");
  // The fresh index is a database that holds the new imports, and passes SQLite's check.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM entries", -1, &statement, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(statement, 0), static_cast<int64_t>(served_kernels().size()));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  std::printf("damage: index pages overwritten under the running daemon: %d READY answers "
              "checked, %d not served, %lld index replaced\n",
              total.ready, total.not_served,
              static_cast<long long>(daemon.counter("cache.index_replaced")));
}

// SQLite keeps no checksum of a row: a flipped bit inside a record's payload passes quick_check.
// Such a bit in a row's stored launch metadata (kernarg size, grid, block shapes) would reach the
// hook and launch the right object wrongly; it must be caught like a damaged object.
TEST(Damage, AFlippedBitInARowsStoredMetadataIsNeverServed)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.log_file = dir.path() / "daemon.log";
  Checker checker;
  {
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start());
    fill(daemon, checker);
    ASSERT_EQ(daemon.stop(), 0); // checkpointed: the rows are in index.sqlite itself
  }
  const std::filesystem::path index = dir.path() / "cache" / "fast" / "index.sqlite";
  // The rows' metadata as the cache encodes it (not the reply's message: cache/launch_metadata.hpp).
  std::map<std::string, std::string> stored;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* select = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT kernel, metadata FROM entries", -1, &select, nullptr),
              SQLITE_OK);
    while (sqlite3_step(select) == SQLITE_ROW) {
      stored[reinterpret_cast<const char*>(sqlite3_column_text(select, 0))] =
          std::string(static_cast<const char*>(sqlite3_column_blob(select, 1)),
                      static_cast<size_t>(sqlite3_column_bytes(select, 1)));
    }
    sqlite3_finalize(select);
    sqlite3_close(db);
  }
  std::string bytes = read_file(index);
  int flipped = 0;
  for (const ServedKernel& served : served_kernels()) {
    const std::string metadata = stored[served.kernel];
    ASSERT_GT(metadata.size(), 8u) << served.kernel;
    size_t at = bytes.find(metadata);
    ASSERT_NE(at, std::string::npos) << served.kernel << ": metadata not found in the index";
    bytes[at + metadata.size() / 2] ^= 0x04;
    ++flipped;
  }
  std::ofstream(index, std::ios::binary | std::ios::trunc) << bytes;
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << read_file(*options.log_file);
  RoundCounts counts = checker.round(daemon);
  EXPECT_EQ(counts.not_served, 0) << "a damaged row costs a re-import, not an answer";
  const std::string log = read_file(*options.log_file);
  EXPECT_EQ(count_lines_with(log, "damaged (its check does not match), dropped"), flipped) << log;
  std::printf("damage: %d rows' metadata damaged, %d READY answers checked\n", flipped,
              counts.ready);
}

// An index written before schema version 2 (no row checks), as an upgrade meets it: made from a
// current one by SQL (the column dropped, the version set back), then opened by the daemon. Its
// rows are dropped quietly at their first lookup and imported again; nothing is reported damaged.
TEST(Damage, AnIndexFromBeforeRowChecksIsUpgradedAndItsRowsRebuiltQuietly)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.log_file = dir.path() / "daemon.log";
  Checker checker;
  {
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start());
    fill(daemon, checker);
    ASSERT_EQ(daemon.stop(), 0);
  }
  const std::filesystem::path index = dir.path() / "cache" / "fast" / "index.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db,
                              "ALTER TABLE entries DROP COLUMN row_check; "
                              "DELETE FROM counters WHERE name = 'damaged_rows'; "
                              "UPDATE meta SET value = 1 WHERE name = 'version'",
                              nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << read_file(*options.log_file);
  EXPECT_EQ(checker.round(daemon).not_served, 0);
  const std::string log = read_file(*options.log_file);
  EXPECT_EQ(log.find("damaged"), std::string::npos) << log;
  EXPECT_EQ(daemon.counter("cache.corrupt_object"), 0);
}

grpc::Status put_module(const DaemonProcess& daemon, const std::string& ptx)
{
  pb::PutModuleRequest put;
  Sha256 digest = sha256(std::string_view(ptx));
  put.mutable_module()->set_fnv1a64(ptx_module_hash(ptx));
  put.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
  put.set_ptx(ptx);
  pb::PutModuleReply stored;
  grpc::ClientContext context;
  return stub_of(daemon)->PutModule(&context, put, &stored);
}

pb::ResolveReply resolve_built(const DaemonProcess& daemon, uint64_t hash, const std::string& kernel)
{
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel(kernel);
  request.mutable_selection()->set_target("gfx1201");
  request.set_wait_budget_ms(120000);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Resolve(&context, request, &reply).ok());
  return reply;
}

// An uploaded module is the source of a ptx recipe's build: damaged on disk after its upload, it
// would build a wrong object that every later check accepts as the key's own. It is read back
// against its digest first; a damaged one is removed, not remembered as a failure of the module,
// and built once the client sends it again.
TEST(Damage, AModuleDamagedAfterItsUploadIsNeitherBuiltFromNorRemembered)
{
  TempDir dir;
  const std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/alu_int.sm_90.ptx");
  ASSERT_FALSE(ptx.empty());
  const uint64_t hash = ptx_module_hash(ptx);
  std::filesystem::path recipes = dir.path() / "recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "alu.recipe") << "recipe = ptx_alu\nversion = 1\nkernels = int_arith32\n"
                                        << "modules = " << hash_to_hex(hash) << "\nlanguage = ptx\n";
  DaemonOptions options(dir.path());
  options.native_dir = std::filesystem::path();
  options.recipes_dir = recipes;
  options.log_file = dir.path() / "daemon.log";
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  ASSERT_TRUE(put_module(daemon, ptx).ok());
  std::vector<std::filesystem::path> modules;
  for (const std::filesystem::path& file : files_under(daemon.cache_dir() / "modules")) {
    if (file.extension() == ".ptx") {
      modules.push_back(file);
    }
  }
  ASSERT_EQ(modules.size(), 1u);
  std::mt19937 random(3);
  (void)flip_random_bit(modules[0], random);
  pb::ResolveReply damaged = resolve_built(daemon, hash, "int_arith32");
  EXPECT_NE(damaged.outcome(), pb::ResolveReply::READY) << "built from a damaged module";
  EXPECT_NE(damaged.reason().find("damaged"), std::string::npos) << damaged.reason();
  EXPECT_FALSE(std::filesystem::exists(modules[0])) << "the damaged module is kept";
  ASSERT_TRUE(put_module(daemon, ptx).ok());
  pb::ResolveReply built = resolve_built(daemon, hash, "int_arith32");
  ASSERT_EQ(built.outcome(), pb::ResolveReply::READY) << built.reason();
  const Sha256 digest = sha256(std::string_view(built.object().data()));
  EXPECT_EQ(std::string(digest.begin(), digest.end()), built.object().sha256());
}

} // namespace
} // namespace d4r::testing
