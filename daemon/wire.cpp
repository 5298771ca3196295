#include "daemon/wire.hpp"

#include "daemon/telemetry_wire.hpp"

#include "d4r_version.hpp"

#include <unistd.h>

namespace d4r::daemon::wire {

void fill_fetch_object_reply(std::optional<SignedObject> found, pb::FetchObjectReply& reply)
{
  reply.set_found(found.has_value());
  if (!found) {
    return;
  }
  cache::TierObject& object = found->object;
  reply.set_object(reinterpret_cast<const char*>(object.bytes.data()), object.bytes.size());
  reply.set_sha256(reinterpret_cast<const char*>(object.digest.data()), object.digest.size());
  reply.set_metadata(std::move(object.metadata));
  reply.set_signature(std::move(found->signature));
}

namespace {

constexpr size_t k_max_status_message = 1024;

void fill_resources(const cache::LaunchKernel& from, pb::KernelResources& to)
{
  to.set_name(from.name);
  to.set_kernarg_size(from.kernarg_size);
  to.set_kernarg_align(from.kernarg_align);
  to.set_wave_size(from.wave_size);
  to.set_sgpr_count(from.sgpr_count);
  to.set_vgpr_count(from.vgpr_count);
  to.set_lds_bytes(from.lds_bytes);
  to.set_scratch_bytes(from.scratch_bytes);
  to.set_max_workgroup_size(from.max_workgroup_size);
}

Expected<SelectionQuery> to_selection_query(const pb::Selection& selection)
{
  SelectionQuery query;
  query.target = selection.target();
  TRY_ASSIGN(query.mode, to_mode(selection.mode()));
  if (selection.has_fp8_native()) {
    query.fp8_native = selection.fp8_native();
  }
  if (selection.has_native_swin_encoders()) {
    query.native_swin_encoders = selection.native_swin_encoders();
  }
  return query;
}

pb::ResolveReply::Outcome to_proto(Outcome outcome)
{
  switch (outcome) {
  case Outcome::ready:
    return pb::ResolveReply::READY;
  case Outcome::not_found:
    return pb::ResolveReply::NOT_FOUND;
  case Outcome::pending:
    return pb::ResolveReply::PENDING;
  case Outcome::rejected:
    return pb::ResolveReply::REJECTED;
  }
  return pb::ResolveReply::NOT_FOUND;
}

void fill_build_stats(const StatusSnapshot& status, pb::BuildStats& out)
{
  const BuildStats& builds = status.builds;
  out.set_queued(builds.queued);
  out.set_running(builds.running);
  out.set_done(builds.done);
  out.set_elsewhere(builds.elsewhere);
  out.set_failed(builds.failed);
  out.set_negative_hits(builds.negative_hits);
  for (const BuildRecord& record : builds.recent) {
    pb::BuildRecord& r = *out.add_recent();
    r.set_recipe(record.recipe);
    r.set_kernel(record.kernel);
    r.set_target(record.target);
    r.set_mode(record.mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST);
    r.set_backend(record.backend);
    r.set_state(record.state);
    r.set_reason(record.reason);
    r.set_elapsed_ms(record.elapsed_ms);
  }
  for (const std::string& recipe : status.recipes) {
    out.add_recipes(recipe);
  }
  for (const auto& [target, toolchain] : status.toolchains) {
    (*out.mutable_toolchains())[target] = toolchain;
  }
}

} // namespace

Expected<std::optional<Mode>> to_mode(pb::Mode mode)
{
  switch (mode) {
  case pb::MODE_UNSPECIFIED:
    return std::nullopt;
  case pb::MODE_FAST:
    return Mode::fast;
  case pb::MODE_ACCURACY:
    return Mode::accuracy;
  case pb::Mode_INT_MIN_SENTINEL_DO_NOT_USE_:
  case pb::Mode_INT_MAX_SENTINEL_DO_NOT_USE_:
    break;
  }
  return make_error(ErrorCode::invalid_argument,
                    "unknown accuracy mode " + std::to_string(static_cast<int>(mode)));
}

pb::Mode to_proto(Mode mode)
{
  return mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST;
}

Expected<Sha256> to_sha256(const std::string& bytes)
{
  if (bytes.size() != 32) {
    return make_error(ErrorCode::invalid_argument,
                      "sha256 is " + std::to_string(bytes.size()) + " bytes (expected 32)");
  }
  Sha256 digest{};
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(digest.data()));
  return digest;
}

namespace {

// A request thread waits for a build as long as its caller asks, so the ask is bounded: a game
// waits tens of milliseconds, a warm-up no longer than a build may take (--build-wall-seconds'
// default), `d4r-kernel build` minutes.
constexpr uint32_t k_max_resolve_wait_ms = 300'000;
constexpr uint32_t k_max_build_wait_ms = 30 * 60'000;
// Far above a real module's entries (a DLSS module has tens).
constexpr int k_max_prepare_entries = 4096;

Expected<std::chrono::milliseconds> wait_budget(uint32_t asked, uint32_t limit, const char* rpc)
{
  if (asked > limit) {
    return make_error(ErrorCode::invalid_argument,
                      std::string(rpc) + ": wait_budget_ms " + std::to_string(asked) +
                          " is over the limit of " + std::to_string(limit));
  }
  return std::chrono::milliseconds(asked);
}

} // namespace

Expected<ResolveQuery> to_resolve_query(const pb::ResolveRequest& request)
{
  ResolveQuery query;
  query.module_hash = request.module_hash();
  query.kernel = request.kernel();
  TRY_ASSIGN(query.selection, to_selection_query(request.selection()));
  query.accept_path = request.accept_path();
  query.mirrors_host_variables = request.mirrors_host_variables();
  query.writes_d4r_tensor_maps = request.writes_d4r_tensor_maps();
  query.game = request.game();
  TRY_ASSIGN(query.wait_budget,
             wait_budget(request.wait_budget_ms(), k_max_resolve_wait_ms, "Resolve"));
  if (!request.damaged_sha256().empty()) {
    TRY_ASSIGN(Sha256 damaged, to_sha256(request.damaged_sha256()));
    query.damaged = damaged;
  }
  return query;
}

Expected<ResolveQuery> to_build_query(const pb::BuildRequest& request)
{
  ResolveQuery query;
  query.kernel = request.kernel();
  TRY_ASSIGN(query.selection, to_selection_query(request.selection()));
  query.accept_path = request.accept_path();
  query.mirrors_host_variables = request.mirrors_host_variables();
  query.writes_d4r_tensor_maps = request.writes_d4r_tensor_maps();
  TRY_ASSIGN(query.wait_budget, wait_budget(request.wait_budget_ms(), k_max_build_wait_ms, "Build"));
  return query;
}

void fill_resolve_reply(ResolveAnswer answer, pb::ResolveReply& reply)
{
  reply.set_outcome(to_proto(answer.outcome));
  reply.set_reason(std::move(answer.reason));
  reply.set_target(std::move(answer.target));
  reply.set_mode(to_proto(answer.mode));
  if (answer.outcome != Outcome::ready) {
    return;
  }
  pb::CodeObject& object = *reply.mutable_object();
  object.set_sha256(std::string(answer.digest.begin(), answer.digest.end()));
  object.set_size(answer.size);
  if (!answer.object_path.empty()) {
    object.set_path(answer.object_path.string());
  } else {
    object.set_data(reinterpret_cast<const char*>(answer.object_bytes.data()),
                    answer.object_bytes.size());
  }
  fill_launch_metadata(answer.metadata, *reply.mutable_metadata());
}

Expected<PrepareQuery> to_prepare_query(const pb::PrepareRequest& request)
{
  PrepareQuery query;
  query.module_hash = request.module().fnv1a64();
  if (!request.module().sha256().empty()) {
    TRY_ASSIGN(query.module_sha256, to_sha256(request.module().sha256()));
  }
  if (request.entries_size() > k_max_prepare_entries) {
    return make_error(ErrorCode::invalid_argument,
                      "Prepare: " + std::to_string(request.entries_size()) +
                          " entries is over the limit of " + std::to_string(k_max_prepare_entries));
  }
  query.entries.assign(request.entries().begin(), request.entries().end());
  TRY_ASSIGN(query.selection, to_selection_query(request.selection()));
  query.game = request.game();
  return query;
}

void fill_prepare_reply(const PrepareAnswer& answer, pb::PrepareReply& reply)
{
  reply.set_need_module_bytes(answer.need_module_bytes);
  for (const std::string& entry : answer.servable_entries) {
    reply.add_servable_entries(entry);
  }
}

void fill_status_reply(const StatusSnapshot& status, pb::StatusReply& reply)
{
  reply.set_version(k_d4r_version);
  reply.set_uptime_ms(status.uptime.count());
  reply.set_detected_target(status.detected_target);
  reply.set_native_dir(status.native_dir);
  reply.set_pid(getpid());
  for (const cache::StoreStats& stats : status.stores) {
    pb::StoreStats& out = *reply.add_stores();
    out.set_mode(to_proto(stats.mode));
    out.set_path(stats.root.string());
    out.set_entries(stats.entries);
    out.set_bytes(stats.bytes);
    out.set_max_bytes(stats.max_bytes);
    out.set_hits(stats.hits);
    out.set_misses(stats.misses);
    out.set_evictions(stats.evictions);
    out.set_quarantined(stats.quarantined);
    out.set_inserts(stats.inserts);
    out.set_trash_objects(stats.trash_objects);
    out.set_trash_bytes(stats.trash_bytes);
    out.set_trash_cut_short(stats.trash_cut_short);
    out.set_index_replacements(stats.index_replacements);
  }
  for (const auto& [name, value] : status.counters) {
    (*reply.mutable_counters())[name] = value;
  }
  fill_build_stats(status, *reply.mutable_builds());
  fill_telemetry(status.telemetry, status.stores, *reply.mutable_telemetry());
  for (const cache::TierHealth& tier : status.tiers) {
    pb::TierHealth& out = *reply.add_tiers();
    out.set_name(tier.name);
    out.set_hits(tier.hits);
    out.set_misses(tier.misses);
    out.set_failures(tier.failures);
    out.set_timeouts(tier.timeouts);
    out.set_skipped(tier.skipped);
    out.set_mismatches(tier.mismatches);
    out.set_stores(tier.stores);
    out.set_builds(tier.builds);
    out.set_backed_off(tier.backed_off);
    out.set_distrusted(tier.distrusted);
    out.set_last_error(tier.last_error.substr(0, k_max_status_message));
    for (const std::string& host : tier.hosts) {
      out.add_hosts(host.substr(0, k_max_status_message));
    }
  }
}

void fill_import_reply(const ImportSummary& summary, pb::ImportReply& reply)
{
  reply.set_imported(summary.imported);
  reply.set_already_present(summary.already_present);
  for (const std::string& problem : summary.problems) {
    reply.add_problems(problem);
  }
}

void fill_list_reply(const std::vector<std::pair<Mode, cache::Entry>>& entries, pb::ListReply& reply)
{
  for (const auto& [mode, entry] : entries) {
    pb::CacheEntry& out = *reply.add_entries();
    out.set_mode(to_proto(mode));
    out.set_kernel(entry.key.kernel);
    out.set_module_hash(entry.key.module_hash);
    out.set_target(entry.key.target);
    out.set_source(entry.source);
    out.set_sha256(std::string(entry.digest.begin(), entry.digest.end()));
    out.set_size(entry.size);
    out.set_last_used_unix_ms(entry.last_used_unix_ms);
    out.set_pinned(entry.pinned);
  }
}

void fill_purge_reply(const cache::PurgeResult& result, pb::PurgeReply& reply)
{
  reply.set_removed_entries(result.removed_entries);
  reply.set_removed_bytes(result.removed_bytes);
  reply.set_kept_pinned(result.kept_pinned);
}

void fill_launch_metadata(const cache::LaunchMetadata& meta, pb::LaunchMetadata& out)
{
  out.set_amdhsa_target(meta.amdhsa_target);
  fill_resources(meta.main, *out.mutable_main());
  if (meta.prep) {
    fill_resources(*meta.prep, *out.mutable_prep());
  }
  out.set_prep_blocks(meta.prep_blocks);
  out.set_prep_key_offset(meta.prep_key_offset);
  out.set_prep_key_at(meta.prep_key_at);
  out.set_prep_key_slots(meta.prep_key_slots);
  out.set_prep_identity_at(meta.prep_identity_at);
  out.set_block_z(meta.block_z);
  out.set_grid_x(meta.grid_x);
  for (const cache::LaunchPost& post : meta.posts) {
    pb::PostKernel& p = *out.add_posts();
    p.set_name(post.name);
    p.set_grid_x(post.grid_x);
    p.set_grid_y(post.grid_y);
    p.set_block_x(post.block_x);
    p.set_block_y(post.block_y);
    p.set_block_z(post.block_z);
  }
  for (const cache::LaunchVariable& variable : meta.host_variables) {
    pb::HostVariable& v = *out.add_host_variables();
    v.set_name(variable.name);
    v.set_size(variable.size);
  }
  out.set_tensor_map_layout(meta.tensor_map_layout);
}

grpc::Status to_grpc_status(const Error& error)
{
  std::string message = error.message.substr(0, k_max_status_message);
  switch (error.code) {
  case ErrorCode::invalid_argument:
    return {grpc::StatusCode::INVALID_ARGUMENT, message};
  case ErrorCode::not_found:
    return {grpc::StatusCode::NOT_FOUND, message};
  case ErrorCode::io:
  case ErrorCode::corrupt:
  case ErrorCode::internal:
    return {grpc::StatusCode::INTERNAL, message};
  case ErrorCode::rejected:
    return {grpc::StatusCode::FAILED_PRECONDITION, message};
  case ErrorCode::unavailable:
    return {grpc::StatusCode::UNAVAILABLE, message};
  case ErrorCode::timeout:
    return {grpc::StatusCode::DEADLINE_EXCEEDED, message};
  case ErrorCode::permission_denied:
    return {grpc::StatusCode::PERMISSION_DENIED, message};
  case ErrorCode::resource_exhausted:
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, message};
  }
  return {grpc::StatusCode::UNKNOWN, message};
}

} // namespace d4r::daemon::wire
