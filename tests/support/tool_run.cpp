#include "tool_run.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

extern char** environ;

namespace d4r::testing {

namespace {

std::vector<std::string> child_environment(const ToolEnvironment& environment)
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

} // namespace

ToolRun run_tool(const std::vector<std::string>& argv, const ToolEnvironment& environment)
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
  std::vector<std::string> env_text = child_environment(environment);
  std::vector<char*> envp;
  for (std::string& entry : env_text) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return {};
  }
  pid_t child = fork();
  if (child == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
      dup2(null_fd, STDIN_FILENO);
    }
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  ToolRun run;
  if (child < 0) {
    close(pipe_fds[0]);
    return run;
  }
  char buffer[4096];
  for (;;) {
    ssize_t got = read(pipe_fds[0], buffer, sizeof(buffer));
    if (got > 0) {
      run.output.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

} // namespace d4r::testing
