#include "daemon/server.hpp"

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace d4r::daemon {

Server::Server(KernelCore& core, TaskPool& pool) : m_core(core), m_service(core, pool) {}

Server::~Server()
{
  shutdown(std::chrono::milliseconds(0));
}

Expected<std::unique_ptr<Server>> Server::start(KernelCore& core, TaskPool& pool,
                                                int64_t max_message_bytes)
{
  std::unique_ptr<Server> server(new Server(core, pool));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.RegisterService(&server->m_service);
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(max_message_bytes, INT_MAX)));
  builder.SetMaxSendMessageSize(INT_MAX);
  server->m_server = builder.BuildAndStart();
  if (!server->m_server) {
    return make_error(ErrorCode::internal, "grpc: the server did not start");
  }
  if (grpc::HealthCheckServiceInterface* health = server->m_server->GetHealthCheckService()) {
    health->SetServingStatus(true);
  }
  return server;
}

void Server::adopt_connection(int connection_fd)
{
  Expected<PeerCredentials> peer = peer_credentials(connection_fd);
  if (!peer || peer->uid != geteuid()) {
    m_core.counters().add(Counter::peer_refused);
    spdlog::warn("refused a connection from {}", peer ? "uid " + std::to_string(peer->uid) + " (pid " +
                                                            std::to_string(peer->pid) + ")"
                                                      : peer.error().message);
    close(connection_fd);
    return;
  }
  m_core.counters().add(Counter::connections);
  grpc::AddInsecureChannelFromFd(m_server.get(), connection_fd); // gRPC owns the fd from here
}

namespace {

// After an accept fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), the
// connection waits in the backlog while the listener is left alone this long: polling it again at
// once would spin at 100% CPU and log each turn. Its client falls back within its own budget.
constexpr int k_accept_pause_ms = 100;
constexpr auto k_accept_log_interval = std::chrono::seconds(10);

} // namespace

Expected<void> Server::serve(const Listener& listener, int signal_fd)
{
  pollfd fds[2] = {{listener.fd(), POLLIN, 0}, {signal_fd, POLLIN, 0}};
  bool accept_paused = false;
  int64_t failed_accepts = 0;
  std::chrono::steady_clock::time_point logged_at{};
  for (;;) {
    // While paused only the signal descriptor is watched (a negative fd is skipped by poll).
    fds[0].fd = accept_paused ? -1 : listener.fd();
    int ready = poll(fds, 2, accept_paused ? k_accept_pause_ms : -1);
    accept_paused = false;
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready < 0) {
      return make_error(ErrorCode::io, std::string("poll: ") + std::strerror(errno));
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info{};
      if (read(signal_fd, &info, sizeof(info)) == sizeof(info)) {
        spdlog::info("received {}, shutting down", strsignal(static_cast<int>(info.ssi_signo)));
      }
      return {};
    }
    if (fds[0].revents & POLLIN) {
      Expected<int> connection = listener.accept_connection();
      if (connection) {
        adopt_connection(*connection);
      } else if (connection.error().code != ErrorCode::unavailable) {
        // e.g. EMFILE: keep serving the connections there are, and say so now and then.
        accept_paused = true;
        ++failed_accepts;
        auto now = std::chrono::steady_clock::now();
        if (now - logged_at >= k_accept_log_interval) {
          spdlog::warn("{} ({} failed accepts; pausing {} ms after each)", connection.error().message,
                       failed_accepts, k_accept_pause_ms);
          logged_at = now;
        }
      }
    }
  }
}

void Server::shutdown(std::chrono::milliseconds grace)
{
  if (!m_server) {
    return;
  }
  m_server->Shutdown(std::chrono::system_clock::now() + grace);
  m_server->Wait();
  m_server.reset();
}

} // namespace d4r::daemon
