#include "compiler/backends/subprocess.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace d4r::compiler {

namespace {

// posix_spawn's file actions, released however the spawn ends.
class SpawnActions {
public:
  SpawnActions() { ::posix_spawn_file_actions_init(&m_actions); }
  ~SpawnActions() { ::posix_spawn_file_actions_destroy(&m_actions); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &m_actions; }

private:
  posix_spawn_file_actions_t m_actions{};
};

Expected<int> wait_for(pid_t pid, const std::string& program, ProcessResult& result)
{
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return make_error(ErrorCode::internal,
                        "subprocess: " + program + ": waitpid failed: " + std::strerror(errno));
    }
  }
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    return 0;
  }
  result.exit_code = WEXITSTATUS(status);
  return 0;
}

} // namespace

Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                    const std::filesystem::path& log_path)
{
  assert(!argv.empty() && "a process needs a program");
  const std::string& program = argv.front();
  std::error_code ec;
  if (!std::filesystem::exists(program, ec)) {
    return make_error(ErrorCode::unavailable, "subprocess: " + program + ": no such program");
  }
  SpawnActions actions;
  ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);

  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program.c_str(), actions.get(), nullptr, args.data(), environ);
  if (rc != 0) {
    return make_error(ErrorCode::unavailable,
                      "subprocess: " + program + ": cannot start: " + std::strerror(rc));
  }
  ProcessResult result;
  TRY(wait_for(pid, program, result));

  std::ifstream log(log_path, std::ios::binary);
  if (!log) {
    return make_error(ErrorCode::io,
                      "subprocess: " + program + ": cannot read its log " + log_path.string());
  }
  result.output.assign(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>());
  return result;
}

} // namespace d4r::compiler
