#include "compiler/translate/image_hooks.hpp"

// The AMDGPU implementation of image_hooks.hpp (image_hooks.cpp has the host one).
// the handle is what ZLUDA passes for a CUDA texture or surface object, a HIP object:
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
//
// Beyond 2D: every geometry maps to its image dimension (1d, 2d, 3d, 1darray, 2darray, cube) with
// the layer as a float coordinate the hardware rounds (unsigned, as NVIDIA reads it). A cube
// direction becomes the face coordinates and face index with v_cubesc/tc/ma/id as Mesa's
// ac_prepare_cube_coords does (sc / |ma| + 1.5, face + 8 * layer for cube arrays). .level and
// .grad are sample.l / sample.d (a texture without mip levels samples level 0 either way; a cube
// map's gradients are projected onto the face: cube_gradients),
// offsets the .o variants (6 bits a component), tld4 is gather4 with the channel's dmask, f16
// results are d16 samples. Integer coordinates are image.load at the texel (plus offsets), which
// reads 0 outside as the H200 does (img_tex_int_coords*); a tex.1d with .s32 coordinates is
// tex1Dfetch, which HIP reads from a buffer texture's descriptor with buffer_load_format
// (__ockl_image_load_1Db), and so do we (on a 1D array the H200 reads 0; here it is undefined). sured is image.atomic; txq/suq
// read image.getresinfo, the descriptor's TYPE (dword 3, bits 28-31) and the sampler's clamp,
// filter and unnormalised bits (S# dword 0 bits 0-8 and 15, dword 2 bits 20-21).

#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>

#include <array>
#include <bit>
#include <string>
#include <utility>

namespace d4r::compiler::translate {

namespace {

constexpr unsigned k_constant_space = 4;
constexpr uint64_t k_sampler_offset_bytes = 12 * 4; // HIP_SAMPLER_OBJECT_OFFSET_DWORD

// txq's encodings, as the host runtime returns them (host_surfaces.cpp): address modes 0 clamp,
// 1 wrap, 2 mirror, 3 border, indexed by the S# clamp field (0 wrap, 1 mirror, 2 clamp to last
// texel, 3 mirror once, 4-7 the border modes), 4 bits an entry. Not yet checked against the H200
// (img_txq_* pending).
constexpr uint32_t k_nv_address_by_clamp = 0x3333'2021u;
constexpr uint32_t k_nv_num_samples = 1;
constexpr uint32_t k_nv_memory_layout = 0;

const char* dim_name(ImageGeometry geometry)
{
  switch (geometry) {
  case ImageGeometry::d1: return "1d";
  case ImageGeometry::d2: return "2d";
  case ImageGeometry::d3: return "3d";
  case ImageGeometry::a1d: return "1darray";
  case ImageGeometry::a2d: return "2darray";
  case ImageGeometry::cube:
  case ImageGeometry::acube: return "cube";
  }
  D4R_UNREACHABLE("every geometry is covered");
}

llvm::Value* call_intrinsic(llvm::IRBuilder<>& b, const std::string& name, llvm::ArrayRef<llvm::Type*> overloads,
                            llvm::ArrayRef<llvm::Value*> args)
{
  const llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(name);
  assert(id != llvm::Intrinsic::not_intrinsic && "an AMDGPU image intrinsic LLVM knows");
  llvm::Function* callee = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id, overloads);
  return b.CreateCall(callee, args);
}

// The descriptor of `dwords` dwords at `pointer` (constant memory, never written by a kernel).
llvm::Value* descriptor(llvm::IRBuilder<>& b, llvm::Value* pointer, unsigned dwords)
{
  llvm::Type* type = llvm::FixedVectorType::get(b.getInt32Ty(), dwords);
  llvm::LoadInst* load = b.CreateAlignedLoad(type, pointer, llvm::Align(16));
  load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(b.getContext(), {}));
  return load;
}

llvm::Value* resource(llvm::IRBuilder<>& b, llvm::Value* handle)
{
  return descriptor(b, b.CreateIntToPtr(handle, b.getPtrTy(k_constant_space)), 8);
}

llvm::Value* sampler_of(llvm::IRBuilder<>& b, llvm::Value* handle)
{
  llvm::Value* base = b.CreateIntToPtr(handle, b.getPtrTy(k_constant_space));
  return descriptor(b, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, k_sampler_offset_bytes), 4);
}

// A texel offset as NVIDIA reads it: a 4-bit signed field, -8..7, larger ones wrap (golden
// img_tex_offset_*): ((o + 8) & 15) - 8.
llvm::Value* wrapped_offset(llvm::IRBuilder<>& b, llvm::Value* offset)
{
  return b.CreateSub(b.CreateAnd(b.CreateAdd(offset, b.getInt32(8)), b.getInt32(15)), b.getInt32(8));
}

// Texel offsets packed as the .o variants take them: 6 bits a component, x in bits 0-5.
llvm::Value* packed_offsets(llvm::IRBuilder<>& b, const TextureAccess& access)
{
  llvm::Value* packed = b.getInt32(0);
  for (unsigned d = 0; d < 3; ++d) {
    if (access.offsets[d] == nullptr) {
      continue;
    }
    llvm::Value* field = b.CreateShl(b.CreateAnd(wrapped_offset(b, access.offsets[d]), b.getInt32(0x3f)), 8 * d);
    packed = b.CreateOr(packed, field);
  }
  return packed;
}

// The float coordinates of a sample: spatial ones, then the layer (or the cube face).
std::vector<llvm::Value*> sample_coordinates(llvm::IRBuilder<>& b, const TextureAccess& access)
{
  std::vector<llvm::Value*> coords;
  if (access.geometry == ImageGeometry::cube || access.geometry == ImageGeometry::acube) {
    llvm::Value* x = access.coords[0];
    llvm::Value* y = access.coords[1];
    llvm::Value* z = access.coords[2];
    llvm::Value* sc = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubesc, {}, {x, y, z});
    llvm::Value* tc = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubetc, {}, {x, y, z});
    llvm::Value* ma = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubema, {}, {x, y, z});
    llvm::Value* face = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubeid, {}, {x, y, z});
    llvm::Value* inverse = b.CreateFDiv(llvm::ConstantFP::get(b.getFloatTy(), 1.0),
                                        b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, ma));
    llvm::Value* half3 = llvm::ConstantFP::get(b.getFloatTy(), 1.5);
    coords.push_back(b.CreateFAdd(b.CreateFMul(sc, inverse), half3));
    coords.push_back(b.CreateFAdd(b.CreateFMul(tc, inverse), half3));
    if (access.layer != nullptr) {
      llvm::Value* layer = b.CreateUIToFP(access.layer, b.getFloatTy());
      face = b.CreateFAdd(face, b.CreateFMul(layer, llvm::ConstantFP::get(b.getFloatTy(), 8.0)));
    }
    coords.push_back(face);
    return coords;
  }
  for (int d = 0; d < spatial_dims(access.geometry); ++d) {
    coords.push_back(access.coords[static_cast<size_t>(d)]);
  }
  if (access.layer != nullptr) {
    coords.push_back(b.CreateUIToFP(access.layer, b.getFloatTy()));
  }
  return coords;
}

// tex.grad on a cube map: sample.d.cube takes the derivatives of the face coordinates, so each
// direction gradient g is projected as Mesa's ac_prepare_cube_coords does: on the face of the
// direction (v_cubeid), with sc, tc and the major axis M as CUDA's cube table picks them, the face
// coordinate is s = sc / (2|M|) + 1.5, so ds = (dsc - sc / |M| * d|M|) / (2|M|) with dsc, dtc and
// d|M| the components of g the face picks (with their signs). Returns dsdx, dtdx, dsdy, dtdy.
std::array<llvm::Value*, 4> cube_gradients(llvm::IRBuilder<>& b, const TextureAccess& access)
{
  llvm::Value* x = access.coords[0];
  llvm::Value* y = access.coords[1];
  llvm::Value* z = access.coords[2];
  llvm::Value* sc = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubesc, {}, {x, y, z});
  llvm::Value* tc = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubetc, {}, {x, y, z});
  llvm::Value* ma = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubema, {}, {x, y, z}); // 2M
  llvm::Value* face = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_cubeid, {}, {x, y, z});
  llvm::Value* inverse = b.CreateFDiv(llvm::ConstantFP::get(b.getFloatTy(), 1.0),
                                      b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, ma)); // 1/(2|M|)
  // Per face +x, -x, +y, -y, +z, -z: which component of g (0 x, 1 y, 2 z) and its sign.
  struct Pick {
    int axis;
    float sign;
  };
  static constexpr Pick k_sc[6] = {{2, -1}, {2, 1}, {0, 1}, {0, 1}, {0, 1}, {0, -1}};
  static constexpr Pick k_tc[6] = {{1, -1}, {1, -1}, {2, 1}, {2, -1}, {1, -1}, {1, -1}};
  static constexpr Pick k_ma[6] = {{0, 1}, {0, -1}, {1, 1}, {1, -1}, {2, 1}, {2, -1}};
  auto pick = [&](const std::array<llvm::Value*, 3>& g, const Pick (&table)[6]) {
    llvm::Value* out = b.CreateFMul(g[static_cast<size_t>(table[5].axis)],
                                    llvm::ConstantFP::get(b.getFloatTy(), table[5].sign));
    for (int f = 4; f >= 0; --f) {
      llvm::Value* here = b.CreateFMul(g[static_cast<size_t>(table[f].axis)],
                                       llvm::ConstantFP::get(b.getFloatTy(), table[f].sign));
      llvm::Value* is_face = b.CreateFCmpOEQ(face, llvm::ConstantFP::get(b.getFloatTy(), static_cast<double>(f)));
      out = b.CreateSelect(is_face, here, out);
    }
    return out;
  };
  llvm::Value* two = llvm::ConstantFP::get(b.getFloatTy(), 2.0);
  std::array<llvm::Value*, 4> out{};
  size_t next = 0;
  for (const auto* gradient : {&access.grad_x, &access.grad_y}) {
    llvm::Value* dma = pick(*gradient, k_ma);
    for (auto [coordinate, table] : {std::pair{sc, &k_sc}, std::pair{tc, &k_tc}}) {
      llvm::Value* ratio = b.CreateFMul(b.CreateFMul(coordinate, inverse), two); // sc / |M|
      llvm::Value* d = b.CreateFSub(pick(*gradient, *table), b.CreateFMul(ratio, dma));
      out[next++] = b.CreateFMul(d, inverse);
    }
  }
  return out;
}

bool has_offsets(const TextureAccess& access)
{
  return access.offsets[0] != nullptr || access.offsets[1] != nullptr || access.offsets[2] != nullptr;
}

// The 128-bit texel a tex or tld4 returns: <4 x float>, or <4 x half> for f16 results.
llvm::Value* sample(llvm::IRBuilder<>& b, const TextureAccess& access, llvm::Type* texel_type)
{
  llvm::Value* rsrc = resource(b, access.handle);
  llvm::Value* sampler = sampler_of(b, access.handle);
  const bool gather = access.gather >= 0;
  const bool grad = access.grad_x[0] != nullptr;
  const bool offsets = has_offsets(access);
  std::string name = std::string("llvm.amdgcn.image.") + (gather ? "gather4" : "sample") +
                     (grad ? ".d" : access.lod != nullptr ? ".l" : ".lz") + (offsets ? ".o" : "") + "." +
                     dim_name(access.geometry);
  std::vector<llvm::Value*> args = {b.getInt32(gather ? 1u << access.gather : 0xfu)};
  if (offsets) {
    args.push_back(packed_offsets(b, access));
  }
  const bool cube = access.geometry == ImageGeometry::cube || access.geometry == ImageGeometry::acube;
  if (grad && cube) {
    for (llvm::Value* derivative : cube_gradients(b, access)) {
      args.push_back(derivative);
    }
  } else if (grad) {
    const int dims = spatial_dims(access.geometry);
    for (const auto* gradient : {&access.grad_x, &access.grad_y}) {
      for (int d = 0; d < dims; ++d) {
        args.push_back((*gradient)[static_cast<size_t>(d)]);
      }
    }
  }
  for (llvm::Value* coordinate : sample_coordinates(b, access)) {
    args.push_back(coordinate);
  }
  if (!grad && access.lod != nullptr) {
    args.push_back(access.lod);
  }
  for (llvm::Value* tail : {rsrc, sampler}) {
    args.push_back(tail);
  }
  args.push_back(b.getFalse());
  args.push_back(b.getInt32(0));
  args.push_back(b.getInt32(0));
  std::vector<llvm::Type*> overloads = {texel_type, b.getFloatTy()};
  if (grad) {
    overloads.push_back(b.getFloatTy());
  }
  return call_intrinsic(b, name, overloads, args);
}

// tex with .s32 coordinates: the texel itself (image.load, or buffer_load_format for tex.1d).
llvm::Value* load_texel(llvm::IRBuilder<>& b, const TextureAccess& access, llvm::Type* texel_type)
{
  llvm::Value* rsrc = resource(b, access.handle);
  std::vector<llvm::Value*> coords;
  for (int d = 0; d < spatial_dims(access.geometry); ++d) {
    llvm::Value* coordinate = access.coords[static_cast<size_t>(d)];
    llvm::Value* offset = access.offsets[static_cast<size_t>(d)];
    coords.push_back(offset != nullptr ? b.CreateAdd(coordinate, wrapped_offset(b, offset)) : coordinate);
  }
  if (access.geometry == ImageGeometry::d1) {
    llvm::Value* buffer = b.CreateShuffleVector(rsrc, {0, 1, 2, 3});
    return call_intrinsic(b, "llvm.amdgcn.struct.buffer.load.format", {texel_type},
                          {buffer, coords[0], b.getInt32(0), b.getInt32(0), b.getInt32(0)});
  }
  if (access.layer != nullptr) {
    coords.push_back(access.layer);
  }
  std::vector<llvm::Value*> args = {b.getInt32(0xf)};
  args.insert(args.end(), coords.begin(), coords.end());
  args.push_back(rsrc);
  args.push_back(b.getInt32(0));
  args.push_back(b.getInt32(0));
  return call_intrinsic(b, std::string("llvm.amdgcn.image.load.") + dim_name(access.geometry),
                        {texel_type, b.getInt32Ty()}, args);
}

class AmdgpuImageHooks final : public ImageHooks {
public:
  // Integer results: the descriptor of a texture read as integers has an integer number format,
  // and the sample returns the integers in the result registers (as HIP's tex2D<uint4> does
  // through the same instruction).
  std::array<llvm::Value*, 4> texture(HookEnv env, const TextureAccess& access) override
  {
    llvm::IRBuilder<>& b = env.builder;
    const bool half = access.result == TextureResult::f16;
    llvm::Type* texel_type = llvm::FixedVectorType::get(half ? b.getHalfTy() : b.getFloatTy(), 4);
    llvm::Value* texel = access.integer_coords ? load_texel(b, access, texel_type) : sample(b, access, texel_type);
    std::array<llvm::Value*, 4> channels{};
    if (half) {
      llvm::Value* words = b.CreateBitCast(texel, llvm::FixedVectorType::get(b.getInt32Ty(), 2));
      channels[0] = b.CreateExtractElement(words, uint64_t{0});
      channels[1] = b.CreateExtractElement(words, uint64_t{1});
      return channels;
    }
    for (unsigned i = 0; i < 4; ++i) {
      channels[i] = b.CreateExtractElement(texel, static_cast<uint64_t>(i));
      if (access.result == TextureResult::integer) {
        channels[i] = b.CreateBitCast(channels[i], b.getInt32Ty());
      }
    }
    return channels;
  }

  void store_b(HookEnv env, const SurfaceAccess& access, llvm::ArrayRef<llvm::Value*> elements) override
  {
    llvm::IRBuilder<>& b = env.builder;
    std::vector<llvm::Value*> lanes = to_lanes(b, access.element_bits, elements);
    store(b, access, element_x(b, access.x, texel_bytes(access)), lanes, access.element_bits == 16);
  }

  void store_p(HookEnv env, const SurfaceAccess& access, const std::array<llvm::Value*, 4>& components) override
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
    llvm::Value* rsrc = resource(b, access.handle);
    const std::vector<llvm::Value*> coords = bounded(b, access, rsrc, element_x(b, access.x, texel_bytes(access)));
    std::vector<llvm::Value*> args = {b.getInt32((1u << lanes) - 1)};
    args.insert(args.end(), coords.begin(), coords.end());
    args.push_back(rsrc);
    args.push_back(b.getInt32(0));
    args.push_back(b.getInt32(0));
    llvm::Value* loaded = call_intrinsic(b, std::string("llvm.amdgcn.image.load.") + dim_name(access.geometry),
                                         {type, b.getInt32Ty()}, args);
    std::vector<llvm::Value*> values;
    for (int i = 0; i < lanes; ++i) {
      llvm::Value* value = lanes == 1 ? loaded : b.CreateExtractElement(loaded, static_cast<uint64_t>(i));
      values.push_back(b.CreateBitCast(value, d16 ? b.getInt16Ty() : b.getInt32Ty()));
    }
    return from_lanes(b, access, values);
  }

  // image.atomic.<op> on the texel; x in bytes for .b (the texel is the operand's width), in
  // texels for .p.
  void reduce(HookEnv env, const SurfaceAccess& access, SuredOp op, SuredType type, bool formatted,
              llvm::Value* value) override
  {
    llvm::IRBuilder<>& b = env.builder;
    const bool is_signed = type == SuredType::s32 || type == SuredType::s64;
    const bool wide = type == SuredType::u64 || type == SuredType::s64;
    const char* name = nullptr;
    switch (op) {
    case SuredOp::add: name = "add"; break;
    case SuredOp::min: name = is_signed ? "smin" : "umin"; break;
    case SuredOp::max: name = is_signed ? "smax" : "umax"; break;
    case SuredOp::bit_and: name = "and"; break;
    case SuredOp::bit_or: name = "or"; break;
    }
    llvm::Value* rsrc = resource(b, access.handle);
    llvm::Value* x = formatted ? access.x : element_x(b, access.x, wide ? 8 : 4);
    const std::vector<llvm::Value*> coords = bounded(b, access, rsrc, x);
    std::vector<llvm::Value*> args = {value};
    args.insert(args.end(), coords.begin(), coords.end());
    args.push_back(rsrc);
    args.push_back(b.getInt32(0));
    args.push_back(b.getInt32(0));
    call_intrinsic(b, std::string("llvm.amdgcn.image.atomic.") + name + "." + dim_name(access.geometry),
                   {value->getType(), b.getInt32Ty()}, args);
  }

  llvm::Value* query(HookEnv env, llvm::Value* handle, ImageQuery query, bool surface) override
  {
    llvm::IRBuilder<>& b = env.builder;
    switch (query) {
    case ImageQuery::width:
    case ImageQuery::height:
    case ImageQuery::depth:
    case ImageQuery::array_size:
    case ImageQuery::num_mipmap_levels:
      return size_query(b, handle, query);
    case ImageQuery::normalized_coords:
    case ImageQuery::filter_mode:
    case ImageQuery::addr_mode_0:
    case ImageQuery::addr_mode_1:
    case ImageQuery::addr_mode_2:
      return sampler_query(b, handle, query, surface);
    case ImageQuery::num_samples:
      return b.getInt32(k_nv_num_samples);
    case ImageQuery::memory_layout:
      return b.getInt32(k_nv_memory_layout);
    case ImageQuery::channel_data_type:
    case ImageQuery::channel_order:
      break;
    }
    D4R_UNREACHABLE("lower_image.cpp rejects the channel queries");
  }

private:
  static int texel_bytes(const SurfaceAccess& access) { return access.element_bits / 8 * access.count; }

  // width, height, depth, array size and levels from image.getresinfo (x, y, z, w); z is a 3D
  // image's depth or an array's layers, told apart by the descriptor's TYPE (10 3D, 12 1D array,
  // 13 2D array, 15 MSAA array).
  static llvm::Value* size_query(llvm::IRBuilder<>& b, llvm::Value* handle, ImageQuery query)
  {
    llvm::Value* rsrc = resource(b, handle);
    llvm::Type* v4f32 = llvm::FixedVectorType::get(b.getFloatTy(), 4);
    llvm::Value* info = call_intrinsic(b, "llvm.amdgcn.image.getresinfo.2d", {v4f32, b.getInt32Ty()},
                                       {b.getInt32(0xf), b.getInt32(0), rsrc, b.getInt32(0), b.getInt32(0)});
    auto lane = [&](uint64_t i) { return b.CreateBitCast(b.CreateExtractElement(info, i), b.getInt32Ty()); };
    llvm::Value* type = b.CreateLShr(b.CreateExtractElement(rsrc, uint64_t{3}), 28);
    // As the H200 answers (img_txq_*, img_suq_*): .height 0 for 1D images (TYPE 8, 12), .depth a
    // 3D image's depth or an array's layers, 0 otherwise.
    llvm::Value* one_d = b.CreateOr(b.CreateICmpEQ(type, b.getInt32(8)), b.CreateICmpEQ(type, b.getInt32(12)));
    llvm::Value* array = b.CreateOr(b.CreateICmpEQ(type, b.getInt32(12)),
                                    b.CreateOr(b.CreateICmpEQ(type, b.getInt32(13)), b.CreateICmpEQ(type, b.getInt32(15))));
    switch (query) {
    case ImageQuery::width: return lane(0);
    case ImageQuery::height: return b.CreateSelect(one_d, b.getInt32(0), lane(1));
    case ImageQuery::num_mipmap_levels: return lane(3);
    case ImageQuery::depth:
      return b.CreateSelect(b.CreateOr(b.CreateICmpEQ(type, b.getInt32(10)), array), lane(2), b.getInt32(0));
    default: {
      return b.CreateSelect(array, lane(2), b.getInt32(0));
    }
    }
  }

  static llvm::Value* sampler_query(llvm::IRBuilder<>& b, llvm::Value* handle, ImageQuery query, bool surface)
  {
    if (surface) {
      return b.getInt32(0);
    }
    llvm::Value* sampler = sampler_of(b, handle);
    llvm::Value* word0 = b.CreateExtractElement(sampler, uint64_t{0});
    if (query == ImageQuery::normalized_coords) {
      return b.CreateXor(b.CreateAnd(b.CreateLShr(word0, 15), 1), 1);
    }
    if (query == ImageQuery::filter_mode) {
      llvm::Value* word2 = b.CreateExtractElement(sampler, uint64_t{2});
      return b.CreateAnd(b.CreateLShr(word2, 20), 1);
    }
    const uint32_t axis = static_cast<uint32_t>(query) - static_cast<uint32_t>(ImageQuery::addr_mode_0);
    llvm::Value* clamp = b.CreateAnd(b.CreateLShr(word0, 3 * axis), 7);
    return b.CreateAnd(b.CreateLShr(b.getInt32(k_nv_address_by_clamp), b.CreateShl(clamp, 2)), 0xf);
  }

  // The coordinates an access reaches (texel column x, then row and slice as the geometry has
  // them) by its out-of-range mode: .zero leaves them to the hardware (an access outside is
  // dropped, a load reads zeros); .clamp and .trap compare them with the image's size.
  static std::vector<llvm::Value*> bounded(llvm::IRBuilder<>& b, const SurfaceAccess& access, llvm::Value* rsrc,
                                           llvm::Value* x)
  {
    std::vector<llvm::Value*> coords = {x};
    for (llvm::Value* more : {access.y, access.slice}) {
      if (more != nullptr) {
        coords.push_back(more);
      }
    }
    if (access.clamp == ImageClamp::zero) {
      return coords;
    }
    // The result lanes are integers in float registers: x, y (rows) and z (slices or layers), as
    // many as the access has coordinates.
    std::vector<uint64_t> lanes = {0};
    if (access.y != nullptr) {
      lanes.push_back(1);
    }
    if (access.slice != nullptr) {
      lanes.push_back(2);
    }
    const auto count = static_cast<unsigned>(lanes.back() + 1);
    llvm::Type* info_type = count == 1 ? b.getFloatTy() : llvm::FixedVectorType::get(b.getFloatTy(), count);
    llvm::Value* size = call_intrinsic(b, std::string("llvm.amdgcn.image.getresinfo.") + dim_name(access.geometry),
                                       {info_type, b.getInt32Ty()},
                                       {b.getInt32((1u << count) - 1), b.getInt32(0), rsrc, b.getInt32(0), b.getInt32(0)});
    std::vector<llvm::Value*> limits;
    for (uint64_t lane : lanes) {
      llvm::Value* value = count == 1 ? size : b.CreateExtractElement(size, lane);
      limits.push_back(b.CreateBitCast(value, b.getInt32Ty()));
    }
    if (access.clamp == ImageClamp::clamp) {
      for (size_t i = 0; i < coords.size(); ++i) {
        coords[i] = clamp_index(b, coords[i], limits[i]);
      }
      return coords;
    }
    // Unsigned compares: a negative coordinate is outside too. Lanes that branch to the trap
    // while others go on are handled by the backend like any divergent exit (the trap block runs
    // under their exec mask); the s_trap fails the dispatch as one thread's trap fails the launch
    // on NVIDIA.
    llvm::Value* inside = b.getTrue();
    for (size_t i = 0; i < coords.size(); ++i) {
      inside = b.CreateAnd(inside, b.CreateICmpULT(coords[i], limits[i]));
    }
    llvm::Function* function = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* fault = llvm::BasicBlock::Create(b.getContext(), "surface.trap", function);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "surface.inside", function);
    b.CreateCondBr(inside, next, fault);
    b.SetInsertPoint(fault);
    b.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
    b.CreateUnreachable();
    b.SetInsertPoint(next);
    return coords;
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
  static llvm::Value* element_x(llvm::IRBuilder<>& b, llvm::Value* x, int texel_bytes)
  {
    int shift = std::countr_zero(static_cast<unsigned>(texel_bytes));
    return shift == 0 ? x : b.CreateAShr(x, static_cast<uint64_t>(shift));
  }

  // Instruction elements -> the store's data lanes: half for b16 (d16), float (dword bits)
  // otherwise; b64 is two dwords, low first; b8 is zero-extended to a dword.
  static std::vector<llvm::Value*> to_lanes(llvm::IRBuilder<>& b, int bits, llvm::ArrayRef<llvm::Value*> elements)
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
        out.push_back(b.CreateTrunc(lanes[static_cast<size_t>(i)], b.getIntNTy(static_cast<unsigned>(access.element_bits))));
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
    llvm::Value* rsrc = resource(b, access.handle);
    const std::vector<llvm::Value*> coords = bounded(b, access, rsrc, x);
    std::vector<llvm::Value*> args = {data, b.getInt32((1u << count) - 1)};
    args.insert(args.end(), coords.begin(), coords.end());
    args.push_back(rsrc);
    args.push_back(b.getInt32(0));
    args.push_back(b.getInt32(0));
    call_intrinsic(b, std::string("llvm.amdgcn.image.store.") + dim_name(access.geometry),
                   {data->getType(), b.getInt32Ty()}, args);
  }
};

} // namespace

ImageHooks& amdgpu_image_hooks()
{
  static AmdgpuImageHooks amdgpu;
  return amdgpu;
}

} // namespace d4r::compiler::translate
