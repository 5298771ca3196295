#pragma once
// The GPU target of this machine: D4R_GPU_ARCH when it starts with "gfx", else the KFD topology
// node with the most SIMDs (first on a tie), named gfx + V/10000 + (V/100)%100 + hex(V%100).

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::release {

inline constexpr const char* k_default_topology_root = "/sys/class/kfd/kfd/topology/nodes";

// 110001 -> gfx1101, 120001 -> gfx1201, 100306 -> gfx1036.
[[nodiscard]] std::string arch_from_gfx_target_version(uint32_t version);

// Reads nodes 0..15 under topology_root; not_found when no node has a GPU.
[[nodiscard]] Expected<std::string> detect_gpu_arch(const std::filesystem::path& topology_root);

// The override wins when it starts with "gfx"; otherwise the detection runs.
[[nodiscard]] Expected<std::string> resolve_gpu_arch(std::optional<std::string_view> override_arch,
                                                     const std::filesystem::path& topology_root);

} // namespace d4r::release
