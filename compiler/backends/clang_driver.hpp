#pragma once
// The clang driver as the llvm and clang backends run it: a HIP source to device code for one
// AMDGPU target, without ROCm's device libraries or headers (our kernels include none).

#include "compiler/backend.hpp"
#include "compiler/backends/backend_factory.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace d4r::compiler {

// The first line of `clang --version` ("Debian clang version 19.1.7 (3~deb12u1)"), run once per
// path and process; "clang unavailable (PATH)" when it cannot be run.
[[nodiscard]] std::string clang_version_line(const std::filesystem::path& clang);

// The clang for the clang backend: options.clang when set to something else than the default,
// else ROCm's clang when present, else the default.
[[nodiscard]] std::filesystem::path find_clang(const BackendOptions& options);

// `clang -x hip --offload-arch=T --offload-device-only -nogpulib -nogpuinc [-O3] FLAGS
// [-mwavefrontsize64]`: the caller appends what to produce and the source. -O3 unless the flags
// choose a level: clang's default for HIP device code is -O0.
[[nodiscard]] std::vector<std::string> hip_device_command(const std::filesystem::path& clang,
                                                          const CompileJob& job);

// Runs `argv` (a clang command) for `job`; rejected with the last lines of its output when it
// fails, unavailable when clang is missing.
[[nodiscard]] Expected<std::string> run_clang(std::string_view backend, const CompileJob& job,
                                              const std::vector<std::string>& argv);

} // namespace d4r::compiler
