#pragma once
// What a Status reply says, as a Prometheus text-format scrape (exposition format 0.0.4): one
// HELP and one TYPE line per family, then its samples, labels mode="fast|accuracy", game="...",
// reason="..." with their values escaped. The daemon renders it (the Metrics RPC), so that any
// server of the same Status (the remote build server) answers a scrape the same way.

#include "d4r/kernel/v1/kernel.pb.h"

#include <string>
#include <string_view>

namespace d4r::daemon {

[[nodiscard]] std::string metrics_text(const ::d4r::kernel::v1::StatusReply& status);

// A label value as the format wants it: backslash, double quote and line feed escaped.
[[nodiscard]] std::string escape_label_value(std::string_view value);

} // namespace d4r::daemon
