#include "daemon/upstream_tier.hpp"

#include "daemon/wire.hpp"
#include "trust/object_signature.hpp"
#include "util/flag_file.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <fstream>
#include <iterator>

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
    authorize(context, std::chrono::system_clock::now() + budget);
    pb::FetchObjectRequest request;
    request.set_key(key_text);
    pb::FetchObjectReply reply;
    grpc::Status status = m_stub->FetchObject(&context, request, &reply);
    if (!status.ok()) {
      return std::unexpected(rpc_failure(status));
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

  // A kernel of a ptx recipe is resolved there from the game's module (uploaded first if the
  // server lacks it), any other by its recipe (Build). The answer's object is not used: only
  // the signed one that lookup() then fetches by this machine's key is taken.
  cache::TierResult<bool> build(Mode mode, const cache::CacheKey& key,
                                const std::filesystem::path& module,
                                std::chrono::milliseconds budget) override
  {
    const auto deadline = std::chrono::system_clock::now() + budget;
    pb::Selection selection;
    selection.set_target(key.target);
    selection.set_mode(wire::to_proto(mode));
    pb::ResolveReply reply;
    grpc::Status status;
    if (key.module_hash != 0) {
      if (cache::TierResult<void> sent = send_module_if_missing(key, module, selection, deadline); !sent) {
        return std::unexpected(sent.error());
      }
      pb::ResolveRequest request;
      request.set_module_hash(key.module_hash);
      request.set_kernel(key.kernel);
      *request.mutable_selection() = selection;
      request.set_wait_budget_ms(wait_ms(deadline));
      request.set_mirrors_host_variables(true); // only the store matters here, not who may use it
      request.set_writes_d4r_tensor_maps(true);
      grpc::ClientContext context;
      authorize(context, deadline);
      status = m_stub->Resolve(&context, request, &reply);
    } else {
      pb::BuildRequest request;
      request.set_kernel(key.kernel);
      *request.mutable_selection() = selection;
      request.set_wait_budget_ms(wait_ms(deadline));
      request.set_mirrors_host_variables(true);
      request.set_writes_d4r_tensor_maps(true);
      grpc::ClientContext context;
      authorize(context, deadline);
      status = m_stub->Build(&context, request, &reply);
    }
    if (!status.ok()) {
      return std::unexpected(rpc_failure(status));
    }
    if (reply.outcome() == pb::ResolveReply::READY) {
      return true;
    }
    // A server that is busy or still building past the budget failed this call: backed off
    // like a slow one. One that has nothing to build from declined: built here, asked again.
    if (reply.outcome() == pb::ResolveReply::PENDING || reply.outcome() == pb::ResolveReply::REJECTED) {
      return std::unexpected(failure(ErrorCode::unavailable, name() + ": build of " + key.describe() +
                                                                 ": " + reply.reason()));
    }
    return false;
  }

private:
  // A call's deadline and this machine's token.
  void authorize(grpc::ClientContext& context, std::chrono::system_clock::time_point deadline) const
  {
    context.set_deadline(deadline);
    context.AddMetadata("authorization", m_bearer);
  }

  static uint32_t wait_ms(std::chrono::system_clock::time_point deadline)
  {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::system_clock::now());
    // Room for the answer to come back before the call's own deadline.
    return static_cast<uint32_t>(std::clamp<int64_t>(left.count() - 200, 0, UINT32_MAX));
  }

  cache::TierFailure rpc_failure(const grpc::Status& status) const
  {
    bool timeout = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
    return failure(timeout ? ErrorCode::timeout : ErrorCode::unavailable,
                   name() + ": " + status.error_message(), timeout);
  }

  // Prepare tells whether the server has the module (by its SHA-256); PutModule sends it if not.
  cache::TierResult<void> send_module_if_missing(const cache::CacheKey& key,
                                                 const std::filesystem::path& module,
                                                 const pb::Selection& selection,
                                                 std::chrono::system_clock::time_point deadline)
  {
    std::ifstream in(module, std::ios::binary);
    std::string ptx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      return std::unexpected(failure(ErrorCode::io, "module " + module.string() + ": cannot be read"));
    }
    Sha256 digest = sha256(ptx);
    pb::ModuleId id;
    id.set_fnv1a64(key.module_hash);
    id.set_sha256(reinterpret_cast<const char*>(digest.data()), digest.size());
    pb::PrepareRequest prepare_request;
    *prepare_request.mutable_module() = id;
    prepare_request.add_entries(key.kernel);
    *prepare_request.mutable_selection() = selection;
    pb::PrepareReply prepared;
    grpc::ClientContext prepare_context;
    authorize(prepare_context, deadline);
    grpc::Status status = m_stub->Prepare(&prepare_context, prepare_request, &prepared);
    if (!status.ok()) {
      return std::unexpected(rpc_failure(status));
    }
    if (!prepared.need_module_bytes()) {
      return {};
    }
    pb::PutModuleRequest put;
    *put.mutable_module() = id;
    put.set_ptx(std::move(ptx));
    pb::PutModuleReply stored;
    grpc::ClientContext put_context;
    authorize(put_context, deadline);
    status = m_stub->PutModule(&put_context, put, &stored);
    if (!status.ok()) {
      return std::unexpected(rpc_failure(status));
    }
    return {};
  }

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
