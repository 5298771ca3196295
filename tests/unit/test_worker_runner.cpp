#include "daemon/worker_runner.hpp"

#include "compiler/launch_meta.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace {

using d4r::ErrorCode;
using d4r::compiler::CompileJob;
using d4r::compiler::SourceLanguage;
using d4r::daemon::WorkerLimits;
using d4r::daemon::WorkerResult;
using d4r::daemon::WorkerRunner;
using namespace std::chrono_literals;

const std::filesystem::path k_worker = D4R_WORKER_BINARY;
const std::filesystem::path k_cannot_select =
    std::filesystem::path(D4R_TEST_SOURCE_DIR) / "compiler" / "cannot_select_gfx1100.ll";

CompileJob simple_hip_job(const std::string& target)
{
  CompileJob job;
  job.source = std::filesystem::path(D4R_KERNELS_SOURCE_DIR) / "testdata" / "d4r_test_simple.hip";
  job.language = SourceLanguage::hip;
  job.target = target;
  job.flags = {"-O3"};
  return job;
}

CompileJob cannot_select_job(const std::string& target)
{
  CompileJob job;
  job.source = k_cannot_select;
  job.language = SourceLanguage::llvm_ir;
  job.target = target;
  return job;
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// The pids of live (not zombie) processes whose command line mentions `needle`.
std::vector<int> live_processes_mentioning(const std::string& needle)
{
  std::vector<int> pids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (contains(text, needle)) {
      pids.push_back(std::stoi(name));
    }
  }
  return pids;
}

bool process_gone_or_zombie(int pid)
{
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return text.empty() || paren == std::string::npos || text.substr(paren + 2, 1) == "Z";
}

class WorkerRunnerTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ::setenv("D4R_WORKER_TEST_FAULTS", "1", 1); }

  void SetUp() override
  {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "d4r-worker-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_scratch = m_dir / "scratch";
  }

  void TearDown() override
  {
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }

  [[nodiscard]] WorkerRunner runner(WorkerLimits limits = {}) const
  {
    return WorkerRunner(k_worker, m_scratch, limits);
  }

  // Every run removes its scratch folder, whatever became of the worker.
  void expect_no_scratch_left() const
  {
    ASSERT_TRUE(std::filesystem::is_directory(m_scratch));
    EXPECT_TRUE(std::filesystem::is_empty(m_scratch));
  }

  std::filesystem::path m_dir;
  std::filesystem::path m_scratch;
};

void expect_simple_object(const WorkerResult& result, const std::string& target)
{
  d4r::Expected<d4r::compiler::LaunchMeta> meta =
      d4r::compiler::read_launch_meta(result.code_object, "d4r_test_simple");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--" + target);
  EXPECT_EQ(meta->main.kernarg_size, 12u); // (float*, float)
  EXPECT_EQ(meta->main.wave_size, 32u);
}

TEST_F(WorkerRunnerTest, CompilesHipForGfx1101)
{
  d4r::Expected<WorkerResult> result = runner().run(simple_hip_job("gfx1101"), "llvm");
  ASSERT_TRUE(result) << result.error().message;
  expect_simple_object(*result, "gfx1101");
  EXPECT_GT(result->elapsed.count(), 0);
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, CompileErrorIsRejectedWithTheCompilerMessage)
{
  std::filesystem::path source = m_dir / "broken.hip";
  std::ofstream(source) << "void broken_kernel(float* out) { out[0] = undeclared_name; }\n";
  CompileJob job = simple_hip_job("gfx1101");
  job.source = source;
  d4r::Expected<WorkerResult> result = runner().run(job, "llvm");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::rejected) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "undeclared_name")) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, source.string())) << result.error().message;
  EXPECT_FALSE(contains(result.error().message, "crashed")) << result.error().message;
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, RealLlvmAbortIsRejectedAndTheSameIrBuildsForGfx12)
{
  ASSERT_TRUE(std::filesystem::exists(k_cannot_select)) << k_cannot_select;
  d4r::Expected<WorkerResult> crashed = runner().run(cannot_select_job("gfx1100"), "llvm");
  ASSERT_FALSE(crashed);
  EXPECT_EQ(crashed.error().code, ErrorCode::rejected) << crashed.error().message;
  EXPECT_TRUE(contains(crashed.error().message, "worker crashed (signal 6, Aborted) building " +
                                                    k_cannot_select.string() + " for gfx1100"))
      << crashed.error().message;
  EXPECT_TRUE(contains(crashed.error().message, "Cannot select")) << crashed.error().message;

  d4r::Expected<WorkerResult> built = runner().run(cannot_select_job("gfx1201"), "llvm");
  ASSERT_TRUE(built) << built.error().message;
  d4r::Expected<d4r::compiler::LaunchMeta> meta =
      d4r::compiler::read_launch_meta(built->code_object, "d4r_cannot_select");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--gfx1201");
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, InjectedCrashIsSuspectAndRejectedWhenItHappensTwice)
{
  d4r::daemon::WorkerAttempt once = runner().attempt(simple_hip_job("gfx1101"), "llvm", "crash");
  ASSERT_FALSE(once.result);
  EXPECT_EQ(once.failure, d4r::daemon::FailureKind::suspect);
  EXPECT_EQ(once.result.error().code, ErrorCode::rejected) << once.result.error().message;
  // run() tries again; the same crash twice is the input's.
  d4r::Expected<WorkerResult> result =
      runner().run_with_fault(simple_hip_job("gfx1101"), "llvm", "crash");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::rejected) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "worker crashed (signal 6, Aborted)"))
      << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "(twice)")) << result.error().message;
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, BusyLoopHitsTheCpuLimit)
{
  WorkerLimits limits;
  limits.cpu = 2s;
  auto start = std::chrono::steady_clock::now();
  d4r::daemon::WorkerAttempt attempt = runner(limits).attempt(simple_hip_job("gfx1101"), "llvm", "hang");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(attempt.failure, d4r::daemon::FailureKind::suspect);
  const d4r::Expected<WorkerResult>& result = attempt.result;
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::timeout) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "worker exceeded its CPU limit of 2s"))
      << result.error().message;
  EXPECT_GE(took, 2s);
  EXPECT_LT(took, 30s); // a loaded machine stretches CPU time over more wall time
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, SleepHitsTheWallLimitAndTheGroupIsKilled)
{
  WorkerLimits limits;
  limits.wall = 1500ms;
  WorkerRunner sleepy = runner(limits);
  auto start = std::chrono::steady_clock::now();
  std::future<d4r::daemon::WorkerAttempt> pending = std::async(std::launch::async, [&] {
    return sleepy.attempt(simple_hip_job("gfx1101"), "llvm", "sleep");
  });
  // The sleeping worker forks a child; both name the job file under m_scratch.
  std::vector<int> seen;
  while (seen.size() < 2 && pending.wait_for(20ms) == std::future_status::timeout) {
    seen = live_processes_mentioning(m_scratch.string());
  }
  d4r::daemon::WorkerAttempt attempt = pending.get();
  auto took = std::chrono::steady_clock::now() - start;
  // A busy machine stretches wall time: that says nothing about the input.
  EXPECT_EQ(attempt.failure, d4r::daemon::FailureKind::transient);
  const d4r::Expected<WorkerResult>& result = attempt.result;
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::unavailable) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "did not finish within 1500 ms"))
      << result.error().message;
  EXPECT_GE(took, 1500ms);
  EXPECT_LT(took, 10s);
  ASSERT_EQ(seen.size(), 2u) << "the worker and its child were never both seen running";
  for (int pid : seen) {
    EXPECT_TRUE(process_gone_or_zombie(pid)) << "process " << pid << " survived the run";
  }
  EXPECT_TRUE(live_processes_mentioning(m_scratch.string()).empty());
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, RunawayAllocationIsResourceExhausted)
{
  WorkerLimits limits;
  limits.memory_bytes = int64_t{512} << 20;
  d4r::daemon::WorkerAttempt attempt = runner(limits).attempt(simple_hip_job("gfx1101"), "llvm", "memory");
  EXPECT_EQ(attempt.failure, d4r::daemon::FailureKind::suspect);
  const d4r::Expected<WorkerResult>& result = attempt.result;
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::resource_exhausted) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "out of memory (limit 512 MiB)"))
      << result.error().message;
  expect_no_scratch_left();
}

// Waits until a sleeping worker and its child run, then sends them `signal`, as systemd does to
// the unit's cgroup on a restart. Returns how many processes it signalled.
size_t signal_sleeping_worker(const std::filesystem::path& scratch, int signal)
{
  std::vector<int> seen;
  for (int i = 0; i < 500 && seen.size() < 2; ++i) {
    std::this_thread::sleep_for(20ms);
    seen = live_processes_mentioning(scratch.string());
  }
  for (int pid : seen) {
    ::kill(pid, signal);
  }
  return seen.size();
}

TEST_F(WorkerRunnerTest, KillFromOutsideIsTransientAndNotTheInputsFault)
{
  WorkerLimits limits;
  limits.wall = 3000ms;
  WorkerRunner sleepy = runner(limits);
  std::future<d4r::daemon::WorkerAttempt> pending = std::async(std::launch::async, [&] {
    return sleepy.attempt(simple_hip_job("gfx1101"), "llvm", "sleep");
  });
  EXPECT_EQ(signal_sleeping_worker(m_scratch, SIGTERM), 2u);
  d4r::daemon::WorkerAttempt attempt = pending.get();
  EXPECT_EQ(attempt.failure, d4r::daemon::FailureKind::transient);
  ASSERT_FALSE(attempt.result);
  EXPECT_EQ(attempt.result.error().code, ErrorCode::unavailable) << attempt.result.error().message;
  EXPECT_TRUE(contains(attempt.result.error().message, "killed from outside (signal 15"))
      << attempt.result.error().message;
  // run(): the first attempt is killed, the second runs into the wall limit; neither is the
  // input's fault, so the answer is unavailable (never remembered), naming both.
  std::future<d4r::Expected<WorkerResult>> both = std::async(std::launch::async, [&] {
    return sleepy.run_with_fault(simple_hip_job("gfx1101"), "llvm", "sleep");
  });
  EXPECT_EQ(signal_sleeping_worker(m_scratch, SIGTERM), 2u);
  d4r::Expected<WorkerResult> result = both.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::unavailable) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "did not finish within 3000 ms"))
      << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "killed from outside")) << result.error().message;
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, StopKillsTheRunningWorkerAndRefusesNewOnes)
{
  WorkerLimits limits;
  limits.wall = 60000ms;
  WorkerRunner sleepy = runner(limits);
  auto start = std::chrono::steady_clock::now();
  std::future<d4r::Expected<WorkerResult>> pending = std::async(std::launch::async, [&] {
    return sleepy.run_with_fault(simple_hip_job("gfx1101"), "llvm", "sleep");
  });
  std::vector<int> seen;
  while (seen.size() < 2 && pending.wait_for(20ms) == std::future_status::timeout) {
    seen = live_processes_mentioning(m_scratch.string());
  }
  sleepy.stop();
  d4r::Expected<WorkerResult> result = pending.get();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << "stop() waited for the wall limit";
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::unavailable) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "the daemon is stopping")) << result.error().message;
  for (int pid : seen) {
    EXPECT_TRUE(process_gone_or_zombie(pid)) << "process " << pid << " survived stop()";
  }
  d4r::daemon::WorkerAttempt later = sleepy.attempt(simple_hip_job("gfx1101"), "llvm", "");
  ASSERT_FALSE(later.result);
  EXPECT_TRUE(contains(later.result.error().message, "the daemon is stopping"));
  expect_no_scratch_left();
}

// A line of /proc/PID/status ("NoNewPrivs:\t1" gives "1"), or empty.
std::string status_field(int pid, const std::string& name)
{
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(name + ":")) {
      return line.substr(line.find_first_not_of(" \t", name.size() + 1));
    }
  }
  return "";
}

TEST_F(WorkerRunnerTest, TheWorkerGivesUpPrivilegesAndNetworkAndDiesWithItsDaemon)
{
  // The daemon is a child of this test, so that it can be killed as `kill -9` would.
  pid_t daemon = fork();
  ASSERT_GE(daemon, 0);
  if (daemon == 0) {
    WorkerLimits limits;
    limits.wall = 30000ms;
    (void)runner(limits).attempt(simple_hip_job("gfx1101"), "llvm", "sleep");
    _exit(0);
  }
  int worker = -1;
  for (int i = 0; i < 500 && worker < 0; ++i) {
    std::this_thread::sleep_for(10ms);
    for (int pid : live_processes_mentioning(m_scratch.string())) {
      if (status_field(pid, "PPid") == std::to_string(daemon)) {
        worker = pid;
      }
    }
  }
  ASSERT_GT(worker, 0) << "the worker never ran";
  EXPECT_EQ(status_field(worker, "NoNewPrivs"), "1");
  // Whether this machine lets an unprivileged process have a network namespace at all.
  pid_t probe = fork();
  if (probe == 0) {
    _exit(::unshare(CLONE_NEWNET) == 0 || ::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
  }
  int probe_status = 0;
  ::waitpid(probe, &probe_status, 0);
  std::error_code ec;
  if (WIFEXITED(probe_status) && WEXITSTATUS(probe_status) == 0) {
    EXPECT_NE(std::filesystem::read_symlink("/proc/" + std::to_string(worker) + "/ns/net", ec),
              std::filesystem::read_symlink("/proc/self/ns/net", ec))
        << "the worker shares the daemon's network namespace";
  } else {
    std::printf("this machine allows no network namespace here; the worker keeps the network\n");
  }
  ::kill(daemon, SIGKILL);
  ::waitpid(daemon, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::this_thread::sleep_for(10ms);
    gone = process_gone_or_zombie(worker);
  }
  EXPECT_TRUE(gone) << "the worker outlived its daemon";
  // Its own child (the sleep fault's) is orphaned with it; end it so nothing lingers.
  for (int pid : live_processes_mentioning(m_scratch.string())) {
    ::kill(pid, SIGKILL);
  }
}

TEST_F(WorkerRunnerTest, FourParallelRunsAllSucceed)
{
  WorkerRunner shared = runner();
  const std::vector<std::string> targets = {"gfx1100", "gfx1101", "gfx1200", "gfx1201"};
  std::vector<d4r::Expected<WorkerResult>> results(targets.size());
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < targets.size(); ++i) {
      threads.emplace_back([&, i] { results[i] = shared.run(simple_hip_job(targets[i]), "llvm"); });
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    ASSERT_TRUE(results[i]) << targets[i] << ": " << results[i].error().message;
    expect_simple_object(*results[i], targets[i]);
  }
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, FaultsNeedTheTestEnvironment)
{
  ::unsetenv("D4R_WORKER_TEST_FAULTS");
  d4r::Expected<WorkerResult> result =
      runner().run_with_fault(simple_hip_job("gfx1101"), "llvm", "crash");
  ::setenv("D4R_WORKER_TEST_FAULTS", "1", 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::internal) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "fault injection is disabled"))
      << result.error().message;
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, UnknownBackendIsUnavailable)
{
  d4r::Expected<WorkerResult> result = runner().run(simple_hip_job("gfx1101"), "nonesuch");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::unavailable) << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "nonesuch")) << result.error().message;
}

TEST_F(WorkerRunnerTest, MissingWorkerBinaryIsInternal)
{
  std::filesystem::path missing = m_dir / "no-such-worker";
  WorkerRunner broken(missing, m_scratch, WorkerLimits{});
  d4r::Expected<WorkerResult> result = broken.run(simple_hip_job("gfx1101"), "llvm");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::internal);
  EXPECT_TRUE(contains(result.error().message, "worker binary " + missing.string()))
      << result.error().message;
  EXPECT_TRUE(contains(result.error().message, "No such file or directory"))
      << result.error().message;
  expect_no_scratch_left();
}

TEST_F(WorkerRunnerTest, FindsTheWorkerBinaryInTheBuildTree)
{
  // The daemon lives in <build>/daemon/, the worker in <build>/compiler/.
  std::filesystem::path daemon = std::filesystem::path(D4R_BINARY_DIR) / "daemon" / "d4r-kerneld";
  d4r::Expected<std::filesystem::path> found = d4r::daemon::find_worker_binary(daemon);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_TRUE(std::filesystem::equivalent(*found, k_worker));

  d4r::Expected<std::filesystem::path> missing =
      d4r::daemon::find_worker_binary(m_dir / "bin" / "d4r-kerneld");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_TRUE(contains(missing.error().message, (m_dir / "libexec" / "d4r-kernel-worker").string()))
      << missing.error().message;
}

TEST_F(WorkerRunnerTest, FindsAnInstalledWorkerBinary)
{
  std::filesystem::create_directories(m_dir / "bin");
  std::filesystem::create_directories(m_dir / "libexec");
  std::filesystem::copy_file(k_worker, m_dir / "libexec" / "d4r-kernel-worker");
  d4r::Expected<std::filesystem::path> found =
      d4r::daemon::find_worker_binary(m_dir / "bin" / "d4r-kerneld");
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(*found, m_dir / "libexec" / "d4r-kernel-worker");
}

} // namespace
