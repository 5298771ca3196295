#include "daemon/release_wire.hpp"

#include "daemon/wire.hpp"

#include <chrono>

namespace d4r::daemon::wire {

namespace pb = ::d4r::kernel::v1;

Expected<ExportCall> to_export_call(const pb::ExportRequest& request)
{
  ExportCall call;
  call.options.directory = request.directory();
  if (!call.options.directory.is_absolute()) {
    return make_error(ErrorCode::invalid_argument,
                      "export: the directory must be an absolute path, got '" +
                          request.directory().substr(0, 256) + "'");
  }
  for (const std::string& target : request.targets()) {
    const bool fp8 = target.ends_with("-fp8");
    TRY(validate_target(fp8 ? target.substr(0, target.size() - 4) : target));
    call.options.targets.push_back(target);
  }
  TRY_ASSIGN(call.options.mode, to_mode(request.mode()));
  return call;
}

void fill_export_reply(const ExportSummary& summary, pb::ExportReply& reply)
{
  reply.set_directory(summary.directory.string());
  reply.set_objects(summary.objects);
  reply.set_manifest_lines(summary.manifest_lines);
  for (const std::string& folder : summary.folders) {
    reply.add_folders(folder);
  }
  for (const std::string& problem : summary.problems) {
    reply.add_problems(problem);
  }
}

Expected<PinCall> to_pin_call(const pb::PinRequest& request)
{
  PinCall call;
  TRY_ASSIGN(call.mode, to_mode(request.mode()));
  call.rule.kernel = request.kernel();
  if (request.has_module_hash()) {
    call.rule.module_hash = request.module_hash();
  }
  call.rule.label = request.label().substr(0, 256);
  call.unpin = request.unpin();
  return call;
}

void fill_pin_reply(const PinAnswer& answer, pb::PinReply& reply)
{
  reply.set_matched_entries(answer.matched);
  reply.set_removed(answer.removed);
  for (const auto& [mode, rule] : answer.pins) {
    pb::Pin& pin = *reply.add_pins();
    pin.set_mode(to_proto(mode));
    pin.set_kernel(rule.kernel);
    pin.set_has_module_hash(rule.module_hash.has_value());
    pin.set_module_hash(rule.module_hash.value_or(0));
    pin.set_label(rule.label);
    pin.set_created_unix_ms(rule.created_unix_ms);
  }
}

Expected<PurgeCall> to_purge_call(const pb::PurgeRequest& request)
{
  const int64_t now_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  PurgeCall call;
  TRY_ASSIGN(call.mode, to_mode(request.mode()));
  if (request.older_than_ms() < 0) {
    return make_error(ErrorCode::invalid_argument, "purge: older_than_ms is negative");
  }
  if (request.older_than_ms() > 0) {
    call.filter.unused_since_unix_ms = now_unix_ms - request.older_than_ms();
  }
  call.filter.force = request.force();
  return call;
}

} // namespace d4r::daemon::wire
