#include "daemon/server.hpp"

#include "daemon/grpc_log.hpp"

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
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

namespace {

// After an accept fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), the
// connection waits in the backlog while the listener is left alone this long: polling it again at
// once would spin at 100% CPU and log each turn. Its client falls back within its own budget.
constexpr int k_accept_pause_ms = 100;
constexpr auto k_log_interval = std::chrono::seconds(10);

int to_int(int64_t value)
{
  return static_cast<int>(std::min<int64_t>(value, INT_MAX));
}

} // namespace

Server::Server(KernelCore& core, TaskPool& pool)
    : m_core(core), m_service(core, pool),
      m_gate(core.config().max_connections,
             std::chrono::milliseconds(core.config().silent_connection_ms), &m_activity)
{
}

Server::~Server()
{
  shutdown(std::chrono::milliseconds(0));
}

Expected<std::unique_ptr<Server>> Server::start(KernelCore& core, TaskPool& pool,
                                                int64_t max_message_bytes)
{
  const DaemonConfig& config = core.config();
  std::unique_ptr<Server> server(new Server(core, pool));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.RegisterService(&server->m_service);
  // Counts the calls on each connection, so that the gate can tell the idle ones.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(server->m_activity.interceptor_factory());
  builder.experimental().SetInterceptorCreators(std::move(creators));
  builder.SetMaxReceiveMessageSize(to_int(max_message_bytes));
  builder.SetMaxSendMessageSize(INT_MAX);
  // What gRPC holds for calls it is still receiving: the read buffers of every connection and the
  // bodies being assembled. Past it gRPC abandons calls (ENHANCE_YOUR_CALM, RESOURCE_EXHAUSTED at
  // the client) and sends idle connections away, so that 16 uploads of 64 MiB arriving at once
  // are refused while they arrive, not held whole until a handler can refuse them. The quota
  // counts no threads here: gRPC takes threads from it only for a synchronous server.
  grpc::ResourceQuota quota("d4r-kerneld transport");
  quota.Resize(static_cast<size_t>(config.transport_memory_bytes));
  builder.SetResourceQuota(quota);
  // A client that opens more calls on one connection than this queues them on its side.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, to_int(config.max_streams));
  // A connection with no call for this long gets a GOAWAY and is closed; clients reconnect.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, to_int(config.idle_connection_ms));
  server->m_server = builder.BuildAndStart();
  if (!server->m_server) {
    return make_error(ErrorCode::internal, "grpc: the server did not start");
  }
  forward_grpc_log(core.counters());
  if (grpc::HealthCheckServiceInterface* health = server->m_server->GetHealthCheckService()) {
    health->SetServingStatus(true);
  }
  if (!config.listen.empty()) {
    server->m_service.set_remote_clients(&server->m_remote_clients);
    TRY_ASSIGN(server->m_remote, RemoteServer::start(config, server->m_service,
                                                     server->m_remote_clients, max_message_bytes));
    spdlog::info("remote: serving TLS on {}{}, tokens from {}", server->m_remote->address(),
                 config.tls_client_ca ? " (client certificates required)" : "",
                 config.token_file.string());
  }
  return server;
}

void Server::accept_connection(const Listener& listener)
{
  Expected<int> connection = listener.accept_connection();
  if (!connection) {
    if (connection.error().code != ErrorCode::unavailable) {
      // e.g. EMFILE: keep serving the connections there are, and say so now and then.
      m_accept_paused = true;
      ++m_failed_accepts;
      auto now = std::chrono::steady_clock::now();
      if (now - m_accept_logged_at >= k_log_interval) {
        spdlog::warn("{} ({} failed accepts; pausing {} ms after each)", connection.error().message,
                     m_failed_accepts, k_accept_pause_ms);
        m_accept_logged_at = now;
      }
    }
    return;
  }
  Expected<PeerCredentials> peer = peer_credentials(*connection);
  if (!peer || peer->uid != geteuid()) {
    m_core.counters().add(Counter::peer_refused);
    spdlog::warn("refused a connection from {}", peer ? "uid " + std::to_string(peer->uid) + " (pid " +
                                                            std::to_string(peer->pid) + ")"
                                                      : peer.error().message);
    close(*connection);
    return;
  }
  if (m_gate.hold(*connection, std::chrono::steady_clock::now())) {
    m_core.counters().add(Counter::closed_silent_connection);
  }
}

void Server::adopt_connection(int connection_fd)
{
  bool evicted = false;
  bool admitted = m_gate.admit_served(connection_fd, std::chrono::steady_clock::now(), evicted);
  if (evicted) {
    m_core.counters().add(Counter::closed_idle_for_connection);
  }
  if (!admitted) {
    m_core.counters().add(Counter::rejected_connection_limit);
    const std::string reason = "d4r-kerneld: connection limit: " +
                               std::to_string(m_gate.served()) +
                               " connections served already (--max-connections), none idle for "
                               "1 s or more; try again later";
    auto now = std::chrono::steady_clock::now();
    if (now - m_limit_logged_at >= k_log_interval) {
      spdlog::warn("{}; refusing new ones", reason);
      m_limit_logged_at = now;
    }
    (void)m_refusals.refuse(connection_fd, grpc::StatusCode::RESOURCE_EXHAUSTED, reason);
    return;
  }
  m_core.counters().add(Counter::connections);
  grpc::AddInsecureChannelFromFd(m_server.get(), connection_fd); // gRPC owns the fd from here
}

Expected<void> Server::serve(const Listener& listener, int signal_fd)
{
  std::vector<pollfd> fds;
  for (;;) {
    // While paused the listener is not watched (a negative fd is skipped by poll).
    fds.assign({{m_accept_paused ? -1 : listener.fd(), POLLIN, 0}, {signal_fd, POLLIN, 0}});
    m_gate.add_poll_entries(fds);
    int timeout = m_gate.next_deadline_ms(std::chrono::steady_clock::now());
    if (m_accept_paused && (timeout < 0 || timeout > k_accept_pause_ms)) {
      timeout = k_accept_pause_ms;
    }
    int ready = poll(fds.data(), fds.size(), timeout);
    m_accept_paused = false;
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
    int64_t expired = 0;
    for (int connection : m_gate.take_ready(fds, 2, std::chrono::steady_clock::now(), expired)) {
      adopt_connection(connection);
    }
    m_core.counters().add(Counter::closed_silent_connection, expired);
    if (fds[0].revents & POLLIN) {
      accept_connection(listener);
    }
  }
}

std::string Server::remote_address() const
{
  return m_remote ? m_remote->address() : std::string();
}

void Server::shutdown(std::chrono::milliseconds grace)
{
  if (m_remote) {
    m_remote->shutdown(grace);
    m_remote.reset();
  }
  if (!m_server) {
    return;
  }
  m_server->Shutdown(std::chrono::system_clock::now() + grace);
  m_server->Wait();
  m_server.reset();
}

} // namespace d4r::daemon
