#include "daemon/auth_processor.hpp"

#include <spdlog/spdlog.h>

namespace d4r::daemon {

namespace {

// Refusals are logged at most once a second: a client retrying a bad token must not flood it.
bool log_slot(std::atomic<int64_t>& logged_at_s)
{
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  int64_t last = logged_at_s.load(std::memory_order_relaxed);
  return now != last && logged_at_s.compare_exchange_strong(last, now);
}

} // namespace

std::string refusal_message(const TokenCheck& check)
{
  switch (check.verdict) {
  case TokenVerdict::accepted:
    return "";
  case TokenVerdict::missing:
    return "d4r-kerneld: TCP requests need 'authorization: Bearer TOKEN' metadata "
           "(a token from `d4r-kernel token add NAME` on the server)";
  case TokenVerdict::unknown:
    return "d4r-kerneld: unknown token: no client of the server's token file has it";
  case TokenVerdict::revoked:
    return "d4r-kerneld: the token of client " + check.client + " was revoked";
  }
  D4R_UNREACHABLE("a verdict the switch covers");
}

std::string client_of(const grpc::AuthContext* context)
{
  if (context != nullptr) {
    std::vector<grpc::string_ref> names = context->FindPropertyValues(k_client_property);
    if (!names.empty()) {
      return std::string(names.front().data(), names.front().size());
    }
  }
  return "(unknown)";
}

grpc::Status TokenAuthProcessor::Process(const InputMetadata& auth_metadata,
                                         grpc::AuthContext* context,
                                         OutputMetadata* /*consumed_auth_metadata*/,
                                         OutputMetadata* /*response_metadata*/)
{
  auto found = auth_metadata.find(grpc::string_ref(k_authorization_key.data(),
                                                   k_authorization_key.size()));
  std::string_view value;
  if (found != auth_metadata.end()) {
    value = std::string_view(found->second.data(), found->second.size());
  }
  TokenCheck check = m_tokens.check(value);
  if (check.verdict == TokenVerdict::accepted) {
    context->AddProperty(k_client_property, check.client);
    return grpc::Status::OK;
  }
  m_clients.record_refusal(check);
  std::string message = refusal_message(check);
  if (log_slot(m_logged_at_s)) {
    spdlog::warn("remote: refused a call{}: {}",
                 check.client.empty() ? "" : " of client " + check.client, message);
  }
  return {grpc::StatusCode::UNAUTHENTICATED, message};
}

} // namespace d4r::daemon
