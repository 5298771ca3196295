// d4r-kerneld: the user-level daemon that serves native kernel replacements. main() is a recipe
// of named phases (STYLE.md rule 14), each timed.

#include "cache/remote/redis/redis_tier.hpp"
#include "d4r_version.hpp"
#include "daemon/config.hpp"
#include "daemon/kernel_core.hpp"
#include "daemon/listener.hpp"
#include "daemon/logging.hpp"
#include "daemon/release/gpu_detection.hpp"
#include "daemon/server.hpp"
#include "daemon/task_pool.hpp"
#include "daemon/upstream_tier.hpp"
#include "daemon/worker_runner.hpp"
#include "util/timer.hpp"

#include <absl/synchronization/mutex.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <thread>

extern char** environ;

namespace {

using namespace d4r;
using namespace d4r::daemon;

void log_phase(std::string_view phase, std::chrono::nanoseconds elapsed)
{
  spdlog::debug("phase {}: {:.3f} ms", phase, static_cast<double>(elapsed.count()) / 1e6);
}

// Signals are taken from a signalfd in the accept loop, so every thread must block them first.
int block_signals()
{
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signalfd(-1, &set, SFD_CLOEXEC);
}

std::string detect_target(const DaemonConfig& config)
{
  std::optional<std::string_view> override_arch;
  if (config.gpu_arch) {
    override_arch = *config.gpu_arch;
  }
  Expected<std::string> arch = release::resolve_gpu_arch(override_arch, config.topology_root);
  if (!arch) {
    spdlog::warn("{}; requests must name their target", arch.error().message);
    return "";
  }
  if (!is_known_target(*arch)) {
    spdlog::warn("gpu {} is not an RDNA3/RDNA4 target d4r builds for; requests must name one", *arch);
    return "";
  }
  return *arch;
}

// Each client connection costs a descriptor, and the soft limit is often 1024 while the hard one
// is far higher: take what may be taken (epoll has no FD_SETSIZE), so that EMFILE needs a flood.
void raise_descriptor_limit()
{
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, 65536);
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// This daemon among the consumers of the Redis job stream: its host name and process id.
std::string consumer_name()
{
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) {
    host = {};
  }
  return std::string(host.data()) + ":" + std::to_string(getpid());
}

// The shared Redis tier, after the local store: a build another host made is fetched, not redone.
// Its connect and command timeouts stay within the budget, so a down or frozen Redis costs a
// request the budget once and then nothing while the chain backs it off.
void add_redis_tier(const DaemonConfig& config, KernelCore& core)
{
  if (config.redis.empty()) {
    return;
  }
  Expected<cache::redis::RedisEndpoint> endpoint = cache::redis::parse_endpoint(config.redis);
  if (!endpoint) { // parse_config checked it already
    spdlog::critical("{}", endpoint.error().message);
    return;
  }
  std::chrono::milliseconds budget(config.redis_budget_ms);
  cache::redis::RedisTierOptions options;
  options.connection.endpoint = *endpoint;
  options.connection.connect_timeout = budget;
  options.connection.command_timeout = budget;
  // One host builds a key while the others wait for it: its claim outlasts any build (the
  // worker's wall limit), and a waiter outlasts a claim, so that it takes over a dead host's.
  options.lock_ttl = std::chrono::seconds(config.build_wall_seconds) + std::chrono::seconds(10);
  const auto claim_budget = options.lock_ttl + std::chrono::seconds(5);
  // Builds this host cannot start at once go on the job stream for idle hosts; one a host took
  // and left unfinished as long as a claim lasts was lost with it and goes to another.
  options.consumer = consumer_name();
  options.job_timeout = options.lock_ttl;
  options.heartbeat = std::chrono::seconds(2); // status lists the hosts alive
  core.add_tier(cache::redis::make_redis_tier(std::move(options)),
                cache::TierPolicy{.budget = budget, .backoff = std::chrono::milliseconds(1000),
                                  .max_backoff = std::chrono::milliseconds(60000),
                                  .claim_budget = claim_budget, .shares_jobs = true});
  spdlog::info("redis tier {} (budget {} ms per call)", cache::redis::to_string(*endpoint),
               config.redis_budget_ms);
}

// Another daemon's store, after the local one (and before Redis: a build host's answer is
// signed, so it is trusted as far as the pinned key is). Its files are read now: a token or CA
// that cannot be read refuses to start rather than fail every lookup later.
Expected<void> add_upstream_tier(const DaemonConfig& config, KernelCore& core)
{
  if (config.upstream.empty()) {
    return {};
  }
  TRY_ASSIGN(UpstreamOptions options, upstream_options(config));
  std::chrono::milliseconds budget(config.upstream_budget_ms);
  core.add_tier(make_upstream_tier(std::move(options)),
                cache::TierPolicy{.budget = budget, .backoff = std::chrono::milliseconds(1000),
                                  .max_backoff = std::chrono::milliseconds(60000),
                                  .build_budget = std::chrono::milliseconds(config.upstream_build_ms)});
  spdlog::info("upstream tier {} (budget {} ms per fetch, {} ms per build there, results signed by "
               "{})",
               config.upstream, config.upstream_budget_ms, config.upstream_build_ms,
               config.upstream_key);
  return {};
}

int run_daemon(const DaemonConfig& config)
{
  raise_descriptor_limit();
  int signal_fd = block_signals();
  std::string target;
  {
    Timer timer("detect-gpu", log_phase);
    target = detect_target(config);
  }
  std::unique_ptr<KernelCore> core;
  {
    Timer timer("open-cache", log_phase);
    Expected<std::unique_ptr<KernelCore>> created = KernelCore::create(config, target);
    if (!created) {
      spdlog::critical("{}", created.error().message);
      return 1;
    }
    core = std::move(*created);
  }
  if (Expected<void> upstream = add_upstream_tier(config, *core); !upstream) {
    spdlog::critical("{}", upstream.error().message);
    return 1;
  }
  add_redis_tier(config, *core);
  core->share_builds();
  Expected<Listener> listener = Listener::open(config.socket_path);
  if (!listener) {
    spdlog::critical("{}", listener.error().message);
    return 1;
  }
  // Requests that wait for a build hold a thread for their wait budget, so there are more request
  // threads than cores; the builds themselves run on the build pool (--build-jobs).
  int threads = config.workers > 0
                    ? config.workers
                    : static_cast<int>(std::max(8U, 2 * std::thread::hardware_concurrency()));
  TaskPool pool(threads, config.max_queued_requests);
  Expected<std::unique_ptr<Server>> server = Server::start(*core, pool, config.max_ptx_bytes + (1 << 20));
  if (!server) {
    spdlog::critical("{}", server.error().message);
    return 1;
  }
  spdlog::info("d4r-kerneld {} serving on {}{} for {} (cache {}, release {})", k_d4r_version,
               listener->path().string(), listener->from_systemd() ? " (systemd socket)" : "",
               target.empty() ? "no detected gpu" : target, config.cache_dir.string(),
               config.native_dir ? config.native_dir->string() : "none");
  sd_notify(0, "READY=1\nSTATUS=serving");
  Expected<void> served = (*server)->serve(*listener, signal_fd);
  sd_notify(0, "STOPPING=1");
  core->stop_builds(); // before the server's grace period, so that waiting requests return
  (*server)->shutdown(std::chrono::seconds(2));
  pool.shutdown(); // finishes queued work, so a committed cache entry is never half-done
  close(signal_fd);
  if (!served) {
    spdlog::critical("{}", served.error().message);
    return 1;
  }
  spdlog::info("stopped");
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  // Debian builds Abseil with its debug default, which tracks every gRPC mutex acquisition in a
  // lock-order graph to report deadlocks: a few per cent of the daemon's time on each call.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    environment.emplace_back(*entry);
  }
  Expected<ParsedConfig> parsed = parse_config(args, environment);
  if (!parsed) {
    std::fprintf(stderr, "d4r-kerneld: %s\n", parsed.error().message.c_str());
    return 2;
  }
  if (parsed->status == ParseStatus::help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (parsed->status == ParseStatus::version) {
    std::printf("d4r-kerneld %s\n", k_d4r_version);
    return 0;
  }
  Expected<void> logging = setup_logging(parsed->config.log_level);
  if (!logging) {
    std::fprintf(stderr, "d4r-kerneld: %s\n", logging.error().message.c_str());
    return 2;
  }
  DaemonConfig& config = parsed->config;
  if (config.worker.empty()) {
    std::error_code ec;
    Expected<std::filesystem::path> worker =
        find_worker_binary(std::filesystem::canonical("/proc/self/exe", ec));
    if (worker) {
      config.worker = *worker;
    } else {
      spdlog::warn("{}; on-demand builds will fail", worker.error().message);
    }
  }
  return run_daemon(config);
}
