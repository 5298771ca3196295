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

// Per call: names the client (its token, checked again: the processor let it through moments
// ago), clears accept_path so that the answer carries bytes, and counts and logs the outcome.
class RemoteCallInterceptor final : public hooks::Interceptor {
public:
  RemoteCallInterceptor(std::string_view method, TokenStore& tokens, RemoteClients& clients)
      : m_method(method_name(method)), m_tokens(tokens), m_clients(clients)
  {
  }

  void Intercept(hooks::InterceptorBatchMethods* methods) override
  {
    if (methods->QueryInterceptionHookPoint(hooks::InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      if (const auto* metadata = methods->GetRecvInitialMetadata()) {
        name_client(*metadata);
      }
    }
    if (methods->QueryInterceptionHookPoint(hooks::InterceptionHookPoints::POST_RECV_MESSAGE)) {
      bytes_only(methods->GetRecvMessage());
    }
    if (methods->QueryInterceptionHookPoint(hooks::InterceptionHookPoints::PRE_SEND_STATUS)) {
      finished(methods->GetSendStatus());
    }
    methods->Proceed();
  }

private:
  void name_client(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata)
  {
    auto found = metadata.find(grpc::string_ref(k_authorization_key.data(), k_authorization_key.size()));
    std::string_view value;
    if (found != metadata.end()) {
      value = std::string_view(found->second.data(), found->second.size());
    }
    TokenCheck check = m_tokens.check(value);
    m_client = check.client.empty() ? "(unknown)" : check.client;
  }

  // The message gRPC deserialised for this method, as its own type (the one the handler gets).
  void bytes_only(void* message)
  {
    if (message == nullptr) {
      return;
    }
    if (m_method == "Resolve") {
      static_cast<pb::ResolveRequest*>(message)->set_accept_path(false);
    } else if (m_method == "Build") {
      static_cast<pb::BuildRequest*>(message)->set_accept_path(false);
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

  std::string m_method;
  TokenStore& m_tokens;
  RemoteClients& m_clients;
  std::string m_client = "(unknown)";
};

class RemoteCallFactory final : public hooks::ServerInterceptorFactoryInterface {
public:
  RemoteCallFactory(TokenStore& tokens, RemoteClients& clients) : m_tokens(tokens), m_clients(clients) {}

  hooks::Interceptor* CreateServerInterceptor(hooks::ServerRpcInfo* info) override
  {
    return new RemoteCallInterceptor(info->method(), m_tokens, m_clients);
  }

private:
  TokenStore& m_tokens;
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

// Never reached while the interceptor clears accept_path; should it not, the call fails rather
// than name a file of this machine to another.
grpc::ServerUnaryReactor* refuse_path(grpc::CallbackServerContext* context)
{
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish({grpc::StatusCode::INTERNAL, "d4r-kerneld: a path asked for over TCP"});
  return reactor;
}

} // namespace

grpc::ServerUnaryReactor* RemoteService::Prepare(grpc::CallbackServerContext* context,
                                                 const pb::PrepareRequest* request,
                                                 pb::PrepareReply* reply)
{
  return m_local.Prepare(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::PutModule(grpc::CallbackServerContext* context,
                                                   const pb::PutModuleRequest* request,
                                                   pb::PutModuleReply* reply)
{
  return m_local.PutModule(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::Resolve(grpc::CallbackServerContext* context,
                                                 const pb::ResolveRequest* request,
                                                 pb::ResolveReply* reply)
{
  if (request->accept_path()) {
    return refuse_path(context);
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
  return m_local.Build(context, request, reply);
}

grpc::ServerUnaryReactor* RemoteService::LookupCompiled(grpc::CallbackServerContext* context,
                                                        const pb::LookupCompiledRequest* request,
                                                        pb::LookupCompiledReply* reply)
{
  if (request->accept_path()) {
    return refuse_path(context);
  }
  return m_local.LookupCompiled(context, request, reply);
}

// Bytes by nature: what another daemon's upstream tier stores in its own cache.
grpc::ServerUnaryReactor* RemoteService::FetchObject(grpc::CallbackServerContext* context,
                                                     const pb::FetchObjectRequest* request,
                                                     pb::FetchObjectReply* reply)
{
  return m_local.FetchObject(context, request, reply);
}

RemoteServer::RemoteServer(const DaemonConfig& config, KernelService& local, RemoteClients& clients)
    : m_tokens(config.token_file), m_clients(clients), m_service(local)
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
  creators.push_back(std::make_unique<RemoteCallFactory>(server->m_tokens, server->m_clients));
  builder.experimental().SetInterceptorCreators(std::move(creators));
  // The Unix socket's transport bounds (server.cpp), with a quota of its own.
  builder.SetMaxReceiveMessageSize(to_int(max_message_bytes));
  builder.SetMaxSendMessageSize(INT_MAX);
  grpc::ResourceQuota quota("d4r-kerneld remote transport");
  quota.Resize(static_cast<size_t>(config.transport_memory_bytes));
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, to_int(config.max_streams));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, to_int(config.idle_connection_ms));
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
