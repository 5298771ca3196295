#pragma once
// The GPU target of this machine: D4R_GPU_ARCH when it starts with "gfx", else the KFD topology
// node with the most SIMDs (first on a tie), named gfx + V/10000 + (V/100)%100 + hex(V%100).

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::release {

inline constexpr const char* k_default_topology_root = "/sys/class/kfd/kfd/topology/nodes";

// 110001 -> gfx1101, 120001 -> gfx1201, 100306 -> gfx1036.
[[nodiscard]] std::string arch_from_gfx_target_version(uint32_t version);

// One KFD topology node's numbers (CPU nodes report zeros).
struct KfdNode {
  int index = 0;
  uint64_t simd_count = 0;
  uint64_t gfx_target_version = 0;
};

// Nodes 0..15 under topology_root whose properties file reads (also CPU nodes); for doctor.
[[nodiscard]] std::vector<KfdNode> read_kfd_nodes(const std::filesystem::path& topology_root);
// The node detect_gpu_arch picks: a GPU (simd_count and a 32-bit gfx_target_version non-zero)
// with the most SIMDs, the first on a tie; nullopt when there is none.
[[nodiscard]] std::optional<KfdNode> pick_gpu_node(const std::vector<KfdNode>& nodes);

// Reads nodes 0..15 under topology_root; not_found when no node has a GPU.
[[nodiscard]] Expected<std::string> detect_gpu_arch(const std::filesystem::path& topology_root);

// The override wins when it starts with "gfx"; otherwise the detection runs.
[[nodiscard]] Expected<std::string> resolve_gpu_arch(std::optional<std::string_view> override_arch,
                                                     const std::filesystem::path& topology_root);

} // namespace d4r::release
