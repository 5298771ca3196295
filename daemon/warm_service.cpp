// The Warm and WarmStatus handlers of KernelService (kernel_service.hpp), thin as the others: the
// conversion, one WarmJobs call on the request pool, one status.

#include "daemon/kernel_service.hpp"
#include "daemon/warm_wire.hpp"
#include "daemon/wire.hpp"

namespace d4r::daemon {

grpc::ServerUnaryReactor* KernelService::Warm(grpc::CallbackServerContext* context,
                                              const pb::WarmRequest* request, pb::WarmReply* reply)
{
  Expected<WarmSpec> spec = wire::to_warm_spec(*request);
  if (!spec) {
    return fail(context, spec.error());
  }
  // Planning reads the manifests for every target and mode asked: background work.
  return run(context, Priority::background, [this, spec = std::move(*spec), reply] {
    Expected<WarmStart> started = m_warm_jobs.start(spec);
    if (!started) {
      return wire::to_grpc_status(started.error());
    }
    wire::fill_warm_reply(*started, *reply);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::WarmStatus(grpc::CallbackServerContext* context,
                                                    const pb::WarmStatusRequest* request,
                                                    pb::WarmStatusReply* reply)
{
  return run(context, Priority::interactive,
             [this, id = request->warm_id(), seen = request->items_seen(),
              cancel = request->cancel(), reply] {
               Expected<WarmProgress> progress = m_warm_jobs.progress(id, seen, cancel);
               if (!progress) {
                 return wire::to_grpc_status(progress.error());
               }
               wire::fill_warm_status_reply(*progress, *reply);
               return grpc::Status::OK;
             });
}

} // namespace d4r::daemon
