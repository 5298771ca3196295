#pragma once
// `d4r-kernel status`'s telemetry: per mode hits and why each miss missed, build times (count,
// average, max, histogram) and bytes; per game hits, misses and builds; the stores' trash and
// index replacements. Pure functions of the reply, as in output.hpp.

#include "cli/json_writer.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <string>

namespace d4r::cli {

[[nodiscard]] std::string telemetry_text(const ::d4r::kernel::v1::StatusReply& reply);
// Writes the keys "telemetry" and "store_trash" into the open object.
void telemetry_json(JsonWriter& json, const ::d4r::kernel::v1::StatusReply& reply);

} // namespace d4r::cli
