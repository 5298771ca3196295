#pragma once
// Image access, the part of stage 4 that differs between the two targets (lower_image.cpp is the
// target-neutral part): a 2D texture fetch through a .u64 texture object, and 2D surface loads and
// stores through a .u64 surface object.
//
// Host (image_hooks.cpp, HostImageHooks): the handle is the address of a d4r_host_image and every
// access calls the SIMT runtime's d4r_rt_tex_2d_f32 / d4r_rt_tex_a2d_f32 / d4r_rt_tex_int /
// d4r_rt_sust_b_2d / d4r_rt_sust_p_2d / d4r_rt_suld_b_2d (host_abi.hpp), which implement NVIDIA's
// filtering and clamp modes.
// AMDGPU (AmdgpuImageHooks): the handle is a HIP texture or surface object as ZLUDA creates them
// (a pointer to the image resource descriptor, then the sampler descriptor at dword 12), and the
// accesses are llvm.amdgcn.image.sample.lz.2d / .2darray / image.load.2d / image.store.2d.

#include "compiler/translate/target_hooks.hpp"

#include <llvm/IR/IRBuilder.h>

#include <array>
#include <cstdint>
#include <vector>

namespace d4r::compiler::translate {

// The out-of-range behaviour of suld/sust (PTX: .trap is the default), numbered as host_abi.hpp's
// `mode` argument.
enum class ImageClamp : uint32_t { zero = 0, clamp = 1, trap = 2 };

// One surface access: `count` elements of `element_bits` bits at (x, y) of the i64 `handle`. x is
// a byte offset for the .b forms and an element index for .p.
struct SurfaceAccess {
  llvm::Value* handle = nullptr; // i64
  llvm::Value* x = nullptr;      // i32
  llvm::Value* y = nullptr;      // i32
  int element_bits = 32;         // 8, 16, 32 or 64
  int count = 1;                 // 1, 2 or 4
  ImageClamp clamp = ImageClamp::trap;
};

// One texture fetch: tex.2d or tex.a2d (a layer index), with float or integer results.
struct TextureAccess {
  llvm::Value* handle = nullptr; // i64
  llvm::Value* layer = nullptr;  // i32, tex.a2d only (null for tex.2d)
  llvm::Value* x = nullptr;      // f32
  llvm::Value* y = nullptr;      // f32
  bool integer = false;          // .u32/.s32 results: the texel's integers (i32), else f32
};

class ImageHooks {
public:
  virtual ~ImageHooks() = default;

  // tex.{2d,a2d}.v4.{f32,u32,s32}.f32: the four channels (f32, or i32 for integer results) at
  // float coordinates (x, y).
  virtual std::array<llvm::Value*, 4> texture(HookEnv env, const TextureAccess& access) = 0;
  // sust.b.2d: `elements` are integers of access.element_bits bits, in memory order.
  virtual void store_b(HookEnv env, const SurfaceAccess& access,
                       llvm::ArrayRef<llvm::Value*> elements) = 0;
  // sust.p.2d.v4.b32: four 32-bit components (i32 bits) converted to the surface's format.
  virtual void store_p(HookEnv env, const SurfaceAccess& access,
                       const std::array<llvm::Value*, 4>& components) = 0;
  // suld.b.2d: access.count integers of access.element_bits bits.
  virtual std::vector<llvm::Value*> load_b(HookEnv env, const SurfaceAccess& access) = 0;
};

// The (stateless) image hooks of a target.
[[nodiscard]] ImageHooks& image_hooks(TargetKind kind);

} // namespace d4r::compiler::translate
