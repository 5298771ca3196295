#pragma once
// The build server's TCP side (--listen HOST:PORT): a gRPC server of its own beside the Unix
// socket's, on gRPC's TLS credentials (OpenSSL), with a bearer token per call (auth_processor.hpp)
// and, given --tls-client-ca, client certificates required (mutual TLS). There is no plain-text
// TCP: a cleartext connection fails its TLS handshake.
//
// It serves only what another machine's client or daemon needs: Prepare, PutModule, Resolve,
// Build, LookupCompiled and FetchObject (a daemon's upstream tier), forwarded to the local
// service; every other method (Import, Purge,
// Export, Pin, Warm, StoreCompiled, Status, Metrics) is UNIMPLEMENTED here, as it reads or
// changes this machine's files or tells of its other clients. A remote client always receives
// the bytes of a code object, never a path: its requests' accept_path is cleared before the
// handler sees them. Each call is counted and logged under its client's name, and held to its
// client's limits (client_limits.hpp): Resolve and Build past one are answered REJECTED with
// the limit's reason, the other calls RESOURCE_EXHAUSTED.

#include "daemon/client_limits.hpp"
#include "daemon/config.hpp"
#include "daemon/kernel_service.hpp"
#include "daemon/remote_clients.hpp"
#include "daemon/token_store.hpp"

#include <grpcpp/server.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace d4r::daemon {

class RemoteService final : public pb::KernelService::CallbackService {
public:
  RemoteService(KernelService& local, ClientLimits& limits, RemoteClients& clients)
      : m_local(local), m_limits(limits), m_clients(clients)
  {
  }

  grpc::ServerUnaryReactor* Prepare(grpc::CallbackServerContext* context,
                                    const pb::PrepareRequest* request,
                                    pb::PrepareReply* reply) override;
  grpc::ServerUnaryReactor* PutModule(grpc::CallbackServerContext* context,
                                      const pb::PutModuleRequest* request,
                                      pb::PutModuleReply* reply) override;
  grpc::ServerUnaryReactor* Resolve(grpc::CallbackServerContext* context,
                                    const pb::ResolveRequest* request,
                                    pb::ResolveReply* reply) override;
  grpc::ServerUnaryReactor* Build(grpc::CallbackServerContext* context,
                                  const pb::BuildRequest* request,
                                  pb::ResolveReply* reply) override;
  grpc::ServerUnaryReactor* LookupCompiled(grpc::CallbackServerContext* context,
                                           const pb::LookupCompiledRequest* request,
                                           pb::LookupCompiledReply* reply) override;
  grpc::ServerUnaryReactor* FetchObject(grpc::CallbackServerContext* context,
                                        const pb::FetchObjectRequest* request,
                                        pb::FetchObjectReply* reply) override;

private:
  // The client's call rate; with admit_build, also its Resolve and Build calls in flight. A
  // refusal is counted for the client.
  [[nodiscard]] std::optional<LimitRefusal> admit(const std::string& client);
  [[nodiscard]] std::optional<LimitRefusal> admit_build(const std::string& client);
  void refused(const std::string& client, const LimitRefusal& refusal);

  KernelService& m_local;
  ClientLimits& m_limits;
  RemoteClients& m_clients;
};

class RemoteServer {
public:
  [[nodiscard]] static Expected<std::unique_ptr<RemoteServer>>
  start(const DaemonConfig& config, KernelService& local, RemoteClients& clients,
        int64_t max_message_bytes);
  ~RemoteServer();
  RemoteServer(const RemoteServer&) = delete;
  RemoteServer& operator=(const RemoteServer&) = delete;

  // HOST:PORT as bound (the port gRPC chose for port 0).
  [[nodiscard]] const std::string& address() const { return m_address; }
  void shutdown(std::chrono::milliseconds grace);

private:
  RemoteServer(const DaemonConfig& config, KernelService& local, RemoteClients& clients);

  TokenStore m_tokens;
  ClientLimits m_limits;
  RemoteClients& m_clients;
  RemoteService m_service;
  std::string m_address;
  std::unique_ptr<grpc::Server> m_server;
};

} // namespace d4r::daemon
