// Stage 4, textures and surfaces through .u64 objects (bindless, sm_30+):
//   tex.2d.v4.{f32,u32,s32}.f32   {d0, d1, d2, d3}, [tex, {x, y}]          float coordinates
//   tex.a2d.v4.{f32,u32,s32}.f32  {d0, d1, d2, d3}, [tex, {layer, x, y, _}] a layered texture
//   suld.b.2d{.v2,.v4}.{b8,b16,b32,b64}{.zero,.clamp,.trap}  {d..}, [surf, {x, y}]   x in bytes
//   sust.b.2d{.v2,.v4}.{b8,b16,b32,b64}{.zero,.clamp,.trap}  [surf, {x, y}], {v..}   x in bytes
//   sust.p.2d.v4.b32{.zero,.clamp,.trap}                     [surf, {x, y}], {v..}   x in elements
// and the calls the surface-store pass puts in their place (d4r_sust_v4b16, d4r_sust_v2b16,
// d4r_sust_p_v4b32, d4r_sust_b32: builtin_call.hpp), translated to exactly the store each replaced
// (sust.b.2d.v4.b16.zero, sust.b.2d.v2.b16.zero, sust.p.2d.v4.b32.zero, sust.b.2d.b32.zero).
// The access itself is a target hook (image_hooks.hpp): the runtime on the host, image
// instructions on AMDGPU. Everything else (tex with integer coordinates, other geometries,
// .texref/.surfref names, explicit levels or gradients) is "unsupported".
// https://docs.nvidia.com/cuda/parallel-thread-execution/#texture-instructions-tex
// https://docs.nvidia.com/cuda/parallel-thread-execution/#surface-instructions

#include "compiler/translate/builtin_call.hpp"
#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/image_hooks.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <array>
#include <optional>

namespace d4r::compiler::translate {

namespace {

PtxType bits_type(int bits)
{
  return PtxType{PtxType::Kind::bits, bits, false};
}

ImageHooks& images(FunctionTranslator& t)
{
  return image_hooks(t.hooks().kind());
}

// [handle, {x, y}]: the handle register and the two coordinate operands, or nullopt for any other
// shape (a .texref/.surfref name, a separate sampler, another geometry).
struct ImageAddress {
  const ptx::Operand* handle = nullptr;
  const ptx::Operand* x = nullptr;
  const ptx::Operand* y = nullptr;
};

std::optional<ImageAddress> image_address(const ptx::Operand& operand)
{
  if (operand.kind != ptx::OperandKind::address || operand.elements.size() != 2) {
    return std::nullopt;
  }
  const ptx::Operand& handle = operand.elements[0];
  const ptx::Operand& coordinates = operand.elements[1];
  if (handle.kind != ptx::OperandKind::reg || !handle.offset.empty() ||
      coordinates.kind != ptx::OperandKind::vector || coordinates.elements.size() != 2) {
    return std::nullopt;
  }
  return ImageAddress{&handle, &coordinates.elements[0], &coordinates.elements[1]};
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

// Checks the modifiers common to suld/sust: .2d, and no modifier this lowering does not know (.cg/.ca cache hints are accepted and ignored).
bool surface_form_ok(const ptx::Instruction& instruction, const char* kind)
{
  bool kind_seen = false;
  bool geometry_seen = false;
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier == kind) {
      kind_seen = true;
    } else if (modifier == "2d") {
      geometry_seen = true;
    } else if (modifier != "v2" && modifier != "v4" && modifier != "b8" && modifier != "b16" &&
               modifier != "b32" && modifier != "b64" && modifier != "zero" &&
               modifier != "clamp" && modifier != "trap" && modifier != "ca" && modifier != "cg" &&
               modifier != "cs" && modifier != "cv" && modifier != "wb" && modifier != "wt") {
      return false;
    }
  }
  return kind_seen && geometry_seen;
}

Expected<SurfaceAccess> read_access(FunctionTranslator& t, const ImageAddress& address,
                                    SurfaceShape shape, ImageClamp clamp)
{
  SurfaceAccess access;
  TRY_ASSIGN(access.handle, t.read(*address.handle, bits_type(64)));
  PtxType s32{PtxType::Kind::signed_int, 32, false};
  TRY_ASSIGN(access.x, t.read(*address.x, s32));
  TRY_ASSIGN(access.y, t.read(*address.y, s32));
  access.element_bits = shape.bits;
  access.count = shape.count;
  access.clamp = clamp;
  return access;
}

// tex.2d.v4.f32.f32 d, [tex, {x, y}].
// tex.{2d,a2d}.v4.{f32,u32,s32}.f32 d, [tex, {x, y}] or [tex, {layer, x, y, _}]: the forms with
// a .u64 texture object and float coordinates. The layer of .a2d is a 32-bit integer; its fourth
// coordinate is unused.
Expected<void> lower_tex(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& modifiers = instruction.modifiers;
  const bool layered = !modifiers.empty() && modifiers[0] == "a2d";
  const bool known = modifiers.size() == 4 && (modifiers[0] == "2d" || layered) &&
                     modifiers[1] == "v4" &&
                     (modifiers[2] == "f32" || modifiers[2] == "u32" || modifiers[2] == "s32") &&
                     modifiers[3] == "f32";
  if (!known || instruction.operands.size() != 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  const ptx::Operand& operand = instruction.operands[1];
  const size_t coordinates = layered ? 4 : 2;
  if (operand.kind != ptx::OperandKind::address || operand.elements.size() != 2 ||
      operand.elements[0].kind != ptx::OperandKind::reg || !operand.elements[0].offset.empty() ||
      operand.elements[1].kind != ptx::OperandKind::vector ||
      operand.elements[1].elements.size() != coordinates) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::vector<const ptx::Operand*> targets = vector_elements(instruction.operands[0]);
  if (targets.size() != 4) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& coordinate = operand.elements[1].elements;
  TextureAccess access;
  access.integer = modifiers[2] != "f32";
  TRY_ASSIGN(access.handle, t.read(operand.elements[0], bits_type(64)));
  if (layered) {
    TRY_ASSIGN(access.layer, t.read(coordinate[0], bits_type(32)));
  }
  TRY_ASSIGN(access.x, t.read(coordinate[layered ? 1 : 0], f32_type()));
  TRY_ASSIGN(access.y, t.read(coordinate[layered ? 2 : 1], f32_type()));
  std::array<llvm::Value*, 4> channels = images(t).texture(t.env(), access);
  const PtxType result = access.integer ? bits_type(32) : f32_type();
  for (size_t i = 0; i < 4; ++i) {
    TRY(t.write(*targets[i], channels[i], result));
  }
  return {};
}

Expected<void> lower_suld(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  SurfaceShape shape = surface_shape(instruction);
  if (!surface_form_ok(instruction, "b") || shape.bits == 0 ||
      instruction.operands.size() != 2 || (shape.bits == 64 && shape.count == 4)) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<ImageAddress> address = image_address(instruction.operands[1]);
  std::vector<const ptx::Operand*> targets = vector_elements(instruction.operands[0]);
  if (!address || static_cast<int>(targets.size()) != shape.count) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(SurfaceAccess access, read_access(t, *address, shape, clamp_mode(instruction)));
  std::vector<llvm::Value*> values = images(t).load_b(t.env(), access);
  for (size_t i = 0; i < targets.size(); ++i) {
    TRY(t.write(*targets[i], values[i], bits_type(shape.bits)));
  }
  return {};
}

// The shared tail of sust and the d4r_sust_* calls: the values are already read.
void store(FunctionTranslator& t, bool formatted, const SurfaceAccess& access,
           const std::vector<llvm::Value*>& values)
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
  bool shape_ok = formatted ? shape.bits == 32 && shape.count == 4
                            : shape.bits != 0 && !(shape.bits == 64 && shape.count == 4);
  if (!surface_form_ok(instruction, formatted ? "p" : "b") || !shape_ok ||
      instruction.operands.size() != 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<ImageAddress> address = image_address(instruction.operands[0]);
  std::vector<const ptx::Operand*> sources = vector_elements(instruction.operands[1]);
  if (!address || static_cast<int>(sources.size()) != shape.count) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(SurfaceAccess access, read_access(t, *address, shape, clamp_mode(instruction)));
  std::vector<llvm::Value*> values;
  for (const ptx::Operand* source : sources) {
    TRY_ASSIGN(llvm::Value * value, t.read(*source, bits_type(shape.bits)));
    values.push_back(value);
  }
  store(t, formatted, access, values);
  return {};
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
  table["suld"] = lower_suld;
  table["sust"] = lower_sust;
  table["call:d4r_sust_v4b16"] = lower_call_sust_v4b16;
  table["call:d4r_sust_v2b16"] = lower_call_sust_v2b16;
  table["call:d4r_sust_p_v4b32"] = lower_call_sust_p_v4b32;
  table["call:d4r_sust_b32"] = lower_call_sust_b32;
}

} // namespace d4r::compiler::translate
