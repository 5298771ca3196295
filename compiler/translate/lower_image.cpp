// Stage 4, textures and surfaces through .u64 objects (bindless, sm_30+):
//   tex{.base,.level,.grad}.GEOM.v4.{f32,u32,s32}.{f32,s32}  d, [tex, {c..}] {, lod | dPdx, dPdy} {, offsets}
//   tex{...}.GEOM.v2.f16x2.{f32,s32}                          four halves in two registers
//     GEOM 1d {x}, 2d {x, y}, 3d {x, y, z, _}, a1d {layer, x}, a2d {layer, x, y, _},
//     cube {x, y, z, _}, acube {layer, x, y, z}; .s32 coordinates are texel indices
//   tld4.{r,g,b,a}.{2d,a2d,cube,acube}.v4.{f32,u32,s32}.f32 d, [tex, {c..}] {, offsets}
//   tex and tld4 also with a depth compare value (read, not used: CUDA descriptors have no compare
//   function) and with the residency predicate {d..}|p (always true); .grad on cube maps too
//   istypep.{texref,samplerref,surfref} p, a (false, as the H200 answers for objects)
//   txq.QUERY.b32 d, [tex]; suq.QUERY.b32 d, [surf]
//   suld.b.GEOM{.v2,.v4}.{b8,b16,b32,b64}{.zero,.clamp,.trap}  {d..}, [surf, {c..}]   x in bytes
//   sust.b.GEOM{.v2,.v4}.{b8,b16,b32,b64}{...}                 [surf, {c..}], {v..}   x in bytes
//   sust.p.GEOM{,.v2,.v4}.b32{...}                             [surf, {c..}], {v..}   x in texels
//   sured.{b,p}.{add,min,max,and,or}.{1d,2d,3d}.TYPE{...}      [surf, {c..}], v  (.p.min/max
//     unsigned, .b32 and .b64)
//     GEOM of surfaces: 1d, 2d, 3d, a1d, a2d (coordinates as for tex)
// and the calls the surface-store pass puts in their place (d4r_sust_v4b16, d4r_sust_v2b16,
// d4r_sust_p_v4b32, d4r_sust_b32: builtin_call.hpp), translated to exactly the store each replaced
// (sust.b.2d.v4.b16.zero, sust.b.2d.v2.b16.zero, sust.p.2d.v4.b32.zero, sust.b.2d.b32.zero).
// The access itself is a target hook (image_hooks.hpp): the runtime on the host, image
// instructions on AMDGPU. The texture or surface is a .u64 register or the name of a .texref /
// .surfref module variable, a 64-bit variable holding the handle the host binds into it (the
// client writes the texture object there as it writes any host variable; on the GPU the driver's
// cuTexRefSetArray binds it: golden case img_texref_2d). "unsupported": explicit samplers
// ([tex, sampler, c]), .2dms/.a2dms (no CUDA API makes a multisample texture object), and the
// txq/suq queries the H200's driver refuses (see lower_query).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#texture-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#surface-instructions

#include "compiler/translate/builtin_call.hpp"
#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/image_hooks.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <array>
#include <optional>
#include <string_view>

namespace d4r::compiler::translate {

namespace {

PtxType bits_type(int bits)
{
  return PtxType{PtxType::Kind::bits, bits, false};
}

PtxType s32_type()
{
  return PtxType{PtxType::Kind::signed_int, 32, false};
}

ImageHooks& images(FunctionTranslator& t)
{
  return image_hooks(t.hooks().kind());
}

std::optional<ImageGeometry> geometry_of(std::string_view name)
{
  struct Entry {
    std::string_view name;
    ImageGeometry geometry;
  };
  static constexpr Entry k_entries[] = {{"1d", ImageGeometry::d1},     {"2d", ImageGeometry::d2},
                                        {"3d", ImageGeometry::d3},     {"a1d", ImageGeometry::a1d},
                                        {"a2d", ImageGeometry::a2d},   {"cube", ImageGeometry::cube},
                                        {"acube", ImageGeometry::acube}};
  for (const Entry& entry : k_entries) {
    if (entry.name == name) {
      return entry.geometry;
    }
  }
  return std::nullopt;
}

// The coordinate vector's length in PTX: 1d 1, 2d and a1d 2, the rest 4.
size_t coordinate_count(ImageGeometry geometry)
{
  switch (geometry) {
  case ImageGeometry::d1: return 1;
  case ImageGeometry::d2:
  case ImageGeometry::a1d: return 2;
  case ImageGeometry::d3:
  case ImageGeometry::a2d:
  case ImageGeometry::cube:
  case ImageGeometry::acube: return 4;
  }
  D4R_UNREACHABLE("every geometry is covered");
}

// A texture or surface operand: a .u64 register holding an object, or the name of a .texref /
// .surfref module variable, which holds the handle the host bound (reading it loads the handle:
// FunctionTranslator::read_symbol).
bool handle_operand(FunctionTranslator& t, const ptx::Operand& operand)
{
  if (!operand.offset.empty() || operand.negated || operand.minus) {
    return false;
  }
  if (operand.kind == ptx::OperandKind::reg) {
    return true;
  }
  if (operand.kind != ptx::OperandKind::symbol) {
    return false;
  }
  const Symbol* symbol = t.symbol(operand.text);
  return t.is_register(operand.text) ||
         (symbol != nullptr && symbol->variable != nullptr && is_handle_variable(*symbol->variable));
}

// [handle, {c..}] with the coordinate count of `geometry`: the handle and the coordinates, or
// nullopt for any other shape (an explicit sampler: [tex, sampler, {c..}]).
struct ImageAddress {
  const ptx::Operand* handle = nullptr;
  std::vector<const ptx::Operand*> coordinates;
};

std::optional<ImageAddress> image_address(FunctionTranslator& t, const ptx::Operand& operand,
                                          ImageGeometry geometry)
{
  if (operand.kind != ptx::OperandKind::address || operand.elements.size() != 2) {
    return std::nullopt;
  }
  const ptx::Operand& handle = operand.elements[0];
  const ptx::Operand& coordinates = operand.elements[1];
  if (!handle_operand(t, handle)) {
    return std::nullopt;
  }
  ImageAddress out{&handle, {}};
  if (coordinates.kind != ptx::OperandKind::vector) {
    if (coordinate_count(geometry) != 1) {
      return std::nullopt;
    }
    out.coordinates.push_back(&coordinates);
    return out;
  }
  if (coordinates.elements.size() != coordinate_count(geometry)) {
    return std::nullopt;
  }
  for (const ptx::Operand& element : coordinates.elements) {
    out.coordinates.push_back(&element);
  }
  return out;
}

// The elements of a {a, b, ..} operand (a plain register counts as one).
std::vector<const ptx::Operand*> vector_elements(const ptx::Operand& operand)
{
  std::vector<const ptx::Operand*> out;
  if (operand.kind != ptx::OperandKind::vector) {
    out.push_back(&operand);
    return out;
  }
  for (const ptx::Operand& element : operand.elements) {
    out.push_back(&element);
  }
  return out;
}

// Reads the spatial coordinates (after the layer, when the geometry has one) and the layer.
Expected<void> read_coordinates(FunctionTranslator& t, const ImageAddress& address, ImageGeometry geometry,
                                PtxType type, std::array<llvm::Value*, 3>& coords, llvm::Value*& layer)
{
  const size_t first = is_layered(geometry) ? 1 : 0;
  if (first == 1) {
    TRY_ASSIGN(layer, t.read(*address.coordinates[0], bits_type(32)));
  }
  for (size_t d = 0; d < static_cast<size_t>(spatial_dims(geometry)); ++d) {
    TRY_ASSIGN(coords[d], t.read(*address.coordinates[first + d], type));
  }
  return {};
}

// A vector operand of at least `dims` elements (offsets, gradients) read as `type`.
Expected<std::array<llvm::Value*, 3>> read_vector(FunctionTranslator& t, const ptx::Instruction& instruction,
                                                  const ptx::Operand& operand, int dims, PtxType type)
{
  std::vector<const ptx::Operand*> elements = vector_elements(operand);
  if (static_cast<int>(elements.size()) < dims || elements.size() > 4) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::array<llvm::Value*, 3> out{};
  for (size_t d = 0; d < static_cast<size_t>(dims); ++d) {
    TRY_ASSIGN(out[d], t.read(*elements[d], type));
  }
  return out;
}

// The modifiers of tex / tld4, split: tex{.base,.level,.grad}.GEOM.vN.DTYPE.CTYPE and
// tld4.COMP.GEOM.v4.DTYPE.f32.
struct TexForm {
  ImageGeometry geometry = ImageGeometry::d2;
  std::string_view mip;   // "", "base", "level", "grad"
  TextureResult result = TextureResult::f32;
  bool integer_coords = false;
  int gather = -1;
};

std::optional<TexForm> tex_form(const ptx::Instruction& instruction, bool tld4)
{
  std::vector<std::string_view> m(instruction.modifiers.begin(), instruction.modifiers.end());
  TexForm form;
  size_t i = 0;
  if (tld4) {
    static constexpr std::string_view k_channels[] = {"r", "g", "b", "a"};
    for (int c = 0; c < 4 && i < m.size(); ++c) {
      form.gather = m[i] == k_channels[c] ? c : form.gather;
    }
    if (form.gather < 0) {
      return std::nullopt;
    }
    ++i;
  } else if (i < m.size() && (m[i] == "base" || m[i] == "level" || m[i] == "grad")) {
    form.mip = m[i++];
  }
  if (m.size() != i + 4) {
    return std::nullopt;
  }
  std::optional<ImageGeometry> geometry = geometry_of(m[i]);
  const bool half = m[i + 1] == "v2" && m[i + 2] == "f16x2";
  const bool quad = m[i + 1] == "v4" && (m[i + 2] == "f32" || m[i + 2] == "u32" || m[i + 2] == "s32");
  if (!geometry || !(half || (quad && !(tld4 && half))) || (m[i + 3] != "f32" && m[i + 3] != "s32")) {
    return std::nullopt;
  }
  form.geometry = *geometry;
  form.result = half ? TextureResult::f16 : m[i + 2] == "f32" ? TextureResult::f32 : TextureResult::integer;
  form.integer_coords = m[i + 3] == "s32";
  const bool cube = form.geometry == ImageGeometry::cube || form.geometry == ImageGeometry::acube;
  const bool bad_tld4 = tld4 && (half || form.integer_coords || form.geometry == ImageGeometry::d1 ||
                                 form.geometry == ImageGeometry::a1d || form.geometry == ImageGeometry::d3);
  // Cube maps take float directions; mip levels and gradients take float coordinates here.
  if (bad_tld4 || (cube && form.integer_coords) ||
      (form.integer_coords && (form.mip == "level" || form.mip == "grad"))) {
    return std::nullopt;
  }
  return form;
}

// tex and tld4 (file comment). Operands: d, [tex, {c..}], then lod (.level) or dPdx, dPdy
// (.grad), then offsets (a vector); a scalar after them is a depth compare (rejected).
Expected<void> lower_texture(FunctionTranslator& t, const ptx::Instruction& instruction, bool tld4)
{
  std::optional<TexForm> form = tex_form(instruction, tld4);
  if (!form || instruction.operands.size() < 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<ImageAddress> address = image_address(t, instruction.operands[1], form->geometry);
  // {d..}|p: the residency predicate. Every image here is resident (no sparse arrays: CUDA's
  // arrays and the AMD descriptors the runtime makes are fully backed), so p is true (H200:
  // img_tex_resident).
  const ptx::Operand& destination = instruction.operands[0];
  const bool resident = destination.kind == ptx::OperandKind::pair;
  if (resident && destination.elements[0].kind != ptx::OperandKind::vector) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::vector<const ptx::Operand*> targets = vector_elements(resident ? destination.elements[0] : destination);
  const size_t target_count = form->result == TextureResult::f16 ? 2 : 4;
  if (!address || targets.size() != target_count) {
    return std::unexpected(t.unsupported(instruction));
  }
  TextureAccess access;
  access.geometry = form->geometry;
  access.integer_coords = form->integer_coords;
  access.result = form->result;
  access.gather = form->gather;
  TRY_ASSIGN(access.handle, t.read(*address->handle, bits_type(64)));
  TRY(read_coordinates(t, *address, form->geometry, form->integer_coords ? s32_type() : f32_type(), access.coords,
                       access.layer));
  const int dims = spatial_dims(form->geometry);
  size_t next = 2;
  if (form->mip == "level") {
    if (instruction.operands.size() <= next || instruction.operands[next].kind == ptx::OperandKind::vector) {
      return std::unexpected(t.unsupported(instruction));
    }
    TRY_ASSIGN(access.lod, t.read(instruction.operands[next++], f32_type()));
  } else if (form->mip == "grad") {
    if (instruction.operands.size() < next + 2) {
      return std::unexpected(t.unsupported(instruction));
    }
    TRY_ASSIGN(access.grad_x, read_vector(t, instruction, instruction.operands[next++], dims, f32_type()));
    TRY_ASSIGN(access.grad_y, read_vector(t, instruction, instruction.operands[next++], dims, f32_type()));
  }
  const bool cube = form->geometry == ImageGeometry::cube || form->geometry == ImageGeometry::acube;
  if (next < instruction.operands.size() && instruction.operands[next].kind == ptx::OperandKind::vector) {
    if (cube) {
      return std::unexpected(t.unsupported(instruction)); // cube maps take no offsets
    }
    TRY_ASSIGN(access.offsets, read_vector(t, instruction, instruction.operands[next++], dims, s32_type()));
  }
  if (next < instruction.operands.size()) {
    // A depth compare value: the H200 returns the texels as without one (img_tex_depth_compare,
    // tex and tld4), since a CUDA texture descriptor has no compare function; so it is read and
    // not used, on both targets.
    TRY(t.read(instruction.operands[next++], f32_type()));
  }
  if (next != instruction.operands.size()) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::array<llvm::Value*, 4> channels = images(t).texture(t.env(), access);
  const PtxType result = form->result == TextureResult::f32 ? f32_type() : bits_type(32);
  for (size_t i = 0; i < target_count; ++i) {
    TRY(t.write(*targets[i], channels[i], result));
  }
  if (resident) {
    TRY(t.write(destination.elements[1], t.builder().getTrue(), pred_type()));
  }
  return {};
}

Expected<void> lower_tex(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_texture(t, instruction, false);
}

Expected<void> lower_tld4(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_texture(t, instruction, true);
}

// The .vN modifier (1 without one) and the element width of .bW; 0 bits when either is unknown.
struct SurfaceShape {
  int count = 1;
  int bits = 0;
};

SurfaceShape surface_shape(const ptx::Instruction& instruction)
{
  SurfaceShape shape;
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier == "v2" || modifier == "v4") {
      shape.count = modifier[1] - '0';
    } else if (modifier == "b8" || modifier == "b16" || modifier == "b32" || modifier == "b64") {
      shape.bits = std::stoi(modifier.substr(1));
    }
  }
  return shape;
}

ImageClamp clamp_mode(const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "zero")) {
    return ImageClamp::zero;
  }
  return has_modifier(instruction, "clamp") ? ImageClamp::clamp : ImageClamp::trap;
}

// The geometry of suld/sust: `kind` (.b/.p) and one surface geometry among the modifiers, and no
// modifier this lowering does not know (.ca/.cg/.cs/.cv/.wb/.wt cache hints are accepted and
// ignored).
std::optional<ImageGeometry> surface_form(const ptx::Instruction& instruction, const char* kind)
{
  bool kind_seen = false;
  std::optional<ImageGeometry> geometry;
  for (const std::string& modifier : instruction.modifiers) {
    std::optional<ImageGeometry> named = geometry_of(modifier);
    if (modifier == kind) {
      kind_seen = true;
    } else if (named && !geometry && *named != ImageGeometry::cube && *named != ImageGeometry::acube) {
      geometry = named;
    } else if (modifier != "v2" && modifier != "v4" && modifier != "b8" && modifier != "b16" &&
               modifier != "b32" && modifier != "b64" && modifier != "zero" && modifier != "clamp" &&
               modifier != "trap" && modifier != "ca" && modifier != "cg" && modifier != "cs" &&
               modifier != "cv" && modifier != "wb" && modifier != "wt") {
      return std::nullopt;
    }
  }
  return kind_seen ? geometry : std::nullopt;
}

// x, y and slice of a surface coordinate vector: {x}, {x, y}, {x, y, z, _}, {layer, x},
// {layer, x, y, _}.
Expected<SurfaceAccess> read_access(FunctionTranslator& t, const ImageAddress& address, ImageGeometry geometry,
                                    SurfaceShape shape, ImageClamp clamp)
{
  SurfaceAccess access;
  access.geometry = geometry;
  TRY_ASSIGN(access.handle, t.read(*address.handle, bits_type(64)));
  std::array<llvm::Value*, 3> coords{};
  llvm::Value* layer = nullptr;
  TRY(read_coordinates(t, address, geometry, s32_type(), coords, layer));
  access.x = coords[0];
  access.y = coords[1];
  access.slice = layer != nullptr ? layer : coords[2];
  access.element_bits = shape.bits;
  access.count = shape.count;
  access.clamp = clamp;
  return access;
}

Expected<void> lower_suld(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  SurfaceShape shape = surface_shape(instruction);
  std::optional<ImageGeometry> geometry = surface_form(instruction, "b");
  if (!geometry || shape.bits == 0 || instruction.operands.size() != 2 || (shape.bits == 64 && shape.count == 4)) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<ImageAddress> address = image_address(t, instruction.operands[1], *geometry);
  std::vector<const ptx::Operand*> targets = vector_elements(instruction.operands[0]);
  if (!address || static_cast<int>(targets.size()) != shape.count) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(SurfaceAccess access, read_access(t, *address, *geometry, shape, clamp_mode(instruction)));
  std::vector<llvm::Value*> values = images(t).load_b(t.env(), access);
  for (size_t i = 0; i < targets.size(); ++i) {
    TRY(t.write(*targets[i], values[i], bits_type(shape.bits)));
  }
  return {};
}

// The shared tail of sust and the d4r_sust_* calls: the values are already read.
void store(FunctionTranslator& t, bool formatted, const SurfaceAccess& access, const std::vector<llvm::Value*>& values)
{
  if (!formatted) {
    images(t).store_b(t.env(), access, values);
    return;
  }
  images(t).store_p(t.env(), access, {values[0], values[1], values[2], values[3]});
}

Expected<void> lower_sust(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool formatted = has_modifier(instruction, "p");
  SurfaceShape shape = surface_shape(instruction);
  // .p takes one, two or four .b32 components (the channels past them are written 0: H200,
  // img_sust_p_shapes_*); ptxas refuses .v4.b64 (more than 128 bits).
  bool shape_ok = formatted ? shape.bits == 32 : shape.bits != 0 && !(shape.bits == 64 && shape.count == 4);
  std::optional<ImageGeometry> geometry = surface_form(instruction, formatted ? "p" : "b");
  if (!geometry || !shape_ok || instruction.operands.size() != 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<ImageAddress> address = image_address(t, instruction.operands[0], *geometry);
  std::vector<const ptx::Operand*> sources = vector_elements(instruction.operands[1]);
  if (!address || static_cast<int>(sources.size()) != shape.count) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(SurfaceAccess access, read_access(t, *address, *geometry, shape, clamp_mode(instruction)));
  std::vector<llvm::Value*> values;
  for (const ptx::Operand* source : sources) {
    TRY_ASSIGN(llvm::Value * value, t.read(*source, bits_type(shape.bits)));
    values.push_back(value);
  }
  while (formatted && values.size() < 4) {
    values.push_back(t.builder().getInt32(0));
  }
  store(t, formatted, access, values);
  return {};
}

// sured.{b,p}.OP.{1d,2d,3d}.TYPE{.mode} [surf, {c..}], v. .b: add on u32/s32/u64, min/max on
// u32/s32/u64/s64, and/or on b32; .p: add/and/or on b32.
Expected<void> lower_sured(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() < 4 || m.size() > 5 || (m[0] != "b" && m[0] != "p") || instruction.operands.size() != 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  const bool formatted = m[0] == "p";
  std::optional<ImageGeometry> geometry = geometry_of(m[2]);
  const std::string& op_name = m[1];
  const std::string& type_name = m[3];
  const bool mode_ok = m.size() == 4 || m[4] == "zero" || m[4] == "clamp" || m[4] == "trap";
  std::optional<SuredOp> op;
  if (op_name == "add") { op = SuredOp::add; }
  if (op_name == "min") { op = SuredOp::min; }
  if (op_name == "max") { op = SuredOp::max; }
  if (op_name == "and") { op = SuredOp::bit_and; }
  if (op_name == "or") { op = SuredOp::bit_or; }
  const bool bitwise = op == SuredOp::bit_and || op == SuredOp::bit_or;
  std::optional<SuredType> type;
  if (type_name == "u32" || type_name == "b32") { type = SuredType::u32; }
  if (type_name == "s32") { type = SuredType::s32; }
  if (type_name == "u64" || type_name == "b64") { type = SuredType::u64; }
  if (type_name == "s64") { type = SuredType::s64; }
  const bool b_typed = type_name != "b64" && (bitwise ? type_name == "b32" : type_name != "b32") &&
                       !(op == SuredOp::add && type_name == "s64");
  // .p min/max compare unsigned: the H200 does so on u32 and f32 surfaces (b32) and on u32x2 ones
  // (b64, PTX 8.1), img_sured_p_minmax; ptxas refuses .p.add.b64 (and .p.and/or.b64 are not in the
  // ISA's list).
  const bool minmax = op == SuredOp::min || op == SuredOp::max;
  const bool p_typed = type_name == "b32" || (type_name == "b64" && minmax);
  const bool spatial = geometry == ImageGeometry::d1 || geometry == ImageGeometry::d2 || geometry == ImageGeometry::d3;
  if (!op || !type || !spatial || !mode_ok || !(formatted ? p_typed : b_typed)) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<ImageAddress> address = image_address(t, instruction.operands[0], *geometry);
  if (!address) {
    return std::unexpected(t.unsupported(instruction));
  }
  const bool wide = type == SuredType::u64 || type == SuredType::s64;
  TRY_ASSIGN(SurfaceAccess access, read_access(t, *address, *geometry, SurfaceShape{1, wide ? 64 : 32}, clamp_mode(instruction)));
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], bits_type(wide ? 64 : 32)));
  images(t).reduce(t.env(), access, *op, *type, formatted, value);
  return {};
}

// txq.QUERY.b32 d, [tex] and suq.QUERY.b32 d, [surf].
Expected<void> lower_query(FunctionTranslator& t, const ptx::Instruction& instruction, bool surface)
{
  struct Entry {
    std::string_view name;
    ImageQuery query;
    bool texture;
    bool surface;
  };
  // The H200's driver (CUDA 13) refuses a module with txq's sampler, array-size, mip-level or
  // sample-count queries (the kernel is dropped) or suq's .array_size/.memory_layout
  // (CUDA_ERROR_NOT_SUPPORTED): those are rejected here, their encodings unknown.
  static constexpr Entry k_entries[] = {
      {"width", ImageQuery::width, true, true},
      {"height", ImageQuery::height, true, true},
      {"depth", ImageQuery::depth, true, true},
  };
  const std::vector<std::string>& m = instruction.modifiers;
  std::optional<ImageQuery> query;
  for (const Entry& entry : k_entries) {
    if (m.size() == 2 && m[0] == entry.name && m[1] == "b32" && (surface ? entry.surface : entry.texture)) {
      query = entry.query;
    }
  }
  const bool operands_ok = instruction.operands.size() == 2 && instruction.operands[1].kind == ptx::OperandKind::address &&
                           instruction.operands[1].elements.size() == 1 &&
                           handle_operand(t, instruction.operands[1].elements[0]);
  if (!query || !operands_ok) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * handle, t.read(instruction.operands[1].elements[0], bits_type(64)));
  llvm::Value* value = images(t).query(t.env(), handle, *query, surface);
  return t.write(instruction.operands[0], value, bits_type(32));
}

// istypep.{texref,samplerref,surfref} p, a: false for every texture and surface object, as the
// H200 answers all six (img_istypep); ptxas refuses a .texref name as the operand.
Expected<void> lower_istypep(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  const bool kind_ok = m.size() == 1 && (m[0] == "texref" || m[0] == "samplerref" || m[0] == "surfref");
  if (!kind_ok || instruction.operands.size() != 2 || !handle_operand(t, instruction.operands[1])) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(t.read(instruction.operands[1], bits_type(64)));
  return t.write(instruction.operands[0], t.builder().getFalse(), pred_type());
}

Expected<void> lower_txq(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_query(t, instruction, false);
}

Expected<void> lower_suq(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_query(t, instruction, true);
}

// call d4r_sust_*(surface b64, x b32, y b32, values...): the .zero store the pass replaced.
Expected<void> lower_sust_call(FunctionTranslator& t, const ptx::Instruction& instruction,
                               bool formatted, SurfaceShape shape)
{
  TRY_ASSIGN(BuiltinCall call, parse_builtin_call(t, instruction));
  if (!call.results.empty() || static_cast<int>(call.arguments.size()) != 3 + shape.count) {
    return std::unexpected(t.error(instruction, "call of " + call.name +
                                                    " has the wrong number of arguments"));
  }
  SurfaceAccess access;
  access.geometry = ImageGeometry::d2;
  access.element_bits = shape.bits;
  access.count = shape.count;
  access.clamp = ImageClamp::zero;
  TRY_ASSIGN(access.handle, read_call_operand(t, instruction, call.arguments[0], bits_type(64)));
  TRY_ASSIGN(access.x, read_call_operand(t, instruction, call.arguments[1], bits_type(32)));
  TRY_ASSIGN(access.y, read_call_operand(t, instruction, call.arguments[2], bits_type(32)));
  std::vector<llvm::Value*> values;
  for (int i = 0; i < shape.count; ++i) {
    // sust.p's values travel as .f32 params: the same 32 bits.
    PtxType type = formatted ? f32_type() : bits_type(shape.bits);
    TRY_ASSIGN(llvm::Value * value, read_call_operand(t, instruction,
                                                      call.arguments[static_cast<size_t>(3 + i)],
                                                      type));
    values.push_back(formatted ? t.builder().CreateBitCast(value, t.builder().getInt32Ty())
                               : value);
  }
  store(t, formatted, access, values);
  return {};
}

Expected<void> lower_call_sust_v4b16(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_sust_call(t, instruction, false, SurfaceShape{4, 16});
}

Expected<void> lower_call_sust_v2b16(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_sust_call(t, instruction, false, SurfaceShape{2, 16});
}

Expected<void> lower_call_sust_p_v4b32(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_sust_call(t, instruction, true, SurfaceShape{4, 32});
}

Expected<void> lower_call_sust_b32(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_sust_call(t, instruction, false, SurfaceShape{1, 32});
}

} // namespace

void add_image_lowerings(LoweringTable& table)
{
  table["tex"] = lower_tex;
  table["tld4"] = lower_tld4;
  table["txq"] = lower_txq;
  table["istypep"] = lower_istypep;
  table["suq"] = lower_suq;
  table["sured"] = lower_sured;
  table["suld"] = lower_suld;
  table["sust"] = lower_sust;
  table["call:d4r_sust_v4b16"] = lower_call_sust_v4b16;
  table["call:d4r_sust_v2b16"] = lower_call_sust_v2b16;
  table["call:d4r_sust_p_v4b32"] = lower_call_sust_p_v4b32;
  table["call:d4r_sust_b32"] = lower_call_sust_b32;
}

} // namespace d4r::compiler::translate
