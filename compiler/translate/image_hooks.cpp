#include "compiler/translate/image_hooks.hpp"

// The host implementation of image_hooks.hpp (image_hooks_amdgpu.cpp has the AMDGPU one): every
// access is a call of the runtime (host_abi.hpp) with its data in an entry-block alloca; the
// runtime implements NVIDIA's filtering, byte-x surfaces and clamp modes.

#include "compiler/translate/host_abi.hpp"

#include <llvm/IR/Module.h>

namespace d4r::compiler::translate {

int spatial_dims(ImageGeometry geometry)
{
  switch (geometry) {
  case ImageGeometry::d1:
  case ImageGeometry::a1d:
    return 1;
  case ImageGeometry::d2:
  case ImageGeometry::a2d:
    return 2;
  case ImageGeometry::d3:
  case ImageGeometry::cube:
  case ImageGeometry::acube:
    return 3;
  }
  D4R_UNREACHABLE("every geometry is covered");
}

bool is_layered(ImageGeometry geometry)
{
  return geometry == ImageGeometry::a1d || geometry == ImageGeometry::a2d || geometry == ImageGeometry::acube;
}

namespace {

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

llvm::Value* or_zero(llvm::IRBuilder<>& b, llvm::Value* value)
{
  return value != nullptr ? value : b.getInt32(0);
}

class HostImageHooks final : public ImageHooks {
public:
  // d4r_host_tex_request: {geometry, flags, layer, gather, coords[3], offsets[3]}, all 32-bit.
  std::array<llvm::Value*, 4> texture(HookEnv env, const TextureAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Type* request_type = llvm::ArrayType::get(i32, 10);
    llvm::AllocaInst* request = entry_alloca(b, request_type);
    uint32_t flags = 0;
    if (access.integer_coords) {
      flags |= d4r_tex_integer_coords;
    }
    if (access.result == TextureResult::integer) {
      flags |= d4r_tex_integer_result;
    }
    if (access.result == TextureResult::f16) {
      flags |= d4r_tex_half_result;
    }
    std::array<llvm::Value*, 10> words{};
    words[0] = b.getInt32(static_cast<uint32_t>(access.geometry));
    words[1] = b.getInt32(flags);
    words[2] = or_zero(b, access.layer);
    words[3] = b.getInt32(static_cast<uint32_t>(access.gather));
    for (size_t d = 0; d < 3; ++d) {
      llvm::Value* coordinate = access.coords[d];
      words[4 + d] = coordinate == nullptr                   ? b.getInt32(0)
                     : coordinate->getType()->isFloatTy() ? b.CreateBitCast(coordinate, i32)
                                                          : coordinate;
      words[7 + d] = or_zero(b, access.offsets[d]);
    }
    for (unsigned i = 0; i < 10; ++i) {
      b.CreateStore(words[i], b.CreateConstInBoundsGEP2_32(request_type, request, 0, i));
    }
    llvm::Type* out_type = llvm::ArrayType::get(i32, 4);
    llvm::AllocaInst* out = entry_alloca(b, out_type);
    b.CreateCall(runtime(b, "d4r_rt_tex", b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getPtrTy(), b.getPtrTy()}),
                 {env.thread, access.handle, request, out});
    std::array<llvm::Value*, 4> channels{};
    const unsigned count = access.result == TextureResult::f16 ? 2 : 4;
    for (unsigned i = 0; i < count; ++i) {
      llvm::Value* word = b.CreateLoad(i32, b.CreateConstInBoundsGEP2_32(out_type, out, 0, i));
      channels[i] = access.result == TextureResult::f32 ? b.CreateBitCast(word, b.getFloatTy()) : word;
    }
    return channels;
  }

  void store_b(HookEnv env, const SurfaceAccess& access, llvm::ArrayRef<llvm::Value*> elements) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* element = b.getIntNTy(static_cast<unsigned>(access.element_bits));
    llvm::Type* data_type = llvm::ArrayType::get(element, elements.size());
    llvm::AllocaInst* data = entry_alloca(b, data_type);
    for (unsigned i = 0; i < elements.size(); ++i) {
      b.CreateStore(elements[i], b.CreateConstInBoundsGEP2_32(data_type, data, 0, i));
    }
    call_bytes(b, env, "d4r_rt_sust_b", access, data);
  }

  void store_p(HookEnv env, const SurfaceAccess& access, const std::array<llvm::Value*, 4>& components) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Type* data_type = llvm::ArrayType::get(i32, 4);
    llvm::AllocaInst* data = entry_alloca(b, data_type);
    for (unsigned i = 0; i < 4; ++i) {
      b.CreateStore(components[i], b.CreateConstInBoundsGEP2_32(data_type, data, 0, i));
    }
    b.CreateCall(runtime(b, "d4r_rt_sust_p", b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), i32, i32, i32, b.getPtrTy(), i32}),
                 {env.thread, access.handle, access.x, or_zero(b, access.y), or_zero(b, access.slice), data,
                  b.getInt32(static_cast<uint32_t>(access.clamp))});
  }

  std::vector<llvm::Value*> load_b(HookEnv env, const SurfaceAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* element = b.getIntNTy(static_cast<unsigned>(access.element_bits));
    llvm::Type* data_type = llvm::ArrayType::get(element, static_cast<uint64_t>(access.count));
    llvm::AllocaInst* data = entry_alloca(b, data_type);
    call_bytes(b, env, "d4r_rt_suld_b", access, data);
    std::vector<llvm::Value*> out;
    for (unsigned i = 0; i < static_cast<unsigned>(access.count); ++i) {
      out.push_back(b.CreateLoad(element, b.CreateConstInBoundsGEP2_32(data_type, data, 0, i)));
    }
    return out;
  }

  void reduce(HookEnv env, const SurfaceAccess& access, SuredOp op, SuredType type, bool formatted,
              llvm::Value* value) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    b.CreateCall(runtime(b, "d4r_rt_sured", b.getVoidTy(),
                         {b.getPtrTy(), b.getInt64Ty(), i32, i32, i32, i32, i32, i32, b.getInt64Ty(), i32}),
                 {env.thread, access.handle, b.getInt32(static_cast<uint32_t>(op)),
                  b.getInt32(static_cast<uint32_t>(type)), b.getInt32(formatted ? 1 : 0), access.x,
                  or_zero(b, access.y), or_zero(b, access.slice), b.CreateZExt(value, b.getInt64Ty()),
                  b.getInt32(static_cast<uint32_t>(access.clamp))});
  }

  llvm::Value* query(HookEnv env, llvm::Value* handle, ImageQuery query, bool surface) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    return b.CreateCall(runtime(b, "d4r_rt_image_query", i32, {b.getPtrTy(), b.getInt64Ty(), i32, i32}),
                        {env.thread, handle, b.getInt32(static_cast<uint32_t>(query)), b.getInt32(surface ? 1 : 0)});
  }

private:
  // d4r_rt_suld_b / d4r_rt_sust_b (thread, handle, x, y, slice, data, bytes, mode).
  static void call_bytes(llvm::IRBuilder<>& b, HookEnv env, const char* name, const SurfaceAccess& access,
                         llvm::Value* data)
  {
    llvm::Type* i32 = b.getInt32Ty();
    const auto bytes = static_cast<uint32_t>(access.element_bits / 8 * access.count);
    b.CreateCall(runtime(b, name, b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), i32, i32, i32, b.getPtrTy(), i32, i32}),
                 {env.thread, access.handle, access.x, or_zero(b, access.y), or_zero(b, access.slice), data,
                  b.getInt32(bytes), b.getInt32(static_cast<uint32_t>(access.clamp))});
  }
};

} // namespace

ImageHooks& image_hooks(TargetKind kind)
{
  static HostImageHooks host;
  switch (kind) {
  case TargetKind::host: return host;
  case TargetKind::amdgpu: return amdgpu_image_hooks();
  }
  D4R_UNREACHABLE("every target kind is covered");
}

} // namespace d4r::compiler::translate
