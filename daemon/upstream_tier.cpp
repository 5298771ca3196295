#include "daemon/upstream_tier.hpp"

#include "daemon/wire.hpp"
#include "trust/object_signature.hpp"
#include "util/flag_file.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>


namespace d4r::daemon {

namespace {

namespace pb = ::d4r::kernel::v1;

// A code object as large as the cache takes, with room for the metadata around it.
constexpr int k_max_reply_bytes = 256 << 20;

cache::TierFailure failure(ErrorCode code, std::string message, bool timeout = false)
{
  return cache::TierFailure{Error{code, std::move(message)}, timeout};
}

class UpstreamTier final : public cache::Tier {
public:
  explicit UpstreamTier(UpstreamOptions options)
      : m_options(std::move(options)), m_bearer("Bearer " + m_options.token)
  {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = m_options.root_certs;
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(k_max_reply_bytes);
    m_stub = pb::KernelService::NewStub(
        grpc::CreateCustomChannel(m_options.address, grpc::SslCredentials(tls), args));
  }

  std::string name() const override { return "upstream:" + m_options.address; }

  cache::TierResult<std::optional<cache::TierObject>>
  lookup(Mode mode, const cache::CacheKey& key, std::chrono::milliseconds budget) override
  {
    const std::string key_text = key.to_text(mode);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + budget);
    context.AddMetadata("authorization", m_bearer);
    pb::FetchObjectRequest request;
    request.set_key(key_text);
    pb::FetchObjectReply reply;
    grpc::Status status = m_stub->FetchObject(&context, request, &reply);
    if (!status.ok()) {
      bool timeout = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
      return std::unexpected(failure(timeout ? ErrorCode::timeout : ErrorCode::unavailable,
                                     name() + ": " + status.error_message(), timeout));
    }
    if (!reply.found()) {
      return std::optional<cache::TierObject>();
    }
    Expected<Sha256> digest = wire::to_sha256(reply.sha256());
    if (!digest) {
      return std::unexpected(failure(ErrorCode::rejected, name() + ": " + digest.error().message));
    }
    const auto* data = reinterpret_cast<const std::byte*>(reply.object().data());
    std::vector<std::byte> bytes(data, data + reply.object().size());
    Expected<void> trusted = trust::verify_object(
        m_options.pinned, trust::SignedFields{key_text, bytes, sha256(reply.metadata())},
        reply.signature());
    if (!trusted) {
      return std::unexpected(failure(ErrorCode::rejected, name() + ": " + trusted.error().message));
    }
    return std::optional<cache::TierObject>(
        cache::TierObject{*digest, std::move(bytes), std::move(*reply.mutable_metadata()), name()});
  }

  // The server builds and keeps its own objects; nothing is sent back to it.
  cache::TierResult<void> store(Mode, const cache::CacheKey&, const cache::TierObject&,
                                std::chrono::milliseconds) override
  {
    return {};
  }

private:
  const UpstreamOptions m_options;
  const std::string m_bearer;
  std::unique_ptr<pb::KernelService::Stub> m_stub;
};

} // namespace

Expected<UpstreamOptions> upstream_options(const DaemonConfig& config)
{
  UpstreamOptions options;
  options.address = config.upstream;
  if (config.upstream_ca) {
    TRY_ASSIGN(options.root_certs, read_flag_file("--upstream-ca", *config.upstream_ca));
  }
  TRY_ASSIGN(std::string token_text,
             read_flag_file("--upstream-token-file", config.upstream_token_file));
  options.token = token_text.substr(0, token_text.find_first_of("\r\n"));
  if (options.token.empty() || options.token.find_first_of(" \t") != std::string::npos) {
    return make_error(ErrorCode::invalid_argument,
                      "--upstream-token-file " + config.upstream_token_file.string() +
                          ": the first line is not a token (one word, as `d4r-kernel token add` "
                          "printed it)");
  }
  TRY_ASSIGN(options.pinned, trust::parse_public_key(config.upstream_key));
  return options;
}

std::unique_ptr<cache::Tier> make_upstream_tier(UpstreamOptions options)
{
  return std::make_unique<UpstreamTier>(std::move(options));
}

} // namespace d4r::daemon
