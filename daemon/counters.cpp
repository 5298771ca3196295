#include "daemon/counters.hpp"

namespace d4r::daemon {

const char* to_string(Counter counter)
{
  switch (counter) {
  case Counter::resolve_ready:
    return "ready";
  case Counter::not_found_no_release_dir:
    return "not_found.no_release_dir";
  case Counter::not_found_no_folder:
    return "not_found.no_folder";
  case Counter::not_found_not_listed:
    return "not_found.not_listed";
  case Counter::not_found_hash_mismatch:
    return "not_found.hash_mismatch";
  case Counter::not_found_switched_off:
    return "not_found.switched_off";
  case Counter::not_found_missing_object:
    return "not_found.missing_object";
  case Counter::not_found_error:
    return "not_found.error";
  case Counter::not_found_no_recipe:
    return "not_found.no_recipe";
  case Counter::not_found_build_failed:
    return "not_found.build_failed";
  case Counter::not_found_no_module:
    return "not_found.no_module";
  case Counter::not_found_host_variables:
    return "not_found.host_variables";
  case Counter::not_found_tensor_maps:
    return "not_found.tensor_maps";
  case Counter::rejected_wrong_origin:
    return "rejected.wrong_origin";
  case Counter::rejected_broken_contract:
    return "rejected.broken_contract";
  case Counter::rejected_invalid_request:
    return "rejected.invalid_request";
  case Counter::rejected_request_queue_full:
    return "rejected.request_queue_full";
  case Counter::rejected_build_queue_full:
    return "rejected.build_queue_full";
  case Counter::rejected_upload_memory:
    return "rejected.upload_memory";
  case Counter::rejected_transport_memory:
    return "rejected.transport_memory";
  case Counter::rejected_connection_limit:
    return "rejected.connection_limit";
  case Counter::closed_silent_connection:
    return "closed.silent_connection";
  case Counter::closed_idle_for_memory:
    return "closed.idle_for_memory";
  case Counter::closed_idle_for_connection:
    return "closed.idle_for_connection";
  case Counter::warmup_dropped:
    return "warmup_dropped";
  case Counter::pending:
    return "pending";
  case Counter::cache_corrupt_object:
    return "cache.corrupt_object";
  case Counter::cache_index_replaced:
    return "cache.index_replaced";
  case Counter::client_damage_report:
    return "client.damage_report";
  case Counter::prepare:
    return "prepare";
  case Counter::put_module:
    return "put_module";
  case Counter::put_module_rejected:
    return "put_module.rejected";
  case Counter::peer_refused:
    return "peer_refused";
  case Counter::connections:
    return "connections";
  case Counter::compiled_hit:
    return "compiled.hit";
  case Counter::compiled_miss:
    return "compiled.miss";
  case Counter::compiled_stored:
    return "compiled.stored";
  case Counter::compiled_rejected:
    return "compiled.rejected";
  case Counter::compiled_damage_report:
    return "compiled.damage_report";
  case Counter::upstream_served:
    return "upstream.served";
  case Counter::count_:
    break;
  }
  return "unknown";
}

std::map<std::string, int64_t> Counters::snapshot() const
{
  std::map<std::string, int64_t> values;
  for (size_t i = 0; i < m_values.size(); ++i) {
    values.emplace(to_string(static_cast<Counter>(i)), m_values[i].load(std::memory_order_relaxed));
  }
  return values;
}

} // namespace d4r::daemon
