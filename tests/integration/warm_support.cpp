#include "tests/integration/warm_support.hpp"

#include "tests/integration/daemon_process.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

namespace d4r::testing {

namespace {

std::vector<char*> argv_of(std::vector<std::string>& args)
{
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  return argv;
}

} // namespace

std::filesystem::path cli_binary()
{
  return D4R_CLI_PATH;
}

std::filesystem::path make_synthetic_dll(const std::filesystem::path& dir, const std::string& name)
{
  std::filesystem::path out = dir / name;
  std::string fixtures = std::string(D4R_TEST_SOURCE_DIR) + "/fixtures/fatbin/";
  std::string command = std::string(D4R_MAKE_PE) + " '" + out.string() + "' '" + fixtures +
                        "fatbin_kernels.default.fatbin' '" + fixtures + "multi_arch.fatbin'";
  if (std::system(command.c_str()) != 0) {
    return {};
  }
  return out;
}

std::filesystem::path warm_recipes(const std::filesystem::path& dir, bool slow)
{
  std::filesystem::path recipes = dir / "recipes";
  std::filesystem::create_directories(recipes);
  std::string modules = "modules = 82ae23aab5d00154 499dc26a793a24d4 f66045ac7d23f1e3\n";
  if (slow) {
    // Constant evaluation that takes for ever: only the worker's CPU limit ends it.
    std::ofstream(recipes / "slow.hip")
        << "constexpr unsigned long spin() { unsigned long x = 0; for (unsigned long i = 0; i < "
           "(1UL << 60); ++i) { x += i ^ (x >> 3); } return x; }\n"
           "static_assert(spin() != 1, \"never decided\");\n"
           "extern \"C\" __attribute__((global)) void fatbin_scale(int* p) { *p = 1; }\n";
    std::ofstream(recipes / "slow.recipe")
        << "recipe = slow\nversion = 1\npatterns = *fatbin_*\n" << modules
        << "source = slow.hip\nflags = -fconstexpr-steps=2147483647\n";
  } else {
    std::ofstream(recipes / "dll.recipe")
        << "recipe = dll_ptx\nversion = 1\npatterns = *fatbin_*\n" << modules << "language = ptx\n";
  }
  std::filesystem::copy(shipped_recipes() / "d4r_example_layer.recipe", recipes);
  std::filesystem::create_directories(dir / "examples");
  std::filesystem::copy(shipped_recipes() / ".." / "examples", dir / "examples");
  std::filesystem::copy(shipped_recipes() / ".." / "include", dir / "include");
  return recipes;
}

Child spawn_on_pipe(const std::vector<std::string>& args, const std::filesystem::path& stderr_file)
{
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return {};
  }
  std::vector<std::string> copy = args;
  std::vector<char*> argv = argv_of(copy);
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  return Child{pid, fds[0]};
}

Child spawn_on_pty(const std::vector<std::string>& args)
{
  std::vector<std::string> copy = args;
  std::vector<char*> argv = argv_of(copy);
  int master = -1;
  winsize size{};
  size.ws_col = 100;
  size.ws_row = 30;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return Child{pid, master};
}

bool read_line(int fd, std::string& buffer, std::string& line)
{
  for (;;) {
    size_t newline = buffer.find('\n');
    if (newline != std::string::npos) {
      line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      return true;
    }
    char chunk[4096];
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      line = buffer;
      buffer.clear();
      return !line.empty();
    }
    buffer.append(chunk, static_cast<size_t>(got));
  }
}

std::string read_all(int fd)
{
  std::string text;
  char chunk[4096];
  for (;;) {
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return text; // EOF, or EIO once a pty's child has gone
    }
    text.append(chunk, static_cast<size_t>(got));
  }
}

int wait_child(pid_t pid)
{
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

} // namespace d4r::testing
