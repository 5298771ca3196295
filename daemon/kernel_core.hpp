#pragma once
// The daemon's logic, free of gRPC: what Resolve, Prepare, PutModule, Status, Import, List and
// Purge do. Handlers (kernel_service.cpp) convert protobuf to these types and back (wire.cpp);
// tests call the core directly, without a server.

#include "cache/cache.hpp"
#include "cache/launch_metadata.hpp"
#include "cache/tier.hpp"
#include "cache/tier_chain.hpp"
#include "compiler/recipe.hpp"
#include "daemon/build_service.hpp"
#include "daemon/change_watch.hpp"
#include "daemon/config.hpp"
#include "daemon/counters.hpp"
#include "daemon/housekeeping.hpp"
#include "daemon/module_store.hpp"
#include "daemon/shared_builds.hpp"
#include "daemon/release/release_catalog.hpp"
#include "daemon/release_export.hpp"
#include "daemon/result_signer.hpp"
#include "daemon/single_flight.hpp"
#include "daemon/telemetry.hpp"
#include "daemon/upload_budget.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace d4r::daemon {

// The requesting game's switches; unset fields take the daemon's configuration.
struct SelectionQuery {
  std::string target; // empty: the detected GPU
  std::optional<Mode> mode;
  std::optional<bool> fp8_native;
  std::optional<bool> native_swin_encoders;
};

struct EffectiveSelection {
  std::string arch;
  Mode mode = Mode::fast;
  bool fp8_native = true;
  bool native_swin_encoders = true;
};

struct ResolveQuery {
  uint64_t module_hash = 0;
  std::string kernel;
  SelectionQuery selection;
  bool accept_path = false;
  std::chrono::milliseconds wait_budget{0}; // 0: the daemon's default
  bool background = false;                  // warm-up work: queued behind a game's requests
  // The client copies the PTX module's variables into the object's before each launch; without
  // it an object with host variables is not served (Counter::not_found_host_variables).
  bool mirrors_host_variables = false;
  // The client's cuTensorMapEncode* writes our tensor map layout; without it an object that reads
  // tensor maps is not served (Counter::not_found_tensor_maps): given NVIDIA's map it traps.
  bool writes_d4r_tensor_maps = false;
  // The client read the object of this digest, which an answer named by path, and its bytes did
  // not match: checked again before anything is served.
  std::optional<Sha256> damaged;
  std::string game; // the game's executable name, for telemetry only (telemetry.hpp)
  // The caller's RPC deadline (no wait goes past it, whatever the budget) and whether it went
  // away (a wait ends within k_cancel_poll once it does), so that a client that gave up does not
  // hold a request thread for the rest of a 30-minute Build budget.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  Cancelled cancelled;
};

enum class Outcome { ready, not_found, pending, rejected };

// What a READY path answer served from the cache rests on, so that it can be given again without
// answering anew (KernelCore::still_ready): the index row as its lookup read it (with its
// LookupStamp) and the release files the catalog judged it on. `quiet_since` and `checked_at` are
// the last check by stat that held: the ChangeWatch generation read before it began (0: none
// yet, or its paths are not watched) and when it ran.
struct ReadyCheck {
  Mode mode = Mode::fast;
  cache::Hit hit;
  release::FileProbes release;
  mutable std::atomic<uint64_t> quiet_since{0};
  mutable std::atomic<std::chrono::steady_clock::rep> checked_at{0};
};

struct ResolveAnswer {
  Outcome outcome = Outcome::not_found;
  Counter counter = Counter::not_found_error; // why, for status and the e2e tests
  std::string reason;
  std::string target; // the folder target the object came from ("gfx1201-fp8")
  Mode mode = Mode::fast;
  Sha256 digest{};
  int64_t size = 0;
  std::filesystem::path object_path;   // set when the query accepted a path
  std::vector<std::byte> object_bytes; // set otherwise
  cache::LaunchMetadata metadata;      // set on a READY answer
  // Set on a READY answer by path of a release object found in the cache: it may be remembered.
  std::shared_ptr<const ReadyCheck> check;
  // Telemetry (miss_reason.hpp): why the store had no object, when this answer built or imported
  // one; and whether this request started the build.
  std::optional<MissReason> cache_miss;
  bool started_build = false;
};

struct PrepareQuery {
  uint64_t module_hash = 0;
  std::optional<Sha256> module_sha256;
  std::vector<std::string> entries;
  SelectionQuery selection;
  std::string game; // as in ResolveQuery: its warm-ups' builds count for it
};

struct PrepareAnswer {
  bool need_module_bytes = false;
  std::vector<std::string> servable_entries;
};

// `d4r-kernel pin` / `unpin` (kernel_core_release.cpp): entries the rule matches now, whether an
// unpin found its rule, and every pin of the modes asked afterwards.
// A stored object and this daemon's signature over it and its key (trust/object_signature.hpp).
struct SignedObject {
  cache::TierObject object;
  std::string signature; // trust::to_text(ObjectSignature)
};

struct PinAnswer {
  int64_t matched = 0;
  bool removed = false;
  std::vector<std::pair<Mode, cache::PinRule>> pins;
};

struct ImportSummary {
  int64_t imported = 0;
  int64_t already_present = 0;
  std::vector<std::string> problems;
};

struct StatusSnapshot {
  std::string detected_target;
  std::string native_dir;
  std::chrono::milliseconds uptime{0};
  std::vector<cache::StoreStats> stores;
  std::map<std::string, int64_t> counters;
  BuildStats builds;
  std::vector<std::string> recipes;
  std::map<std::string, std::string> toolchains; // target -> fingerprint
  TelemetrySnapshot telemetry;
  std::vector<cache::TierHealth> tiers; // the local store first
};

class KernelCore {
public:
  // detected_target may be empty when no GPU was found: requests must then name their target.
  [[nodiscard]] static Expected<std::unique_ptr<KernelCore>> create(const DaemonConfig& config,
                                                                    std::string detected_target);

  [[nodiscard]] ResolveAnswer resolve(const ResolveQuery& query);
  // Whether an answer that carried `check` is still the one resolve would give: the release files
  // read as they did (two or three stats) and the cache row is current (Cache::still_current: no
  // write since, the object file there). Where nothing on those files' paths changed since the
  // last such check held (ChangeWatch), less than a second ago, only this process's own writes
  // are looked at: no stat, no index read. True counts it as a READY answer and records the use.
  [[nodiscard]] bool still_ready(const ReadyCheck& check, std::string_view game = {});
  // `d4r-kernel build`: the recipe's object for a target and mode, for any module.
  [[nodiscard]] ResolveAnswer build(const ResolveQuery& query);
  [[nodiscard]] Expected<PrepareAnswer> prepare(const PrepareQuery& query);
  // `d4r-kernel warm` (warm_jobs.hpp; defined in kernel_core_warm.cpp): the entries of a module
  // that resolve would serve for the selection, found as prepare() finds them but with no side
  // effect, and whether a ptx recipe among them needs the module's upload.
  [[nodiscard]] Expected<PrepareAnswer> warm_plan(const PrepareQuery& query) const;
  // Builds that run at once for each priority (build_pool.hpp); 1 without recipes.
  [[nodiscard]] int build_threads() const;
  [[nodiscard]] Expected<int64_t> put_module(uint64_t module_hash, const Sha256& digest,
                                             std::string_view ptx);
  // Before a PutModule body waits for a request thread: its share of --upload-memory, held until
  // the lease goes (resource_exhausted "upload memory: ..." past it, counted).
  [[nodiscard]] Expected<std::shared_ptr<UploadBudget::Lease>> admit_upload(int64_t bytes);
  // The Prepare (and its servable entries) that asked for a module now stored, once: the caller
  // warms them as it does after Prepare.
  [[nodiscard]] std::optional<std::pair<PrepareQuery, std::vector<std::string>>>
  take_awaited_warmup(uint64_t module_hash);
  [[nodiscard]] StatusSnapshot status() const;
  [[nodiscard]] Expected<ImportSummary> import_release(const std::filesystem::path& directory);
  // Defined in kernel_core_release.cpp: export (release_export.hpp), pins, filtered purges.
  [[nodiscard]] Expected<ExportSummary> export_release(const ExportOptions& options);
  [[nodiscard]] Expected<PinAnswer> pin(std::optional<Mode> mode, const cache::PinRule& rule,
                                        bool unpin);
  [[nodiscard]] Expected<cache::PurgeResult> purge_where(std::optional<Mode> mode,
                                                         const cache::PurgeFilter& filter);
  [[nodiscard]] Expected<std::vector<std::pair<Mode, cache::Entry>>> list(std::optional<Mode> mode);
  [[nodiscard]] Expected<cache::PurgeResult> purge(std::optional<Mode> mode);

  // Appends a farther tier (an upstream daemon, a shared store) after the local store and those
  // added before: asked on a local miss before a build, given each new build. The core knows it
  // only as a cache::Tier. Call before the core serves.
  void add_tier(std::unique_ptr<cache::Tier> tier, cache::TierPolicy policy = {});

  // What a build server serves another daemon's upstream tier (kernel_core_fetch.cpp): the object
  // its local store holds for a key text, signed with its key (result_signer.hpp). Only the local
  // store is asked, never this daemon's own farther tiers: two daemons that name each other as
  // upstream must not ask each other in a loop. Empty when the store has no object for the key.
  [[nodiscard]] Expected<std::optional<SignedObject>> fetch_signed(std::string_view key_text);

  // After the tiers are added: builds other hosts offer through a tier that shares jobs are
  // taken and built here while a worker is idle (shared_builds.hpp). Nothing without recipes or
  // such a tier.
  void share_builds();

  // Stops the builds (BuildService::stop) so that a daemon asked to stop stops within seconds.
  void stop_builds();

  [[nodiscard]] Counters& counters() { return m_counters; }
  // The cache itself, for the hook's own compiled modules (compiled_store.hpp), which share it.
  [[nodiscard]] cache::Cache& cache() { return *m_cache; }
  [[nodiscard]] const DaemonConfig& config() const { return m_config; }
  [[nodiscard]] const std::string& detected_target() const { return m_detected_target; }
  // One sweep of the cache root's leftovers (housekeeping.hpp), logged; the daemon runs it a
  // minute after start and then hourly on a thread of its own.
  HousekeepingReport sweep();

private:
  KernelCore(DaemonConfig config, std::string detected_target, std::unique_ptr<cache::Cache> cache,
             std::vector<compiler::Recipe> recipes);

  [[nodiscard]] Expected<EffectiveSelection> effective_selection(const SelectionQuery& query) const;
  [[nodiscard]] Expected<ResolveAnswer> resolve_checked(const ResolveQuery& query);
  [[nodiscard]] Expected<ResolveAnswer> serve_recipe(const ResolveQuery& query,
                                                     const EffectiveSelection& selection,
                                                     const compiler::Recipe& recipe,
                                                     bool check_module);
  [[nodiscard]] Expected<ResolveAnswer> built_answer(const ResolveQuery& query,
                                                     const EffectiveSelection& selection,
                                                     const BuildAnswer& built);
  [[nodiscard]] ResolveAnswer finish(Expected<ResolveAnswer> answer);
  void note_answer(const ResolveQuery& query, const ResolveAnswer& answer); // telemetry
  [[nodiscard]] bool servable(const std::string& kernel, uint64_t module_hash,
                              const EffectiveSelection& selection) const;
  [[nodiscard]] Expected<ResolveAnswer> serve_release_object(const ResolveQuery& query,
                                                             const EffectiveSelection& selection,
                                                             const release::CatalogAnswer& found);
  [[nodiscard]] Expected<cache::Hit> import_object(Mode mode, const cache::CacheKey& key,
                                                   const std::filesystem::path& path,
                                                   std::vector<std::byte> bytes);
  [[nodiscard]] Expected<ResolveAnswer> ready_answer(Mode mode, const std::string& target,
                                                     const cache::Hit& hit,
                                                     const ResolveQuery& query);
  // The query's wait budget, or the daemon's default (--wait-ms) when it names none; never past
  // the caller's deadline.
  [[nodiscard]] std::chrono::milliseconds wait_budget_of(const ResolveQuery& query) const;
  [[nodiscard]] bool upload_awaited(uint64_t module_hash) const;
  [[nodiscard]] Expected<Sha256> release_digest(const std::filesystem::path& path,
                                                const std::string& identity,
                                                std::vector<std::byte>* bytes_out);

  DaemonConfig m_config;
  std::string m_detected_target;
  Telemetry m_telemetry; // before the cache and builds, which report to it
  std::unique_ptr<cache::Cache> m_cache;
  cache::TierChain m_tiers; // the local store (m_cache) first, then what add_tier added
  std::unique_ptr<cache::Tier> m_local_tier; // the local store alone, for fetch_signed
  ResultSigner m_signer;
  std::unique_ptr<release::ReleaseCatalog> m_catalog; // null without a native dir
  std::unique_ptr<ChangeWatch> m_changes; // null without inotify: every check stats
  std::unique_ptr<BuildService> m_builds;             // null without recipes
  ModuleStore m_modules;
  UploadBudget m_uploads;
  Counters m_counters;
  SingleFlight<Expected<ResolveAnswer>> m_flights;
  std::chrono::steady_clock::time_point m_started;

  // Memos of facts that only change when a file changes: the content digest of a release object
  // (by path and stat identity), digests this process has verified, and contract rejections.
  mutable std::mutex m_memo_mutex;
  std::map<std::string, Sha256> m_release_digests;
  std::set<Sha256> m_verified;
  std::map<std::string, std::string> m_rejections;
  // Modules a Prepare asked the client to upload (FNV-1a 64 -> when, and the Prepare with its
  // servable entries): until the upload lands a build that needs one answers PENDING rather than
  // NOT_FOUND, and when it lands the entries are warmed as the Prepare would have.
  struct AwaitedModule {
    std::chrono::steady_clock::time_point asked;
    PrepareQuery prepare;
    std::vector<std::string> entries;
  };
  std::map<uint64_t, AwaitedModule> m_awaited_modules;

  // Last, so that its thread stops before anything it sweeps goes.
  std::unique_ptr<Housekeeper> m_housekeeper;
  std::unique_ptr<SharedBuildTaker> m_taker; // likewise: it builds through m_builds
};

} // namespace d4r::daemon
