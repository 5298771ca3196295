#include "daemon/build_service.hpp"

#include "cache/file_ops.hpp"
#include "daemon/launch_record.hpp"
#include "daemon/module_store.hpp"
#include "daemon/object_checks.hpp"
#include "daemon/shared_builds.hpp"
#include "daemon/toolchain_probe.hpp"
#include "util/digest.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fnmatch.h>
#include <thread>

namespace d4r::daemon {

namespace {

constexpr size_t k_recent_builds = 32;
// One offer of a build to the other hosts (its module uploaded with it, where they lack it).
constexpr auto k_offer_budget = std::chrono::seconds(5);
// How often an offered job's object is looked for in the farther tiers while it waits here.
constexpr auto k_offer_watch = std::chrono::milliseconds(100);
// Loading LLVM and asking clang its version takes a fraction of a second; a loaded machine's start
// may take longer, but a worker that answers nothing is not waited for.
constexpr auto k_toolchain_probe_timeout = std::chrono::seconds(15);

// A failure worth remembering says something about the inputs; a worker that could not even be
// started (internal) or a full disk (io) may well work next time.
bool is_remembered(ErrorCode code)
{
  switch (code) {
  case ErrorCode::rejected:
  case ErrorCode::timeout:
  case ErrorCode::resource_exhausted:
  case ErrorCode::corrupt:
  case ErrorCode::invalid_argument:
    return true;
  case ErrorCode::not_found:
  case ErrorCode::io:
  case ErrorCode::unavailable:
  case ErrorCode::permission_denied:
  case ErrorCode::internal:
    return false;
  }
  return false;
}

} // namespace

struct BuildService::Job {
  std::string key_text;
  cache::CacheKey key;
  const compiler::Recipe* recipe = nullptr;
  std::string kernel;
  std::string target;
  Mode mode = Mode::fast;
  std::string backend;
  std::filesystem::path module; // ptx recipes: the game's module
  std::shared_ptr<BuildFlights::Flight> flight;
  std::chrono::steady_clock::time_point started; // queued, then running
  // Who finishes the flight: the worker that runs the job, or the watch of an offered job that
  // found it built by another host first (offer()); whoever sets it first. A copy (a check of
  // what a tier served) is a job of its own, not taken.
  struct Taken {
    std::atomic<bool> value{false};
    Taken() = default;
    Taken(const Taken& /*other*/) noexcept {}
    Taken& operator=(const Taken&) = delete;
  } taken;
  // Set for a check of what a farther tier served (check_remote): built, compared, not stored
  // unless it differs.
  struct RemoteCheck {
    size_t tier = 0;
    std::string upstream; // the tier's name
    std::vector<std::byte> remote;
  };
  std::optional<RemoteCheck> check;
};

struct BuildService::Compiled {
  std::vector<std::byte> code_object;
  compiler::LaunchMeta meta;
  std::string source; // the cache's source text of a build here
};

BuildService::BuildService(cache::Cache& cache, std::vector<compiler::Recipe> recipes,
                           BuildOptions options)
    : m_cache(cache), m_recipes(std::move(recipes)), m_options(std::move(options)),
      m_negative(m_cache.root()),
      m_runner(m_options.worker, m_options.scratch, m_options.limits, m_options.clang),
      m_pool(std::max(1, m_options.threads))
{
  // Which backend builds each target, and its fingerprint: the worker says (toolchain_probe.hpp),
  // as the daemon maps neither LLVM nor comgr; tests may give the table.
  std::vector<compiler::TargetToolchain> toolchains;
  if (m_options.toolchains) {
    toolchains = *m_options.toolchains;
  } else if (Expected<std::vector<compiler::TargetToolchain>> probed = probe_toolchains(
                 m_options.worker, m_options.backend, m_options.clang, k_toolchain_probe_timeout)) {
    toolchains = std::move(*probed);
  } else {
    spdlog::error("{}; builds use the {} backend with an unknown toolchain", probed.error().message,
                  m_options.backend.empty() ? "llvm" : m_options.backend);
  }
  for (std::string_view target : k_known_targets) {
    std::string name = m_options.backend.empty() ? "llvm" : m_options.backend;
    std::string fingerprint = "unavailable:toolchains";
    for (const compiler::TargetToolchain& known : toolchains) {
      if (known.target == target) {
        name = known.backend;
        fingerprint = known.fingerprint;
      }
    }
    m_backend_of_target[std::string(target)] = name;
    m_toolchain_of_target[std::string(target)] = fingerprint;
  }
  if (m_options.verify_remote_sample > 0) {
    Expected<trust::RebuildSampler> sampler =
        trust::RebuildSampler::with_random_secret(m_options.verify_remote_sample);
    if (sampler) {
      m_sampler = *sampler;
    } else {
      spdlog::error("{}; no remote object is rebuilt here to check it", sampler.error().message);
    }
  }
  for (const compiler::Recipe& recipe : m_recipes) {
    Expected<std::string> fingerprint =
        compiler::recipe_fingerprint(recipe, m_options.translator_fingerprint);
    m_recipe_fingerprints[recipe.name] =
        fingerprint ? *fingerprint : "unreadable:" + fingerprint.error().message;
  }
}

BuildService::~BuildService()
{
  stop();
  m_pool.shutdown();
}

void BuildService::stop()
{
  // A daemon asked to stop does not compile for minutes first (systemd's TimeoutStopSec is 10 s):
  // waiters of a dropped build time out into PENDING, as their budget says; those of a killed one
  // get its failure, which is not remembered.
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_to_offer.clear();
    m_offered.clear();
  }
  m_offer_wake.notify_all();
  m_pool.discard_queued();
  m_runner.stop();
}

bool BuildService::has_idle_worker() const
{
  std::lock_guard lock(m_mutex);
  return m_queued == 0 && m_running < m_pool.threads();
}

const compiler::Recipe* BuildService::recipe_for(std::string_view kernel) const
{
  std::string name(kernel);
  for (const compiler::Recipe& recipe : m_recipes) {
    if (compiler::recipe_serves(recipe, name)) {
      return &recipe;
    }
  }
  return nullptr;
}

std::vector<std::string> BuildService::recipe_names() const
{
  std::vector<std::string> names;
  for (const compiler::Recipe& recipe : m_recipes) {
    names.push_back(recipe.name);
  }
  return names;
}

std::string BuildService::toolchain_of(const std::string& target) const
{
  auto it = m_toolchain_of_target.find(target);
  return it == m_toolchain_of_target.end() ? "" : it->second;
}

Expected<cache::CacheKey> BuildService::key_for(const compiler::Recipe& recipe,
                                                std::string_view kernel, const std::string& target,
                                                uint64_t module_hash) const
{
  auto fingerprint = m_recipe_fingerprints.find(recipe.name);
  if (fingerprint == m_recipe_fingerprints.end()) {
    return make_error(ErrorCode::internal, "recipe " + recipe.name + " has no fingerprint");
  }
  // Objects built from a source do not depend on the module hash (the recipe's list authorises
  // it), so every authorising module shares one object: the key's module hash is 0. A ptx
  // recipe's object is its module's translation: the hash is the module's.
  return cache::CacheKey{module_hash,
                         std::string(kernel),
                         target,
                         "",
                         toolchain_of(target),
                         "recipe:" + recipe.name + "@" + std::to_string(recipe.version) + ":" +
                             fingerprint->second};
}

Expected<BuildAnswer> BuildService::obtain(const compiler::Recipe& recipe, std::string_view kernel,
                                           const std::string& target, Mode mode, Priority priority,
                                           std::chrono::milliseconds wait_budget,
                                           const std::optional<ModuleSource>& module,
                                           const Cancelled& cancelled)
{
  bool is_ptx = recipe.language == compiler::SourceLanguage::ptx;
  if (is_ptx != module.has_value()) {
    return make_error(ErrorCode::internal, "recipe " + recipe.name +
                                               (is_ptx ? ": a ptx recipe needs its module"
                                                       : ": only ptx recipes build a module"));
  }
  const auto deadline = std::chrono::steady_clock::now() + wait_budget;
  TRY_ASSIGN(cache::CacheKey key, key_for(recipe, kernel, target, module ? module->hash : 0));
  TRY_ASSIGN(std::optional<cache::Hit> hit, m_cache.lookup(mode, key));
  if (hit) {
    if (m_options.telemetry) {
      m_options.telemetry->misses().note_present(mode, key);
    }
    return BuildAnswer{BuildState::ready, std::move(hit), "", std::nullopt, false};
  }
  std::optional<MissReason> miss;
  if (m_options.telemetry) {
    miss = m_options.telemetry->misses().classify(mode, key, m_cache);
  }
  std::string text = key.to_text(mode);
  if (std::optional<std::string> reason = m_negative.find(mode, text)) {
    std::lock_guard lock(m_mutex);
    ++m_negative_hits;
    return BuildAnswer{BuildState::failed, std::nullopt, "build failed before: " + *reason, miss, false};
  }
  // A new build takes its queue slot under the table's lock, so that the queue's bound holds
  // however many distinct keys arrive at once.
  std::optional<std::string> full;
  std::optional<BuildFlights::Ticket> ticket = m_flights.join(text, [&] {
    std::lock_guard lock(m_mutex);
    full = queue_full(priority);
    if (full) {
      ++m_rejected_queue_full;
      return false;
    }
    ++m_queued;
    return true;
  });
  if (!ticket) {
    return BuildAnswer{BuildState::rejected, std::nullopt, *full, miss, false};
  }
  if (ticket->leader) {
    auto job = std::make_shared<Job>();
    job->key_text = text;
    job->key = key;
    job->recipe = &recipe;
    job->kernel = std::string(kernel);
    job->target = target;
    job->mode = mode;
    job->module = module ? module->path : std::filesystem::path();
    job->flight = ticket->flight;
    if (std::optional<cache::Hit> fetched = fetch(*job, deadline)) {
      {
        std::lock_guard lock(m_mutex);
        --m_queued; // the slot it took is not needed
      }
      m_flights.finish(text, *ticket->flight, Expected<cache::Hit>(*fetched));
      return BuildAnswer{BuildState::ready, std::move(fetched), "", miss, false};
    }
    submit(job, priority);
  }
  const bool started = ticket->leader;
  std::optional<Expected<cache::Hit>> result = ticket->flight->wait(deadline, cancelled);
  if (!result) {
    return BuildAnswer{BuildState::pending, std::nullopt,
                       "building " + std::string(kernel) + " for " + target + " (" + to_string(mode) + ")",
                       miss, started};
  }
  if (!*result) {
    return BuildAnswer{BuildState::failed, std::nullopt, result->error().message, miss, started};
  }
  return BuildAnswer{BuildState::ready, **result, "", miss, started};
}

void BuildService::submit(const std::shared_ptr<Job>& job, Priority priority)
{
  // Only the llvm backend translates PTX.
  const bool is_ptx = job->recipe->language == compiler::SourceLanguage::ptx;
  job->backend = is_ptx ? "llvm" : m_backend_of_target[job->target];
  // Only a game's own builds that must wait for a worker are offered: what another host gave
  // this one (background) is not passed on.
  const bool shared = priority == Priority::interactive && !job->check && m_options.tiers != nullptr &&
                      m_options.tiers->shares_jobs();
  bool offered = false;
  {
    std::lock_guard lock(m_mutex);
    job->started = std::chrono::steady_clock::now();
    record(*job, "queued", "");
    // This job is counted in m_queued already.
    if (shared && m_queued + m_running > m_pool.threads() && m_to_offer.size() < k_max_offers &&
        !m_stopping) {
      m_to_offer.push_back(job);
      offered = true;
      if (!m_sharing.joinable()) {
        m_sharing = std::jthread([this](const std::stop_token& stop) { share(stop); });
      }
    }
  }
  m_pool.submit(priority, [this, job] { run_job(job); });
  if (offered) {
    m_offer_wake.notify_all();
  }
}

void BuildService::share(const std::stop_token& stop)
{
  while (!stop.stop_requested() && !m_stopping.load()) {
    std::vector<std::shared_ptr<Job>> batch;
    std::vector<std::shared_ptr<Job>> watched;
    {
      std::unique_lock lock(m_mutex);
      m_offer_wake.wait_for(lock, k_offer_watch, [&] {
        return !m_to_offer.empty() || m_stopping.load() || stop.stop_requested();
      });
      // Started here meanwhile, or past the longest a build may take elsewhere: not watched.
      const auto now = std::chrono::steady_clock::now();
      const auto stale = m_options.limits.wall + k_offer_budget;
      std::erase_if(m_offered, [&](const std::shared_ptr<Job>& job) {
        return job->taken.value.load() || now - job->started > stale;
      });
      std::erase_if(m_to_offer, [](const std::shared_ptr<Job>& job) { return job->taken.value.load(); });
      // The newest first: the last this host's workers would reach.
      while (!m_to_offer.empty() && m_offered.size() + batch.size() < k_max_offers) {
        batch.push_back(m_to_offer.back());
        m_to_offer.pop_back();
      }
      m_to_offer.clear(); // past the bound: built here
      watched = m_offered;
    }
    for (const std::shared_ptr<Job>& job : batch) {
      if (!job->taken.value.load() && offer(*job)) {
        std::lock_guard lock(m_mutex);
        m_offered.push_back(job);
      }
    }
    for (const std::shared_ptr<Job>& job : watched) {
      if (job->taken.value.load()) {
        continue;
      }
      if (std::optional<cache::Hit> found = fetch(*job, std::chrono::steady_clock::now() + k_offer_watch)) {
        answer_offered(job, std::move(*found));
      }
    }
  }
}

void BuildService::answer_offered(const std::shared_ptr<Job>& job, cache::Hit hit)
{
  if (job->taken.value.exchange(true)) {
    return; // its worker started it first
  }
  {
    std::lock_guard lock(m_mutex);
    --m_queued;
    ++m_done;
    ++m_elsewhere;
    record(*job, "done", "");
    std::erase(m_offered, job);
  }
  m_flights.finish(job->key_text, *job->flight, Expected<cache::Hit>(std::move(hit)));
}

bool BuildService::offer(const Job& job)
{
  SharedBuild build{.recipe = job.recipe->name,
                    .kernel = job.kernel,
                    .target = job.target,
                    .mode = job.mode,
                    .module_hash = job.key.module_hash};
  std::vector<std::byte> module;
  if (!job.module.empty()) {
    Expected<std::vector<std::byte>> bytes = cache::files::read_file(job.module);
    if (!bytes) {
      return false; // built here, as it would have been
    }
    module = std::move(*bytes);
  }
  if (!m_options.tiers->offer(encode_shared_build(build), module,
                              std::chrono::steady_clock::now() + k_offer_budget)) {
    return false;
  }
  spdlog::info("offered the build of {} for {} ({}) to the hosts sharing a tier", job.kernel,
               job.target, to_string(job.mode));
  return true;
}

std::optional<std::string> BuildService::queue_full(Priority priority) const
{
  // Called with m_mutex held. A quarter of the queue is kept for a game's own requests.
  int64_t limit = std::max<int64_t>(1, m_options.max_queued);
  if (priority == Priority::background) {
    limit = std::max<int64_t>(1, limit - limit / 4);
  }
  if (m_queued < limit) {
    return std::nullopt;
  }
  return "build queue full: " + std::to_string(m_queued) + " builds wait for a worker (at most " +
         std::to_string(limit) + (priority == Priority::background ? " for background work)" : ")");
}

void BuildService::run_job(const std::shared_ptr<Job>& job)
{
  if (job->check) {
    run_check(job);
    return;
  }
  if (job->taken.value.exchange(true)) {
    return; // another host built it, and the watch of its offer answered its waiters
  }
  {
    std::lock_guard lock(m_mutex);
    --m_queued;
    ++m_running;
    job->started = std::chrono::steady_clock::now();
    record(*job, "running", "");
  }
  Expected<Built> built = build(*job);
  Expected<cache::Hit> result = built ? Expected<cache::Hit>(built->hit)
                                      : Expected<cache::Hit>(std::unexpected(built.error()));
  if (m_options.telemetry) {
    m_options.telemetry->record_build(
        job->mode,
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                              job->started),
        result ? result->size : 0, result.has_value());
    if (result) {
      m_options.telemetry->misses().note_present(job->mode, job->key);
    }
  }
  if (!result) {
    spdlog::warn("build: {}", result.error().message);
    if (is_remembered(result.error().code)) {
      m_negative.remember(job->mode, job->key_text, result.error().message);
    }
  }
  {
    std::lock_guard lock(m_mutex);
    --m_running;
    ++(result ? m_done : m_failed);
    m_elsewhere += built && built->elsewhere ? 1 : 0;
    record(*job, result ? "done" : "failed", result ? "" : result.error().message);
  }
  m_flights.finish(job->key_text, *job->flight, std::move(result));
}

Expected<BuildService::Compiled> BuildService::compile(const Job& job)
{
  TRY_ASSIGN(compiler::CompileJob compile, compiler::make_compile_job(*job.recipe, job.target, job.mode));
  if (compile.language == compiler::SourceLanguage::ptx) {
    // Read back, not trusted from its upload: a module damaged (or swapped for a link) since
    // would build a wrong object that every later check accepts as this key's.
    TRY(ModuleStore::verify(job.module));
    compile.source = job.module;
    compile.entry = job.kernel;
  }
  std::string what = "recipe " + job.recipe->name + ": kernel " + job.kernel + " for " + job.target +
                     " (" + to_string(job.mode) + ", " + job.backend + ")";
  Expected<WorkerResult> built = m_runner.run(compile, job.backend);
  if (!built) {
    return make_error(built.error().code, what + ": " + built.error().message);
  }
  Expected<compiler::LaunchMeta> meta = checked_launch_meta(built->code_object, job.kernel, job.target);
  if (!meta) {
    return make_error(ErrorCode::rejected, what + ": " + meta.error().message);
  }
  spdlog::info("built {} in {} ms", what, built->elapsed.count());
  return Compiled{std::move(built->code_object), std::move(*meta),
                  "build:" + job.recipe->name + "@" + std::to_string(job.recipe->version) + " " +
                      job.backend};
}

Expected<BuildService::Built> BuildService::build(const Job& job)
{
  if (std::optional<cache::Hit> elsewhere = build_elsewhere(job)) {
    return Built{std::move(*elsewhere), true};
  }
  cache::ChainClaim claim;
  if (m_options.tiers && m_options.tiers->size() > 1) {
    // Each shared tier's own claim budget bounds the wait for another host's build.
    claim = m_options.tiers->claim(job.mode, job.key, std::chrono::steady_clock::now() + std::chrono::hours(24));
    if (claim.claim.state == cache::ClaimState::built_elsewhere) {
      const auto fetch_deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
      if (std::optional<cache::Hit> fetched = fetch(job, fetch_deadline)) {
        return Built{std::move(*fetched), true};
      }
      // That host failed (its failure is its own to remember), or its object is not readable
      // from here: built here.
    }
  }
  Expected<cache::Hit> built = build_here(job);
  if (m_options.tiers) {
    m_options.tiers->settle(job.mode, job.key, claim); // after publish(): waiters find it stored
  }
  if (!built) {
    return std::unexpected(std::move(built).error());
  }
  return Built{std::move(*built), false};
}

Expected<cache::Hit> BuildService::build_here(const Job& job)
{
  TRY_ASSIGN(Compiled built, compile(job));
  TRY_ASSIGN(cache::Hit hit, m_cache.insert(job.mode, job.key, built.code_object,
                                            encoded_launch_record(built.meta), built.source));
  publish(job.mode, hit, built.code_object);
  return hit;
}

cache::TierChain::Accept BuildService::acceptance(const Job& job)
{
  // Served as if built here: the object must keep the launch contract for this kernel and
  // target, and its metadata is what this daemon reads from it, not what the tier says.
  return [&job](const cache::TierObject& object) {
    Expected<compiler::LaunchMeta> meta = checked_launch_meta(object.bytes, job.kernel, job.target);
    return meta && encoded_launch_record(*meta) == object.metadata;
  };
}

std::optional<cache::Hit> BuildService::fetch(const Job& job,
                                              std::chrono::steady_clock::time_point deadline)
{
  if (!m_options.tiers || m_options.tiers->size() < 2) {
    return std::nullopt;
  }
  // Tier 0 is the local store, which the caller has just asked.
  return served(job, m_options.tiers->lookup(job.mode, job.key, deadline, 1, acceptance(job)));
}

std::optional<cache::Hit> BuildService::build_elsewhere(const Job& job)
{
  if (!m_options.tiers || m_options.tiers->size() < 2) {
    return std::nullopt;
  }
  // Each build server's own build budget bounds the wait (TierPolicy::build_budget).
  const auto unbounded = std::chrono::steady_clock::now() + std::chrono::hours(24);
  return served(job, m_options.tiers->build(job.mode, job.key, job.module, unbounded, acceptance(job)));
}

std::optional<cache::Hit> BuildService::served(const Job& job, std::optional<cache::ChainHit> found)
{
  if (!found) {
    return std::nullopt;
  }
  Expected<std::optional<cache::Hit>> hit = m_cache.lookup(job.mode, job.key);
  if (!hit || !*hit) {
    return std::nullopt; // not backfilled (a full disk, say): built here after all
  }
  if (m_options.telemetry) {
    m_options.telemetry->misses().note_present(job.mode, job.key);
  }
  check_remote(job, *found);
  return std::move(*hit);
}

// The secret sample decides; the check is background work of its own, so the caller is served
// what the tier gave at once, and a check never delays a game's build.
void BuildService::check_remote(const Job& job, const cache::ChainHit& hit)
{
  if (!m_sampler) {
    return;
  }
  auto toolchain = m_toolchain_of_target.find(job.target);
  const bool buildable =
      toolchain != m_toolchain_of_target.end() && !toolchain->second.starts_with("unavailable");
  trust::SampleDecision decision =
      m_sampler->decide(trust::RemoteResult{job.key_text, buildable, buildable});
  if (decision != trust::SampleDecision::rebuild) {
    return;
  }
  auto check = std::make_shared<Job>(job);
  check->flight = std::make_shared<BuildFlights::Flight>(); // nobody waits on a check
  check->check = Job::RemoteCheck{hit.tier, m_options.tiers->name(hit.tier), hit.object.bytes};
  {
    std::lock_guard lock(m_mutex);
    if (queue_full(Priority::background)) {
      return; // a sample, not a duty: skipped when the queue is full
    }
    ++m_queued;
  }
  submit(check, Priority::background);
}

void BuildService::run_check(const std::shared_ptr<Job>& job)
{
  {
    std::lock_guard lock(m_mutex);
    --m_queued;
    ++m_running;
    job->started = std::chrono::steady_clock::now();
    record(*job, "running", "rebuilt to check what " + job->check->upstream + " served");
  }
  Expected<Compiled> local = compile(*job);
  Expected<std::vector<std::byte>> local_bytes =
      local ? Expected<std::vector<std::byte>>(local->code_object) : std::unexpected(local.error());
  trust::RebuildReport report =
      trust::compare_rebuild(job->check->upstream, job->key_text, job->check->remote, local_bytes);
  bool first_mismatch = false;
  {
    std::lock_guard lock(m_mutex);
    std::unique_ptr<trust::UpstreamTrust>& trust = m_trust[job->check->upstream];
    if (!trust) {
      trust = std::make_unique<trust::UpstreamTrust>(job->check->upstream);
    }
    first_mismatch = trust->record(report);
  }
  if (report.verdict == trust::RebuildVerdict::mismatch) {
    spdlog::error("{}", report.message);
    // From now on this machine's own object is served for the key.
    Expected<cache::Hit> replaced = m_cache.insert(job->mode, job->key, local->code_object,
                                                   encoded_launch_record(local->meta), local->source);
    if (!replaced) {
      spdlog::error("build: {}: keeping this machine's object: {}", job->key_text,
                    replaced.error().message);
    }
    if (first_mismatch && m_options.tiers) {
      m_options.tiers->distrust(job->check->tier, report.message);
    }
  } else if (report.verdict == trust::RebuildVerdict::local_failed) {
    spdlog::warn("{}", report.message);
  } else {
    spdlog::info("{}", report.message);
  }
  // Not a build anyone asked for: it shows among the recent builds, not in the done/failed counts.
  std::lock_guard lock(m_mutex);
  --m_running;
  record(*job, local ? "done" : "failed", std::string(trust::to_string(report.verdict)) + ": " + report.message);
}

void BuildService::publish(Mode mode, const cache::Hit& hit, std::span<const std::byte> object)
{
  if (!m_options.tiers || m_options.tiers->size() < 2) {
    return;
  }
  cache::TierObject shared{hit.digest, std::vector<std::byte>(object.begin(), object.end()),
                           hit.metadata, hit.source};
  // Each tier keeps its own budget; past a minute nothing is offered any more.
  m_options.tiers->store(mode, hit.key, shared, std::chrono::steady_clock::now() + std::chrono::minutes(1), 1);
}

void BuildService::record(const Job& job, const std::string& state, const std::string& reason)
{
  // Called with m_mutex held. One record per job: a job's later states replace its earlier ones.
  auto same = [&](const BuildRecord& r) {
    return r.kernel == job.kernel && r.target == job.target && r.mode == job.mode &&
           r.recipe == job.recipe->name;
  };
  std::erase_if(m_recent, same);
  BuildRecord entry{job.recipe->name, job.kernel, job.target, job.mode, job.backend, state, reason, 0};
  if (state == "done" || state == "failed") {
    entry.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - job.started)
                           .count();
  }
  m_recent.push_front(std::move(entry));
  while (m_recent.size() > k_recent_builds) {
    m_recent.pop_back();
  }
}

BuildStats BuildService::stats() const
{
  std::lock_guard lock(m_mutex);
  BuildStats stats{m_queued, m_running, m_done, m_elsewhere, m_failed, m_negative_hits,
                   m_rejected_queue_full, {}};
  stats.recent.assign(m_recent.begin(), m_recent.end());
  return stats;
}

void BuildService::forget_failures()
{
  m_negative.clear();
}

} // namespace d4r::daemon
