#pragma once
// Protobuf <-> core conversions for Export, Pin and the filtered Purge (wire.hpp's rule, in a
// file of its own).

#include "cache/pin_rule.hpp"
#include "daemon/kernel_core.hpp"
#include "util/error.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <cstdint>
#include <optional>

namespace d4r::daemon::wire {

struct ExportCall {
  ExportOptions options;
};

struct PinCall {
  std::optional<Mode> mode;
  cache::PinRule rule;
  bool unpin = false;
};

struct PurgeCall {
  std::optional<Mode> mode;
  cache::PurgeFilter filter;
};

// invalid_argument for a relative directory, a bad target or mode.
[[nodiscard]] Expected<ExportCall> to_export_call(const ::d4r::kernel::v1::ExportRequest& request);
void fill_export_reply(const ExportSummary& summary, ::d4r::kernel::v1::ExportReply& reply);

[[nodiscard]] Expected<PinCall> to_pin_call(const ::d4r::kernel::v1::PinRequest& request);
void fill_pin_reply(const PinAnswer& answer, ::d4r::kernel::v1::PinReply& reply);

// older_than_ms becomes a last-use bound counted back from now.
[[nodiscard]] Expected<PurgeCall> to_purge_call(const ::d4r::kernel::v1::PurgeRequest& request);

} // namespace d4r::daemon::wire
