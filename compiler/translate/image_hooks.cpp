#include "compiler/translate/image_hooks.hpp"

// The two implementations of image_hooks.hpp.
//
// Host: every access is a call of the runtime (host_abi.hpp) with its data in an entry-block
// alloca; the runtime implements NVIDIA's filtering, byte-x surfaces and clamp modes.
//
// AMDGPU: the handle is what ZLUDA passes for a CUDA texture or surface object, a HIP object:
// hipTextureObject_t / hipSurfaceObject_t point to device memory holding the image resource
// descriptor (V#, 8 dwords on gfx10+) followed, for textures, by the sampler descriptor (S#,
// 4 dwords) at dword HIP_SAMPLER_OBJECT_OFFSET_DWORD = 12 (HIP_IMAGE_OBJECT_SIZE_DWORD 12,
// HIP_TEXTURE_OBJECT_SIZE_DWORD 20). HIP's texture functions read them exactly so:
//     TEXTURE_PARAMETERS_INIT: unsigned int ADDRESS_SPACE_CONSTANT* i = (...)textureObject;
//                              unsigned int ADDRESS_SPACE_CONSTANT* s = i + HIP_SAMPLER_OBJECT_OFFSET_DWORD;
// (ROCm/HIP include/hip/amd_detail/texture_fetch_functions.h, hip_texture_types.h), and the
// ROCm-Device-Libs ockl image functions (ockl/src/image.cl) load them as `*(__constant uint8*)i`
// and `*(__constant uint4*)s` before __builtin_amdgcn_image_sample_lz_2d_v4f32_f32 and friends; a
// surface object points to the V# alone (__HIP_SURFACE_OBJECT_PARAMETERS_INIT in
// amd_surface_functions.h). ZLUDA's zluda_ptx_impl.cpp calls the same HIP functions for
// tex/suld/sust on .u64 objects. The descriptors are loaded from the constant address space (4).
//
// CUDA addresses a .b surface access in bytes, the image instructions in texels: HIP and ZLUDA
// divide x by the texel size (__hipGetPixelAddr, a shift for power-of-two sizes). We take the
// texel size from the instruction (vector width times element width), as ZLUDA's sust.b
// lowering does, which is the texel size whenever the instruction writes whole texels (every
// sust.b of the corpus: v4.b16 on RGBA16F, v2.b16 on RG16F, b32 on R32). The data of a .b access
// travels in the instruction's own width (d16 for b16, dwords for b32/b64): formatted image
// stores and loads of a format of that width move the bits unchanged. .zero is what the hardware
// does for an out-of-range store (dropped) or load (zeros). .clamp and .trap need the image size:
// image_get_resinfo reads it from the descriptor (no hand-decoded V# bits), then .clamp moves the
// texel coordinates to the nearest texel inside (what NVIDIA does, golden case surface_clamp) and
// .trap branches to llvm.trap (s_trap 2: the queue reports the fault, as the launch fails on
// NVIDIA, golden cases surface_trap_*).

#include "compiler/translate/host_abi.hpp"

#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>

#include <bit>

namespace d4r::compiler::translate {

namespace {

constexpr unsigned k_constant_space = 4;
constexpr uint64_t k_sampler_offset_bytes = 12 * 4; // HIP_SAMPLER_OBJECT_OFFSET_DWORD

// An alloca at the start of the current function's entry block, so loops do not grow the stack.
llvm::AllocaInst* entry_alloca(llvm::IRBuilder<>& b, llvm::Type* type)
{
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  return at.CreateAlloca(type);
}

llvm::FunctionCallee runtime(llvm::IRBuilder<>& b, const char* name, llvm::Type* result,
                             llvm::ArrayRef<llvm::Type*> params)
{
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  return module.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
}

class HostImageHooks final : public ImageHooks {
public:
  std::array<llvm::Value*, 4> texture(HookEnv env, const TextureAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* f32 = b.getFloatTy();
    llvm::Type* element = access.integer ? b.getInt32Ty() : f32;
    llvm::Type* out_type = llvm::ArrayType::get(element, 4);
    llvm::AllocaInst* out = entry_alloca(b, out_type);
    llvm::Type* ptr = b.getPtrTy();
    llvm::Type* i64 = b.getInt64Ty();
    llvm::Type* i32 = b.getInt32Ty();
    if (access.integer) {
      llvm::Value* layer = access.layer != nullptr ? access.layer : b.getInt32(0);
      b.CreateCall(runtime(b, "d4r_rt_tex_int", b.getVoidTy(), {ptr, i64, i32, f32, f32, ptr}),
                   {env.thread, access.handle, layer, access.x, access.y, out});
    } else if (access.layer != nullptr) {
      b.CreateCall(runtime(b, "d4r_rt_tex_a2d_f32", b.getVoidTy(), {ptr, i64, i32, f32, f32, ptr}),
                   {env.thread, access.handle, access.layer, access.x, access.y, out});
    } else {
      b.CreateCall(runtime(b, "d4r_rt_tex_2d_f32", b.getVoidTy(), {ptr, i64, f32, f32, ptr}),
                   {env.thread, access.handle, access.x, access.y, out});
    }
    std::array<llvm::Value*, 4> channels{};
    for (unsigned i = 0; i < 4; ++i) {
      channels[i] = b.CreateLoad(element, b.CreateConstInBoundsGEP2_32(out_type, out, 0, i));
    }
    return channels;
  }

  void store_b(HookEnv env, const SurfaceAccess& access,
               llvm::ArrayRef<llvm::Value*> elements) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* element = b.getIntNTy(static_cast<unsigned>(access.element_bits));
    llvm::Type* data_type = llvm::ArrayType::get(element, elements.size());
    llvm::AllocaInst* data = entry_alloca(b, data_type);
    for (unsigned i = 0; i < elements.size(); ++i) {
      b.CreateStore(elements[i], b.CreateConstInBoundsGEP2_32(data_type, data, 0, i));
    }
    llvm::Type* i32 = b.getInt32Ty();
    uint32_t bytes = static_cast<uint32_t>(access.element_bits / 8 * access.count);
    b.CreateCall(runtime(b, "d4r_rt_sust_b_2d", b.getVoidTy(),
                         {b.getPtrTy(), b.getInt64Ty(), i32, i32, b.getPtrTy(), i32, i32}),
                 {env.thread, access.handle, access.x, access.y, data, b.getInt32(bytes),
                  b.getInt32(static_cast<uint32_t>(access.clamp))});
  }

  void store_p(HookEnv env, const SurfaceAccess& access,
               const std::array<llvm::Value*, 4>& components) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Type* data_type = llvm::ArrayType::get(i32, 4);
    llvm::AllocaInst* data = entry_alloca(b, data_type);
    for (unsigned i = 0; i < 4; ++i) {
      b.CreateStore(components[i], b.CreateConstInBoundsGEP2_32(data_type, data, 0, i));
    }
    b.CreateCall(runtime(b, "d4r_rt_sust_p_2d", b.getVoidTy(),
                         {b.getPtrTy(), b.getInt64Ty(), i32, i32, b.getPtrTy(), i32}),
                 {env.thread, access.handle, access.x, access.y, data,
                  b.getInt32(static_cast<uint32_t>(access.clamp))});
  }

  std::vector<llvm::Value*> load_b(HookEnv env, const SurfaceAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* element = b.getIntNTy(static_cast<unsigned>(access.element_bits));
    llvm::Type* data_type = llvm::ArrayType::get(element, static_cast<uint64_t>(access.count));
    llvm::AllocaInst* data = entry_alloca(b, data_type);
    llvm::Type* i32 = b.getInt32Ty();
    uint32_t bytes = static_cast<uint32_t>(access.element_bits / 8 * access.count);
    b.CreateCall(runtime(b, "d4r_rt_suld_b_2d", b.getVoidTy(),
                         {b.getPtrTy(), b.getInt64Ty(), i32, i32, b.getPtrTy(), i32, i32}),
                 {env.thread, access.handle, access.x, access.y, data, b.getInt32(bytes),
                  b.getInt32(static_cast<uint32_t>(access.clamp))});
    std::vector<llvm::Value*> out;
    for (unsigned i = 0; i < static_cast<unsigned>(access.count); ++i) {
      out.push_back(b.CreateLoad(element, b.CreateConstInBoundsGEP2_32(data_type, data, 0, i)));
    }
    return out;
  }
};

class AmdgpuImageHooks final : public ImageHooks {
public:
  // A layered texture samples image_sample_lz with dim 2D_ARRAY: the slice is a float coordinate
  // the hardware rounds and clamps to the descriptor's layers. NVIDIA reads the layer as unsigned
  // (a negative one is the last layer: golden cases tex_layered_*), so it converts as unsigned; a
  // value too large for an exact float still lands past the last layer. Integer results: the descriptor of a texture read as integers has an integer number
  // format, and the sample returns the integers in the result registers (as HIP's tex2D<uint4>
  // does through the same instruction).
  std::array<llvm::Value*, 4> texture(HookEnv env, const TextureAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* base = b.CreateIntToPtr(access.handle, b.getPtrTy(k_constant_space));
    llvm::Value* rsrc = descriptor(b, base, 8);
    llvm::Value* sampler =
        descriptor(b, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, k_sampler_offset_bytes), 4);
    llvm::Type* v4f32 = llvm::FixedVectorType::get(b.getFloatTy(), 4);
    llvm::Value* texel = nullptr;
    if (access.layer != nullptr) {
      llvm::Value* slice = b.CreateUIToFP(access.layer, b.getFloatTy());
      texel = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_image_sample_lz_2darray,
                                {v4f32, b.getFloatTy()},
                                {b.getInt32(0xf), access.x, access.y, slice, rsrc, sampler,
                                 b.getFalse(), b.getInt32(0), b.getInt32(0)});
    } else {
      texel = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_image_sample_lz_2d, {v4f32, b.getFloatTy()},
                                {b.getInt32(0xf), access.x, access.y, rsrc, sampler, b.getFalse(),
                                 b.getInt32(0), b.getInt32(0)});
    }
    std::array<llvm::Value*, 4> channels{};
    for (unsigned i = 0; i < 4; ++i) {
      channels[i] = b.CreateExtractElement(texel, static_cast<uint64_t>(i));
      if (access.integer) {
        channels[i] = b.CreateBitCast(channels[i], b.getInt32Ty());
      }
    }
    return channels;
  }

  void store_b(HookEnv env, const SurfaceAccess& access,
               llvm::ArrayRef<llvm::Value*> elements) override
  {
    llvm::IRBuilder<>& b = env.builder;
    std::vector<llvm::Value*> lanes = to_lanes(b, access.element_bits, elements);
    store(b, access, element_x(b, access), lanes, access.element_bits == 16);
  }

  void store_p(HookEnv env, const SurfaceAccess& access,
               const std::array<llvm::Value*, 4>& components) override
  {
    llvm::IRBuilder<>& b = env.builder;
    std::vector<llvm::Value*> lanes;
    for (llvm::Value* component : components) {
      lanes.push_back(b.CreateBitCast(component, b.getFloatTy()));
    }
    store(b, access, access.x, lanes, false);
  }

  std::vector<llvm::Value*> load_b(HookEnv env, const SurfaceAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    bool d16 = access.element_bits == 16;
    int lanes = access.element_bits == 64 ? access.count * 2 : access.count;
    llvm::Type* lane = d16 ? b.getHalfTy() : b.getFloatTy();
    llvm::Type* type = lanes == 1 ? lane : llvm::FixedVectorType::get(lane, static_cast<unsigned>(lanes));
    llvm::Value* rsrc = resource(b, access);
    const Texel texel = bounded(b, access, rsrc, element_x(b, access));
    llvm::Value* loaded = b.CreateIntrinsic(
        llvm::Intrinsic::amdgcn_image_load_2d, {type, b.getInt32Ty()},
        {b.getInt32((1u << lanes) - 1), texel.x, texel.y, rsrc, b.getInt32(0), b.getInt32(0)});
    std::vector<llvm::Value*> values;
    for (int i = 0; i < lanes; ++i) {
      llvm::Value* value = lanes == 1 ? loaded : b.CreateExtractElement(loaded, static_cast<uint64_t>(i));
      values.push_back(b.CreateBitCast(value, d16 ? b.getInt16Ty() : b.getInt32Ty()));
    }
    return from_lanes(b, access, values);
  }

private:
  struct Texel {
    llvm::Value* x;
    llvm::Value* y;
  };

  // The descriptor of `dwords` dwords at `pointer` (constant memory, never written by a kernel).
  static llvm::Value* descriptor(llvm::IRBuilder<>& b, llvm::Value* pointer, unsigned dwords)
  {
    llvm::Type* type = llvm::FixedVectorType::get(b.getInt32Ty(), dwords);
    llvm::LoadInst* load = b.CreateAlignedLoad(type, pointer, llvm::Align(16));
    load->setMetadata(llvm::LLVMContext::MD_invariant_load,
                      llvm::MDNode::get(b.getContext(), {}));
    return load;
  }

  // The image resource descriptor of a surface access.
  static llvm::Value* resource(llvm::IRBuilder<>& b, const SurfaceAccess& access)
  {
    return descriptor(b, b.CreateIntToPtr(access.handle, b.getPtrTy(k_constant_space)), 8);
  }

  // The texel an access reaches at texel column `x`, row access.y, by its out-of-range mode: .zero
  // leaves the coordinates to the hardware (an access outside is dropped, a load reads zeros);
  // .clamp and .trap compare them with the image's mip-0 width and height.
  static Texel bounded(llvm::IRBuilder<>& b, const SurfaceAccess& access, llvm::Value* rsrc,
                       llvm::Value* x)
  {
    if (access.clamp == ImageClamp::zero) {
      return {x, access.y};
    }
    llvm::Type* v2f32 = llvm::FixedVectorType::get(b.getFloatTy(), 2);
    llvm::Value* size = b.CreateIntrinsic(
        llvm::Intrinsic::amdgcn_image_getresinfo_2d, {v2f32, b.getInt32Ty()},
        {b.getInt32(0x3), b.getInt32(0), rsrc, b.getInt32(0), b.getInt32(0)});
    // The result lanes are integers in float registers.
    llvm::Value* width = b.CreateBitCast(b.CreateExtractElement(size, uint64_t{0}), b.getInt32Ty());
    llvm::Value* height = b.CreateBitCast(b.CreateExtractElement(size, uint64_t{1}), b.getInt32Ty());
    if (access.clamp == ImageClamp::clamp) {
      return {clamp_index(b, x, width), clamp_index(b, access.y, height)};
    }
    // Unsigned compares: a negative coordinate is outside too. Lanes that branch to the trap
    // while others go on are handled by the backend like any divergent exit (the trap block runs
    // under their exec mask); the s_trap fails the dispatch as one thread's trap fails the launch
    // on NVIDIA.
    llvm::Value* inside = b.CreateAnd(b.CreateICmpULT(x, width), b.CreateICmpULT(access.y, height));
    llvm::Function* function = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* fault = llvm::BasicBlock::Create(b.getContext(), "surface.trap", function);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "surface.inside", function);
    b.CreateCondBr(inside, next, fault);
    b.SetInsertPoint(fault);
    b.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
    b.CreateUnreachable();
    b.SetInsertPoint(next);
    return {x, access.y};
  }

  // `index` moved into [0, size - 1] (signed: a negative index goes to 0).
  static llvm::Value* clamp_index(llvm::IRBuilder<>& b, llvm::Value* index, llvm::Value* size)
  {
    llvm::Value* last = b.CreateSub(size, b.getInt32(1));
    llvm::Value* low = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, index, b.getInt32(0));
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, low, last);
  }

  // The texel index of a byte-addressed access: x / (texel bytes), an arithmetic shift, so a
  // negative x stays out of range.
  static llvm::Value* element_x(llvm::IRBuilder<>& b, const SurfaceAccess& access)
  {
    int texel_bytes = access.element_bits / 8 * access.count;
    int shift = std::countr_zero(static_cast<unsigned>(texel_bytes));
    return shift == 0 ? access.x : b.CreateAShr(access.x, static_cast<uint64_t>(shift));
  }

  // Instruction elements -> the store's data lanes: half for b16 (d16), float (dword bits)
  // otherwise; b64 is two dwords, low first; b8 is zero-extended to a dword.
  static std::vector<llvm::Value*> to_lanes(llvm::IRBuilder<>& b, int bits,
                                            llvm::ArrayRef<llvm::Value*> elements)
  {
    std::vector<llvm::Value*> lanes;
    for (llvm::Value* element : elements) {
      if (bits == 16) {
        lanes.push_back(b.CreateBitCast(element, b.getHalfTy()));
      } else if (bits == 64) {
        lanes.push_back(b.CreateBitCast(b.CreateTrunc(element, b.getInt32Ty()), b.getFloatTy()));
        llvm::Value* high = b.CreateTrunc(b.CreateLShr(element, 32), b.getInt32Ty());
        lanes.push_back(b.CreateBitCast(high, b.getFloatTy()));
      } else {
        lanes.push_back(b.CreateBitCast(b.CreateZExt(element, b.getInt32Ty()), b.getFloatTy()));
      }
    }
    return lanes;
  }

  // Loaded lanes (i16 for d16, i32 otherwise) -> the instruction's elements.
  static std::vector<llvm::Value*> from_lanes(llvm::IRBuilder<>& b, const SurfaceAccess& access,
                                              const std::vector<llvm::Value*>& lanes)
  {
    std::vector<llvm::Value*> out;
    for (int i = 0; i < access.count; ++i) {
      if (access.element_bits == 64) {
        llvm::Value* low = b.CreateZExt(lanes[static_cast<size_t>(2 * i)], b.getInt64Ty());
        llvm::Value* high = b.CreateZExt(lanes[static_cast<size_t>(2 * i + 1)], b.getInt64Ty());
        out.push_back(b.CreateOr(low, b.CreateShl(high, 32)));
      } else {
        out.push_back(b.CreateTrunc(lanes[static_cast<size_t>(i)],
                                    b.getIntNTy(static_cast<unsigned>(access.element_bits))));
      }
    }
    return out;
  }

  static void store(llvm::IRBuilder<>& b, const SurfaceAccess& access, llvm::Value* x,
                    const std::vector<llvm::Value*>& lanes, bool d16)
  {
    llvm::Type* lane = d16 ? b.getHalfTy() : b.getFloatTy();
    size_t count = lanes.size();
    llvm::Value* data = lanes.front();
    if (count > 1) {
      llvm::Type* type = llvm::FixedVectorType::get(lane, static_cast<unsigned>(count));
      data = llvm::PoisonValue::get(type);
      for (size_t i = 0; i < count; ++i) {
        data = b.CreateInsertElement(data, lanes[i], static_cast<uint64_t>(i));
      }
    }
    llvm::Value* rsrc = resource(b, access);
    const Texel texel = bounded(b, access, rsrc, x);
    b.CreateIntrinsic(llvm::Intrinsic::amdgcn_image_store_2d, {data->getType(), b.getInt32Ty()},
                      {data, b.getInt32((1u << count) - 1), texel.x, texel.y, rsrc, b.getInt32(0),
                       b.getInt32(0)});
  }
};

} // namespace

ImageHooks& image_hooks(TargetKind kind)
{
  static HostImageHooks host;
  static AmdgpuImageHooks amdgpu;
  switch (kind) {
  case TargetKind::host: return host;
  case TargetKind::amdgpu: return amdgpu;
  }
  D4R_UNREACHABLE("every target kind is covered");
}

} // namespace d4r::compiler::translate
