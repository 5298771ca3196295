#pragma once
// The running daemon: a gRPC server with no ports of its own, fed connections that the accept
// loop has checked (same uid as the daemon), until SIGTERM or SIGINT.

#include "daemon/kernel_core.hpp"
#include "daemon/kernel_service.hpp"
#include "daemon/listener.hpp"
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

private:
  Server(KernelCore& core, TaskPool& pool);
  void adopt_connection(int connection_fd);

  KernelCore& m_core;
  KernelService m_service;
  std::unique_ptr<grpc::Server> m_server;
};

} // namespace d4r::daemon
