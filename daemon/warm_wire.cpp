#include "daemon/warm_wire.hpp"

#include "daemon/wire.hpp"
#include "util/kernel_identity.hpp"

namespace d4r::daemon::wire {

namespace {

constexpr int k_max_modules = 4096;
constexpr int k_max_entries = 1 << 16; // over every module

} // namespace

Expected<WarmSpec> to_warm_spec(const pb::WarmRequest& request)
{
  if (request.modules_size() > k_max_modules) {
    return make_error(ErrorCode::invalid_argument,
                      "warm: more than " + std::to_string(k_max_modules) + " modules");
  }
  WarmSpec spec;
  int entries = 0;
  for (const pb::WarmModule& module : request.modules()) {
    WarmModuleSpec each;
    each.hash = module.module().fnv1a64();
    if (!module.module().sha256().empty()) {
      TRY_ASSIGN(Sha256 digest, to_sha256(module.module().sha256()));
      each.sha256 = digest;
    }
    entries += module.entries_size();
    if (entries > k_max_entries) {
      return make_error(ErrorCode::invalid_argument,
                        "warm: more than " + std::to_string(k_max_entries) + " entries");
    }
    each.entries.assign(module.entries().begin(), module.entries().end());
    spec.modules.push_back(std::move(each));
  }
  for (const std::string& target : request.targets()) {
    TRY_ASSIGN(std::string valid, validate_target(target));
    spec.targets.push_back(std::move(valid));
  }
  for (int mode : request.modes()) {
    TRY_ASSIGN(std::optional<Mode> parsed, to_mode(static_cast<pb::Mode>(mode)));
    if (parsed) {
      spec.modes.push_back(*parsed);
    }
  }
  if (request.selection().has_fp8_native()) {
    spec.fp8_native = request.selection().fp8_native();
  }
  if (request.selection().has_native_swin_encoders()) {
    spec.native_swin_encoders = request.selection().native_swin_encoders();
  }
  return spec;
}

void fill_warm_reply(const WarmStart& start, pb::WarmReply& reply)
{
  reply.set_warm_id(start.id);
  for (uint64_t hash : start.need_modules) {
    reply.add_need_modules(hash);
  }
  reply.set_total(start.total);
}

void fill_warm_status_reply(const WarmProgress& progress, pb::WarmStatusReply& reply)
{
  reply.set_total(progress.total);
  reply.set_already(progress.already);
  reply.set_built(progress.built);
  reply.set_failed(progress.failed);
  reply.set_dropped(progress.dropped);
  reply.set_running(progress.running);
  reply.set_finished(progress.finished);
  reply.set_cancelled(progress.cancelled);
  reply.set_elapsed_ms(progress.elapsed.count());
  for (const WarmItem& item : progress.items) {
    pb::WarmItem* out = reply.add_items();
    out->set_module_hash(item.module_hash);
    out->set_kernel(item.kernel);
    out->set_target(item.target);
    out->set_mode(to_proto(item.mode));
    out->set_state(to_string(item.state));
    out->set_reason(item.reason);
    out->set_elapsed_ms(item.elapsed_ms);
  }
}

} // namespace d4r::daemon::wire
