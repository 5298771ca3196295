#pragma once
// The launch metadata of a native replacement, read from its AMDGPU code object: the override-hook
// contract's symbols (../shared/seeds/native-kernels.md, ../shared/reference/d4r-contract.md §3) and
// what the `amdhsa.kernels` note says about each kernel.

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

// One kernel's entry of the NT_AMDGPU_METADATA note.
struct KernelResources {
  std::string name;
  uint32_t kernarg_size = 0;
  uint32_t kernarg_align = 0;
  uint32_t wave_size = 0;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  uint32_t lds_bytes = 0;     // .group_segment_fixed_size
  uint32_t scratch_bytes = 0; // .private_segment_fixed_size
  uint32_t max_workgroup_size = 0;
};

// `NAME_postK`: grid 0 means the main launch's grid (after its override), which only the hook
// knows; block 0 means 32/1/1, and that default is applied here.
struct PostKernelMeta {
  std::string name;
  uint32_t grid_x = 0;
  uint32_t grid_y = 0;
  uint32_t block_x = 32;
  uint32_t block_y = 1;
  uint32_t block_z = 1;
};

// A module variable of the code object that the host may write: a PTX module's .global/.const
// (the translator keeps each one as a symbol named as in PTX) or a HIP __device__/__constant__.
// The game writes the PTX module's variable through cuModuleGetGlobal; a hook that serves this
// object must copy those bytes to the object's variable of the same name (hipModuleGetGlobal)
// before it launches, or the kernel reads stale values.
struct HostVariable {
  std::string name;
  uint64_t size = 0;
};

// A u32 contract symbol that is absent reads as 0, as hipModuleGetGlobal's caller treats it.
struct LaunchMeta {
  std::string amdhsa_target; // "amdgcn-amd-amdhsa--gfx1201"
  KernelResources main;
  std::optional<KernelResources> prep; // `NAME_prep`
  uint32_t prep_blocks = 0;
  uint32_t prep_key_offset = 0;
  uint32_t prep_key_at = 0;
  uint32_t prep_key_slots = 0;
  uint32_t prep_identity_at = 0;
  uint32_t block_z = 0;
  uint32_t grid_x = 0;
  std::vector<PostKernelMeta> posts; // post1.. in order, up to the first missing one (at most 8)
  // Every exported data symbol of the object but the contract's (`d4r_*`), the kernel descriptors
  // (`*.kd`) and clang's `__hip_cuid_*`, sorted by name. Per code object, not per kernel: the
  // object holds every variable of its module whichever kernel reads it (a daemon build holds
  // one kernel, so it is that kernel's module's list).
  std::vector<HostVariable> host_variables;
  // D4R_TENSOR_MAP_MAGIC when the object reads or writes tensor maps in this project's layout
  // (compiler/translate/tensor_map_layout.hpp), 0 when it uses none: such an object is served
  // only to a client that writes that layout where cuTensorMapEncode* writes NVIDIA's.
  uint32_t tensor_map_layout = 0;
};

// Reads the metadata of kernel `kernel_name` from a code object. Errors:
// - corrupt: not an AMDGPU ELF, or an unreadable note or symbol table;
// - rejected: the contract is broken (no kernel `kernel_name`, a prep kernel with
//   d4r_prep_blocks == 0, a contract symbol that is not 4 bytes).
[[nodiscard]] Expected<LaunchMeta> read_launch_meta(std::span<const std::byte> code_object,
                                                    std::string_view kernel_name);

} // namespace d4r::compiler
