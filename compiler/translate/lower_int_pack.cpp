// Integer bit-field building: bmsk (.clamp/.wrap .b32) and the integer cvt.pack.sat forms
// (.u16/.s16 from two .s32; .u8/.s8/.u4/.s4/.u2/.s2 from two .s32 shifted over a .b32), both
// exactly the PTX ISA pseudo-code. lower_convert.cpp's cvt sends every .pack form without an
// f16x2/bf16x2 destination here (lower_cvt_pack_int).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-bmsk
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt-pack

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// bmsk.mode.b32 d, a, b (the ISA):
//   a1 = a & 0x1f; mask0 = ~0 << a1; b1 = b & 0x1f; sum = a1 + b1; mask1 = ~0 << sum;
//   .clamp: a >= 32 -> mask0 = 0 and overflow; b >= 32 -> overflow;
//   sum >= 32 or overflow -> mask1 = 0; else b1 == 0 -> mask1 = ~0;  d = mask0 & ~mask1.
Expected<void> lower_bmsk(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"clamp", "wrap", "b32"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool clamp = has_modifier(instruction, "clamp");
  if (instruction.modifiers.size() != 2 || clamp == has_modifier(instruction, "wrap") ||
      !has_modifier(instruction, "b32")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * w, t.read(instruction.operands[2], u32_type()));
  llvm::Value* ones = b.getInt32(0xffffffffU);
  llvm::Value* a1 = b.CreateAnd(a, 31);
  llvm::Value* b1 = b.CreateAnd(w, 31);
  llvm::Value* mask0 = b.CreateShl(ones, a1);
  llvm::Value* sum = b.CreateAdd(a1, b1);
  llvm::Value* overflow = b.CreateICmpUGE(sum, b.getInt32(32));
  if (clamp) {
    llvm::Value* position_over = b.CreateICmpUGE(a, b.getInt32(32));
    mask0 = b.CreateSelect(position_over, b.getInt32(0), mask0);
    overflow = b.CreateOr(overflow, b.CreateOr(position_over, b.CreateICmpUGE(w, b.getInt32(32))));
  }
  // sum < 32 wherever the shift's result is used.
  llvm::Value* mask1 = b.CreateShl(ones, b.CreateAnd(sum, 31));
  mask1 = b.CreateSelect(b.CreateICmpEQ(b1, b.getInt32(0)), ones, mask1);
  mask1 = b.CreateSelect(overflow, b.getInt32(0), mask1);
  return t.write(instruction.operands[0], b.CreateAnd(mask0, b.CreateNot(mask1)), u32_type());
}

// The destination width and signedness of cvt.pack.sat.TYPE, or width 0.
struct PackType {
  int bits = 0;
  bool is_signed = false;
};

PackType pack_type(std::string_view name)
{
  static constexpr std::pair<std::string_view, PackType> k_types[] = {
      {"u16", {16, false}}, {"s16", {16, true}}, {"u8", {8, false}}, {"s8", {8, true}},
      {"u4", {4, false}},   {"s4", {4, true}},   {"u2", {2, false}}, {"s2", {2, true}}};
  for (const auto& [spelling, type] : k_types) {
    if (spelling == name) {
      return type;
    }
  }
  return {};
}

// An s32 saturated into the range of `type`, as its low `type.bits` bits (zero-extended).
llvm::Value* saturate_field(Builder& b, llvm::Value* value, PackType type)
{
  const int64_t low = type.is_signed ? -(int64_t{1} << (type.bits - 1)) : 0;
  const int64_t high =
      type.is_signed ? (int64_t{1} << (type.bits - 1)) - 1 : (int64_t{1} << type.bits) - 1;
  llvm::Value* v =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, value, b.getInt32(static_cast<uint32_t>(low)));
  v = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, b.getInt32(static_cast<uint32_t>(high)));
  return b.CreateAnd(v, b.getInt32(static_cast<uint32_t>((int64_t{1} << type.bits) - 1)));
}

} // namespace

// cvt.pack.sat.{u16,s16}.s32 d, a, b: d = sat(a) << 16 | sat(b).
// cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c: d = c << 2n | sat(a) << n | sat(b), n the
// width (the ISA: c's low bits fill d above the two fields).
Expected<void> lower_cvt_pack_int(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  const bool three = m.size() == 5;
  if ((m.size() != 4 && !three) || m[0] != "pack" || m[1] != "sat" || m[3] != "s32" ||
      (three && m[4] != "b32")) {
    return std::unexpected(t.unsupported(instruction));
  }
  const PackType type = pack_type(m[2]);
  if (type.bits == 0 || (type.bits == 16) == three) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, three ? 4 : 3));
  Builder& b = t.builder();
  PtxType s32{PtxType::Kind::signed_int, 32, false};
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], s32));
  TRY_ASSIGN(llvm::Value * bb, t.read(instruction.operands[2], s32));
  llvm::Value* fields =
      b.CreateOr(b.CreateShl(saturate_field(b, a, type), type.bits), saturate_field(b, bb, type));
  if (three) {
    TRY_ASSIGN(llvm::Value * c, t.read(instruction.operands[3], u32_type()));
    fields = b.CreateOr(b.CreateShl(c, 2 * type.bits), fields);
  }
  return t.write(instruction.operands[0], fields, PtxType{PtxType::Kind::bits, 32, false});
}

void add_int_pack_lowerings(LoweringTable& table)
{
  table["bmsk"] = lower_bmsk;
}

} // namespace d4r::compiler::translate
