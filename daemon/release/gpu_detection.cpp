#include "daemon/release/gpu_detection.hpp"

#include <charconv>
#include <fstream>
#include <limits>

namespace d4r::release {

namespace {

// KFD numbers its nodes from 0; the bridge looks at the first 16.
constexpr int k_max_nodes = 16;

std::optional<uint64_t> parse_number(std::string_view text)
{
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// nullopt when the node's file cannot be read (a missing or unreadable node is skipped).
std::optional<KfdNode> read_node(const std::filesystem::path& file)
{
  std::ifstream stream(file);
  if (!stream) {
    return std::nullopt;
  }
  KfdNode node;
  std::string line;
  while (std::getline(stream, line)) {
    std::string_view view = line;
    size_t space = view.find(' ');
    if (space == std::string_view::npos) {
      continue;
    }
    std::string_view key = view.substr(0, space);
    std::optional<uint64_t> value = parse_number(view.substr(space + 1));
    if (!value) {
      continue;
    }
    if (key == "simd_count") {
      node.simd_count = *value;
    } else if (key == "gfx_target_version") {
      node.gfx_target_version = *value;
    }
  }
  return node;
}

} // namespace

std::string arch_from_gfx_target_version(uint32_t version)
{
  // g++ 12 has no <format>: the last part is the step in lowercase hex (90010 -> gfx90a).
  char step[8] = {};
  std::to_chars_result result = std::to_chars(step, step + sizeof(step), version % 100, 16);
  return "gfx" + std::to_string(version / 10000) + std::to_string((version / 100) % 100) +
         std::string(step, result.ptr);
}

std::vector<KfdNode> read_kfd_nodes(const std::filesystem::path& topology_root)
{
  std::vector<KfdNode> nodes;
  for (int index = 0; index < k_max_nodes; ++index) {
    std::optional<KfdNode> node = read_node(topology_root / std::to_string(index) / "properties");
    if (node) {
      node->index = index;
      nodes.push_back(*node);
    }
  }
  return nodes;
}

std::optional<KfdNode> pick_gpu_node(const std::vector<KfdNode>& nodes)
{
  std::optional<KfdNode> best;
  for (const KfdNode& node : nodes) {
    // CPU nodes report zeros; a version beyond 32 bits is not one KFD writes.
    if (node.simd_count == 0 || node.gfx_target_version == 0 ||
        node.gfx_target_version > std::numeric_limits<uint32_t>::max()) {
      continue;
    }
    // Strictly more SIMDs replaces: the first node wins a tie, as in the bridge.
    if (!best || node.simd_count > best->simd_count) {
      best = node;
    }
  }
  return best;
}

Expected<std::string> detect_gpu_arch(const std::filesystem::path& topology_root)
{
  std::optional<KfdNode> best = pick_gpu_node(read_kfd_nodes(topology_root));
  if (!best) {
    return make_error(ErrorCode::not_found, "kfd: no gpu node (simd_count and gfx_target_version "
                                            "non-zero) in nodes 0-15 under " +
                                                topology_root.string());
  }
  return arch_from_gfx_target_version(static_cast<uint32_t>(best->gfx_target_version));
}

Expected<std::string> resolve_gpu_arch(std::optional<std::string_view> override_arch,
                                       const std::filesystem::path& topology_root)
{
  if (override_arch && override_arch->starts_with("gfx")) {
    return std::string(*override_arch);
  }
  return detect_gpu_arch(topology_root);
}

} // namespace d4r::release
