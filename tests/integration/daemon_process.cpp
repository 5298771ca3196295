#include "daemon_process.hpp"

#include "util/digest.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace d4r::testing {

TempDir::TempDir()
{
  std::string pattern = (std::filesystem::temp_directory_path() / "d4r-test-XXXXXX").string();
  m_path = mkdtemp(pattern.data());
}

TempDir::~TempDir()
{
  std::error_code ec;
  std::filesystem::permissions(m_path, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(m_path, ec);
}

std::filesystem::path daemon_binary()
{
  return std::filesystem::path(D4R_BINARY_DIR) / "daemon" / "d4r-kerneld";
}

std::filesystem::path release_fixture()
{
  return std::filesystem::path(D4R_BINARY_DIR) / "fixtures" / "release";
}

std::filesystem::path shipped_recipes()
{
  return std::filesystem::path(D4R_TEST_SOURCE_DIR) / ".." / "kernels" / "recipes";
}

std::string sha256_hex_of_file(const std::filesystem::path& path)
{
  return to_hex(sha256(std::string_view(read_file(path))));
}

namespace {

bool socket_accepts(const std::filesystem::path& path)
{
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", path.c_str());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool connected = fd >= 0 && connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  if (fd >= 0) {
    close(fd);
  }
  return connected;
}

} // namespace

DaemonProcess::DaemonProcess(DaemonOptions options)
    : m_options(std::move(options)), m_socket(m_options.work_dir / "run" / "d4r-kerneld" / "socket"),
      m_cache(m_options.work_dir / "cache")
{
}

DaemonProcess::~DaemonProcess()
{
  if (m_pid > 0) {
    send_signal(SIGCONT); // a test may have stopped it
    static_cast<void>(stop());
  }
}

bool DaemonProcess::start()
{
  std::vector<std::string> args = {daemon_binary().string(), "--foreground", "--socket",
                                   m_socket.string(), "--cache-dir", m_cache.string(),
                                   "--log-level", "warn"};
  if (!m_options.gpu_arch.empty()) {
    args.insert(args.end(), {"--gpu-arch", m_options.gpu_arch});
  }
  std::filesystem::path native = m_options.native_dir.value_or(release_fixture());
  if (!native.empty()) {
    args.insert(args.end(), {"--native-dir", native.string()});
  }
  if (m_options.recipes_dir) {
    args.insert(args.end(), {"--recipes-dir", m_options.recipes_dir->string()});
  }
  args.insert(args.end(), m_options.extra_args.begin(), m_options.extra_args.end());
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (!text.starts_with("D4R_") && !text.starts_with("LISTEN_") &&
        !text.starts_with("XDG_CONFIG_HOME=")) {
      env.emplace_back(text);
    }
  }
  env.insert(env.end(), m_options.extra_env.begin(), m_options.extra_env.end());
  // No config file of the user running the tests (util/config_file.hpp), unless a test names one.
  if (std::none_of(m_options.extra_env.begin(), m_options.extra_env.end(),
                   [](const std::string& entry) { return entry.starts_with("XDG_CONFIG_HOME="); })) {
    env.push_back("XDG_CONFIG_HOME=" + (m_options.work_dir / "no-config").string());
  }
  m_pid = fork();
  if (m_pid == 0) {
    if (m_options.log_file) {
      int log = ::open(m_options.log_file->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (log >= 0) {
        dup2(log, STDERR_FILENO);
      }
    }
    std::vector<char*> argv;
    for (std::string& arg : args) {
      argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& entry : env) {
      envp.push_back(entry.data());
    }
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  // 30 s: start-up probes the worker's toolchains (it loads LLVM), slow on a loaded machine.
  for (int attempt = 0; attempt < 600; ++attempt) {
    int status = 0;
    if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
      // 127 is our own exec failure (a binary missing, e.g. while it is being linked again).
      std::fprintf(stderr, "daemon_process: %s before it served (%s %d)\n", args[0].c_str(),
                   WIFEXITED(status) ? "exit status" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      m_pid = -1;
      return false;
    }
    if (socket_accepts(m_socket)) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

int DaemonProcess::stop()
{
  if (m_pid <= 0) {
    return -1;
  }
  kill(m_pid, SIGTERM);
  for (int attempt = 0; attempt < 200; ++attempt) {
    int status = 0;
    if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  kill(m_pid, SIGKILL);
  waitpid(m_pid, nullptr, 0);
  m_pid = -1;
  return -1;
}

void DaemonProcess::send_signal(int signal) const
{
  if (m_pid > 0) {
    kill(m_pid, signal);
  }
}

int64_t DaemonProcess::counter(const std::string& name) const
{
  std::string tool = (std::filesystem::path(D4R_BINARY_DIR) / "tests" / "d4r-test-counters").string();
  std::string command = tool + " '" + m_socket.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return -1;
  }
  int64_t value = -1;
  char line[512];
  while (fgets(line, sizeof(line), pipe) != nullptr) {
    std::string_view text(line);
    if (text.starts_with(name + "=")) {
      value = std::strtoll(line + name.size() + 1, nullptr, 10);
    }
  }
  int status = pclose(pipe);
  return status == 0 ? std::max<int64_t>(value, 0) : -1;
}

} // namespace d4r::testing
