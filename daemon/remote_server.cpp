#include "daemon/remote_server.hpp"

#include "daemon/auth_processor.hpp"
#include "util/flag_file.hpp"
#include "util/host_port.hpp"

#include <grpcpp/resource_quota.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/server_interceptor.h>
#include <sys/stat.h>

#include <spdlog/spdlog.h>

#include <climits>

namespace d4r::daemon {

namespace {

namespace hooks = grpc::experimental;

int to_int(int64_t value)
{
  return static_cast<int>(std::min<int64_t>(value, INT_MAX));
}

// The method's name after the service's: "/d4r.kernel.v1.KernelService/Resolve" -> "Resolve".
std::string_view method_name(std::string_view full)
{
  size_t slash = full.rfind('/');
  return slash == std::string_view::npos ? full : full.substr(slash + 1);
}

bool may_build(std::string_view method)
{
  return method == "Resolve" || method == "Build";
}

// Per call: names the client (the token processor's property), makes the request one for
// another machine (accept_path cleared, so that the answer carries bytes; the wait shortened to
// the client limit), holds a Resolve's or Build's place among its client's calls in flight
// until the call is over, and counts and logs the outcome.
class RemoteCallInterceptor final : public hooks::Interceptor {
public:
  RemoteCallInterceptor(hooks::ServerRpcInfo* info, ClientLimits& limits, RemoteClients& clients)
      : m_info(info), m_method(method_name(info->method())), m_limits(limits), m_clients(clients)
  {
  }
  ~RemoteCallInterceptor() override { leave(); }
  RemoteCallInterceptor(const RemoteCallInterceptor&) = delete;
  RemoteCallInterceptor& operator=(const RemoteCallInterceptor&) = delete;

  void Intercept(hooks::InterceptorBatchMethods* methods) override
  {
    if (methods->QueryInterceptionHookPoint(hooks::InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      m_client = client_of(m_info->server_context()->auth_context().get());
    }
    if (methods->QueryInterceptionHookPoint(hooks::InterceptionHookPoints::POST_RECV_MESSAGE)) {
      as_remote_request(methods->GetRecvMessage());
      if (may_build(m_method) && !m_in_flight) {
        m_limits.enter_build(m_client);
        m_in_flight = true;
      }
    }
    if (methods->QueryInterceptionHookPoint(hooks::InterceptionHookPoints::PRE_SEND_STATUS)) {
      // Before the client can see the answer: its next call must find this one's place free.
      leave();
      finished(methods->GetSendStatus());
    }
    methods->Proceed();
  }

private:
  // A cancelled call may never send a status: then the interceptor's end gives the place back.
  void leave()
  {
    if (m_in_flight) {
      m_limits.leave_build(m_client);
      m_in_flight = false;
    }
  }

  // The message gRPC deserialised for this method, as its own type (the one the handler gets).
  void as_remote_request(void* message)
  {
    if (message == nullptr) {
      return;
    }
    if (m_method == "Resolve") {
      auto* request = static_cast<pb::ResolveRequest*>(message);
      request->set_accept_path(false);
      request->set_wait_budget_ms(m_limits.clamp_wait(request->wait_budget_ms()));
    } else if (m_method == "Build") {
      auto* request = static_cast<pb::BuildRequest*>(message);
      request->set_accept_path(false);
      request->set_wait_budget_ms(m_limits.clamp_wait(request->wait_budget_ms()));
    } else if (m_method == "LookupCompiled") {
      static_cast<pb::LookupCompiledRequest*>(message)->set_accept_path(false);
    }
  }

  void finished(const grpc::Status& status)
  {
    m_clients.record_call(m_client, status.ok());
    if (status.ok()) {
      spdlog::debug("remote: client {}: {} ok", m_client, m_method);
    } else {
      spdlog::info("remote: client {}: {} failed: {} ({})", m_client, m_method,
                   status.error_message(), static_cast<int>(status.error_code()));
    }
  }

  hooks::ServerRpcInfo* m_info;
  std::string m_method;
  ClientLimits& m_limits;
  RemoteClients& m_clients;
  std::string m_client = "(unknown)";
  bool m_in_flight = false;
};

class RemoteCallFactory final : public hooks::ServerInterceptorFactoryInterface {
public:
  RemoteCallFactory(ClientLimits& limits, RemoteClients& clients) : m_limits(limits), m_clients(clients) {}

  hooks::Interceptor* CreateServerInterceptor(hooks::ServerRpcInfo* info) override
  {
    return new RemoteCallInterceptor(info, m_limits, m_clients);
  }

private:
  ClientLimits& m_limits;
  RemoteClients& m_clients;
};

Expected<std::shared_ptr<grpc::ServerCredentials>> tls_credentials(const DaemonConfig& config)
{
  grpc::SslServerCredentialsOptions options;
  TRY_ASSIGN(std::string cert, read_flag_file("--tls-cert", config.tls_cert));
  TRY_ASSIGN(std::string key, read_flag_file("--tls-key", config.tls_key));
  struct stat info {};
  if (::stat(config.tls_key.c_str(), &info) == 0 && (info.st_mode & 077) != 0) {
    spdlog::warn("remote: the TLS key {} is readable by others (mode {:04o}); it should be 0600",
                 config.tls_key.string(), info.st_mode & 07777);
  }
  options.pem_key_cert_pairs.push_back({std::move(key), std::move(cert)});
  if (config.tls_client_ca) {
    TRY_ASSIGN(options.pem_root_certs, read_flag_file("--tls-client-ca", *config.tls_client_ca));
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, grpc::Status status)
{
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(std::move(status));
  return reactor;
}

// Never reached while the interceptor clears accept_path; should it not, the call fails rather
// than name a file of this machine to another.
grpc::ServerUnaryReactor* refuse_path(grpc::CallbackServerContext* context)
{
  return finish(context, {grpc::StatusCode::INTERNAL, "d4r-kerneld: a path asked for over TCP"});
}

// The client the call's token named.
std::string caller_of(const grpc::CallbackServerContext* context)
{
  return client_of(context->auth_context().get());
}

} // namespace

std::optional<LimitRefusal> RemoteService::admit(const std::string& client)
{
  std::optional<LimitRefusal> refusal = m_limits.admit_call(client, ClientLimits::Clock::now());
  if (refusal) {
    refused(client, *refusal);
  }
  return refusal;
}

void RemoteService::refused(const std::string& client, const LimitRefusal& refusal)
{
  m_clients.record_rejection(client, refusal.reason);
  spdlog::debug("remote: client {}: refused by a limit: {}", client, refusal.message);
}

// Resolve and Build answer a limit as the daemon answers every refusal of theirs: REJECTED with
// the reason (the client compiles the PTX as usual); the other calls with RESOURCE_EXHAUSTED.
std::optional<LimitRefusal> RemoteService::admit_build(const std::string& client)
{
  std::optional<LimitRefusal> refusal = admit(client);
  if (!refusal) {
    refusal = m_limits.check_builds(client);
    if (refusal) {
      refused(client, *refusal);
    }
  }
  return refusal;
}

grpc::ServerUnaryReactor* RemoteService::Prepare(grpc::CallbackServerContext* context,
                                                 const pb::PrepareRequest* request,
                                                 pb::PrepareReply* reply)
{
  if (auto refusal = admit(caller_of(context))) {
    return finish(context, {grpc::StatusCode::RESOURCE_EXHAUSTED, refusal->message});
  }
  return m_local.Prepare(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::PutModule(grpc::CallbackServerContext* context,
                                                   const pb::PutModuleRequest* request,
                                                   pb::PutModuleReply* reply)
{
  std::string client = caller_of(context);
  std::optional<LimitRefusal> refusal = admit(client);
  if (!refusal) {
    refusal = m_limits.admit_upload(client, static_cast<int64_t>(request->ptx().size()),
                                    ClientLimits::Clock::now());
    if (refusal) {
      refused(client, *refusal);
    }
  }
  if (refusal) {
    return finish(context, {grpc::StatusCode::RESOURCE_EXHAUSTED, refusal->message});
  }
  return m_local.PutModule(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::Resolve(grpc::CallbackServerContext* context,
                                                 const pb::ResolveRequest* request,
                                                 pb::ResolveReply* reply)
{
  if (request->accept_path()) {
    return refuse_path(context);
  }
  if (auto refusal = admit_build(caller_of(context))) {
    reply->set_outcome(pb::ResolveReply::REJECTED);
    reply->set_reason("client limit: " + refusal->message);
    return finish(context, grpc::Status::OK);
  }
  return m_local.Resolve(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::Build(grpc::CallbackServerContext* context,
                                               const pb::BuildRequest* request,
                                               pb::ResolveReply* reply)
{
  if (request->accept_path()) {
    return refuse_path(context);
  }
  if (auto refusal = admit_build(caller_of(context))) {
    reply->set_outcome(pb::ResolveReply::REJECTED);
    reply->set_reason("client limit: " + refusal->message);
    return finish(context, grpc::Status::OK);
  }
  return m_local.Build(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::LookupCompiled(grpc::CallbackServerContext* context,
                                                        const pb::LookupCompiledRequest* request,
                                                        pb::LookupCompiledReply* reply)
{
  if (request->accept_path()) {
    return refuse_path(context);
  }
  if (auto refusal = admit(caller_of(context))) {
    return finish(context, {grpc::StatusCode::RESOURCE_EXHAUSTED, refusal->message});
  }
  return m_local.LookupCompiled(context, request, reply);
}

// Bytes by nature: what another daemon's upstream tier stores in its own cache.
grpc::ServerUnaryReactor* RemoteService::FetchObject(grpc::CallbackServerContext* context,
                                                     const pb::FetchObjectRequest* request,
                                                     pb::FetchObjectReply* reply)
{
  if (auto refusal = admit(caller_of(context))) {
    return finish(context, {grpc::StatusCode::RESOURCE_EXHAUSTED, refusal->message});
  }
  return m_local.FetchObject(context, request, reply);
}

RemoteServer::RemoteServer(const DaemonConfig& config, KernelService& local, RemoteClients& clients)
    : m_tokens(config.token_file), m_limits(config.client_limits), m_clients(clients),
      m_service(local, m_limits, clients)
{
}

RemoteServer::~RemoteServer()
{
  shutdown(std::chrono::milliseconds(0));
}

Expected<std::unique_ptr<RemoteServer>> RemoteServer::start(const DaemonConfig& config,
                                                            KernelService& local,
                                                            RemoteClients& clients,
                                                            int64_t max_message_bytes)
{
  TRY_ASSIGN(auto host_port, split_host_port(config.listen, "--listen"));
  TRY_ASSIGN(std::shared_ptr<grpc::ServerCredentials> credentials, tls_credentials(config));
  std::unique_ptr<RemoteServer> server(new RemoteServer(config, local, clients));
  credentials->SetAuthMetadataProcessor(
      std::make_shared<TokenAuthProcessor>(server->m_tokens, server->m_clients));
  static_cast<void>(server->m_tokens.clients()); // reads the file now: its problems show at start
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(config.listen, credentials, &bound_port);
  builder.RegisterService(&server->m_service);
  std::vector<std::unique_ptr<hooks::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<RemoteCallFactory>(server->m_limits, server->m_clients));
  builder.experimental().SetInterceptorCreators(std::move(creators));
  // The Unix socket's transport bounds (server.cpp), with a quota of its own.
  builder.SetMaxReceiveMessageSize(to_int(max_message_bytes));
  builder.SetMaxSendMessageSize(INT_MAX);
  grpc::ResourceQuota quota("d4r-kerneld remote transport");
  quota.Resize(static_cast<size_t>(config.transport_memory_bytes));
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, to_int(config.max_streams));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, to_int(config.idle_connection_ms));
  // gRPC binds with SO_REUSEPORT by default: a second server on a port already served would
  // start and silently take half of its connections. One build server per port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  server->m_server = builder.BuildAndStart();
  if (!server->m_server || bound_port == 0) {
    server->m_server.reset();
    return make_error(ErrorCode::unavailable,
                      "--listen " + config.listen + ": cannot listen there (in use, or not an "
                                                    "address of this machine)");
  }
  server->m_address = host_port.first + ":" + std::to_string(bound_port);
  clients.set_listening(server->m_address, config.tls_client_ca.has_value());
  return server;
}

void RemoteServer::shutdown(std::chrono::milliseconds grace)
{
  if (!m_server) {
    return;
  }
  m_server->Shutdown(std::chrono::system_clock::now() + grace);
  m_server->Wait();
  m_server.reset();
}

} // namespace d4r::daemon
