// kill -9 of the daemon and of its compile workers at random moments of its builds and cache
// writes: after each kill of the daemon the index it left passes SQLite's integrity check and
// every row names an object file of the row's size; after each restart no object is served that
// is not the one its key names, none is served truncated or corrupt; a worker killed from outside
// is built again, so the builds it was part of still serve their key's object and nothing is
// remembered as a failure; at the end the sweep the daemon runs leaves no temporary file, no dead
// build's scratch folder and no object file that no row or trash entry names. D4R_FAULT_TRIALS
// sets the number of trials (CI: a bounded sample; scripts/fault-trials.sh runs the long one and
// prints the figures).

#include "cache/cache.hpp"
#include "compiler/launch_meta.hpp"
#include "daemon/housekeeping.hpp"
#include "daemon/module_store.hpp"
#include "daemon_process.hpp"
#include "util/digest.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/types.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

using Key = std::tuple<std::string, std::string, pb::Mode>; // kernel, target, mode

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

pb::ResolveReply build(const DaemonProcess& daemon, const Key& key, uint32_t wait_ms,
                       grpc::Status* status_out = nullptr)
{
  pb::BuildRequest request;
  request.set_kernel(std::get<0>(key));
  request.mutable_selection()->set_target(std::get<1>(key));
  request.mutable_selection()->set_mode(std::get<2>(key));
  request.set_wait_budget_ms(wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) +
                       std::chrono::seconds(20));
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  if (status_out) {
    *status_out = status;
  }
  return reply;
}

const std::vector<Key>& keys()
{
  static const std::vector<Key> all = {
      {"d4r_example_layer", "gfx1100", pb::MODE_FAST},
      {"d4r_example_layer", "gfx1201", pb::MODE_FAST},
      {"d4r_example_layer", "gfx1101", pb::MODE_ACCURACY},
      {"d4r_example_accuracy", "gfx1100", pb::MODE_ACCURACY},
      {"d4r_example_accuracy", "gfx1200", pb::MODE_FAST},
      {"d4r_example_wave64", "gfx1102", pb::MODE_FAST},
  };
  return all;
}

int trials()
{
  const char* text = std::getenv("D4R_FAULT_TRIALS");
  return text != nullptr ? std::max(1, std::atoi(text)) : 6;
}

// The object served for `key` is whole (its bytes hash to the digest it is served with, its size
// is the one stated) and is that key's: a code object for the key's target whose metadata names
// the key's kernel. (Builds are not byte-reproducible across daemons: the scratch paths differ, so
// a reference build's digest cannot be the check.)
void expect_the_keys_object(const pb::ResolveReply& reply, const Key& key)
{
  const std::string& data = reply.object().data();
  EXPECT_EQ(static_cast<int64_t>(data.size()), reply.object().size());
  Sha256 digest = sha256(data);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(digest.data()), digest.size()),
            reply.object().sha256())
      << "served bytes are not the object's";
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(
      {reinterpret_cast<const std::byte*>(data.data()), data.size()}, std::get<0>(key));
  ASSERT_TRUE(meta.has_value()) << std::get<0>(key) << ": " << meta.error().message;
  EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--" + std::get<1>(key));
  EXPECT_EQ(reply.mode(), std::get<2>(key));
}

// One query's single text column over a mode's index, opened as another process would.
std::vector<std::string> query_index(const std::filesystem::path& index, const std::string& sql)
{
  std::vector<std::string> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(index.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << index << ": " << sqlite3_errmsg(db);
    sqlite3_close(db);
    return rows;
  }
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  while (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(statement, 0);
    rows.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return rows;
}

std::filesystem::path object_file(const std::filesystem::path& mode_root, const std::string& hex)
{
  return mode_root / "objects" / hex.substr(0, 2) / hex.substr(2);
}

// The index a killed daemon left, as the next one finds it: SQLite's integrity check passes and
// every row's object file is there with the row's size.
void expect_a_consistent_index(const std::filesystem::path& cache_dir)
{
  for (const char* mode : {"fast", "accuracy"}) {
    const std::filesystem::path root = cache_dir / mode;
    if (!std::filesystem::exists(root / "index.sqlite")) {
      continue;
    }
    EXPECT_EQ(query_index(root / "index.sqlite", "PRAGMA integrity_check"),
              std::vector<std::string>{"ok"})
        << mode;
    for (const std::string& row :
         query_index(root / "index.sqlite", "SELECT lower(hex(digest)) || ' ' || size FROM entries")) {
      const std::string hex = row.substr(0, row.find(' '));
      const auto size = static_cast<std::uintmax_t>(std::stoll(row.substr(row.find(' ') + 1)));
      std::error_code error;
      EXPECT_EQ(std::filesystem::file_size(object_file(root, hex), error), size)
          << mode << " row names " << hex << ": " << error.message();
    }
  }
}

// What the daemon's sweep (housekeeping.hpp) leaves once every leftover is old enough: no
// temporary file, no build scratch folder, no object file that no row or trash entry names.
void expect_no_leftovers_after_a_sweep(const std::filesystem::path& cache_dir)
{
  {
    Expected<std::unique_ptr<cache::Cache>> cache =
        cache::Cache::open(cache::CacheOptions{.root = cache_dir});
    ASSERT_TRUE(cache.has_value()) << cache.error().message;
    daemon::ModuleStore modules(cache_dir / "modules", int64_t{64} << 20);
    daemon::HousekeepingLimits limits;
    limits.stale_after = std::chrono::seconds(0);
    daemon::HousekeepingReport report = daemon::sweep_cache_root(**cache, modules, limits);
    EXPECT_TRUE(report.errors.empty()) << report.errors.front();
    std::printf("faults: the final sweep removed %lld files and %lld scratch folders\n",
                static_cast<long long>(report.cache_files),
                static_cast<long long>(report.scratch_folders));
  }
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir / "builds", error)) {
    ADD_FAILURE() << "left after the sweep: " << entry.path();
  }
  for (const char* mode : {"fast", "accuracy"}) {
    const std::filesystem::path root = cache_dir / mode;
    for (const auto& entry : std::filesystem::directory_iterator(root / "tmp", error)) {
      ADD_FAILURE() << "left after the sweep: " << entry.path();
    }
    if (!std::filesystem::exists(root / "index.sqlite")) {
      continue;
    }
    std::set<std::string> named;
    for (const char* sql : {"SELECT lower(hex(digest)) FROM entries",
                            "SELECT lower(hex(digest)) FROM trash"}) {
      for (const std::string& hex : query_index(root / "index.sqlite", sql)) {
        named.insert(object_file(root, hex).string());
      }
    }
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(root / "objects", error)) {
      if (entry.is_regular_file()) {
        EXPECT_TRUE(named.contains(entry.path().string())) << "no row names " << entry.path();
      }
    }
  }
}

// The live compile workers the daemon started itself (its children named d4r-kernel-worker).
std::vector<pid_t> workers_of(pid_t daemon)
{
  std::vector<pid_t> workers;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t open = text.find('(');
    size_t close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 >= text.size()) {
      continue;
    }
    // "pid (comm) state ppid ...": comm is cut to 15 characters.
    const std::string comm = text.substr(open + 1, close - open - 1);
    char state = text[close + 2];
    pid_t parent = static_cast<pid_t>(std::atol(text.c_str() + close + 4));
    if (parent == daemon && state != 'Z' && comm.starts_with("d4r-kernel-work")) {
      workers.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return workers;
}

// Waits up to `within` for a worker of `daemon` and kills one of them with SIGKILL, as the OOM
// killer would; false when none ran in that time.
bool kill_a_worker(const DaemonProcess& daemon, std::chrono::milliseconds within,
                   std::mt19937& random)
{
  const auto until = std::chrono::steady_clock::now() + within;
  do {
    std::vector<pid_t> workers = workers_of(daemon.pid());
    if (!workers.empty()) {
      return ::kill(workers[random() % workers.size()], SIGKILL) == 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

size_t files_under(const std::filesystem::path& root)
{
  size_t count = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root, error)) {
    count += entry.is_regular_file() ? 1 : 0;
  }
  return count;
}

void purge_everything(const DaemonProcess& daemon)
{
  pb::PurgeRequest request;
  request.set_force(true);
  pb::PurgeReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  grpc::Status status = stub_of(daemon)->Purge(&context, request, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
}

// What one trial does besides starting builds of every key.
enum class Trial {
  kill_daemon,             // kill -9 of the daemon at a random moment
  kill_worker_then_daemon, // a worker first, then the daemon
  kill_worker,             // a worker only: every build still answers with its key's object
};

TEST(Faults, KillNineDuringBuildsNeverServesAWrongOrDamagedObject)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.native_dir = std::filesystem::path();
  options.recipes_dir = shipped_recipes();
  std::mt19937 random(20261201);
  int served = 0;
  int daemon_kills = 0;
  int worker_kills = 0;
  int served_after_worker_kills = 0;
  for (int trial = 0; trial < trials(); ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    auto daemon = std::make_unique<DaemonProcess>(options);
    ASSERT_TRUE(daemon->start());
    // After the previous kill: whatever the cache serves is the key's own object, whole.
    for (const Key& key : keys()) {
      pb::ResolveReply reply = build(*daemon, key, 1);
      if (reply.outcome() != pb::ResolveReply::READY) {
        continue; // not built yet, or being built again: never wrong
      }
      ++served;
      expect_the_keys_object(reply, key);
    }
    // Every build of this trial starts from nothing: the kills fall in builds and cache writes,
    // not in an idle daemon serving what earlier trials built.
    purge_everything(*daemon);
    const auto trial_kind = static_cast<Trial>(random() % 3);
    const uint32_t wait_ms = trial_kind == Trial::kill_worker ? 120000 : 30000;
    // Builds of every key in flight, then a kill at a random moment of them.
    std::vector<pb::ResolveReply> replies(keys().size());
    std::vector<std::thread> askers;
    for (size_t i = 0; i < keys().size(); ++i) {
      askers.emplace_back([&daemon, &replies, i, wait_ms] {
        grpc::Status ignored;
        replies[i] = build(*daemon, keys()[i], wait_ms, &ignored);
      });
    }
    if (trial_kind != Trial::kill_daemon) {
      const auto within = std::chrono::milliseconds(random() % 1500);
      worker_kills += kill_a_worker(*daemon, within, random) ? 1 : 0;
    }
    if (trial_kind == Trial::kill_worker) {
      for (std::thread& asker : askers) {
        asker.join();
      }
      for (size_t i = 0; i < keys().size(); ++i) {
        EXPECT_EQ(replies[i].outcome(), pb::ResolveReply::READY)
            << std::get<0>(keys()[i]) << ": " << replies[i].reason();
        if (replies[i].outcome() == pb::ResolveReply::READY) {
          ++served_after_worker_kills;
          expect_the_keys_object(replies[i], keys()[i]);
        }
      }
      ASSERT_EQ(daemon->stop(), 0);
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 1500));
    daemon->send_signal(SIGKILL);
    ++daemon_kills;
    for (std::thread& asker : askers) {
      asker.join();
    }
    (void)daemon->stop(); // reaps it
    expect_a_consistent_index(daemon->cache_dir());
  }
  // The last restart serves every key, each its own object.
  DaemonProcess last(options);
  ASSERT_TRUE(last.start());
  for (const Key& key : keys()) {
    pb::ResolveReply reply = build(last, key, 120000);
    ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
    expect_the_keys_object(reply, key);
  }
  std::printf("faults: %d trials, %d daemon kills, %d worker kills; %d objects served from a "
              "killed daemon's cache and %d by a daemon whose worker was killed, each checked\n",
              trials(), daemon_kills, worker_kills, served, served_after_worker_kills);
  // A worker killed from outside says nothing about its input.
  EXPECT_EQ(files_under(last.cache_dir() / "failures"), 0u);
  ASSERT_EQ(last.stop(), 0);
  expect_no_leftovers_after_a_sweep(last.cache_dir());
}

} // namespace
} // namespace d4r::testing
