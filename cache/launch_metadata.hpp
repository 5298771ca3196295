#pragma once
// The launch metadata of a cached object, in the cache's own versioned encoding. Rows of schema
// version 4 and before held the RPC's protobuf message (d4r.kernel.v1.LaunchMetadata) instead;
// the version 5 migration rewrites them (metadata_migration.hpp), so that what a tier stores and
// returns never depends on the RPC's message. cache/ knows no protobuf: the old form is read by a
// small reader of its wire format, frozen as it was written (launch_metadata_v1.cpp).

#include "util/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::cache {

// What the code object's `amdhsa.kernels` note says about one kernel.
struct LaunchKernel {
  std::string name;
  uint32_t kernarg_size = 0;
  uint32_t kernarg_align = 0;
  uint32_t wave_size = 0;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  uint32_t lds_bytes = 0;
  uint32_t scratch_bytes = 0;
  uint32_t max_workgroup_size = 0;

  friend bool operator==(const LaunchKernel&, const LaunchKernel&) = default;
};

struct LaunchPost {
  std::string name;
  uint32_t grid_x = 0;
  uint32_t grid_y = 0;
  uint32_t block_x = 0;
  uint32_t block_y = 0;
  uint32_t block_z = 0;

  friend bool operator==(const LaunchPost&, const LaunchPost&) = default;
};

struct LaunchVariable {
  std::string name;
  uint64_t size = 0;

  friend bool operator==(const LaunchVariable&, const LaunchVariable&) = default;
};

// The fields of compiler::LaunchMeta (compiler/launch_meta.hpp), which cache/ may not include;
// daemon/launch_record.hpp converts.
struct LaunchMetadata {
  std::string amdhsa_target;
  LaunchKernel main;
  std::optional<LaunchKernel> prep;
  uint32_t prep_blocks = 0;
  uint32_t prep_key_offset = 0;
  uint32_t prep_key_at = 0;
  uint32_t prep_key_slots = 0;
  uint32_t prep_identity_at = 0;
  uint32_t block_z = 0;
  uint32_t grid_x = 0;
  std::vector<LaunchPost> posts;
  std::vector<LaunchVariable> host_variables;
  uint32_t tensor_map_layout = 0;

  friend bool operator==(const LaunchMetadata&, const LaunchMetadata&) = default;
};

// The first byte of every encoding this cache writes; version 1 is the protobuf message of old.
inline constexpr uint8_t k_launch_metadata_version = 2;

// Version 2: the version byte, then the fields in declaration order, integers little-endian of
// their width, strings and lists as a u32 count then their items, the prep kernel after a 0/1.
[[nodiscard]] std::string encode_launch_metadata(const LaunchMetadata& meta);
// Reads version 2 (corrupt for anything else, a truncated or overlong one included). The empty
// string is no metadata (the hook's own compiled modules store none): corrupt as well.
[[nodiscard]] Expected<LaunchMetadata> decode_launch_metadata(std::string_view encoded);
// Reads version 1, the protobuf wire format of d4r.kernel.v1.LaunchMetadata as rows of schema
// version 4 and before hold it (unknown fields skipped, as protobuf does).
[[nodiscard]] Expected<LaunchMetadata> decode_launch_metadata_v1(std::string_view encoded);

} // namespace d4r::cache
