#pragma once
// What the benchmarks that time the daemon's builds share: one timed Build RPC and a purge.

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <string>

namespace d4r::bench {

namespace pb = ::d4r::kernel::v1;

// One Build RPC; the milliseconds it took, or -1 (with the reason on stderr, prefixed by `tool`)
// when it did not come back READY.
[[nodiscard]] double timed_build(const char* tool, pb::KernelService::Stub& stub,
                                 const std::string& kernel, const std::string& target, pb::Mode mode);

// Empties the daemon's cache (both modes).
void purge(pb::KernelService::Stub& stub);

} // namespace d4r::bench
