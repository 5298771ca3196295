// Integer bit-field building and packing: bmsk (.clamp/.wrap .b32), szext (.clamp/.wrap,
// .u32/.s32), the integer cvt.pack.sat forms (.u16/.s16 from two .s32; .u8/.s8/.u4/.s4/.u2/.s2
// from two .s32 shifted over a .b32), and add/min/max on the packed .u16x2/.s16x2 types (min/max
// .relu on .s16x2), all exactly the PTX ISA pseudo-code. lower_convert.cpp's cvt sends every
// .pack form without an f16x2/bf16x2 destination here (lower_cvt_pack_int), lower_arith.cpp the
// packed integer forms (lower_packed_int). H200 goldens: int_pack_*, intm_* (int_more.cu).
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

// szext.mode.type d, a, b (the ISA): the low N bits of a, N = b & 31 (.wrap) or b clamped to
// [0, 32] (.clamp), sign- (.s32) or zero-extended (.u32); N = 0 gives 0:
//   b1 = b & 0x1f; too_large = .clamp && b >= 32; mask = too_large ? 0 : ~0 << b1;
//   sign = .s32 && b1 != 0 && !too_large && a[b1 - 1];  d = (a & ~mask) | (sign ? mask : 0).
Expected<void> lower_szext(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"clamp", "wrap", "u32", "s32"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool clamp = has_modifier(instruction, "clamp");
  const bool is_signed = has_modifier(instruction, "s32");
  if (instruction.modifiers.size() != 2 || clamp == has_modifier(instruction, "wrap") ||
      is_signed == has_modifier(instruction, "u32")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * w, t.read(instruction.operands[2], u32_type()));
  llvm::Value* zero = b.getInt32(0);
  llvm::Value* b1 = b.CreateAnd(w, 31);
  llvm::Value* too_large = clamp ? b.CreateICmpUGE(w, b.getInt32(32)) : b.getFalse();
  llvm::Value* mask = b.CreateSelect(too_large, zero, b.CreateShl(b.getInt32(0xffffffffU), b1));
  llvm::Value* sign = b.getFalse();
  if (is_signed) {
    llvm::Value* sign_pos = b.CreateAnd(b.CreateSub(b1, b.getInt32(1)), 31);
    llvm::Value* top = b.CreateTrunc(b.CreateLShr(a, sign_pos), b.getInt1Ty());
    sign = b.CreateAnd(top, b.CreateAnd(b.CreateICmpNE(b1, zero), b.CreateNot(too_large)));
  }
  llvm::Value* result =
      b.CreateOr(b.CreateAnd(a, b.CreateNot(mask)), b.CreateSelect(sign, mask, zero));
  return t.write(instruction.operands[0], result, u32_type());
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

// add.{u16x2,s16x2}, min/max.{u16x2,s16x2} and min/max.relu.s16x2 d, a, b (sm_90): each half
// of a and b on its own (the ISA: d[i] = iA[i] op iB[i], i = 0, 1; the sum wraps at 16 bits;
// .relu makes a negative half 0). As <2 x i16> operations, which AMDGPU selects as v_pk_add_u16,
// v_pk_min_i16 and so on. sub has no packed integer type (ptxas rejects sub.u16x2), nor add .sat.
Expected<void> lower_packed_int(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"u16x2", "s16x2", "relu"};
  TRY(known_modifiers(t, instruction, k_known));
  const std::string& op = instruction.opcode;
  const bool is_signed = has_modifier(instruction, "s16x2");
  const bool relu = has_modifier(instruction, "relu");
  const bool min_max = op == "min" || op == "max";
  const size_t types = size_t{is_signed} + size_t{has_modifier(instruction, "u16x2")};
  if ((op != "add" && !min_max) || types != 1 ||
      instruction.modifiers.size() != 1 + size_t{relu} || (relu && !(min_max && is_signed))) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * w, t.read(instruction.operands[2], u32_type()));
  llvm::Type* pair = llvm::FixedVectorType::get(b.getInt16Ty(), 2);
  llvm::Value* x = b.CreateBitCast(a, pair);
  llvm::Value* y = b.CreateBitCast(w, pair);
  llvm::Value* result = nullptr;
  if (op == "add") {
    result = b.CreateAdd(x, y);
  } else {
    using llvm::Intrinsic::ID;
    ID id = op == "min" ? (is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin)
                        : (is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax);
    result = b.CreateBinaryIntrinsic(id, x, y);
  }
  if (relu) {
    result = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, result,
                                     llvm::Constant::getNullValue(pair));
  }
  return t.write(instruction.operands[0], b.CreateBitCast(result, b.getInt32Ty()), u32_type());
}

void add_int_pack_lowerings(LoweringTable& table)
{
  table["bmsk"] = lower_bmsk;
  table["szext"] = lower_szext;
}

} // namespace d4r::compiler::translate
