// The Export and Pin handlers (kernel_service.hpp), thin as the others: convert, one core call on
// the pool, one status.

#include "daemon/kernel_service.hpp"
#include "daemon/release_wire.hpp"
#include "daemon/wire.hpp"

namespace d4r::daemon {

grpc::ServerUnaryReactor* KernelService::Export(grpc::CallbackServerContext* context,
                                                const pb::ExportRequest* request,
                                                pb::ExportReply* reply)
{
  Expected<wire::ExportCall> call = wire::to_export_call(*request);
  if (!call) {
    return fail(context, call.error());
  }
  return run(context, Priority::background, [this, call = std::move(*call), reply] {
    Expected<ExportSummary> summary = m_core.export_release(call.options);
    if (!summary) {
      return wire::to_grpc_status(summary.error());
    }
    wire::fill_export_reply(*summary, *reply);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::Pin(grpc::CallbackServerContext* context,
                                             const pb::PinRequest* request, pb::PinReply* reply)
{
  Expected<wire::PinCall> call = wire::to_pin_call(*request);
  if (!call) {
    return fail(context, call.error());
  }
  return run(context, Priority::interactive, [this, call = std::move(*call), reply] {
    Expected<PinAnswer> answer = m_core.pin(call.mode, call.rule, call.unpin);
    if (!answer) {
      return wire::to_grpc_status(answer.error());
    }
    wire::fill_pin_reply(*answer, *reply);
    return grpc::Status::OK;
  });
}

} // namespace d4r::daemon
