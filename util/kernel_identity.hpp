#pragma once
// The parts of a kernel request's identity that every folder agrees on: accuracy mode, GPU target
// and kernel name, with the validation that keeps a name from ever becoming a path.

#include "util/error.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace d4r {

enum class Mode { fast, accuracy };

[[nodiscard]] const char* to_string(Mode mode);
[[nodiscard]] Expected<Mode> parse_mode(std::string_view text);

// The RDNA3 and RDNA4 targets d4r builds for. Anything else is refused by name.
inline constexpr std::array<std::string_view, 6> k_known_targets = {
    "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1200", "gfx1201"};

[[nodiscard]] bool is_known_target(std::string_view arch);
[[nodiscard]] Expected<std::string> validate_target(std::string_view arch);
// gfx12 targets have hardware FP8 conversions and a `-fp8` release folder.
[[nodiscard]] bool target_has_native_fp8(std::string_view arch);

// C++ template kernels have mangled names of thousands of bytes; the limit only bounds what a
// request can make the daemon hold and log. Names reach the file system only as release objects
// (NAME.hsaco, release_catalog.cpp), where a file name longer than the file system's is simply
// not there.
inline constexpr size_t k_max_kernel_name = 8192;

// A kernel name is 1..8192 bytes of [A-Za-z0-9_$]: no '/', "..", NUL or other byte can reach a
// path.
[[nodiscard]] Expected<void> validate_kernel_name(std::string_view name);

// `cuda_dldn_engine_*` kernels belong to the Ray Reconstruction (denoiser) library.
[[nodiscard]] bool is_ray_reconstruction_kernel(std::string_view name);

} // namespace d4r
