#pragma once
// The checks every code object passes before the cache takes it, whatever made it (a release, a
// build): its launch-metadata contract holds for the kernel, and it was built for the GPU asked
// for (a gfx1100 object in a gfx1101 folder would load and compute garbage).

#include "compiler/launch_meta.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace d4r::daemon {

// "amdgcn-amd-amdhsa--gfx1101" or "...--gfx1101:xnack-" -> "gfx1101".
[[nodiscard]] std::string processor_of(std::string_view amdhsa_target);

// The metadata of `kernel`, or ErrorCode::rejected naming what is wrong. An empty `arch` skips the
// target check (a flat release set, whose objects name their own target).
[[nodiscard]] Expected<compiler::LaunchMeta> checked_launch_meta(std::span<const std::byte> object,
                                                                 std::string_view kernel,
                                                                 std::string_view arch);

} // namespace d4r::daemon
