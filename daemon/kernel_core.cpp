#include "daemon/kernel_core.hpp"

#include "compiler/launch_meta.hpp"
#include "cache/local_tier.hpp"
#include "daemon/build_jobs.hpp"
#include "daemon/launch_record.hpp"
#include "daemon/object_checks.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <thread>

namespace d4r::daemon {

namespace {

// How long after a Prepare asked for a module its upload is expected (the client sends it in the
// background, and gives up after 30 s).
constexpr auto k_upload_wait = std::chrono::seconds(30);

} // namespace

namespace {

constexpr const char* k_prebuilt_toolchain = "prebuilt";

ResolveAnswer not_served(Outcome outcome, Counter counter, std::string reason)
{
  ResolveAnswer answer;
  answer.outcome = outcome;
  answer.counter = counter;
  answer.reason = std::move(reason);
  return answer;
}

std::string folder_target_of(const release::SelectedDirectory& directory, const std::string& arch)
{
  return directory.folder_target.empty() ? arch : directory.folder_target;
}

std::string flight_key(const ResolveQuery& query, const EffectiveSelection& selection)
{
  return query.kernel + '|' + hash_to_hex(query.module_hash) + '|' + selection.arch + '|' +
         to_string(selection.mode) + '|' + (selection.fp8_native ? "fp8" : "nofp8") + '|' +
         (selection.native_swin_encoders ? "swin" : "noswin") + '|' +
         (query.accept_path ? "path" : "bytes") + '|' +
         (query.mirrors_host_variables ? "mirrors" : "nomirrors") + '|' +
         (query.writes_d4r_tensor_maps ? "tmaps" : "notmaps") + '|' +
         // Callers with other wait budgets must not share an answer: one may get PENDING where
         // the other would have waited. Builds are shared below, in BuildService.
         std::to_string(query.wait_budget.count()) + (query.background ? "|bg" : "");
}

Counter counter_of(release::Verdict verdict)
{
  switch (verdict) {
  case release::Verdict::allowed:
    return Counter::resolve_ready;
  case release::Verdict::not_listed:
    return Counter::not_found_not_listed;
  case release::Verdict::hash_mismatch:
    return Counter::not_found_hash_mismatch;
  case release::Verdict::wrong_origin:
    return Counter::rejected_wrong_origin;
  case release::Verdict::switched_off:
    return Counter::not_found_switched_off;
  }
  return Counter::not_found_error;
}

// What the release says when it does not serve a kernel: no folder, or the manifest's verdict.
ResolveAnswer release_verdict_answer(const release::CatalogAnswer& found, const EffectiveSelection& selection,
                                     const std::filesystem::path& root)
{
  if (!found.directory) {
    return not_served(Outcome::not_found, Counter::not_found_no_folder,
                      "release " + root.string() + " has no folder for " + selection.arch + " (" +
                          to_string(selection.mode) + ")");
  }
  release::Verdict verdict = found.authorization.verdict;
  if (verdict == release::Verdict::hash_mismatch) {
    spdlog::info("resolve: {}", found.authorization.reason);
  }
  Outcome outcome = verdict == release::Verdict::wrong_origin ? Outcome::rejected : Outcome::not_found;
  return not_served(outcome, counter_of(verdict), found.authorization.reason);
}

// A serve-time check, not part of the cache key: the object is the same for every client, only
// whether this client can launch it differs (it must mirror the host variables, write our tensor
// maps).
std::optional<ResolveAnswer> unmet_needs(const ResolveQuery& query,
                                         const Expected<cache::LaunchMetadata>& needs)
{
  if (query.background) {
    return std::nullopt; // warm-up work serves nobody: its answer is dropped
  }
  if (!needs) {
    return not_served(Outcome::not_found, Counter::not_found_error, needs.error().message);
  }
  if (!query.mirrors_host_variables && !needs->host_variables.empty()) {
    std::string listed;
    for (const cache::LaunchVariable& variable : needs->host_variables) {
      listed += (listed.empty() ? "" : ", ") + variable.name;
    }
    return not_served(Outcome::not_found, Counter::not_found_host_variables,
                      "host_variables: the object of kernel " + query.kernel +
                          " has module variables the host writes (" + listed +
                          "); the client does not mirror them");
  }
  if (!query.writes_d4r_tensor_maps && needs->tensor_map_layout != 0) {
    return not_served(Outcome::not_found, Counter::not_found_tensor_maps,
                      "tensor_maps: the object of kernel " + query.kernel +
                          " reads tensor maps in d4r's layout (tensor_map_layout.hpp); the client "
                          "does not say it writes that layout, and NVIDIA's map would trap");
  }
  return std::nullopt;
}

BuildOptions build_options(const DaemonConfig& config)
{
  BuildOptions options;
  int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (config.build_jobs > 0) {
    options.threads = config.build_jobs;
  } else {
    std::optional<int64_t> memory_max = cgroup_memory_max();
    options.threads = default_build_jobs(cores, memory_max, config.build_memory_bytes);
    if (memory_max && options.threads < cores) {
      spdlog::info("{} concurrent builds, not {}: the cgroup's memory.max of {} MiB holds {} of {} "
                   "MiB each (--build-jobs, --build-memory, or the unit's MemoryMax= change it)",
                   options.threads, cores, *memory_max >> 20, options.threads,
                   config.build_memory_bytes >> 20);
    }
  }
  options.backend = config.backend;
  options.clang = config.clang;
  options.worker = config.worker;
  options.scratch = config.cache_dir / "builds";
  options.limits.cpu = std::chrono::seconds(config.build_cpu_seconds);
  options.limits.wall = std::chrono::seconds(config.build_wall_seconds);
  options.limits.memory_bytes = config.build_memory_bytes;
  options.verify_remote_sample = config.verify_remote_sample;
  options.max_queued = config.max_queued_builds;
  return options;
}

} // namespace

Expected<std::unique_ptr<KernelCore>> KernelCore::create(const DaemonConfig& config,
                                                         std::string detected_target)
{
  cache::CacheOptions options;
  options.root = config.cache_dir;
  options.max_bytes_per_mode = config.cache_max_bytes;
  options.trash_grace = std::chrono::seconds(config.cache_trash_grace_seconds);
  TRY_ASSIGN(std::unique_ptr<cache::Cache> cache, cache::Cache::open(options));
  for (const std::string& note : cache->recovery_notes()) {
    spdlog::error("{}", note);
  }
  std::vector<compiler::Recipe> recipes;
  if (config.recipes_dir) {
    TRY_ASSIGN(recipes, compiler::load_recipes(*config.recipes_dir));
  }
  return std::unique_ptr<KernelCore>(
      new KernelCore(config, std::move(detected_target), std::move(cache), std::move(recipes)));
}

KernelCore::KernelCore(DaemonConfig config, std::string detected_target,
                       std::unique_ptr<cache::Cache> cache, std::vector<compiler::Recipe> recipes)
    : m_config(std::move(config)), m_detected_target(std::move(detected_target)),
      m_cache(std::move(cache)),
      m_tiers([](const std::string& line) { spdlog::warn("{}", line); }),
      m_local_tier(cache::make_local_tier(*m_cache)), m_signer(m_config.signing_key),
      m_modules(m_config.cache_dir / "modules", m_config.max_ptx_bytes),
      m_uploads(m_config.upload_memory_bytes),
      m_started(std::chrono::steady_clock::now())
{
  // Before any thread uses the cache: a damaged index found while serving is replaced at once.
  m_cache->on_index_replaced([this](Mode, const std::string& note) {
    m_counters.add(Counter::cache_index_replaced);
    spdlog::error("{}", note);
  });
  m_tiers.add(cache::make_local_tier(*m_cache));
  if (m_config.native_dir) {
    m_catalog = std::make_unique<release::ReleaseCatalog>(*m_config.native_dir);
  }
  m_changes = ChangeWatch::open();
  if (!recipes.empty()) {
    BuildOptions options = build_options(m_config);
    options.telemetry = &m_telemetry;
    options.tiers = &m_tiers;
    m_builds = std::make_unique<BuildService>(*m_cache, std::move(recipes), std::move(options));
  }
  // The trash is collected every half minute (or half its grace, if shorter): a purge's files
  // wait out their grace, not the hour between sweeps.
  const auto trash_every = std::clamp<std::chrono::seconds>(
      std::chrono::seconds(m_config.cache_trash_grace_seconds / 2), std::chrono::seconds(1),
      std::chrono::seconds(30));
  m_housekeeper = std::make_unique<Housekeeper>(
      [this] { (void)sweep(); }, std::chrono::minutes(1), std::chrono::hours(1),
      [this] {
        std::vector<std::string> errors;
        (void)collect_cache_trash(*m_cache, errors);
        for (const std::string& error : errors) {
          spdlog::warn("housekeeping: {}", error);
        }
      },
      trash_every);
}

std::chrono::milliseconds KernelCore::wait_budget_of(const ResolveQuery& query) const
{
  std::chrono::milliseconds budget = query.wait_budget.count() > 0
                                         ? query.wait_budget
                                         : std::chrono::milliseconds(m_config.default_wait_ms);
  if (query.deadline == std::chrono::steady_clock::time_point::max()) {
    return budget;
  }
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      query.deadline - std::chrono::steady_clock::now());
  return std::clamp(left, std::chrono::milliseconds(0), budget);
}

bool KernelCore::upload_awaited(uint64_t module_hash) const
{
  std::lock_guard lock(m_memo_mutex);
  auto found = m_awaited_modules.find(module_hash);
  return found != m_awaited_modules.end() &&
         std::chrono::steady_clock::now() - found->second.asked <= k_upload_wait;
}

std::optional<std::pair<PrepareQuery, std::vector<std::string>>>
KernelCore::take_awaited_warmup(uint64_t module_hash)
{
  std::lock_guard lock(m_memo_mutex);
  auto found = m_awaited_modules.find(module_hash);
  if (found == m_awaited_modules.end()) {
    return std::nullopt;
  }
  auto warmup = std::make_pair(std::move(found->second.prepare), std::move(found->second.entries));
  m_awaited_modules.erase(found);
  return warmup;
}

HousekeepingReport KernelCore::sweep()
{
  HousekeepingLimits limits;
  limits.max_module_bytes = m_config.modules_max_bytes;
  // A build's scratch folder lives as long as its worker at most.
  limits.stale_after = std::max<std::chrono::seconds>(
      limits.stale_after, std::chrono::seconds(2 * m_config.build_wall_seconds));
  HousekeepingReport report = sweep_cache_root(*m_cache, m_modules, limits);
  if (report.removed() > 0) {
    spdlog::info("housekeeping: removed {} unnamed objects and temp files, {} quarantined objects, "
                 "{} dead builds' folders, {} old failures, {} modules ({} MiB)",
                 report.cache_files, report.quarantine_files, report.scratch_folders,
                 report.failure_files, report.module_files, report.module_bytes >> 20);
  }
  for (const std::string& error : report.errors) {
    spdlog::warn("housekeeping: {}", error);
  }
  return report;
}

Expected<EffectiveSelection> KernelCore::effective_selection(const SelectionQuery& query) const
{
  EffectiveSelection selection;
  if (!query.target.empty()) {
    TRY_ASSIGN(selection.arch, validate_target(query.target));
  } else if (!m_detected_target.empty()) {
    selection.arch = m_detected_target;
  } else {
    return make_error(ErrorCode::invalid_argument,
                      "no gpu target: none was detected and the request names none");
  }
  selection.mode = query.mode.value_or(m_config.default_mode);
  selection.fp8_native = query.fp8_native.value_or(m_config.fp8_native);
  selection.native_swin_encoders = query.native_swin_encoders.value_or(m_config.native_swin_encoders);
  return selection;
}

ResolveAnswer KernelCore::resolve(const ResolveQuery& query)
{
  ResolveAnswer resolved = finish([&]() -> Expected<ResolveAnswer> {
    TRY(validate_kernel_name(query.kernel));
    TRY_ASSIGN(EffectiveSelection selection, effective_selection(query.selection));
    if (query.damaged) {
      // Checked once per process is not checked forever: the answer below verifies it again,
      // which quarantines a damaged object and drops its rows, so it is rebuilt, not named again.
      m_counters.add(Counter::client_damage_report);
      spdlog::warn("resolve: a client read object {} for kernel {} and it did not match its "
                   "digest; checking it again",
                   to_hex(*query.damaged), query.kernel);
      std::lock_guard lock(m_memo_mutex);
      m_verified.erase(*query.damaged);
    }
    // A request that joins another's flight waits for it no longer than its own budget.
    std::chrono::milliseconds budget = wait_budget_of(query);
    bool shared = false;
    std::optional<Expected<ResolveAnswer>> answer =
        m_flights.run(flight_key(query, selection), [&] { return resolve_checked(query); },
                      std::chrono::steady_clock::now() + budget, &shared, query.cancelled);
    if (!answer) {
      return not_served(Outcome::pending, Counter::pending,
                        "kernel " + query.kernel + ": another request for it is being answered");
    }
    if (shared && *answer) {
      (*answer)->started_build = false; // the leader's request started it
    }
    return std::move(*answer);
  }());
  note_answer(query, resolved);
  return resolved;
}

void KernelCore::note_answer(const ResolveQuery& query, const ResolveAnswer& answer)
{
  AnswerFacts facts;
  facts.mode = query.selection.mode.value_or(m_config.default_mode); // as effective_selection
  facts.game = query.game;
  facts.background = query.background;
  facts.counter = answer.counter;
  facts.reason = answer.reason;
  facts.cache_miss = answer.cache_miss;
  facts.started_build = answer.started_build;
  facts.bytes_served = answer.outcome == Outcome::ready ? answer.size : 0;
  m_telemetry.record_answer(facts);
}

namespace {

// How long a check by stat is trusted where nothing watched changed: what inotify does not report
// (change_watch.hpp) is seen within this.
constexpr auto k_full_check_every = std::chrono::seconds(1);

// The directories whose changes can change `check`'s answer: each release file's, the object's
// (its ancestors hold the index).
std::vector<std::filesystem::path> watched_directories(const ReadyCheck& check)
{
  std::vector<std::filesystem::path> directories{check.hit.object_path.parent_path()};
  for (const release::FileProbe& probe : check.release) {
    directories.push_back(std::filesystem::path(probe.path).parent_path());
  }
  return directories;
}

} // namespace

bool KernelCore::still_ready(const ReadyCheck& check, std::string_view game)
{
  const auto now = std::chrono::steady_clock::now();
  uint64_t generation = m_changes ? m_changes->generation() : 0;
  const bool quiet = generation != 0 && check.quiet_since.load() == generation &&
                     now - std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(
                               check.checked_at.load())) < k_full_check_every;
  if (!quiet && generation != 0) {
    // Watched before the stats: a change after them moves the generation past this one.
    for (const std::filesystem::path& directory : watched_directories(check)) {
      if (!m_changes->watch_path_to(directory)) {
        generation = 0;
        break;
      }
    }
  }
  if (!quiet && !release::probes_still_hold(check.release)) {
    return false;
  }
  const auto outside = quiet ? cache::Outside::unchanged : cache::Outside::look;
  Expected<bool> current = m_cache->still_current(check.mode, check.hit, outside);
  if (!current || !*current) {
    return false; // an error is the next lookup's to report
  }
  if (!quiet && generation != 0) {
    check.quiet_since.store(generation);
    check.checked_at.store(now.time_since_epoch().count());
  }
  m_counters.add(Counter::resolve_ready);
  m_telemetry.record_kept_hit(check.mode, game, check.hit.size);
  return true;
}

ResolveAnswer KernelCore::build(const ResolveQuery& query)
{
  ResolveAnswer answer = finish([&]() -> Expected<ResolveAnswer> {
    TRY(validate_kernel_name(query.kernel));
    TRY_ASSIGN(EffectiveSelection selection, effective_selection(query.selection));
    const compiler::Recipe* recipe = m_builds ? m_builds->recipe_for(query.kernel) : nullptr;
    if (!recipe) {
      return not_served(Outcome::not_found, Counter::not_found_no_recipe,
                        "no recipe builds kernel " + query.kernel);
    }
    return serve_recipe(query, selection, *recipe, false);
  }());
  note_answer(query, answer);
  return answer;
}

// Errors become answers: a bad request is rejected, a broken object rejected, anything else is
// "not found" so that ZLUDA compiles the kernel. Each answer is counted by its reason.
ResolveAnswer KernelCore::finish(Expected<ResolveAnswer> answer)
{
  if (!answer) {
    const Error& error = answer.error();
    Counter counter = Counter::not_found_error;
    Outcome outcome = Outcome::not_found;
    if (error.code == ErrorCode::invalid_argument) {
      counter = Counter::rejected_invalid_request;
      outcome = Outcome::rejected;
    } else if (error.code == ErrorCode::rejected) {
      counter = Counter::rejected_broken_contract;
      outcome = Outcome::rejected;
    } else if (error.code == ErrorCode::not_found) {
      counter = Counter::not_found_missing_object;
    }
    spdlog::warn("resolve: {}", error.message);
    answer = not_served(outcome, counter, error.message);
    if (error.code == ErrorCode::corrupt) {
      answer->cache_miss = MissReason::corrupt; // a damaged object or row, dropped
    }
  }
  m_counters.add(answer->counter);
  return std::move(*answer);
}

Expected<ResolveAnswer> KernelCore::resolve_checked(const ResolveQuery& query)
{
  TRY_ASSIGN(EffectiveSelection selection, effective_selection(query.selection));
  ResolveAnswer release_answer = not_served(
      Outcome::not_found, Counter::not_found_no_release_dir,
      "no release directory configured (--native-dir or D4R_ZLUDA_NATIVE_DIR)");
  if (m_catalog) {
    release::SelectionInputs inputs{m_catalog->root(), selection.arch, selection.fp8_native,
                                    selection.mode};
    release::AuthorizationInputs authorization{query.kernel, query.module_hash,
                                               selection.native_swin_encoders};
    TRY_ASSIGN(release::CatalogAnswer found, m_catalog->find(inputs, authorization));
    if (found.directory && found.authorization.verdict == release::Verdict::allowed) {
      return serve_release_object(query, selection, found);
    }
    release_answer = release_verdict_answer(found, selection, m_catalog->root());
  }
  // A prebuilt object wins; a recipe serves what the release does not (or where there is none).
  const compiler::Recipe* recipe = m_builds ? m_builds->recipe_for(query.kernel) : nullptr;
  if (recipe && release_answer.outcome != Outcome::rejected) {
    return serve_recipe(query, selection, *recipe, true);
  }
  return release_answer;
}

Expected<ResolveAnswer> KernelCore::serve_recipe(const ResolveQuery& query,
                                                 const EffectiveSelection& selection,
                                                 const compiler::Recipe& recipe, bool check_module)
{
  const std::vector<uint64_t>& hashes = recipe.module_hashes;
  if (check_module && std::find(hashes.begin(), hashes.end(), query.module_hash) == hashes.end()) {
    return not_served(Outcome::not_found, Counter::not_found_hash_mismatch,
                      "recipe " + recipe.name + " does not list module hash " +
                          hash_to_hex(query.module_hash) + " for kernel " + query.kernel);
  }
  const std::vector<std::string>& targets = recipe.targets;
  if (std::find(targets.begin(), targets.end(), selection.arch) == targets.end()) {
    return not_served(Outcome::not_found, Counter::not_found_no_recipe,
                      "recipe " + recipe.name + " does not build for " + selection.arch);
  }
  std::chrono::milliseconds budget = wait_budget_of(query);
  Priority priority = query.background ? Priority::background : Priority::interactive;
  std::optional<ModuleSource> module;
  if (recipe.language == compiler::SourceLanguage::ptx) {
    // The game's own module is the source: the client uploads it after Prepare.
    std::optional<std::filesystem::path> path = m_modules.find_by_fnv(query.module_hash);
    if (!path && upload_awaited(query.module_hash)) {
      return not_served(Outcome::pending, Counter::pending,
                        "recipe " + recipe.name + " translates module " +
                            hash_to_hex(query.module_hash) + ", whose upload is on its way");
    }
    if (!path) {
      return not_served(Outcome::not_found, Counter::not_found_no_module,
                        "recipe " + recipe.name + " translates module " +
                            hash_to_hex(query.module_hash) + ", which was not uploaded");
    }
    module = ModuleSource{query.module_hash, *path};
  }
  TRY_ASSIGN(BuildAnswer built, m_builds->obtain(recipe, query.kernel, selection.arch,
                                                 selection.mode, priority, budget, module,
                                                 query.cancelled));
  if (built.state == BuildState::ready) {
    Expected<ResolveAnswer> ready = ready_answer(selection.mode, selection.arch, *built.hit, query);
    if (ready) {
      ready->cache_miss = built.miss; // a build just now, or a hit (none)
      ready->started_build = built.started;
    }
    if (ready || ready.error().code != ErrorCode::corrupt) {
      return ready;
    }
    // The cached object failed its digest and is quarantined with its rows: build it again.
    m_counters.add(Counter::cache_corrupt_object);
    m_telemetry.misses().note_corrupt(selection.mode, built.hit->key);
    spdlog::error("{}", ready.error().message);
    TRY_ASSIGN(built, m_builds->obtain(recipe, query.kernel, selection.arch, selection.mode,
                                       priority, budget, module, query.cancelled));
  }
  Expected<ResolveAnswer> answer = built_answer(query, selection, built);
  if (answer) {
    answer->cache_miss = built.miss;
    answer->started_build = built.started;
  }
  return answer;
}

Expected<ResolveAnswer> KernelCore::built_answer(const ResolveQuery& query,
                                                 const EffectiveSelection& selection,
                                                 const BuildAnswer& built)
{
  switch (built.state) {
  case BuildState::ready:
    return ready_answer(selection.mode, selection.arch, *built.hit, query);
  case BuildState::pending:
    return not_served(Outcome::pending, Counter::pending, built.reason);
  case BuildState::failed:
    return not_served(Outcome::not_found, Counter::not_found_build_failed, built.reason);
  case BuildState::rejected:
    return not_served(Outcome::rejected, Counter::rejected_build_queue_full, built.reason);
  }
  D4R_UNREACHABLE("every build state is handled");
}

Expected<ResolveAnswer> KernelCore::serve_release_object(const ResolveQuery& query,
                                                         const EffectiveSelection& selection,
                                                         const release::CatalogAnswer& found)
{
  std::vector<std::byte> bytes;
  TRY_ASSIGN(Sha256 content, release_digest(found.object_path, found.object_identity, &bytes));
  std::string target = folder_target_of(*found.directory, selection.arch);
  cache::CacheKey key{query.module_hash, query.kernel, target, "", k_prebuilt_toolchain,
                      "release:" + to_hex(content)};
  {
    std::lock_guard lock(m_memo_mutex);
    auto rejected = m_rejections.find(key.to_text(selection.mode));
    if (rejected != m_rejections.end()) {
      return make_error(ErrorCode::rejected, rejected->second);
    }
  }
  Expected<std::optional<cache::Hit>> looked = m_cache->lookup(selection.mode, key);
  if (!looked && looked.error().code == ErrorCode::corrupt) {
    // A damaged index row, dropped: the release has the object, import it again.
    m_counters.add(Counter::cache_corrupt_object);
    m_telemetry.misses().note_corrupt(selection.mode, key);
    spdlog::error("{}", looked.error().message);
    looked = std::optional<cache::Hit>();
  }
  TRY_ASSIGN(std::optional<cache::Hit> hit, std::move(looked));
  if (hit) {
    m_telemetry.misses().note_present(selection.mode, key);
    Expected<ResolveAnswer> ready = ready_answer(selection.mode, target, *hit, query);
    if (ready && ready->outcome == Outcome::ready && query.accept_path && hit->stamp &&
        !found.probes.empty()) {
      // Taken in this order (release files, then the index row), each before the answer was
      // made from it: a change after either shows at the next check.
      ready->check = std::make_shared<const ReadyCheck>(selection.mode, *hit, found.probes);
    }
    if (ready || ready.error().code != ErrorCode::corrupt) {
      return ready;
    }
    // The cached copy failed its digest and is quarantined: rebuild it from the release.
    m_counters.add(Counter::cache_corrupt_object);
    m_telemetry.misses().note_corrupt(selection.mode, key);
    spdlog::error("{}", ready.error().message);
  }
  const MissReason miss = m_telemetry.misses().classify(selection.mode, key, *m_cache);
  if (bytes.empty()) {
    TRY_ASSIGN(bytes, m_catalog->read_object(found.object_path, release::k_default_max_object_bytes,
                                             found.object_identity));
  }
  if (sha256(bytes) != content) {
    return make_error(ErrorCode::unavailable,
                      "release: " + found.object_path.string() + " changed while being read");
  }
  Expected<compiler::LaunchMeta> meta = checked_launch_meta(bytes, query.kernel, selection.arch);
  if (!meta) {
    std::string reason = "release: " + found.object_path.string() + ": " + meta.error().message;
    std::lock_guard lock(m_memo_mutex);
    m_rejections.emplace(key.to_text(selection.mode), reason);
    return make_error(ErrorCode::rejected, reason);
  }
  TRY_ASSIGN(cache::Hit inserted,
             m_cache->insert(selection.mode, key, bytes, encoded_launch_record(*meta),
                             "release:" + found.object_path.string()));
  {
    std::lock_guard lock(m_memo_mutex);
    m_verified.insert(inserted.digest); // we just hashed these very bytes
  }
  m_telemetry.misses().note_present(selection.mode, key);
  Expected<ResolveAnswer> ready = ready_answer(selection.mode, target, inserted, query);
  if (ready) {
    ready->cache_miss = miss;
  }
  return ready;
}

Expected<ResolveAnswer> KernelCore::ready_answer(Mode mode, const std::string& target,
                                                 const cache::Hit& hit, const ResolveQuery& query)
{
  Expected<cache::LaunchMetadata> metadata = cache::decode_launch_metadata(hit.metadata);
  if (std::optional<ResolveAnswer> refused = unmet_needs(query, metadata)) {
    return std::move(*refused);
  }
  if (!metadata) {
    return std::unexpected(metadata.error()); // only a background answer gets here: dropped
  }
  const bool accept_path = query.accept_path;
  ResolveAnswer answer;
  answer.outcome = Outcome::ready;
  answer.counter = Counter::resolve_ready;
  answer.target = target;
  answer.mode = mode;
  answer.digest = hit.digest;
  answer.size = hit.size;
  answer.metadata = std::move(*metadata);
  if (!accept_path) {
    TRY_ASSIGN(answer.object_bytes, m_cache->read_object(mode, hit));
    return answer;
  }
  // The client verifies the digest as it maps the file; the daemon checks each object once per
  // process, so that a corrupt store is noticed (and quarantined) here too.
  bool verified = false;
  {
    std::lock_guard lock(m_memo_mutex);
    verified = m_verified.contains(hit.digest);
  }
  if (!verified) {
    TRY(m_cache->verify_object(mode, hit));
    std::lock_guard lock(m_memo_mutex);
    m_verified.insert(hit.digest);
  }
  answer.object_path = hit.object_path;
  return answer;
}

Expected<Sha256> KernelCore::release_digest(const std::filesystem::path& path,
                                            const std::string& identity,
                                            std::vector<std::byte>* bytes_out)
{
  std::string memo_key = path.string() + '|' + identity;
  {
    std::lock_guard lock(m_memo_mutex);
    auto it = m_release_digests.find(memo_key);
    if (it != m_release_digests.end()) {
      return it->second;
    }
  }
  TRY_ASSIGN(std::vector<std::byte> bytes,
             m_catalog->read_object(path, release::k_default_max_object_bytes, identity));
  Sha256 digest = sha256(bytes);
  {
    std::lock_guard lock(m_memo_mutex);
    m_release_digests[memo_key] = digest;
  }
  *bytes_out = std::move(bytes);
  return digest;
}

Expected<PrepareAnswer> KernelCore::prepare(const PrepareQuery& query)
{
  m_counters.add(Counter::prepare);
  TRY_ASSIGN(EffectiveSelection selection, effective_selection(query.selection));
  PrepareAnswer answer;
  bool translatable = false; // an entry a ptx recipe builds from this very module
  for (const std::string& entry : query.entries) {
    if (validate_kernel_name(entry) && servable(entry, query.module_hash, selection)) {
      answer.servable_entries.push_back(entry);
      const compiler::Recipe* recipe = m_builds ? m_builds->recipe_for(entry) : nullptr;
      translatable = translatable || (recipe && recipe->language == compiler::SourceLanguage::ptx);
    }
  }
  // A module is asked for only where it would be used: an upload costs the game's process a copy
  // of the text and the daemon a file.
  answer.need_module_bytes =
      translatable && query.module_sha256 && !m_modules.contains(*query.module_sha256);
  if (answer.need_module_bytes) {
    auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_memo_mutex);
    std::erase_if(m_awaited_modules, [&](const auto& awaited) {
      return now - awaited.second.asked > k_upload_wait;
    });
    m_awaited_modules[query.module_hash] = AwaitedModule{now, query, answer.servable_entries};
  }
  return answer;
}

bool KernelCore::servable(const std::string& kernel, uint64_t module_hash,
                          const EffectiveSelection& selection) const
{
  if (m_catalog) {
    release::SelectionInputs inputs{m_catalog->root(), selection.arch, selection.fp8_native,
                                    selection.mode};
    release::AuthorizationInputs authorization{kernel, module_hash, selection.native_swin_encoders};
    Expected<release::CatalogAnswer> found = m_catalog->find(inputs, authorization);
    if (found && found->directory && found->authorization.verdict == release::Verdict::allowed) {
      return true;
    }
  }
  const compiler::Recipe* recipe = m_builds ? m_builds->recipe_for(kernel) : nullptr;
  return recipe &&
         std::find(recipe->module_hashes.begin(), recipe->module_hashes.end(), module_hash) !=
             recipe->module_hashes.end() &&
         std::find(recipe->targets.begin(), recipe->targets.end(), selection.arch) !=
             recipe->targets.end();
}

Expected<int64_t> KernelCore::put_module(uint64_t module_hash, const Sha256& digest,
                                         std::string_view ptx)
{
  Expected<int64_t> stored = m_modules.put(module_hash, digest, ptx);
  m_counters.add(stored ? Counter::put_module : Counter::put_module_rejected);
  return stored;
}

Expected<std::shared_ptr<UploadBudget::Lease>> KernelCore::admit_upload(int64_t bytes)
{
  Expected<std::shared_ptr<UploadBudget::Lease>> lease = m_uploads.acquire(bytes);
  if (!lease) {
    m_counters.add(Counter::rejected_upload_memory);
    spdlog::warn("PutModule: {}", lease.error().message);
  }
  return lease;
}

StatusSnapshot KernelCore::status() const
{
  StatusSnapshot status;
  status.detected_target = m_detected_target;
  status.native_dir = m_catalog ? m_catalog->root().string() : "";
  status.uptime = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - m_started);
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    Expected<cache::StoreStats> stats = m_cache->stats(mode);
    if (stats) {
      status.stores.push_back(*stats);
    }
  }
  status.counters = m_counters.snapshot();
  status.telemetry = m_telemetry.snapshot();
  status.tiers = m_tiers.health();
  if (m_builds) {
    status.builds = m_builds->stats();
    status.recipes = m_builds->recipe_names();
    for (std::string_view target : k_known_targets) {
      status.toolchains[std::string(target)] = m_builds->toolchain_of(std::string(target));
    }
  }
  return status;
}

Expected<std::vector<std::pair<Mode, cache::Entry>>> KernelCore::list(std::optional<Mode> mode)
{
  std::vector<std::pair<Mode, cache::Entry>> entries;
  for (Mode each : {Mode::fast, Mode::accuracy}) {
    if (mode && *mode != each) {
      continue;
    }
    TRY_ASSIGN(std::vector<cache::Entry> listed, m_cache->list(each));
    for (cache::Entry& entry : listed) {
      entries.emplace_back(each, std::move(entry));
    }
  }
  return entries;
}

Expected<cache::PurgeResult> KernelCore::purge(std::optional<Mode> mode)
{
  cache::PurgeResult total;
  for (Mode each : {Mode::fast, Mode::accuracy}) {
    if (mode && *mode != each) {
      continue;
    }
    TRY_ASSIGN(cache::PurgeResult result, m_cache->purge(each));
    total.removed_entries += result.removed_entries;
    total.removed_bytes += result.removed_bytes;
  }
  if (m_builds) {
    m_builds->forget_failures();
  }
  m_telemetry.misses().forget(mode);
  if (!mode) {
    // Modules are shared by both modes: a purge of everything removes them too.
    ModuleStore::Collected modules = m_modules.remove_all();
    total.removed_bytes += modules.bytes;
  }
  std::lock_guard lock(m_memo_mutex);
  m_verified.clear();
  return total;
}

void KernelCore::add_tier(std::unique_ptr<cache::Tier> tier, cache::TierPolicy policy)
{
  m_tiers.add(std::move(tier), policy);
}

void KernelCore::share_builds()
{
  if (m_builds && !m_taker && m_tiers.shares_jobs()) {
    m_taker = std::make_unique<SharedBuildTaker>(*m_builds, m_tiers, m_modules);
  }
}

void KernelCore::stop_builds()
{
  m_taker.reset(); // takes nothing more while the builds end
  if (m_builds) {
    m_builds->stop();
  }
}

} // namespace d4r::daemon
