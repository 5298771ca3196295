#pragma once
// Image access, the part of stage 4 that differs between the two targets (lower_image.cpp is the
// target-neutral part): texture fetches and gathers through a .u64 texture object, surface loads,
// stores and reductions through a .u64 surface object, and their queries.
//
// Host (image_hooks.cpp, HostImageHooks): the handle is the address of a d4r_host_image and every
// access calls the SIMT runtime's d4r_rt_tex / d4r_rt_suld_b / d4r_rt_sust_b / d4r_rt_sust_p /
// d4r_rt_sured / d4r_rt_image_query (host_abi.hpp), which implement NVIDIA's filtering and clamp
// modes.
// AMDGPU (AmdgpuImageHooks): the handle is a HIP texture or surface object as ZLUDA creates them
// (a pointer to the image resource descriptor, then the sampler descriptor at dword 12), and the
// accesses are llvm.amdgcn.image.{sample,gather4}.{lz,l,d}[.o].<dim>, image.load/store/atomic
// and image.getresinfo (image_hooks_amdgpu.cpp).

#include "compiler/translate/target_hooks.hpp"

#include <llvm/IR/IRBuilder.h>

#include <array>
#include <cstdint>
#include <vector>

namespace d4r::compiler::translate {

// The out-of-range behaviour of suld/sust/sured (PTX: .trap is the default), numbered as
// host_abi.hpp's `mode` argument.
enum class ImageClamp : uint32_t { zero = 0, clamp = 1, trap = 2 };

// The geometry an instruction names, numbered as host_abi.hpp's d4r_host_geometry.
enum class ImageGeometry : uint32_t { d1 = 0, d2 = 1, d3 = 2, a1d = 3, a2d = 4, cube = 5, acube = 6 };

// The spatial coordinates of a geometry (1, 2 or 3) and whether it has a layer.
[[nodiscard]] int spatial_dims(ImageGeometry geometry);
[[nodiscard]] bool is_layered(ImageGeometry geometry);

// One surface access: `count` elements of `element_bits` bits at (x, y, slice) of the i64
// `handle`. x is a byte offset for the .b forms and an element index for .p; y is the row (null
// for 1d and a1d) and `slice` the 3D slice or the layer (null for 1d and 2d).
struct SurfaceAccess {
  llvm::Value* handle = nullptr; // i64
  ImageGeometry geometry = ImageGeometry::d2;
  llvm::Value* x = nullptr;      // i32
  llvm::Value* y = nullptr;      // i32 or null
  llvm::Value* slice = nullptr;  // i32 or null
  int element_bits = 32;         // 8, 16, 32 or 64
  int count = 1;                 // 1, 2 or 4
  ImageClamp clamp = ImageClamp::trap;
};

enum class TextureResult { f32, integer, f16 };

// One tex or tld4 of any geometry.
struct TextureAccess {
  llvm::Value* handle = nullptr;             // i64
  ImageGeometry geometry = ImageGeometry::d2;
  llvm::Value* layer = nullptr;              // i32: a1d, a2d, acube
  std::array<llvm::Value*, 3> coords{};      // f32, or i32 with integer_coords (spatial_dims used)
  bool integer_coords = false;
  TextureResult result = TextureResult::f32;
  llvm::Value* lod = nullptr;                // f32: tex.level
  std::array<llvm::Value*, 3> grad_x{};      // f32: tex.grad dPdx, dPdy (spatial_dims used)
  std::array<llvm::Value*, 3> grad_y{};
  std::array<llvm::Value*, 3> offsets{};     // i32 texel offsets, or all null
  int gather = -1;                           // tld4: the channel 0..3
};

enum class SuredOp : uint32_t { add = 0, min = 1, max = 2, bit_and = 3, bit_or = 4 };
enum class SuredType : uint32_t { u32 = 0, s32 = 1, u64 = 2, s64 = 3 };

// txq / suq attributes, numbered as host_abi.hpp's d4r_host_image_query.
enum class ImageQuery : uint32_t {
  width = 0, height = 1, depth = 2, channel_data_type = 3, channel_order = 4,
  normalized_coords = 5, filter_mode = 6, addr_mode_0 = 7, addr_mode_1 = 8, addr_mode_2 = 9,
  array_size = 10, num_mipmap_levels = 11, num_samples = 12, memory_layout = 13,
};

class ImageHooks {
public:
  virtual ~ImageHooks() = default;

  // tex / tld4: four channels (f32, or i32 for integer results); f16 results: two i32 words
  // (four halves) and two nulls.
  virtual std::array<llvm::Value*, 4> texture(HookEnv env, const TextureAccess& access) = 0;
  // sust.b: `elements` are integers of access.element_bits bits, in memory order.
  virtual void store_b(HookEnv env, const SurfaceAccess& access,
                       llvm::ArrayRef<llvm::Value*> elements) = 0;
  // sust.p.v4.b32: four 32-bit components (i32 bits) converted to the surface's format.
  virtual void store_p(HookEnv env, const SurfaceAccess& access,
                       const std::array<llvm::Value*, 4>& components) = 0;
  // suld.b: access.count integers of access.element_bits bits.
  virtual std::vector<llvm::Value*> load_b(HookEnv env, const SurfaceAccess& access) = 0;
  // sured: an atomic `op` of `value` (i32 or i64 by `type`) into the texel; .p when `formatted`.
  virtual void reduce(HookEnv env, const SurfaceAccess& access, SuredOp op, SuredType type,
                      bool formatted, llvm::Value* value) = 0;
  // txq / suq: the i32 attribute.
  virtual llvm::Value* query(HookEnv env, llvm::Value* handle, ImageQuery query, bool surface) = 0;
};

// The (stateless) image hooks of a target; the AMDGPU one (image_hooks_amdgpu.cpp).
[[nodiscard]] ImageHooks& image_hooks(TargetKind kind);
[[nodiscard]] ImageHooks& amdgpu_image_hooks();

} // namespace d4r::compiler::translate
