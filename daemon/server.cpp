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

Expected<void> Server::serve(const Listener& listener, int signal_fd)
{
  pollfd fds[2] = {{listener.fd(), POLLIN, 0}, {signal_fd, POLLIN, 0}};
  for (;;) {
    int ready = poll(fds, 2, -1);
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
        spdlog::warn("{}", connection.error().message); // e.g. EMFILE: keep serving the others
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
