#pragma once
// Protobuf <-> core conversions, the only place that knows both (STYLE.md rule 10).

#include "cache/launch_metadata.hpp"
#include "daemon/kernel_core.hpp"
#include "util/error.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <grpcpp/support/status.h>

#include <string>
#include <vector>

namespace d4r::daemon::wire {

namespace pb = ::d4r::kernel::v1;

[[nodiscard]] Expected<ResolveQuery> to_resolve_query(const pb::ResolveRequest& request);
[[nodiscard]] Expected<ResolveQuery> to_build_query(const pb::BuildRequest& request);
void fill_resolve_reply(ResolveAnswer answer, pb::ResolveReply& reply);

[[nodiscard]] Expected<PrepareQuery> to_prepare_query(const pb::PrepareRequest& request);
void fill_prepare_reply(const PrepareAnswer& answer, pb::PrepareReply& reply);

[[nodiscard]] Expected<std::optional<Mode>> to_mode(pb::Mode mode);
[[nodiscard]] pb::Mode to_proto(Mode mode);
[[nodiscard]] Expected<Sha256> to_sha256(const std::string& bytes);

void fill_status_reply(const StatusSnapshot& status, pb::StatusReply& reply);
void fill_import_reply(const ImportSummary& summary, pb::ImportReply& reply);
void fill_list_reply(const std::vector<std::pair<Mode, cache::Entry>>& entries, pb::ListReply& reply);
void fill_purge_reply(const cache::PurgeResult& result, pb::PurgeReply& reply);
void fill_fetch_object_reply(std::optional<SignedObject> found, pb::FetchObjectReply& reply);

// The launch metadata of an answer (the cache's, cache/launch_metadata.hpp) as the RPC sends it.
void fill_launch_metadata(const cache::LaunchMetadata& meta, pb::LaunchMetadata& out);

// One mapping from our errors to gRPC's, messages cut at 1 KiB.
[[nodiscard]] grpc::Status to_grpc_status(const Error& error);

} // namespace d4r::daemon::wire
