// The handlers of the hook's own compiled modules (StoreCompiled, LookupCompiled): members of
// KernelService kept out of kernel_service.cpp, thin as the others (STYLE.md rule 10). Peers are
// checked where every connection is (server.cpp: the daemon's own uid only).

#include "daemon/compiled_wire.hpp"
#include "daemon/kernel_service.hpp"
#include "daemon/wire.hpp"

#include <span>

namespace d4r::daemon {

// Background work, as an upload is: a store never delays a game's Resolve. Its bytes are held
// against --upload-memory, like PutModule bodies, until stored.
grpc::ServerUnaryReactor* KernelService::StoreCompiled(grpc::CallbackServerContext* context,
                                                       const pb::StoreCompiledRequest* request,
                                                       pb::StoreCompiledReply* reply)
{
  Expected<CompiledKey> key = wire::to_compiled_key(request->key(), m_core.config().default_mode);
  Expected<Sha256> digest = wire::to_sha256(request->sha256());
  const int64_t size = static_cast<int64_t>(request->object().size());
  Expected<void> admissible = !key ? std::unexpected(key.error())
                              : !digest ? std::unexpected(digest.error())
                                        : m_compiled.check_size(size);
  Expected<std::shared_ptr<UploadBudget::Lease>> lease =
      admissible ? m_core.admit_upload(size) : std::unexpected(admissible.error());
  if (!lease) {
    m_core.counters().add(Counter::compiled_rejected);
    return fail(context, lease.error());
  }
  return run(context, Priority::background,
             [this, request, reply, key = std::move(*key), digest = *digest, lease = *lease] {
               Expected<int64_t> stored = m_compiled.store(
                   key, std::as_bytes(std::span(request->object())), digest);
               if (!stored) {
                 return wire::to_grpc_status(stored.error());
               }
               reply->set_stored_bytes(*stored);
               return grpc::Status::OK;
             });
}

grpc::ServerUnaryReactor* KernelService::LookupCompiled(grpc::CallbackServerContext* context,
                                                        const pb::LookupCompiledRequest* request,
                                                        pb::LookupCompiledReply* reply)
{
  Expected<CompiledKey> key = wire::to_compiled_key(request->key(), m_core.config().default_mode);
  if (!key) {
    return fail(context, key.error());
  }
  std::optional<Sha256> damaged;
  if (!request->damaged_sha256().empty()) {
    Expected<Sha256> digest = wire::to_sha256(request->damaged_sha256());
    if (!digest) {
      return fail(context, digest.error());
    }
    damaged = *digest;
  }
  return run(context, Priority::interactive,
             [this, key = std::move(*key), accept = request->accept_path(), damaged, reply] {
               wire::fill_lookup_compiled_reply(m_compiled.lookup(key, accept, damaged), *reply);
               return grpc::Status::OK;
             });
}

} // namespace d4r::daemon
