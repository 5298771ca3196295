#include "daemon/toolchain_probe.hpp"

#include "util/file_descriptor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

extern char** environ;

namespace d4r::daemon {

namespace {

using Clock = std::chrono::steady_clock;

// An answer is six short lines; anything longer is not one.
constexpr size_t k_max_answer_bytes = 64 << 10;

int remaining_ms(Clock::time_point deadline)
{
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// Reads the pipe until EOF or the deadline; false on the deadline or an oversized answer.
bool read_answer(int fd, Clock::time_point deadline, std::string& out)
{
  char buffer[4096];
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    int polled = poll(&ready, 1, remaining_ms(deadline));
    if (polled < 0 && errno == EINTR) {
      continue;
    }
    if (polled <= 0) {
      return false;
    }
    ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return got == 0;
    }
    out.append(buffer, static_cast<size_t>(got));
    if (out.size() > k_max_answer_bytes) {
      return false;
    }
  }
}

// The exit status, or nullopt when the process group had to be killed at the deadline.
std::optional<int> reap(pid_t pid, Clock::time_point deadline)
{
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      kill(-pid, SIGKILL); // a helper the worker started (clang --version) goes with it
      return status;
    }
    if (done < 0 && errno != EINTR) {
      return std::nullopt;
    }
    if (Clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

} // namespace

Expected<std::vector<compiler::TargetToolchain>>
probe_toolchains(const std::filesystem::path& worker, const std::string& backend,
                 const std::filesystem::path& clang, std::chrono::milliseconds timeout)
{
  std::vector<std::string> args = {worker.string(), std::string(compiler::k_toolchains_flag)};
  if (!backend.empty()) {
    args.insert(args.end(), {"--backend", backend});
  }
  if (!clang.empty()) {
    args.insert(args.end(), {"--clang", clang.string()});
  }
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return make_error(ErrorCode::internal, std::string("toolchains: pipe: ") + std::strerror(errno));
  }
  FileDescriptor read_end(fds[0]);
  FileDescriptor write_end(fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    return make_error(ErrorCode::internal, "toolchains: cannot start " + worker.string() + ": " +
                                               std::strerror(spawned));
  }
  (void)write_end.close_checked(); // EOF comes when the worker's copy closes
  Clock::time_point deadline = Clock::now() + timeout;
  std::string answer;
  bool complete = read_answer(read_end.get(), deadline, answer);
  std::optional<int> status = reap(pid, complete ? deadline : Clock::now());
  if (!complete || !status || !WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return make_error(ErrorCode::unavailable,
                      "toolchains: " + worker.string() + " " + args[1] +
                          (status && WIFEXITED(*status)
                               ? " exited with " + std::to_string(WEXITSTATUS(*status))
                               : " gave no answer within " + std::to_string(timeout.count()) +
                                     " ms"));
  }
  return compiler::parse_toolchains(answer);
}

} // namespace d4r::daemon
