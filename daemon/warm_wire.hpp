#pragma once
// Protobuf <-> WarmJobs conversions for the Warm and WarmStatus handlers (wire.hpp's rule, in a
// file of its own).

#include "daemon/warm_jobs.hpp"
#include "util/error.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

namespace d4r::daemon::wire {

[[nodiscard]] Expected<WarmSpec> to_warm_spec(const ::d4r::kernel::v1::WarmRequest& request);
void fill_warm_reply(const WarmStart& start, ::d4r::kernel::v1::WarmReply& reply);
void fill_warm_status_reply(const WarmProgress& progress, ::d4r::kernel::v1::WarmStatusReply& reply);

} // namespace d4r::daemon::wire
