#pragma once
// The bearer-token check of a build server's TCP calls, as gRPC's own hook for it: an
// AuthMetadataProcessor on the TLS credentials runs before any handler (or the health check)
// sees the call. A call without "authorization: Bearer TOKEN", with a token no client has, or
// with a revoked client's token is refused UNAUTHENTICATED, saying which, and counted. An
// accepted call's auth context gets the client's name as property k_client_property, which the
// call's interceptor and handlers (remote_server.cpp) read for logs, counters and limits.

#include "daemon/remote_clients.hpp"
#include "daemon/token_store.hpp"

#include <grpcpp/security/auth_metadata_processor.h>

#include <atomic>
#include <chrono>

namespace d4r::daemon {

inline constexpr std::string_view k_authorization_key = "authorization";
inline constexpr const char* k_client_property = "d4r-client";

// The name the token of the call named (k_client_property); "(unknown)" without one.
[[nodiscard]] std::string client_of(const grpc::AuthContext* context);

class TokenAuthProcessor final : public grpc::AuthMetadataProcessor {
public:
  TokenAuthProcessor(TokenStore& tokens, RemoteClients& clients)
      : m_tokens(tokens), m_clients(clients)
  {
  }

  // A stat and a SHA-256: quick enough for gRPC's own thread.
  [[nodiscard]] bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& auth_metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

private:
  TokenStore& m_tokens;
  RemoteClients& m_clients;
  std::atomic<int64_t> m_logged_at_s{0};
};

// The message a refused call gets (and the log says), without the token itself.
[[nodiscard]] std::string refusal_message(const TokenCheck& check);

} // namespace d4r::daemon
