#pragma once
// The running daemon: a gRPC server with no ports of its own, fed connections that the accept
// loop has checked (same uid as the daemon, and a first byte sent: connection_gate.hpp), until
// SIGTERM or SIGINT. What the transport holds is bounded there and in gRPC's own settings:
// memory for calls being received (a resource quota), connections, calls per connection, idle
// connections (see start()). Given --listen, a second gRPC server serves other machines on TCP
// with TLS and tokens (remote_server.hpp), started and stopped with this one.

#include "daemon/connection_gate.hpp"
#include "daemon/kernel_core.hpp"
#include "daemon/kernel_service.hpp"
#include "daemon/listener.hpp"
#include "daemon/refusal_responder.hpp"
#include "daemon/remote_clients.hpp"
#include "daemon/remote_server.hpp"
#include "daemon/task_pool.hpp"

#include <grpcpp/server.h>

#include <memory>

namespace d4r::daemon {

class Server {
public:
  [[nodiscard]] static Expected<std::unique_ptr<Server>> start(KernelCore& core, TaskPool& pool,
                                                               int64_t max_message_bytes);
  ~Server();

  // Accepts connections until one of the blocked signals arrives on signal_fd.
  [[nodiscard]] Expected<void> serve(const Listener& listener, int signal_fd);
  // Lets calls in progress finish for up to `grace`, then cancels the rest.
  void shutdown(std::chrono::milliseconds grace);
  // HOST:PORT of the TCP side as bound; empty without --listen.
  [[nodiscard]] std::string remote_address() const;

private:
  Server(KernelCore& core, TaskPool& pool);
  void accept_connection(const Listener& listener);
  void adopt_connection(int connection_fd);

  KernelCore& m_core;
  KernelService m_service;
  ConnectionActivity m_activity; // before m_gate, which reads it
  ConnectionGate m_gate;
  RefusalResponder m_refusals; // connections past the limit, told why
  bool m_accept_paused = false;
  int64_t m_failed_accepts = 0;
  std::chrono::steady_clock::time_point m_accept_logged_at{};
  std::chrono::steady_clock::time_point m_limit_logged_at{};
  std::unique_ptr<grpc::Server> m_server;
  RemoteClients m_remote_clients;
  std::unique_ptr<RemoteServer> m_remote; // after m_service, which it forwards to
};

} // namespace d4r::daemon
