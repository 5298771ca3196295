#pragma once
// `d4r-kernel status`'s sections for what lies past the local store: the TCP build server
// (StatusReply.remote, only when the daemon listens) and the storage tiers asked in order
// (StatusReply.tiers, one line each). Pure functions of the reply, text and --json.

#include "cli/json_writer.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <string>

namespace d4r::cli {

// "\nbuild server: HOST:PORT, mTLS on; unauthenticated: 1 missing, ..." and a table of clients;
// empty when the reply has no remote section (the daemon does not listen on TCP).
[[nodiscard]] std::string remote_text(const ::d4r::kernel::v1::StatusReply& reply);
// Writes the key "remote" (an object) into the open object, only when there is one.
void remote_json(JsonWriter& json, const ::d4r::kernel::v1::StatusReply& reply);

// "\ntiers:" then one line per tier; empty without tiers.
[[nodiscard]] std::string tiers_text(const ::d4r::kernel::v1::StatusReply& reply);
// Writes the key "tiers" (an array, one object per tier, nearest first) into the open object.
void tiers_json(JsonWriter& json, const ::d4r::kernel::v1::StatusReply& reply);

} // namespace d4r::cli
