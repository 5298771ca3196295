#include "daemon/shared_builds.hpp"

#include "util/digest.hpp"

#include <spdlog/spdlog.h>

#include <vector>

namespace d4r::daemon {

namespace {

constexpr std::string_view k_magic = "d4r-build 1";
// How long one take waits on the tier for a job, and how long the taker rests when this host is
// busy or the tier is away.
constexpr std::chrono::milliseconds k_take_wait{1000};
constexpr std::chrono::milliseconds k_rest{200};
// A taken build is waited for this long at most; past it the build goes on and the job is
// finished (its host finds the result, or builds it).
constexpr std::chrono::minutes k_build_wait{10};
// Putting back an offer of this host's own that it read itself.
constexpr std::chrono::seconds k_offer_again{5};

std::vector<std::string_view> lines_of(std::string_view text)
{
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  lines.push_back(text.substr(start));
  return lines;
}

} // namespace

std::string encode_shared_build(const SharedBuild& build)
{
  return std::string(k_magic) + "\n" + build.recipe + "\n" + build.kernel + "\n" + build.target + "\n" +
         to_string(build.mode) + "\n" + hash_to_hex(build.module_hash);
}

std::optional<SharedBuild> decode_shared_build(std::string_view body)
{
  std::vector<std::string_view> lines = lines_of(body);
  if (lines.size() != 6 || lines[0] != k_magic) {
    return std::nullopt;
  }
  Expected<Mode> mode = parse_mode(lines[4]);
  std::optional<uint64_t> hash = parse_hash_hex(lines[5]);
  if (!mode || !hash || lines[1].empty() || lines[2].empty() || lines[3].empty()) {
    return std::nullopt;
  }
  return SharedBuild{.recipe = std::string(lines[1]),
                     .kernel = std::string(lines[2]),
                     .target = std::string(lines[3]),
                     .mode = *mode,
                     .module_hash = *hash};
}

SharedBuildTaker::SharedBuildTaker(BuildService& builds, cache::TierChain& tiers, ModuleStore& modules)
    : m_builds(builds), m_tiers(tiers), m_modules(modules),
      m_thread([this](const std::stop_token& stop) { run(stop); })
{
}

SharedBuildTaker::~SharedBuildTaker()
{
  m_thread.request_stop();
}

void SharedBuildTaker::run(const std::stop_token& stop)
{
  while (!stop.stop_requested()) {
    if (!m_builds.has_idle_worker()) {
      std::this_thread::sleep_for(k_rest);
      continue;
    }
    const auto asked = std::chrono::steady_clock::now();
    std::optional<cache::ChainJob> job = m_tiers.take(k_take_wait, asked);
    if (!job) {
      // None came, or the tier is backed off and answered at once: no busy loop either way.
      if (std::chrono::steady_clock::now() - asked < k_rest) {
        std::this_thread::sleep_for(k_rest);
      }
      continue;
    }
    if (job->job.own) {
      // This host's own offer, read while it turned busy: back on the stream for another host.
      // Idle, its own worker builds the job (queued here), so the offer is simply dropped.
      if (!m_builds.has_idle_worker()) {
        static_cast<void>(m_tiers.offer(job->job.body, job->job.module,
                                        std::chrono::steady_clock::now() + k_offer_again));
      }
    } else {
      build(*job, stop);
    }
    m_tiers.finish(*job);
  }
}

void SharedBuildTaker::build(const cache::ChainJob& job, const std::stop_token& stop)
{
  std::optional<SharedBuild> wanted = decode_shared_build(job.job.body);
  if (!wanted) {
    spdlog::warn("shared build from {}: not a build this daemon reads; left to its host",
                 m_tiers.name(job.tier));
    return;
  }
  const compiler::Recipe* recipe = m_builds.recipe_for(wanted->kernel);
  if (recipe == nullptr || recipe->name != wanted->recipe) {
    spdlog::info("shared build of {}: no recipe {} here; left to its host", wanted->kernel, wanted->recipe);
    return;
  }
  std::optional<ModuleSource> module;
  if (recipe->language == compiler::SourceLanguage::ptx) {
    std::span<const std::byte> bytes(job.job.module);
    if (bytes.empty() || fnv1a64(bytes) != wanted->module_hash) {
      spdlog::warn("shared build of {}: its module does not match hash {}; left to its host",
                   wanted->kernel, hash_to_hex(wanted->module_hash));
      return;
    }
    const Sha256 digest = sha256(bytes);
    Expected<int64_t> stored = m_modules.put(
        wanted->module_hash, digest,
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!stored) {
      spdlog::warn("shared build of {}: {}", wanted->kernel, stored.error().message);
      return;
    }
    module = ModuleSource{.hash = wanted->module_hash, .path = m_modules.path_of(digest)};
  }
  Expected<BuildAnswer> answer = m_builds.obtain(*recipe, wanted->kernel, wanted->target, wanted->mode,
                                                 Priority::background, k_build_wait, module,
                                                 [&stop] { return stop.stop_requested(); });
  if (!answer) {
    spdlog::warn("shared build of {}: {}", wanted->kernel, answer.error().message);
    return;
  }
  spdlog::info("shared build of {} for {} ({}) from {}: {}", wanted->kernel, wanted->target,
               to_string(wanted->mode), m_tiers.name(job.tier),
               answer->state == BuildState::ready ? std::string("ready") : answer->reason);
}

} // namespace d4r::daemon
