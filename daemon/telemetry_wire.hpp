#pragma once
// Telemetry (telemetry.hpp) into the Status reply: one function beside wire.cpp so that the
// conversion of what this file counts stays with it.

#include "cache/cache.hpp"
#include "daemon/telemetry.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <vector>

namespace d4r::daemon::wire {

// `stores` gives each mode's bytes on disk (ModeTelemetry.bytes_stored).
void fill_telemetry(const TelemetrySnapshot& telemetry, const std::vector<cache::StoreStats>& stores,
                    ::d4r::kernel::v1::Telemetry& out);

} // namespace d4r::daemon::wire
