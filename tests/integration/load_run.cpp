// d4r-load: the daemon under load (issue 12, suite item 3). Starts the real d4r-kerneld on a temp
// cache (the release fixture and the shipped recipes), then THREADS client threads, each with its
// own client of the real C library (libd4r_kernel_client, no memo), resolve RESOLVES times each,
// while a second process (d4r-load-agitator) purges, builds and uploads. Seven threads in eight
// resolve the release's d4r_test_layer (fast and accuracy alternating by thread); the eighth
// resolves recipe kernels for gfx1101, which every purge of the fast store turns into misses that
// build again. The daemon's RSS is sampled every SAMPLE_MS.
//
// An error is a wrong object (a digest other than the release file's, code bytes that do not hash
// to the digest named, another kernel's object, another target's), a REJECTED answer that no bound
// explains, a NOT_FOUND that no expected cause explains, the daemon dying, or an error of the
// agitator. Expected NOT_FOUND answers (a deadline under load and the client's quiet second after
// it, an object a purge removed between the answer and the client's read) are counted apart as
// fail-open, with their reasons. Exit status 1 on any error, or when --max-rss-growth-mib is given
// and the RSS grew by more (last sample against the first).
//
// usage: d4r-load [--threads 64] [--resolves 10000] [--period-ms 3000] [--sample-ms 1000]
//                 [--pause-ms 0] [--max-rss-growth-mib N] [--daemon-arg ARG]... (each ARG to
//                 d4r-kerneld); --pause-ms: each thread waits so long after each resolve, so that a
//                 run of an hour (memory over time) leaves the machine usable

#include "client/d4r_kernel_client.h"
#include "daemon_process.hpp"
#include "util/digest.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
using d4r::testing::DaemonOptions;
using d4r::testing::DaemonProcess;
using d4r::testing::TempDir;
using namespace std::chrono_literals;

struct Settings {
  int threads = 64;
  int resolves = 10000;
  int period_ms = 3000;
  int pause_ms = 0;
  int sample_ms = 1000;
  int64_t max_rss_growth_mib = -1; // -1: report only
  std::vector<std::string> daemon_args; // --daemon-arg A (repeatable): passed to d4r-kerneld
};

bool parse(int argc, char** argv, Settings& settings)
{
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    long value = std::atol(argv[i + 1]);
    if (flag == "--daemon-arg") {
      settings.daemon_args.emplace_back(argv[i + 1]);
    } else if (flag == "--threads") {
      settings.threads = static_cast<int>(std::clamp(value, 1L, 1024L));
    } else if (flag == "--resolves") {
      settings.resolves = static_cast<int>(std::clamp(value, 1L, 10'000'000L));
    } else if (flag == "--period-ms") {
      settings.period_ms = static_cast<int>(std::clamp(value, 10L, 600'000L));
    } else if (flag == "--pause-ms") {
      settings.pause_ms = static_cast<int>(std::clamp(value, 0L, 60'000L));
    } else if (flag == "--sample-ms") {
      settings.sample_ms = static_cast<int>(std::clamp(value, 10L, 60'000L));
    } else if (flag == "--max-rss-growth-mib") {
      settings.max_rss_growth_mib = value;
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

struct Role {
  bool recipe = false;
  int mode = D4RK_MODE_FAST;
  uint32_t budget_ms = 2000;
};

Role role_of(int thread)
{
  if (thread % 8 == 7) {
    // A game waiting for a build: PENDING until it is built (the daemon answers within 3/4 of
    // the budget; a shorter budget ends in deadlines under this load, and the client's quiet
    // second after each leaves the thread asking nothing).
    return Role{true, D4RK_MODE_FAST, 1000};
  }
  return Role{false, thread % 2 == 0 ? D4RK_MODE_FAST : D4RK_MODE_ACCURACY, 2000};
}

constexpr const char* k_recipe_kernels[] = {"d4r_example_layer", "d4r_example_wave64"};

d4rk_client* make_client(const std::string& socket, const Role& role)
{
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = socket.c_str();
  options.target = "gfx1101";
  options.budget_ms = role.budget_ms;
  options.mode = role.mode;
  options.flags = D4RK_FLAG_NO_MEMO;
  d4rk_client* client = nullptr;
  return d4rk_client_create(&options, &client) == D4RK_OK ? client : nullptr;
}

// Shared by the client threads: the counts, and the reasons of what was not READY (a few).
struct Tally {
  std::mutex mutex;
  int64_t ready = 0;
  int64_t pending = 0;
  int64_t refused = 0;   // REJECTED by a bound (queue full, upload memory)
  int64_t fail_open = 0; // an expected NOT_FOUND
  int64_t not_asked = 0; // of which the client's quiet second after a deadline: no RPC at all
  int64_t errors = 0;
  std::map<std::string, int64_t> reasons; // "OUTCOME: reason" -> count, for the report
  std::map<std::string, std::set<std::string>> recipe_digests; // kernel -> digests served

  void note(const std::string& key, bool is_error)
  {
    std::lock_guard lock(mutex);
    if (reasons.size() < 64 || reasons.contains(key)) {
      ++reasons[key];
    }
    if (is_error) {
      ++errors;
    }
  }
};

// A reason without its numbers and hex digests, so that alike reasons count as one.
std::string shape_of(const std::string& reason)
{
  std::string shape;
  std::string run; // the current run of hex digits
  auto flush = [&] {
    // Digests, hex folder names, numbers; not words made of a to f alone ("face").
    bool number = std::any_of(run.begin(), run.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    shape += run.empty() ? "" : number ? "#" : run;
    run.clear();
  };
  for (char c : reason.substr(0, 200)) {
    if (std::isxdigit(static_cast<unsigned char>(c)) != 0) {
      run += c;
      continue;
    }
    flush();
    shape += c;
  }
  flush();
  return shape;
}

bool expected_not_found(const std::string& reason)
{
  return reason.find("DEADLINE_EXCEEDED") != std::string::npos ||
         reason.find("timed out recently") != std::string::npos ||
         reason.find("Deadline Exceeded") != std::string::npos ||
         // A purge removed the object after the daemon named it and before the client read it.
         reason.find("No such file") != std::string::npos;
}

std::string hex_of(const d4r::Sha256& digest)
{
  return d4r::to_hex(digest);
}

// What is wrong with a READY answer, or "".
std::string check_object(const d4rk_kernel& kernel, const std::string& name, const Role& role,
                         const std::map<int, std::string>& release_digests)
{
  d4r::Sha256 digest = d4r::sha256(
      std::span<const std::byte>(static_cast<const std::byte*>(kernel.code), kernel.code_size));
  if (hex_of(digest) != kernel.sha256_hex) {
    return "code bytes hash to " + hex_of(digest) + ", not the digest named";
  }
  if (kernel.main.name == nullptr || name != kernel.main.name) {
    return "the object's main kernel is " + std::string(kernel.main.name ? kernel.main.name : "(none)");
  }
  if (std::string(kernel.amdhsa_target).find("gfx1101") == std::string::npos) {
    return std::string("an object for ") + kernel.amdhsa_target;
  }
  if (!role.recipe && release_digests.at(role.mode) != kernel.sha256_hex) {
    return "digest " + std::string(kernel.sha256_hex) + " is not the release file's";
  }
  return "";
}

void resolve_loop(const std::string& socket, int thread, int count, int pause_ms,
                  const std::map<int, std::string>& release_digests, Tally& tally,
                  std::vector<double>& latencies_us)
{
  Role role = role_of(thread);
  d4rk_client* client = make_client(socket, role);
  if (client == nullptr) {
    tally.note("client: cannot create", true);
    return;
  }
  latencies_us.reserve(static_cast<size_t>(count));
  int64_t ready = 0;
  int64_t pending = 0;
  for (int i = 0; i < count; ++i) {
    std::string name = role.recipe ? k_recipe_kernels[i % 2] : "d4r_test_layer";
    d4rk_kernel* kernel = nullptr;
    Clock::time_point begin = Clock::now();
    int outcome = d4rk_resolve(client, d4r::testing::k_sr_module_hash, name.c_str(), &kernel);
    latencies_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
    std::string reason = outcome == D4RK_READY ? "" : d4rk_last_reason();
    const char* who = role.recipe ? "[recipe] " : "[release] ";
    if (outcome == D4RK_READY) {
      std::string wrong = check_object(*kernel, name, role, release_digests);
      if (!wrong.empty()) {
        tally.note(who + ("WRONG OBJECT " + name + ": " + wrong), true);
      } else if (role.recipe) {
        std::lock_guard lock(tally.mutex);
        tally.recipe_digests[name].insert(kernel->sha256_hex);
      }
      ++ready;
    } else if (outcome == D4RK_PENDING) {
      ++pending;
    } else if (outcome == D4RK_REJECTED) {
      bool bound = reason.find("queue full") != std::string::npos;
      tally.note(who + ("REJECTED: " + shape_of(reason)), !bound);
      if (bound) {
        std::lock_guard lock(tally.mutex);
        ++tally.refused;
      }
    } else {
      bool expected = expected_not_found(reason);
      tally.note(who + ("NOT_FOUND: " + shape_of(reason)), !expected);
      if (expected) {
        std::lock_guard lock(tally.mutex);
        ++tally.fail_open;
        tally.not_asked += reason.find("not asked") != std::string::npos ? 1 : 0;
      }
    }
    d4rk_kernel_free(kernel);
    if (pause_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    }
  }
  d4rk_client_destroy(client);
  std::lock_guard lock(tally.mutex);
  tally.ready += ready;
  tally.pending += pending;
}

int64_t rss_kib(pid_t pid)
{
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) {
      return std::stoll(line.substr(6));
    }
  }
  return -1;
}

struct Sample {
  double seconds = 0;
  int64_t kib = 0;
};

// KiB per minute, least squares over the samples.
double slope_kib_per_minute(const std::vector<Sample>& samples)
{
  if (samples.size() < 2) {
    return 0;
  }
  double n = static_cast<double>(samples.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Sample& s : samples) {
    double y = static_cast<double>(s.kib);
    sx += s.seconds;
    sy += y;
    sxx += s.seconds * s.seconds;
    sxy += s.seconds * y;
  }
  double denominator = n * sxx - sx * sx;
  return denominator == 0 ? 0 : 60.0 * (n * sxy - sx * sy) / denominator;
}

double percentile(const std::vector<double>& sorted, double p)
{
  return sorted.empty() ? 0 : sorted[static_cast<size_t>(p * static_cast<double>(sorted.size() - 1))];
}

// Resolves each kind once until READY (the recipe kernels are built), so that the samples start
// from a daemon that has done everything the load does once.
bool warm_up(const std::string& socket)
{
  for (int thread : {0, 1, 7}) {
    Role role = role_of(thread);
    d4rk_client* client = make_client(socket, role);
    if (client == nullptr) {
      return false;
    }
    for (const char* name : role.recipe ? std::vector<const char*>(std::begin(k_recipe_kernels),
                                                                   std::end(k_recipe_kernels))
                                        : std::vector<const char*>{"d4r_test_layer"}) {
      int outcome = D4RK_PENDING;
      for (auto until = Clock::now() + 180s; outcome != D4RK_READY && Clock::now() < until;) {
        d4rk_kernel* kernel = nullptr;
        outcome = d4rk_resolve(client, d4r::testing::k_sr_module_hash, name, &kernel);
        d4rk_kernel_free(kernel);
        if (outcome != D4RK_READY) {
          std::this_thread::sleep_for(100ms);
        }
      }
      if (outcome != D4RK_READY) {
        std::fprintf(stderr, "d4r-load: warm-up: %s not READY: %s\n", name, d4rk_last_reason());
        d4rk_client_destroy(client);
        return false;
      }
    }
    d4rk_client_destroy(client);
  }
  return true;
}

pid_t start_agitator(const std::string& socket, const std::filesystem::path& summary, int period_ms)
{
  std::string tool = (std::filesystem::path(D4R_BINARY_DIR) / "tests" / "d4r-load-agitator").string();
  std::string summary_path = summary.string();
  std::string period = std::to_string(period_ms);
  std::string socket_arg = socket;
  char* argv[] = {tool.data(), socket_arg.data(), summary_path.data(), period.data(), nullptr};
  pid_t pid = -1;
  return posix_spawn(&pid, tool.c_str(), nullptr, nullptr, argv, environ) == 0 ? pid : -1;
}

// The agitator's summary line and its error count (-1 when it did not finish cleanly).
std::pair<std::string, int64_t> stop_agitator(pid_t pid, const std::filesystem::path& summary)
{
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(summary);
  std::string line;
  std::getline(in, line);
  size_t at = line.find("errors=");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || at == std::string::npos) {
    return {line.empty() ? "(no summary)" : line, -1};
  }
  return {line, std::atoll(line.c_str() + at + 7)};
}

bool alive(pid_t pid)
{
  int status = 0;
  return pid > 0 && waitpid(pid, &status, WNOHANG) == 0;
}

void print_rss(const std::vector<Sample>& samples)
{
  if (samples.empty()) {
    std::printf("rss: no samples\n");
    return;
  }
  int64_t max = 0;
  for (const Sample& s : samples) {
    max = std::max(max, s.kib);
  }
  std::vector<Sample> second_half(samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
  std::printf("daemon rss: first %lld KiB, last %lld KiB, max %lld KiB, %zu samples; slope %.0f KiB/min "
              "(second half %.0f KiB/min)\n",
              static_cast<long long>(samples.front().kib), static_cast<long long>(samples.back().kib),
              static_cast<long long>(max), samples.size(), slope_kib_per_minute(samples),
              slope_kib_per_minute(second_half));
  std::printf("rss series (s:MiB):");
  size_t step = std::max<size_t>(1, samples.size() / 20);
  for (size_t i = 0; i < samples.size(); i += step) {
    std::printf(" %.0f:%.1f", samples[i].seconds, static_cast<double>(samples[i].kib) / 1024.0);
  }
  std::printf("\n");
}

} // namespace

int main(int argc, char** argv)
{
  Settings settings;
  if (!parse(argc, argv, settings)) {
    std::fprintf(stderr, "usage: d4r-load [--threads N] [--resolves N] [--period-ms N] "
                         "[--sample-ms N] [--max-rss-growth-mib N]\n");
    return 2;
  }
  TempDir dir;
  // The daemon starts a worker per build: a copy of its own, so that a rebuild of the build tree
  // during the run (a shared tree) does not read as failed builds.
  std::filesystem::path worker = dir.path() / "d4r-kernel-worker";
  std::error_code copy_error;
  std::filesystem::copy_file(std::filesystem::path(D4R_BINARY_DIR) / "compiler" / "d4r-kernel-worker",
                             worker, copy_error);
  if (copy_error) {
    std::fprintf(stderr, "d4r-load: cannot copy the worker: %s\n", copy_error.message().c_str());
    return 1;
  }
  DaemonOptions options(dir.path());
  options.recipes_dir = d4r::testing::shipped_recipes();
  options.extra_args = {"--build-jobs", "1", "--worker", worker.string()};
  options.extra_args.insert(options.extra_args.end(), settings.daemon_args.begin(),
                            settings.daemon_args.end());
  DaemonProcess daemon(options);
  if (!daemon.start()) {
    std::fprintf(stderr, "d4r-load: the daemon did not start\n");
    return 1;
  }
  std::string socket = daemon.socket_path().string();
  std::map<int, std::string> release_digests = {
      {D4RK_MODE_FAST, d4r::testing::sha256_hex_of_file(d4r::testing::release_fixture() / "gfx1101" /
                                                        "d4r_test_layer.hsaco")},
      {D4RK_MODE_ACCURACY,
       d4r::testing::sha256_hex_of_file(d4r::testing::release_fixture() / "accuracy" / "gfx1101" /
                                        "d4r_test_layer.hsaco")}};
  std::printf("d4r-load: %d client threads x %d resolves, agitator period %d ms, daemon pid %d\n",
              settings.threads, settings.resolves, settings.period_ms, daemon.pid());
  if (!warm_up(socket)) {
    return 1;
  }
  std::filesystem::path summary = dir.path() / "agitator.txt";
  pid_t agitator = start_agitator(socket, summary, settings.period_ms);
  if (agitator < 0) {
    std::fprintf(stderr, "d4r-load: cannot start d4r-load-agitator\n");
    return 1;
  }

  std::vector<Sample> samples;
  std::atomic<bool> done{false};
  Clock::time_point start = Clock::now();
  std::thread sampler([&] {
    while (!done.load()) {
      samples.push_back({std::chrono::duration<double>(Clock::now() - start).count(), rss_kib(daemon.pid())});
      for (auto next = Clock::now() + std::chrono::milliseconds(settings.sample_ms);
           !done.load() && Clock::now() < next;) {
        std::this_thread::sleep_for(10ms);
      }
    }
  });
  Tally tally;
  std::vector<std::vector<double>> latencies(static_cast<size_t>(settings.threads));
  std::vector<std::thread> clients;
  for (int t = 0; t < settings.threads; ++t) {
    clients.emplace_back([&, t] {
      resolve_loop(socket, t, settings.resolves, settings.pause_ms, release_digests, tally,
                   latencies[static_cast<size_t>(t)]);
    });
  }
  for (std::thread& client : clients) {
    client.join();
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  auto [agitated, agitator_errors] = stop_agitator(agitator, summary);
  done = true;
  sampler.join();
  samples.push_back({std::chrono::duration<double>(Clock::now() - start).count(), rss_kib(daemon.pid())});
  bool daemon_alive = alive(daemon.pid());

  std::vector<double> all;
  std::vector<double> release_only; // without the recipe threads' waits for builds
  for (size_t t = 0; t < latencies.size(); ++t) {
    all.insert(all.end(), latencies[t].begin(), latencies[t].end());
    if (!role_of(static_cast<int>(t)).recipe) {
      release_only.insert(release_only.end(), latencies[t].begin(), latencies[t].end());
    }
  }
  std::sort(all.begin(), all.end());
  std::sort(release_only.begin(), release_only.end());
  std::printf("resolves: %zu in %.1f s: %.0f resolves/s; p50 %.0f us, p99 %.0f us, max %.0f us\n",
              all.size(), seconds, static_cast<double>(all.size()) / seconds, percentile(all, 0.50),
              percentile(all, 0.99), all.empty() ? 0.0 : all.back());
  std::printf("release threads only: p50 %.0f us, p99 %.0f us\n", percentile(release_only, 0.50),
              percentile(release_only, 0.99));
  int64_t asked = static_cast<int64_t>(all.size()) - tally.not_asked;
  std::printf("asked of the daemon (without the client's quiet second after a deadline): %lld, "
              "%.0f/s\n",
              static_cast<long long>(asked), static_cast<double>(asked) / seconds);
  std::printf("outcomes: ready %lld, pending %lld, refused by a bound %lld, fail-open (expected) %lld, "
              "errors %lld\n",
              static_cast<long long>(tally.ready), static_cast<long long>(tally.pending),
              static_cast<long long>(tally.refused), static_cast<long long>(tally.fail_open),
              static_cast<long long>(tally.errors));
  for (const auto& [reason, count] : tally.reasons) {
    std::printf("  %6lld x %s\n", static_cast<long long>(count), reason.c_str());
  }
  for (const auto& [kernel, digests] : tally.recipe_digests) {
    std::printf("recipe %s: %zu distinct objects served (rebuilt after purges)\n", kernel.c_str(),
                digests.size());
  }
  std::printf("agitator: %s\n", agitated.c_str());
  for (const char* counter : {"ready", "pending", "rejected.request_queue_full", "rejected.build_queue_full",
                              "rejected.upload_memory", "put_module", "not_found.error",
                              "not_found.missing_object", "cache.corrupt_object"}) {
    std::printf("daemon counter %s=%lld\n", counter, static_cast<long long>(daemon.counter(counter)));
  }
  print_rss(samples);
  int64_t errors = tally.errors + (agitator_errors < 0 ? 1 : agitator_errors) + (daemon_alive ? 0 : 1);
  std::printf("daemon %s; errors %lld\n", daemon_alive ? "alive" : "DIED", static_cast<long long>(errors));
  bool rss_ok = true;
  if (settings.max_rss_growth_mib >= 0 && !samples.empty()) {
    int64_t growth_kib = samples.back().kib - samples.front().kib;
    rss_ok = growth_kib <= settings.max_rss_growth_mib * 1024;
    std::printf("rss growth %lld KiB (limit %lld MiB): %s\n", static_cast<long long>(growth_kib),
                static_cast<long long>(settings.max_rss_growth_mib), rss_ok ? "ok" : "TOO MUCH");
  }
  return errors == 0 && rss_ok ? 0 : 1;
}
