// The compile worker's sandbox (daemon/worker_sandbox.hpp, compiler/worker/worker_sandbox.hpp,
// util/seccomp_filter.hpp): the test-only faults make the real worker, started by the real
// runner, try what the sandbox refuses; the filter itself is tried in a forked child.

#include "daemon/worker_runner.hpp"
#include "compiler/worker/worker_sandbox.hpp"
#include "daemon/worker_sandbox.hpp"
#include "util/seccomp_filter.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace {

using d4r::ErrorCode;
using d4r::compiler::CompileJob;
using d4r::compiler::SourceLanguage;
using d4r::daemon::WorkerRunner;

const std::filesystem::path k_worker = D4R_WORKER_BINARY;

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

bool landlock_here()
{
  return ::syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U) > 0;
}

CompileJob ir_job()
{
  CompileJob job;
  job.source = std::filesystem::path(D4R_TEST_SOURCE_DIR) / "compiler" / "cannot_select_gfx1100.ll";
  job.language = SourceLanguage::llvm_ir;
  job.target = "gfx1201";
  return job;
}

CompileJob hip_job()
{
  CompileJob job;
  job.source = std::filesystem::path(D4R_KERNELS_SOURCE_DIR) / "testdata" / "d4r_test_simple.hip";
  job.language = SourceLanguage::hip;
  job.target = "gfx1101";
  job.flags = {"-O3"};
  return job;
}

class WorkerSandboxTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ::setenv("D4R_WORKER_TEST_FAULTS", "1", 1); }

  void SetUp() override
  {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "d4r-sandbox-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_scratch = m_dir / "scratch";
  }

  void TearDown() override
  {
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }

  [[nodiscard]] std::string fault_message(const CompileJob& job, const std::string& fault) const
  {
    WorkerRunner runner(k_worker, m_scratch, {});
    d4r::daemon::WorkerAttempt attempt = runner.attempt(job, "llvm", fault);
    EXPECT_FALSE(attempt.result.has_value()) << fault << " built something";
    return attempt.result ? std::string() : attempt.result.error().message;
  }

  std::filesystem::path m_dir;
  std::filesystem::path m_scratch;
};

TEST_F(WorkerSandboxTest, ANetworkSocketIsRefused)
{
  std::string message = fault_message(ir_job(), "socket");
  EXPECT_TRUE(contains(message, "fault socket: refused: Operation not permitted")) << message;
}

TEST_F(WorkerSandboxTest, PtraceKillsTheWorker)
{
  std::string message = fault_message(ir_job(), "ptrace");
  EXPECT_TRUE(contains(message, "worker crashed (signal 31, Bad system call)")) << message;
  EXPECT_FALSE(contains(message, "allowed")) << message;
}

TEST_F(WorkerSandboxTest, ExecKillsAnInProcessJobButAHipJobMayRunClang)
{
  std::string message = fault_message(ir_job(), "exec");
  EXPECT_TRUE(contains(message, "signal 31, Bad system call")) << message;
  // A HIP job keeps exec: /bin/true replaces the worker and leaves no output.
  std::string hip = fault_message(hip_job(), "exec");
  EXPECT_FALSE(contains(hip, "Bad system call")) << hip;
  EXPECT_TRUE(contains(hip, "output")) << hip;
}

TEST_F(WorkerSandboxTest, NoFileIsWrittenOutsideTheScratchFolder)
{
  if (!landlock_here()) {
    GTEST_SKIP() << "this kernel has no Landlock: writes outside the scratch folder stay open";
  }
  std::string message = fault_message(ir_job(), "write_outside");
  EXPECT_TRUE(contains(message, "fault write_outside: refused: Permission denied")) << message;
  EXPECT_FALSE(std::filesystem::exists(m_scratch / "escaped-by-worker"));
}

TEST_F(WorkerSandboxTest, AnInProcessJobReadsNothingButItsSourceAndScratch)
{
  if (!landlock_here()) {
    GTEST_SKIP() << "this kernel has no Landlock: reads stay open";
  }
  // A file of the user's, beside the scratch folder: readable to the user and to a HIP job
  // (the clang driver reads headers and device libraries from anywhere), not to the PTX and
  // LLVM IR path that parses a game's input.
  std::filesystem::create_directories(m_scratch);
  std::filesystem::path secret = m_scratch / std::string(d4r::compiler::k_read_outside_probe);
  { std::ofstream(secret) << "the user's own\n"; }
  std::string message = fault_message(ir_job(), "read_outside");
  EXPECT_TRUE(contains(message, "fault read_outside: refused: Permission denied")) << message;
  std::string hip = fault_message(hip_job(), "read_outside");
  EXPECT_TRUE(contains(hip, "fault read_outside: allowed")) << hip;
}

TEST_F(WorkerSandboxTest, RealCompilesStillWorkInsideIt)
{
  WorkerRunner runner(k_worker, m_scratch, {});
  d4r::Expected<d4r::daemon::WorkerResult> hip = runner.run(hip_job(), "llvm");
  ASSERT_TRUE(hip) << hip.error().message;
  EXPECT_FALSE(hip->code_object.empty());
  // The LLVM IR path runs under the exec ban: it builds for gfx12 and gets LLVM's own verdict
  // (an abort) for gfx1100.
  d4r::Expected<d4r::daemon::WorkerResult> ir = runner.run(ir_job(), "llvm");
  ASSERT_TRUE(ir) << ir.error().message;
  EXPECT_FALSE(ir->code_object.empty());
  CompileJob gfx1100 = ir_job();
  gfx1100.target = "gfx1100";
  d4r::Expected<d4r::daemon::WorkerResult> refused = runner.run(gfx1100, "llvm");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "Cannot select")) << refused.error().message;
}

// Runs `body` in a forked child under `filter`; its exit code (or 128 + the signal).
int in_filtered_child(const d4r::SeccompFilter& filter, const std::function<int()>& body)
{
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || filter.install() != 0) {
      ::_exit(100);
    }
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

TEST(SeccompFilter, TheWorkersListRefusesWhatItSaysAndAllowsTheRest)
{
  d4r::SeccompFilter filter(d4r::daemon::worker_denied_syscalls());
  auto refused_with = [](long rc, int error) { return rc < 0 && errno == error ? 0 : 1; };
  EXPECT_EQ(in_filtered_child(filter, [&] { return refused_with(::socket(AF_INET, SOCK_DGRAM, 0), EPERM); }), 0);
  EXPECT_EQ(in_filtered_child(filter, [&] { return refused_with(::personality(ADDR_NO_RANDOMIZE), EPERM); }), 0);
  EXPECT_EQ(in_filtered_child(filter, [] { return ::personality(0xffffffff) >= 0 ? 0 : 1; }), 0);
  EXPECT_EQ(in_filtered_child(filter, [&] { return refused_with(::syscall(SYS_clone3, nullptr, 0), ENOSYS); }), 0);
  EXPECT_EQ(in_filtered_child(filter, [&] {
              return refused_with(::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0), EPERM);
            }),
            0);
  EXPECT_EQ(in_filtered_child(filter, [] { return static_cast<int>(::syscall(SYS_unshare, CLONE_NEWNET)); }),
            128 + SIGSYS);
  EXPECT_EQ(in_filtered_child(filter, [] { return static_cast<int>(::syscall(SYS_bpf, 0, nullptr, 0)); }),
            128 + SIGSYS);
  // What a compile does: threads (clone without namespace flags), files, fork and wait.
  EXPECT_EQ(in_filtered_child(filter, [] {
              int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
              pid_t child = ::fork();
              if (child == 0) {
                ::_exit(7);
              }
              int status = 0;
              ::waitpid(child, &status, 0);
              return fd >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : 1;
            }),
            0);
}

TEST(SeccompFilter, ASyscallOfAnotherAbiKillsTheProcess)
{
  d4r::SeccompFilter filter(std::span<const d4r::SyscallRule>{});
  // getpid through the x32 ABI (its numbers have bit 30 set): the list cannot see it.
  EXPECT_EQ(in_filtered_child(filter, [] { return static_cast<int>(::syscall(0x40000000L | SYS_getpid)); }),
            128 + SIGSYS);
  EXPECT_EQ(in_filtered_child(filter, [] { return ::getpid() > 0 ? 0 : 1; }), 0);
}

} // namespace
