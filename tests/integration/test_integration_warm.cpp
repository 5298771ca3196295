// `d4r-kernel warm` end to end: the real CLI and the real daemon on a synthetic DLL (our PE
// writer, real nvcc fatbins inside), its modules uploaded and translated by a ptx recipe for
// every kernel; a second run that finds everything in the cache; the progress bar under a pty;
// Ctrl-C and a resumed run that does only the rest; a game's Resolve during a warm that does not
// wait behind warm builds; the RR/SR split of the DLL's name.

#include "tests/integration/daemon_process.hpp"
#include "tests/integration/warm_support.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// `"name":123` of one JSON event line; -1 when absent.
int64_t json_number(const std::string& line, const std::string& name)
{
  size_t at = line.find("\"" + name + "\":");
  if (at == std::string::npos) {
    return -1;
  }
  return std::strtoll(line.c_str() + at + name.size() + 3, nullptr, 10);
}

std::string json_string(const std::string& line, const std::string& name)
{
  std::string key = "\"" + name + "\":\"";
  size_t at = line.find(key);
  if (at == std::string::npos) {
    return "";
  }
  size_t start = at + key.size();
  return line.substr(start, line.find('"', start) - start);
}

struct WarmRun {
  int exit = -1;
  std::vector<std::string> events; // --json lines
  std::string start;
  std::string end;
  std::string text; // without --json: all of stdout
};

std::vector<std::string> cli_args(const DaemonProcess& daemon, std::vector<std::string> rest)
{
  std::vector<std::string> args = {cli_binary().string(), "warm", "--socket",
                                   daemon.socket_path().string()};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon);
pb::StatusReply status_of(const DaemonProcess& daemon);

// Runs warm to its end; with `interrupt_after_builds`, SIGINT as soon as the daemon has finished
// that many builds. The daemon is watched rather than the client's lines: the client reports
// items only when it polls, and on a fast machine every build can end within one poll interval.
WarmRun run_warm(const DaemonProcess& daemon, const std::filesystem::path& dir,
             std::vector<std::string> rest, int interrupt_after_builds = 0)
{
  Child child = spawn_on_pipe(cli_args(daemon, std::move(rest)), dir / "warm.stderr");
  std::jthread interrupter;
  if (interrupt_after_builds > 0) {
    interrupter = std::jthread([&daemon, pid = child.pid, interrupt_after_builds](std::stop_token stop) {
      while (!stop.stop_requested()) {
        if (status_of(daemon).builds().done() >= interrupt_after_builds) {
          ::kill(pid, SIGINT);
          return;
        }
        std::this_thread::sleep_for(5ms);
      }
    });
  }
  WarmRun run;
  std::string buffer;
  std::string line;
  while (read_line(child.output, buffer, line)) {
    run.text += line + "\n";
    if (!line.starts_with("{")) {
      continue;
    }
    run.events.push_back(line);
    std::string event = json_string(line, "event");
    if (event == "start") {
      run.start = line;
    } else if (event == "end") {
      run.end = line;
    }
  }
  ::close(child.output);
  run.exit = wait_child(child.pid);
  return run;
}

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

pb::StatusReply status_of(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  return reply;
}

pb::ResolveReply resolve(const DaemonProcess& daemon, uint64_t hash, const std::string& kernel,
                         const std::string& target, uint32_t wait_ms)
{
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) + 30s);
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

DaemonOptions warm_daemon(const std::filesystem::path& dir, bool slow, std::vector<std::string> extra)
{
  DaemonOptions options(dir);
  options.native_dir = std::filesystem::path(); // everything from recipes
  options.recipes_dir = warm_recipes(dir, slow);
  options.extra_args = std::move(extra);
  options.log_file = dir / "daemon.log";
  return options;
}

// Until the daemon's build pool is empty (nothing queued or running), at most `limit`.
bool builds_settle(const DaemonProcess& daemon, std::chrono::seconds limit)
{
  for (Clock::time_point end = Clock::now() + limit; Clock::now() < end;) {
    pb::StatusReply status = status_of(daemon);
    if (status.builds().queued() == 0 && status.builds().running() == 0) {
      return true;
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

TEST(Warm, ASyntheticDllEndToEndThenOnlyWhatIsMissing)
{
  TempDir dir;
  std::filesystem::path dll = make_synthetic_dll(dir.path(), "nvngx_dlss.dll");
  ASSERT_FALSE(dll.empty());
  DaemonProcess daemon(warm_daemon(dir.path(), false, {"--build-jobs", "2"}));
  ASSERT_TRUE(daemon.start());

  WarmRun first = run_warm(daemon, dir.path(), {"--json", "--targets", "gfx1100,gfx1201", dll.string()});
  ASSERT_EQ(first.exit, 0) << first.text << read_file(dir.path() / "warm.stderr");
  EXPECT_EQ(json_number(first.start, "total"), 2 * k_dll_entries) << first.start;
  EXPECT_EQ(json_number(first.start, "modules"), 3);
  EXPECT_EQ(json_number(first.start, "uploaded"), 3) << "a ptx recipe translates each module";
  EXPECT_EQ(json_number(first.start, "split_out"), 0);
  int items = 0;
  for (const std::string& event : first.events) {
    if (json_string(event, "event") == "item") {
      ++items;
      EXPECT_EQ(json_string(event, "state"), "built") << event;
    }
  }
  EXPECT_EQ(items, 2 * k_dll_entries);
  EXPECT_EQ(json_number(first.end, "built"), 2 * k_dll_entries) << first.end;
  EXPECT_EQ(json_number(first.end, "failed"), 0);

  // Served as a game asks for it: from the cache at once.
  pb::ResolveReply ready = resolve(daemon, k_dll_module_sm90, "fatbin_prefix_sum", "gfx1201", 1);
  EXPECT_EQ(ready.outcome(), pb::ResolveReply::READY) << ready.reason();

  WarmRun second = run_warm(daemon, dir.path(), {"--json", "--targets", "gfx1100,gfx1201", dll.string()});
  ASSERT_EQ(second.exit, 0) << second.text;
  EXPECT_EQ(json_number(second.start, "uploaded"), 0) << "the daemon has the modules";
  EXPECT_EQ(json_number(second.end, "already"), 2 * k_dll_entries) << second.end;
  EXPECT_EQ(json_number(second.end, "built"), 0);
  EXPECT_EQ(status_of(daemon).builds().done(), 2 * k_dll_entries) << "each kernel built once";

  // The denoiser's name: its hashes authorise only cuda_dldn_engine_* names, none of these.
  std::filesystem::path rr = dir.path() / "nvngx_dlssd.dll";
  std::filesystem::copy_file(dll, rr);
  WarmRun split = run_warm(daemon, dir.path(), {"--json", rr.string()});
  EXPECT_EQ(split.exit, 0) << split.text;
  EXPECT_EQ(json_number(split.start, "split_out"), k_dll_entries) << split.start;
  EXPECT_EQ(json_number(split.start, "total"), 0);
}

TEST(Warm, TheProgressBarRedrawsOnATerminalAndPlainLinesOtherwise)
{
  TempDir dir;
  std::filesystem::path dll = make_synthetic_dll(dir.path(), "nvngx_dlss.dll");
  ASSERT_FALSE(dll.empty());
  DaemonProcess daemon(warm_daemon(dir.path(), false, {"--build-jobs", "1"}));
  ASSERT_TRUE(daemon.start());

  Child child = spawn_on_pty(cli_args(daemon, {"--targets", "gfx1100", dll.string()}));
  std::string text = read_all(child.output);
  ::close(child.output);
  EXPECT_EQ(wait_child(child.pid), 0) << text;
  size_t redraws = 0;
  for (size_t at = text.find("\r\x1b[Kwarm ["); at != std::string::npos;
       at = text.find("\r\x1b[Kwarm [", at + 1)) {
    ++redraws;
  }
  EXPECT_GE(redraws, 3u) << "7 builds on one worker take seconds: the bar is redrawn as they end\n"
                         << text;
  EXPECT_NE(text.find("] 7/7"), std::string::npos) << text;
  EXPECT_NE(text.find("warm done: 7 kernels, 0 already in the cache, 7 built, 0 failed"),
            std::string::npos)
      << text;

  WarmRun plain = run_warm(daemon, dir.path(), {"--targets", "gfx1102", dll.string()});
  EXPECT_EQ(plain.exit, 0) << plain.text;
  EXPECT_EQ(plain.text.find('\r'), std::string::npos) << "no redraws into a pipe";
  size_t built_lines = 0;
  for (size_t at = plain.text.find("\nbuilt "); at != std::string::npos;
       at = plain.text.find("\nbuilt ", at + 1)) {
    ++built_lines;
  }
  EXPECT_EQ(built_lines, 7u) << plain.text;
}

TEST(Warm, InterruptedThenResumedDoesOnlyTheRest)
{
  TempDir dir;
  std::filesystem::path dll = make_synthetic_dll(dir.path(), "nvngx_dlss.dll");
  ASSERT_FALSE(dll.empty());
  DaemonProcess daemon(warm_daemon(dir.path(), false, {"--build-jobs", "2"}));
  ASSERT_TRUE(daemon.start());
  std::vector<std::string> args = {"--json", "--targets", "gfx1100,gfx1201", "--mode", "both",
                                   dll.string()};
  const int64_t total = 4 * k_dll_entries;

  WarmRun first = run_warm(daemon, dir.path(), args, 2);
  ASSERT_EQ(first.exit, 130) << first.text << read_file(dir.path() / "warm.stderr");
  EXPECT_EQ(json_number(first.end, "total"), total) << first.end;
  EXPECT_NE(first.end.find("\"interrupted\":true"), std::string::npos) << first.end;
  int64_t built = json_number(first.end, "built");
  int64_t still_building = json_number(first.end, "still_building");
  int64_t dropped = json_number(first.end, "dropped");
  EXPECT_GE(built + still_building, 2) << "two builds had ended in the daemon";
  EXPECT_LE(still_building, 2) << "at most --build-jobs warm builds run at once";
  EXPECT_GT(dropped, 0) << first.end;
  EXPECT_EQ(built + still_building + dropped + json_number(first.end, "failed"), total);

  // The daemon's queue: the builds that were running finish and are stored, nothing else is left.
  ASSERT_TRUE(builds_settle(daemon, 120s));
  pb::StatusReply settled = status_of(daemon);
  EXPECT_EQ(settled.builds().done(), built + still_building);

  WarmRun second = run_warm(daemon, dir.path(), args);
  ASSERT_EQ(second.exit, 0) << second.text;
  EXPECT_EQ(json_number(second.end, "already"), built + still_building) << second.end;
  EXPECT_EQ(json_number(second.end, "built"), total - built - still_building);
  EXPECT_EQ(json_number(second.end, "failed"), 0);
  EXPECT_EQ(status_of(daemon).builds().done(), total) << "nothing built twice";
}

// One build thread, held by a warm build that never ends: a game's Resolve of a kernel that needs
// a build of its own is answered READY while that warm build still runs (the old pool queued it
// behind the warm build: it would have waited for the worker's CPU limit).
TEST(Warm, AGameResolveDoesNotWaitBehindWarmBuilds)
{
  TempDir dir;
  std::filesystem::path dll = make_synthetic_dll(dir.path(), "nvngx_dlss.dll");
  ASSERT_FALSE(dll.empty());
  DaemonProcess daemon(warm_daemon(dir.path(), true,
                                   {"--build-jobs", "1", "--build-cpu-seconds", "60",
                                    "--build-wall-seconds", "120"}));
  ASSERT_TRUE(daemon.start());
  Child warm = spawn_on_pipe(cli_args(daemon, {"--json", "--targets", "gfx1101", dll.string()}),
                             dir.path() / "warm.stderr");
  bool warm_running = false;
  for (Clock::time_point end = Clock::now() + 30s; Clock::now() < end && !warm_running;) {
    warm_running = status_of(daemon).builds().running() == 1;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(warm_running) << "a warm build holds the one build thread";

  Clock::time_point asked = Clock::now();
  pb::ResolveReply game = resolve(daemon, k_sr_module_hash, "d4r_example_layer", "gfx1101", 60000);
  auto latency = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked);
  EXPECT_EQ(game.outcome(), pb::ResolveReply::READY) << game.reason();
  EXPECT_LT(latency, 45s) << "a generous bound for one small build on a loaded machine";
  pb::StatusReply status = status_of(daemon);
  EXPECT_EQ(status.builds().done(), 1) << "the game's build is the one that finished";
  EXPECT_GE(status.builds().running(), 1) << "while the warm build still runs";
  std::printf("game resolve (cold build) during a warm holding every build thread: %lld ms\n",
              static_cast<long long>(latency.count()));
  // A warm hit meanwhile: within a game's usual budget.
  asked = Clock::now();
  pb::ResolveReply hit = resolve(daemon, k_sr_module_hash, "d4r_example_layer", "gfx1101", 50);
  EXPECT_EQ(hit.outcome(), pb::ResolveReply::READY);
  EXPECT_LT(Clock::now() - asked, 2s);

  ::kill(warm.pid, SIGINT);
  std::string rest = read_all(warm.output);
  ::close(warm.output);
  EXPECT_EQ(wait_child(warm.pid), 130) << rest;
  EXPECT_NE(rest.find("\"dropped\":6"), std::string::npos) << "6 of 7 never started\n" << rest;
}

} // namespace
} // namespace d4r::testing
