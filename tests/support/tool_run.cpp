#include "tool_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

extern char** environ;

namespace d4r::testing {

namespace {

std::vector<std::string> child_environment(const ToolOptions& environment)
{
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string_view name = text.substr(0, text.find('=') + 1); // "NAME="
    bool dropped = std::any_of(environment.drop_prefixes.begin(), environment.drop_prefixes.end(),
                               [text](const std::string& prefix) { return text.starts_with(prefix); });
    bool overridden = std::any_of(environment.set.begin(), environment.set.end(),
                                  [name](const std::string& mine) { return mine.starts_with(name); });
    if (!dropped && !overridden) {
      entries.emplace_back(text);
    }
  }
  entries.insert(entries.end(), environment.set.begin(), environment.set.end());
  return entries;
}

// Reads both pipes until each is closed; poll, so that a child filling one never blocks on it
// while this reads the other. fds[1] < 0: only fds[0].
void read_until_closed(const int fds[2], std::string* sinks[2])
{
  pollfd polled[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
  int open_count = fds[1] >= 0 ? 2 : 1;
  char buffer[4096];
  while (open_count > 0) {
    if (poll(polled, 2, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (polled[i].fd < 0 || polled[i].revents == 0) {
        continue;
      }
      ssize_t got = read(polled[i].fd, buffer, sizeof(buffer));
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        polled[i].fd = -1; // poll ignores it from now on
        --open_count;
      }
    }
  }
}

} // namespace

ToolRun run_tool(const std::vector<std::string>& argv, const ToolOptions& options)
{
  if (argv.empty()) {
    return {};
  }
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> argv_text = argv;
  std::vector<char*> args;
  for (std::string& arg : argv_text) {
    args.push_back(arg.data());
  }
  args.push_back(nullptr);
  std::vector<std::string> env_text = child_environment(options);
  std::vector<char*> envp;
  for (std::string& entry : env_text) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  int pipe_fds[2];
  int error_fds[2] = {-1, -1};
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return {};
  }
  if (options.separate_stderr && pipe2(error_fds, O_CLOEXEC) != 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return {};
  }
  pid_t child = fork();
  if (child == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
      dup2(null_fd, STDIN_FILENO);
    }
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(options.separate_stderr ? error_fds[1] : pipe_fds[1], STDERR_FILENO);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  if (error_fds[1] >= 0) {
    close(error_fds[1]);
  }
  ToolRun run;
  if (child >= 0) {
    const int fds[2] = {pipe_fds[0], error_fds[0]};
    std::string* sinks[2] = {&run.output, &run.errors};
    read_until_closed(fds, sinks);
  }
  close(pipe_fds[0]);
  if (error_fds[0] >= 0) {
    close(error_fds[0]);
  }
  if (child < 0) {
    return run;
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

} // namespace d4r::testing
