#pragma once
// What the benchmarks that time the daemon's builds share: the shipped examples and the targets
// they are built for, one timed Build RPC and a purge.

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <string>

namespace d4r::bench {

namespace pb = ::d4r::kernel::v1;

// The example recipes' kernels (kernels/recipes) and the targets every one builds for.
inline constexpr const char* k_examples[] = {"d4r_example_layer", "d4r_example_wave64",
                                             "d4r_example_accuracy", "d4r_example_fp8",
                                             "d4r_example_variant_hdr"};
inline constexpr const char* k_targets[] = {"gfx1100", "gfx1101", "gfx1102",
                                            "gfx1103", "gfx1200", "gfx1201"};

// One Build RPC; the milliseconds it took, or -1 (with the reason on stderr, prefixed by `tool`)
// when it did not come back READY.
[[nodiscard]] double timed_build(const char* tool, pb::KernelService::Stub& stub,
                                 const std::string& kernel, const std::string& target, pb::Mode mode);

// Empties the daemon's cache (both modes).
void purge(pb::KernelService::Stub& stub);

} // namespace d4r::bench
