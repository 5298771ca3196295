#pragma once
// On-demand builds of native replacements from the recipes in kernels/: which recipe serves a
// kernel, the cache key of its object (toolchain and recipe fingerprints included), one build per
// key however many ask (single-flight), a bounded build pool where a game's request goes before
// background work, a wait budget after which the caller hears PENDING while the build goes on,
// and a negative cache so that a failing build is not retried until its inputs change.

#include "cache/cache.hpp"
#include "cache/tier_chain.hpp"
#include "compiler/recipe.hpp"
#include "compiler/translate/translator_fingerprint.hpp"
#include "compiler/worker/toolchains.hpp"
#include "daemon/build_pool.hpp"
#include "daemon/negative_cache.hpp"
#include "daemon/single_flight.hpp"
#include "daemon/telemetry.hpp"
#include "daemon/task_pool.hpp"
#include "daemon/worker_runner.hpp"
#include "trust/rebuild_check.hpp"
#include "trust/rebuild_sample.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace d4r::daemon {

struct BuildOptions {
  int threads = 1;                  // concurrent workers
  std::string backend;              // "" = per target: comgr where it knows the ISA, else llvm
  std::filesystem::path clang;      // the clang driver for HIP sources
  std::filesystem::path worker;     // d4r-kernel-worker
  std::filesystem::path scratch;    // private folder for worker jobs
  WorkerLimits limits;
  // Builds waiting for a worker, at most: past it a new build is REJECTED ("build queue full")
  // rather than queued, so a flood of distinct kernels cannot grow the queue (and the memory of
  // its jobs) without end. Background builds (warm-ups) may fill only three quarters of it, so a
  // game's own requests always find room.
  int64_t max_queued = 256;
  // Part of every ptx recipe's cache key: the built translator's (translator_fingerprint.hpp).
  std::string translator_fingerprint{compiler::translate::translator_fingerprint()};
  // Unset: the worker is asked at start-up (d4r-kernel-worker --toolchains). Tests whose worker
  // is a stand-in set the table here.
  std::optional<std::vector<compiler::TargetToolchain>> toolchains;
  // Told of each finished build and of what the store had (miss reasons); null: nothing told.
  Telemetry* telemetry = nullptr;
  // The tiers, the local store first (tier_chain.hpp): on a local miss the farther ones are asked
  // before a build, within the caller's budget, and each new build is offered to them. Null, or
  // the local store alone: builds only.
  cache::TierChain* tiers = nullptr;
  // The share of the objects a farther tier serves that are built here too and compared byte for
  // byte (trust/rebuild_sample.hpp), in the background: builds are deterministic, so a difference
  // distrusts that tier and this machine's object replaces the one it served. 0: none.
  double verify_remote_sample = 0;
};

// The PTX module a ptx recipe builds: the client's upload in the daemon's module store.
struct ModuleSource {
  uint64_t hash = 0; // FNV-1a 64
  std::filesystem::path path;
};

enum class BuildState { ready, pending, failed, rejected };

struct BuildAnswer {
  BuildState state = BuildState::failed;
  std::optional<cache::Hit> hit; // ready
  std::string reason;            // pending, failed or rejected
  std::optional<MissReason> miss; // the store had no object: why (telemetry)
  bool started = false;           // this call queued the build
};

struct BuildRecord {
  std::string recipe;
  std::string kernel;
  std::string target;
  Mode mode = Mode::fast;
  std::string backend;
  std::string state; // "queued", "running", "done", "failed"
  std::string reason;
  int64_t elapsed_ms = 0;
};

struct BuildStats {
  int64_t queued = 0;
  int64_t running = 0;
  int64_t done = 0;
  int64_t elsewhere = 0; // of done: built by another machine (a build server, a host on Redis)
  int64_t failed = 0;
  int64_t negative_hits = 0; // requests answered from the negative cache
  int64_t rejected_queue_full = 0; // builds not queued: the queue held max_queued
  std::vector<BuildRecord> recent; // running first, then the latest finished (at most 32)
};

class BuildService {
public:
  BuildService(cache::Cache& cache, std::vector<compiler::Recipe> recipes, BuildOptions options);
  ~BuildService();
  BuildService(const BuildService&) = delete;
  BuildService& operator=(const BuildService&) = delete;

  // The recipe whose kernels or patterns name `kernel`, or null.
  [[nodiscard]] const compiler::Recipe* recipe_for(std::string_view kernel) const;

  // The object for (recipe, kernel, target, mode): from the cache, or built. Waits at most
  // `wait_budget` for a build; past it the answer is pending and the build goes on. A build that
  // would have to queue behind max_queued others is not started: the answer is rejected. A caller
  // cancelled while it waits hears pending at once (within k_cancel_poll); the build goes on.
  // A ptx recipe builds the game's module: `module` names it (its FNV-1a 64 goes into the key).
  [[nodiscard]] Expected<BuildAnswer> obtain(const compiler::Recipe& recipe, std::string_view kernel,
                                             const std::string& target, Mode mode,
                                             Priority priority, std::chrono::milliseconds wait_budget,
                                             const std::optional<ModuleSource>& module = std::nullopt,
                                             const Cancelled& cancelled = {});

  [[nodiscard]] BuildStats stats() const;
  [[nodiscard]] std::string toolchain_of(const std::string& target) const;
  [[nodiscard]] std::vector<std::string> recipe_names() const;
  // Builds that run at once for each priority (BuildOptions::threads, build_pool.hpp).
  [[nodiscard]] int threads() const { return m_pool.threads(); }
  // Whether a build started now would find a worker free (nothing queued, one not running).
  [[nodiscard]] bool has_idle_worker() const;
  void forget_failures(); // after a purge
  // Drops the builds nobody has started and kills the running ones: their waiters get failed
  // answers at once, and nothing is remembered of them. For a daemon asked to stop; not undone.
  void stop();

private:
  using BuildFlights = SingleFlight<Expected<cache::Hit>>;
  struct Job;
  [[nodiscard]] Expected<cache::CacheKey> key_for(const compiler::Recipe& recipe,
                                                  std::string_view kernel, const std::string& target,
                                                  uint64_t module_hash) const;
  [[nodiscard]] std::optional<std::string> queue_full(Priority priority) const;
  // The object of `job`'s key from a farther tier, backfilled into the local store, or nullopt.
  // A sample of what farther tiers serve is checked against a build here (check_remote).
  [[nodiscard]] std::optional<cache::Hit> fetch(const Job& job,
                                                std::chrono::steady_clock::time_point deadline);
  // The object of `job`'s key built by a build server among the farther tiers (asked before a
  // worker here is), fetched and backfilled as fetch() does, or nullopt: built here.
  [[nodiscard]] std::optional<cache::Hit> build_elsewhere(const Job& job);
  // What a farther tier found, once it is in the local store: the hit to serve.
  [[nodiscard]] std::optional<cache::Hit> served(const Job& job, std::optional<cache::ChainHit> found);
  // The check every farther tier's object passes before it is taken (its launch contract).
  [[nodiscard]] static cache::TierChain::Accept acceptance(const Job& job);
  void check_remote(const Job& job, const cache::ChainHit& hit);
  void run_check(const std::shared_ptr<Job>& job);
  void publish(Mode mode, const cache::Hit& hit, std::span<const std::byte> object);
  // Queues a job whose flight this caller leads (its queue slot already taken). A game's build
  // that must wait for a worker is also offered to the hosts sharing a tier (shared_builds.hpp).
  void submit(const std::shared_ptr<Job>& job, Priority priority);
  // The sharing thread (started by the first job to offer): offers the jobs waiting here to
  // the other hosts, the newest first (the ones this host's workers reach last, so that the
  // hosts work from both ends of the queue), and watches the farther tiers for the objects of
  // those offered until this host's worker starts them: one found first answers its job's
  // waiters at once (built elsewhere) and the worker skips the job.
  void share(const std::stop_token& stop);
  [[nodiscard]] bool offer(const Job& job);
  // The object of an offered job, found built elsewhere: its waiters answered, unless the job
  // has started here meanwhile.
  void answer_offered(const std::shared_ptr<Job>& job, cache::Hit hit);
  void run_job(const std::shared_ptr<Job>& job);
  struct Compiled;
  [[nodiscard]] Expected<Compiled> compile(const Job& job);
  struct Built {
    cache::Hit hit;
    bool elsewhere = false; // by another machine, fetched
  };
  // The job's object: built by a build server when one is asked and does, else by the host
  // sharing a tier that is building it now (waited for), else here (build_here, under the
  // shared tiers' claim on the key).
  [[nodiscard]] Expected<Built> build(const Job& job);
  [[nodiscard]] Expected<cache::Hit> build_here(const Job& job);
  void record(const Job& job, const std::string& state, const std::string& reason);

  cache::Cache& m_cache;
  std::vector<compiler::Recipe> m_recipes;
  BuildOptions m_options;
  NegativeCache m_negative;
  WorkerRunner m_runner;
  std::map<std::string, std::string> m_backend_of_target; // target -> backend name
  std::map<std::string, std::string> m_toolchain_of_target; // target -> fingerprint

  std::map<std::string, std::string> m_recipe_fingerprints; // recipe name -> digest of its inputs
  BuildPool m_pool; // the build workers: a game's request never waits for background work

  BuildFlights m_flights; // key text -> build in progress (single_flight.hpp)
  // The counters and the recent builds: the one lock of this class.
  mutable std::mutex m_mutex;
  int64_t m_queued = 0;
  int64_t m_running = 0;
  int64_t m_done = 0;
  int64_t m_elsewhere = 0;
  int64_t m_failed = 0;
  int64_t m_negative_hits = 0;
  int64_t m_rejected_queue_full = 0;
  std::deque<BuildRecord> m_recent;
  std::optional<trust::RebuildSampler> m_sampler; // unset: remote objects are not rebuilt here
  std::map<std::string, std::unique_ptr<trust::UpstreamTrust>> m_trust; // by tier name
  std::atomic<bool> m_stopping{false};
  // Jobs to offer (in the order they came) and those offered, watched: the sharing thread's,
  // under m_mutex. At most k_max_offers of each (more are built here, as they would have been).
  std::vector<std::shared_ptr<Job>> m_to_offer;
  std::vector<std::shared_ptr<Job>> m_offered;
  std::condition_variable m_offer_wake;
  static constexpr size_t k_max_offers = 64;
  // Last: it uses every member above.
  std::jthread m_sharing;
};

} // namespace d4r::daemon
