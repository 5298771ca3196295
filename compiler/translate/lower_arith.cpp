// Integer arithmetic and logic as the PTX ISA defines it, including the cases where LLVM's
// instruction would be undefined: shifts by the width or more (shl/shr.u give 0, shr.s the sign),
// division by zero (the PTX ISA leaves it undefined; an H200 gives all ones for div and rem,
// signed and unsigned, 32 and 64 bit, whatever the dividend: golden cases alu_int*_edges) and
// INT_MIN / -1 (INT_MIN, remainder 0), sad (c + |a - b|, the difference modulo 2^n) and the
// 24-bit mul24/mad24. The .cc forms of add/sub/mad go to lower_carry.cpp. Float
// forms of the shared opcodes go to lower_float.cpp, packed f16x2/bf16x2 add/sub/mul/fma too.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

namespace d4r::compiler::translate {

// add.cc, sub.cc, mad.cc (lower_carry.cpp).
Expected<void> lower_carry_out(FunctionTranslator& t, const ptx::Instruction& instruction);
// add/min/max on .u16x2/.s16x2 (lower_int_pack.cpp).
Expected<void> lower_packed_int(FunctionTranslator& t, const ptx::Instruction& instruction);

namespace {

using Builder = llvm::IRBuilder<>;

struct Operands {
  PtxType type;
  std::vector<llvm::Value*> values; // the sources, read as `type`
};

// Reads sources 1..n as `type` after checking the count.
Expected<Operands> sources(FunctionTranslator& t, const ptx::Instruction& instruction,
                           size_t count, PtxType type)
{
  TRY(expect_operands(t, instruction, count + 1));
  Operands out{type, {}};
  for (size_t i = 1; i <= count; ++i) {
    TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[i], type));
    out.values.push_back(value);
  }
  return out;
}

PtxType with_bits(PtxType type, int bits)
{
  type.bits = bits;
  return type;
}

// The high half of the double-width product.
llvm::Value* mul_high(Builder& b, llvm::Value* x, llvm::Value* y, bool is_signed)
{
  unsigned bits = x->getType()->getIntegerBitWidth();
  llvm::Type* wide = b.getIntNTy(bits * 2);
  llvm::Value* wx = is_signed ? b.CreateSExt(x, wide) : b.CreateZExt(x, wide);
  llvm::Value* wy = is_signed ? b.CreateSExt(y, wide) : b.CreateZExt(y, wide);
  return b.CreateTrunc(b.CreateLShr(b.CreateMul(wx, wy), bits), x->getType());
}

Expected<void> lower_int_mul(FunctionTranslator& t, const ptx::Instruction& instruction,
                             PtxType type, bool mad)
{
  static constexpr std::string_view k_known[] = {"lo",  "hi",  "wide", "sat", "u16",
                                                 "u32", "u64", "s16",  "s32", "s64",
                                                 "b16", "b32", "b64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  const bool hi = has_modifier(instruction, "hi");
  // .sat only in mad.hi.sat.s32 (the ISA's one saturating form).
  const bool sat = has_modifier(instruction, "sat");
  if (int{has_modifier(instruction, "lo")} + int{hi} + int{has_modifier(instruction, "wide")} > 1 ||
      (has_modifier(instruction, "wide") && type.bits == 64) ||
      (sat && !(mad && hi && type.kind == PtxType::Kind::signed_int && type.bits == 32))) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(Operands in, sources(t, instruction, mad ? 3 : 2, type));
  Builder& b = t.builder();
  llvm::Value* x = in.values[0];
  llvm::Value* y = in.values[1];
  PtxType result_type = type;
  llvm::Value* product = nullptr;
  if (has_modifier(instruction, "wide")) {
    result_type = with_bits(type, type.bits * 2);
    llvm::Type* wide = llvm_type(t.context(), result_type);
    product = type.is_signed() ? b.CreateMul(b.CreateSExt(x, wide), b.CreateSExt(y, wide))
                               : b.CreateMul(b.CreateZExt(x, wide), b.CreateZExt(y, wide));
  } else if (hi) {
    product = mul_high(b, x, y, type.is_signed());
  } else {
    product = b.CreateMul(x, y);
  }
  if (mad) {
    // mad.hi.sat.s32: the high word plus c, clamped to the s32 range (as mad24.hi.sat.s32).
    TRY_ASSIGN(llvm::Value * addend, t.read(instruction.operands[3], result_type));
    product = sat ? b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, product, addend)
                  : b.CreateAdd(product, addend);
  }
  return t.write(instruction.operands[0], product, result_type);
}

llvm::Value* all_ones(llvm::Value* like)
{
  return llvm::ConstantInt::getAllOnesValue(like->getType());
}

// mul24.mode.type d, a, b and mad24.mode{.sat}.type d, a, b, c: the 48-bit product of a's and
// b's low 24 bits (sign-extended from bit 23 for .s32); .lo keeps bits 31..0, .hi bits 47..16;
// mad24 adds c to those 32 bits, and .sat (only mad24.hi.sat.s32) clamps that sum to the s32
// range. Golden cases int_dot_* (the 24-bit boundary patterns 0x7fffff, 0x800000, 0xffffff,
// 0x1000000 among them) confirm every form on an H200.
Expected<void> lower_mul24(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool mad = instruction.opcode == "mad24";
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  bool hi = has_modifier(instruction, "hi");
  bool sat = has_modifier(instruction, "sat");
  bool integer = type.kind == PtxType::Kind::unsigned_int || type.kind == PtxType::Kind::signed_int;
  if (!integer || type.bits != 32 || hi == has_modifier(instruction, "lo")) {
    return std::unexpected(t.error(instruction, instruction.opcode +
                                                    " takes .lo or .hi and .u32 or .s32"));
  }
  if (sat && !(mad && hi && type.is_signed())) {
    return std::unexpected(t.error(instruction, ".sat is only mad24.hi.sat.s32"));
  }
  static constexpr std::string_view k_known[] = {"lo", "hi", "sat", "u32", "s32"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY_ASSIGN(Operands in, sources(t, instruction, mad ? 3 : 2, type));
  Builder& b = t.builder();
  llvm::Type* i64 = b.getInt64Ty();
  auto operand24 = [&](llvm::Value* x) {
    llvm::Value* up = b.CreateShl(b.CreateZExt(x, i64), 40);
    return type.is_signed() ? b.CreateAShr(up, 40) : b.CreateLShr(up, 40);
  };
  llvm::Value* product = b.CreateMul(operand24(in.values[0]), operand24(in.values[1]));
  llvm::Value* result = b.CreateTrunc(hi ? b.CreateLShr(product, 16) : product, b.getInt32Ty());
  if (mad) {
    llvm::Value* c = in.values[2];
    result = sat ? b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, result, c)
                 : b.CreateAdd(result, c);
  }
  return t.write(instruction.operands[0], result, type);
}

// PTX div/rem with the results an H200 gives where LLVM's would be undefined: all ones for any
// division by zero, INT_MIN / -1 = INT_MIN with remainder 0. The divisor is made safe (1) first
// so that the LLVM division itself is always defined (on the host and on AMDGPU alike).
llvm::Value* divide(Builder& b, llvm::Value* x, llvm::Value* y, bool is_signed, bool remainder)
{
  llvm::Type* type = x->getType();
  llvm::Value* zero = llvm::ConstantInt::get(type, 0);
  llvm::Value* one = llvm::ConstantInt::get(type, 1);
  llvm::Value* by_zero = b.CreateICmpEQ(y, zero);
  if (!is_signed) {
    llvm::Value* safe = b.CreateSelect(by_zero, one, y);
    llvm::Value* result = remainder ? b.CreateURem(x, safe) : b.CreateUDiv(x, safe);
    return b.CreateSelect(by_zero, all_ones(x), result);
  }
  unsigned bits = type->getIntegerBitWidth();
  llvm::Value* overflow =
      b.CreateAnd(b.CreateICmpEQ(x, llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(bits))),
                  b.CreateICmpEQ(y, all_ones(y)));
  llvm::Value* safe = b.CreateSelect(b.CreateOr(by_zero, overflow), one, y);
  llvm::Value* result = remainder ? b.CreateSRem(x, safe) : b.CreateSDiv(x, safe);
  // With the divisor 1, x / 1 = x = INT_MIN and x % 1 = 0: the overflow results already.
  return b.CreateSelect(by_zero, all_ones(x), result);
}

// sad.type d, a, b, c: c + (a < b ? b - a : a - b), the comparison after the type's sign and the
// arithmetic modulo 2^n.
Expected<void> lower_sad(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"u16", "u32", "u64", "s16", "s32", "s64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  if (type.is_float() || type.kind == PtxType::Kind::pred) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(Operands in, sources(t, instruction, 3, type));
  Builder& b = t.builder();
  llvm::Value* x = in.values[0];
  llvm::Value* y = in.values[1];
  llvm::Value* less = type.is_signed() ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
  llvm::Value* difference = b.CreateSelect(less, b.CreateSub(y, x), b.CreateSub(x, y));
  return t.write(instruction.operands[0], b.CreateAdd(in.values[2], difference), type);
}

// Shift amounts are .u32; PTX clamps amounts beyond the width.
llvm::Value* shift(Builder& b, llvm::Value* x, llvm::Value* amount, bool left, bool arithmetic)
{
  llvm::Type* type = x->getType();
  unsigned bits = type->getIntegerBitWidth();
  llvm::Value* clamped = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, amount,
                                                 b.getInt32(bits - 1));
  llvm::Value* count = b.CreateZExtOrTrunc(clamped, type);
  llvm::Value* too_far = b.CreateICmpUGE(amount, b.getInt32(bits));
  if (arithmetic) {
    return b.CreateAShr(x, count);
  }
  llvm::Value* shifted = left ? b.CreateShl(x, count) : b.CreateLShr(x, count);
  return b.CreateSelect(too_far, llvm::ConstantInt::get(type, 0), shifted);
}

Expected<void> lower_shift(FunctionTranslator& t, const ptx::Instruction& instruction, bool left)
{
  // shl ignores the signedness of a .u/.s type (the same bits); shr.s is arithmetic.
  static constexpr std::string_view k_known[] = {"b16", "b32", "b64", "u16", "u32",
                                                 "u64", "s16", "s32", "s64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 3));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[1], type));
  TRY_ASSIGN(llvm::Value * amount, t.read(instruction.operands[2], u32_type()));
  llvm::Value* result = shift(t.builder(), x, amount, left, !left && type.is_signed());
  return t.write(instruction.operands[0], result, type);
}

Expected<void> lower_shl(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_shift(t, instruction, true);
}

Expected<void> lower_shr(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_shift(t, instruction, false);
}

// The modifiers the integer forms implement: one type, .sat on add/sub (.s32) and .relu on
// min/max (.s32). Everything else (a rounding mode, .ftz, a packed .u16x2, a second type) is
// "unsupported" rather than ignored.
Expected<void> integer_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_types[] = {"b16", "b32", "b64", "u16", "u32", "u64",
                                                 "s16", "s32", "s64", "pred"};
  const std::string& op = instruction.opcode;
  for (const std::string& modifier : instruction.modifiers) {
    bool known = std::find(std::begin(k_types), std::end(k_types), modifier) != std::end(k_types) ||
                 (modifier == "sat" && (op == "add" || op == "sub")) ||
                 (modifier == "relu" && (op == "min" || op == "max"));
    if (!known) {
      return std::unexpected(t.unsupported(instruction));
    }
  }
  return one_type(t, instruction);
}

// add, sub, mul, mad, div, rem, abs, neg, min, max and the bitwise operations on integers (and
// on .pred for and/or/xor/not).
Expected<void> lower_integer(FunctionTranslator& t, const ptx::Instruction& instruction,
                             PtxType type)
{
  const std::string& op = instruction.opcode;
  Builder& b = t.builder();
  if (op == "mul" || op == "mad") {
    return lower_int_mul(t, instruction, type, op == "mad");
  }
  static constexpr std::string_view k_integer_ops[] = {
      "add", "sub", "div", "rem", "min", "max", "and", "or", "xor", "abs", "neg", "not", "cnot",
      "popc", "clz", "brev"};
  if (std::find(std::begin(k_integer_ops), std::end(k_integer_ops), op) ==
      std::end(k_integer_ops)) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(integer_modifiers(t, instruction));
  bool unary = op == "abs" || op == "neg" || op == "not" || op == "cnot" || op == "popc" ||
               op == "clz" || op == "brev";
  TRY_ASSIGN(Operands in, sources(t, instruction, unary ? 1 : 2, type));
  llvm::Value* x = in.values[0];
  llvm::Value* y = unary ? nullptr : in.values[1];
  bool sat = has_modifier(instruction, "sat");
  bool relu = has_modifier(instruction, "relu");
  if ((sat || relu) && !type.is_signed()) {
    return std::unexpected(t.unsupported(instruction));
  }
  llvm::Value* result = nullptr;
  PtxType result_type = type;
  if (op == "add") {
    result = sat ? b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, x, y) : b.CreateAdd(x, y);
  } else if (op == "sub") {
    result = sat ? b.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_sat, x, y) : b.CreateSub(x, y);
  } else if (op == "div" || op == "rem") {
    result = divide(b, x, y, type.is_signed(), op == "rem");
  } else if (op == "min" || op == "max") {
    llvm::Intrinsic::ID id = op == "min" ? (type.is_signed() ? llvm::Intrinsic::smin
                                                              : llvm::Intrinsic::umin)
                                         : (type.is_signed() ? llvm::Intrinsic::smax
                                                             : llvm::Intrinsic::umax);
    result = b.CreateBinaryIntrinsic(id, x, y);
    if (relu) { // min/max.relu.s32: a negative result becomes 0 (PTX ISA, integer min/max)
      result = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, result,
                                       llvm::ConstantInt::get(result->getType(), 0));
    }
  } else if (op == "and") {
    result = b.CreateAnd(x, y);
  } else if (op == "or") {
    result = b.CreateOr(x, y);
  } else if (op == "xor") {
    result = b.CreateXor(x, y);
  } else if (op == "abs") {
    result = b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());
  } else if (op == "neg") {
    result = b.CreateNeg(x);
  } else if (op == "not") {
    result = b.CreateNot(x);
  } else if (op == "cnot") {
    result = b.CreateZExt(b.CreateIsNull(x), x->getType());
  } else {
    result_type = u32_type();
    if (op == "popc") {
      result = b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
    } else if (op == "clz") {
      result = b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
    } else {
      result = b.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, x);
      result_type = type;
    }
    result = b.CreateZExtOrTrunc(result, llvm_type(t.context(), result_type));
  }
  return t.write(instruction.operands[0], result, result_type);
}

Expected<void> lower_arith(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "cc")) {
    return lower_carry_out(t, instruction);
  }
  // Before has_packed_type, which takes any ...x2 for a packed half type.
  if (has_modifier(instruction, "u16x2") || has_modifier(instruction, "s16x2")) {
    return lower_packed_int(t, instruction);
  }
  if (has_packed_type(instruction)) {
    return lower_packed_half(t, instruction);
  }
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  if (type.is_float()) {
    return lower_float(t, instruction, type);
  }
  if (type.kind == PtxType::Kind::pred &&
      !(instruction.opcode == "and" || instruction.opcode == "or" ||
        instruction.opcode == "xor" || instruction.opcode == "not")) {
    return std::unexpected(t.unsupported(instruction));
  }
  return lower_integer(t, instruction, type);
}

// pos and len of bfe/bfi: the PTX ISA takes their low 8 bits. An H200 does for the 32-bit forms,
// but the 64-bit forms use the whole .u32 (bit_fields_grid: bfi.b64 at pos 256 or 0x105 leaves b
// unchanged, len 0x10003 inserts everything up to the msb, for every pos in 0..66).
llvm::Value* field_operand(Builder& b, llvm::Value* value, unsigned bits)
{
  return bits == 32 ? b.CreateAnd(value, 0xff) : value;
}

// The low 8 bits of pos or len when both are immediates (ptxas folds the instruction then, not
// always as the ISA says); nullopt when either is a register.
std::optional<std::pair<uint64_t, uint64_t>> immediate_field(const ptx::Instruction& instruction,
                                                             size_t first, llvm::Value* pos,
                                                             llvm::Value* len)
{
  auto* pos_constant = llvm::dyn_cast<llvm::ConstantInt>(pos);
  auto* len_constant = llvm::dyn_cast<llvm::ConstantInt>(len);
  if (instruction.operands[first].kind != ptx::OperandKind::integer ||
      instruction.operands[first + 1].kind != ptx::OperandKind::integer || pos_constant == nullptr ||
      len_constant == nullptr) {
    return std::nullopt;
  }
  return std::pair{pos_constant->getZExtValue() & 0xff, len_constant->getZExtValue() & 0xff};
}

// bfe.type d, a, pos, len.
Expected<void> lower_bfe(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"u32", "u64", "s32", "s64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 4));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[1], type));
  TRY_ASSIGN(llvm::Value * pos_in, t.read(instruction.operands[2], u32_type()));
  TRY_ASSIGN(llvm::Value * len_in, t.read(instruction.operands[3], u32_type()));
  llvm::Type* itype = x->getType();
  unsigned bits = itype->getIntegerBitWidth();
  // bfe.s32 with immediates pos >= 32 and len > 0 is all ones on an H200 whatever a is (the ISA
  // says a[31] repeated), with pos or len in a register it is the ISA's (rd_bit_field_imm).
  auto folded = immediate_field(instruction, 2, pos_in, len_in);
  if (bits == 32 && type.is_signed() && folded && folded->first >= 32 && folded->second > 0) {
    return t.write(instruction.operands[0], b.getInt32(0xffffffffu), type);
  }
  llvm::Value* pos = field_operand(b, pos_in, bits);
  llvm::Value* len = field_operand(b, len_in, bits);
  // Bits at pos and above; past the top they are the sign (signed) or zero.
  llvm::Value* shifted = shift(b, x, pos, false, type.is_signed());
  llvm::Value* keep = b.CreateSub(b.getInt32(bits), b.CreateBinaryIntrinsic(
                                                        llvm::Intrinsic::umin, len, b.getInt32(bits)));
  llvm::Value* keep_n = b.CreateZExtOrTrunc(b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, keep,
                                                                    b.getInt32(bits - 1)),
                                            itype);
  llvm::Value* up = b.CreateShl(shifted, keep_n);
  llvm::Value* field = type.is_signed() ? b.CreateAShr(up, keep_n) : b.CreateLShr(up, keep_n);
  llvm::Value* zero_len = b.CreateICmpEQ(len, b.getInt32(0));
  llvm::Value* result = b.CreateSelect(zero_len, llvm::ConstantInt::get(itype, 0), field);
  return t.write(instruction.operands[0], result, type);
}

// bfi.type f, a, b, pos, len: b with bits [pos, pos+len) taken from a's low bits.
Expected<void> lower_bfi(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"b32", "b64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 5));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], type));
  TRY_ASSIGN(llvm::Value * base, t.read(instruction.operands[2], type));
  TRY_ASSIGN(llvm::Value * pos_in, t.read(instruction.operands[3], u32_type()));
  TRY_ASSIGN(llvm::Value * len_in, t.read(instruction.operands[4], u32_type()));
  llvm::Type* itype = a->getType();
  unsigned bits = itype->getIntegerBitWidth();
  llvm::Value* pos = field_operand(b, pos_in, bits);
  llvm::Value* len = field_operand(b, len_in, bits);
  // bfi.b32 with immediates len >= 32 and pos in 1..31 not a multiple of 8 inserts len mod 32
  // bits on an H200 (10, 32 and 31, 32 leave b as it is, 10, 40 and 20, 40 insert 8 bits:
  // rd_bit_field_imm), while pos 0 and 16 insert everything up to the msb, as the ISA says
  // (bit_fields_immediate: 0, 33 and 16, 40; pos 8 and 24 were not recorded: taken as byte
  // aligned). With pos or len in a register it is always the ISA's.
  auto folded = immediate_field(instruction, 3, pos_in, len_in);
  if (bits == 32 && folded && folded->first < 32 && folded->first % 8 != 0 &&
      folded->second >= 32) {
    len = b.getInt32(static_cast<uint32_t>(folded->second & 31));
  }
  llvm::Value* low_mask = b.CreateSelect(
      b.CreateICmpUGE(len, b.getInt32(bits)), llvm::ConstantInt::getAllOnesValue(itype),
      b.CreateSub(shift(b, llvm::ConstantInt::get(itype, 1), len, true, false),
                  llvm::ConstantInt::get(itype, 1)));
  llvm::Value* mask = shift(b, low_mask, pos, true, false);
  llvm::Value* inserted = b.CreateAnd(shift(b, a, pos, true, false), mask);
  llvm::Value* result = b.CreateOr(b.CreateAnd(base, b.CreateNot(mask)), inserted);
  return t.write(instruction.operands[0], result, type);
}

} // namespace

// prmt, lop3, shf, bfind, dp4a, dp2a (lower_bits.cpp).
void add_bit_lowerings(LoweringTable& table);
// addc, subc, madc (lower_carry.cpp).
void add_carry_lowerings(LoweringTable& table);

void add_arith_lowerings(LoweringTable& table)
{
  for (const char* opcode : {"add", "sub", "mul", "mad", "div", "rem", "abs", "neg", "min", "max",
                             "and", "or", "xor", "not", "cnot", "popc", "clz", "brev", "fma",
                             "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh",
                             "copysign", "testp"}) {
    table[opcode] = lower_arith;
  }
  table["shl"] = lower_shl;
  table["shr"] = lower_shr;
  table["bfe"] = lower_bfe;
  table["bfi"] = lower_bfi;
  table["sad"] = lower_sad;
  table["mul24"] = lower_mul24;
  table["mad24"] = lower_mul24;
  add_bit_lowerings(table);
  add_carry_lowerings(table);
}

} // namespace d4r::compiler::translate
