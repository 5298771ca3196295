#pragma once
// A real redis-server for the Redis tier's tests: started in a temp dir of its own on a unix
// socket (and, when asked, a free loopback port), no persistence, killed at the end. Tests skip
// only when redis-server is not installed (scripts/install-deps.sh installs it, so CI runs them).

#include "cache/remote/redis/connection.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <netinet/in.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace d4r::cache::redis::testing {

using namespace std::chrono_literals;

inline std::string find_redis_server()
{
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  dirs += ":/usr/bin:/usr/sbin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string candidate = dir + "/redis-server";
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return {};
}

// A loopback port nobody listens on now (the server binds it a moment later).
inline int free_loopback_port()
{
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return 0;
  }
  int port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

class RedisServer {
public:
  explicit RedisServer(bool tcp = false) : m_binary(find_redis_server())
  {
    std::string pattern = ::testing::TempDir() + "d4r-redis-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern;
    }
    m_dir = pattern;
    m_port = tcp ? free_loopback_port() : 0;
  }
  ~RedisServer()
  {
    stop();
    std::error_code error;
    std::filesystem::remove_all(m_dir, error);
  }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  [[nodiscard]] bool installed() const { return !m_binary.empty(); }
  [[nodiscard]] std::string socket_path() const { return (m_dir / "redis.sock").string(); }
  [[nodiscard]] int port() const { return m_port; }
  [[nodiscard]] pid_t pid() const { return m_pid; }

  // Starts the server and waits until it answers PING; false (with a failure recorded) if not.
  // A server that exits at once most likely lost its loopback port to a test running in
  // parallel between free_loopback_port() and its bind: it gets another port, twice at most.
  bool start()
  {
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (!spawn()) {
        return false;
      }
      Started started = wait_ready();
      if (started == Started::ready) {
        return true;
      }
      if (started == Started::stuck || m_port == 0) {
        break;
      }
      m_port = free_loopback_port();
    }
    ADD_FAILURE() << "redis-server did not start; see " << (m_dir / "redis.log");
    return false;
  }

  // SIGKILL: the server vanishes as a crashed or cut-off one does.
  void kill()
  {
    if (m_pid > 0) {
      ::kill(m_pid, SIGCONT);
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
      m_pid = -1;
    }
  }
  void stop() { kill(); }
  // SIGSTOP / SIGCONT: a server that accepts bytes and never answers.
  void freeze() { ::kill(m_pid, SIGSTOP); }
  void thaw() { ::kill(m_pid, SIGCONT); }

  [[nodiscard]] RedisOptions unix_options() const
  {
    RedisOptions options;
    options.endpoint.unix_path = socket_path();
    options.connect_timeout = 200ms;
    options.command_timeout = 1000ms;
    options.backoff_initial = 20ms;
    options.backoff_max = 200ms;
    return options;
  }
  [[nodiscard]] RedisOptions tcp_options() const
  {
    RedisOptions options = unix_options();
    options.endpoint = RedisEndpoint{.unix_path = {}, .host = "127.0.0.1", .port = m_port};
    return options;
  }

private:
  enum class Started { ready, exited, stuck };

  bool spawn()
  {
    std::vector<std::string> args{m_binary, "--port", std::to_string(m_port), "--bind",
                                  "127.0.0.1"};
    args.insert(args.end(), {"--unixsocket", socket_path(), "--unixsocketperm", "700"});
    args.insert(args.end(), {"--save", "", "--appendonly", "no", "--dir", m_dir.string()});
    args.insert(args.end(), {"--logfile", (m_dir / "redis.log").string()});
    pid_t parent = ::getpid();
    m_pid = ::fork();
    if (m_pid == 0) {
      // The server goes with the test process, even when that one crashes.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) {
        ::_exit(127);
      }
      std::vector<char*> argv;
      for (std::string& arg : args) {
        argv.push_back(arg.data());
      }
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    if (m_pid < 0) {
      ADD_FAILURE() << "fork: " << std::strerror(errno);
      return false;
    }
    return true;
  }

  Started wait_ready()
  {
    RedisConnection probe(unix_options());
    Deadline give_up = Clock::now() + 10s;
    while (Clock::now() < give_up) {
      if (std::filesystem::exists(socket_path())) {
        Expected<RedisReply> reply = probe.call({"PING"}, Clock::now() + 500ms);
        if (reply && reply->text == "PONG") {
          return Started::ready;
        }
      }
      int status = 0;
      if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        m_pid = -1;
        return Started::exited;
      }
      std::this_thread::sleep_for(10ms);
    }
    kill();
    return Started::stuck;
  }

  std::string m_binary;
  std::filesystem::path m_dir;
  int m_port = 0;
  pid_t m_pid = -1;
};

// Each test: its own server, started; skipped only when redis-server is not installed.
class RedisTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    if (!m_server.installed()) {
      GTEST_SKIP() << "redis-server is not installed (scripts/install-deps.sh installs it)";
    }
    ASSERT_TRUE(m_server.start());
  }

  static Deadline in(std::chrono::milliseconds budget) { return Clock::now() + budget; }
  static int64_t elapsed_ms(Clock::time_point since)
  {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
  }

  RedisServer m_server{true};
};

} // namespace d4r::cache::redis::testing
