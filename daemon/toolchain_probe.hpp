#pragma once
// Which backend builds each target and its fingerprint, asked of d4r-kernel-worker once at
// start-up (`--toolchains`, compiler/worker/toolchains.hpp). The daemon itself maps neither LLVM
// nor comgr: they are what builds need, in the worker, and libLLVM alone would be most of the
// daemon's resident memory.

#include "compiler/worker/toolchains.hpp"
#include "util/error.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace d4r::daemon {

// Runs `worker --toolchains [--backend NAME] [--clang PATH]` (empty arguments left out) with stdin
// on /dev/null, in a process group of its own that is killed past `timeout`. Errors: internal (the
// worker could not be started), unavailable (it failed or did not answer within `timeout`),
// invalid_argument (its answer does not parse).
[[nodiscard]] Expected<std::vector<compiler::TargetToolchain>>
probe_toolchains(const std::filesystem::path& worker, const std::string& backend,
                 const std::filesystem::path& clang, std::chrono::milliseconds timeout);

} // namespace d4r::daemon
