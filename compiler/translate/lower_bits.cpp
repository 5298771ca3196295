// Byte and bit manipulation: prmt (all modes), lop3 (with the PTX 8.2 predicate output), shf
// (funnel shifts, .wrap/.clamp), bfind, fns (the n-th set bit), and the byte dot products dp4a
// and dp2a. H200 goldens of lop3 d|p and fns: intm_* (tests/ptx/isa/int_more.cu).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-prmt
// https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-fns

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// The source byte index (0..7) of result byte i for prmt's mode and selector c.
llvm::Value* prmt_index(Builder& b, std::string_view mode, llvm::Value* c, int i)
{
  llvm::Value* n = b.CreateAnd(c, 3);
  llvm::Value* index = b.getInt32(static_cast<uint32_t>(i));
  if (mode == "f4e") {
    return b.CreateAnd(b.CreateAdd(n, index), 7);
  }
  if (mode == "b4e") {
    return b.CreateAnd(b.CreateSub(n, index), 7);
  }
  if (mode == "rc8") {
    return n;
  }
  if (mode == "ecl") {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, n, index);
  }
  if (mode == "ecr") {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, n, index);
  }
  if (mode == "rc16") {
    return b.CreateOr(b.CreateShl(b.CreateAnd(n, 1), 1), b.getInt32(static_cast<uint32_t>(i & 1)));
  }
  return b.CreateAnd(b.CreateLShr(c, static_cast<uint64_t>(4 * i)), 7);
}

Expected<void> lower_prmt(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"b32", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() > 2) {
    return std::unexpected(t.unsupported(instruction)); // two modes
  }
  TRY(expect_operands(t, instruction, 4));
  Builder& b = t.builder();
  std::string_view mode;
  for (const char* candidate : {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"}) {
    if (has_modifier(instruction, candidate)) {
      mode = candidate;
    }
  }
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * bb, t.read(instruction.operands[2], u32_type()));
  TRY_ASSIGN(llvm::Value * c, t.read(instruction.operands[3], u32_type()));
  llvm::Value* bytes = b.CreateOr(b.CreateShl(b.CreateZExt(bb, b.getInt64Ty()), 32),
                                  b.CreateZExt(a, b.getInt64Ty()));
  llvm::Value* result = b.getInt32(0);
  for (int i = 0; i < 4; ++i) {
    llvm::Value* index = prmt_index(b, mode, c, i);
    llvm::Value* amount = b.CreateZExt(b.CreateShl(index, 3), b.getInt64Ty());
    llvm::Value* byte = b.CreateAnd(b.CreateTrunc(b.CreateLShr(bytes, amount), b.getInt32Ty()), 0xff);
    if (mode.empty()) {
      llvm::Value* replicate = b.CreateICmpNE(
          b.CreateAnd(c, b.getInt32(8U << (4 * i))), b.getInt32(0));
      llvm::Value* sign = b.CreateICmpNE(b.CreateAnd(byte, 0x80), b.getInt32(0));
      llvm::Value* filled = b.CreateSelect(sign, b.getInt32(0xff), b.getInt32(0));
      byte = b.CreateSelect(replicate, filled, byte);
    }
    result = b.CreateOr(result, b.CreateShl(byte, static_cast<uint64_t>(8 * i)));
  }
  return t.write(instruction.operands[0], result, u32_type());
}

// lop3.b32 d, a, b, c, lut: bit i of lut is the result for (a, b, c) = (i>>2 & 1, i>>1 & 1, i & 1).
// lop3.BoolOp.b32 d|p, a, b, c, lut, q (PTX 8.2, BoolOp .and or .or) also writes the predicate
// p = (d != 0) BoolOp q; d may be the sink `_`, q may be negated.
Expected<void> lower_lop3(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"b32", "and", "or"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool is_and = has_modifier(instruction, "and");
  const bool with_predicate = is_and || has_modifier(instruction, "or");
  if (instruction.modifiers.size() != (with_predicate ? 2U : 1U) ||
      !has_modifier(instruction, "b32")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, with_predicate ? 6 : 5));
  const ptx::Operand& target = instruction.operands[0];
  if (with_predicate != (target.kind == ptx::OperandKind::pair)) {
    return std::unexpected(t.error(instruction, with_predicate ? "lop3.and/.or writes d|p"
                                                               : "lop3.b32 writes one register"));
  }
  Builder& b = t.builder();
  llvm::Value* in[3] = {nullptr, nullptr, nullptr};
  for (size_t i = 0; i < 3; ++i) {
    TRY_ASSIGN(in[i], t.read(instruction.operands[i + 1], u32_type()));
  }
  TRY_ASSIGN(llvm::Value * lut_value, t.read(instruction.operands[4], u32_type()));
  auto* lut = llvm::dyn_cast<llvm::ConstantInt>(lut_value);
  if (lut == nullptr) {
    return std::unexpected(t.error(instruction, "lop3 needs an immediate lookup table"));
  }
  llvm::Value* result = b.getInt32(0);
  for (uint64_t i = 0; i < 8; ++i) {
    if (((lut->getZExtValue() >> i) & 1) == 0) {
      continue;
    }
    llvm::Value* term = b.getInt32(0xffffffffU);
    for (int k = 0; k < 3; ++k) {
      bool set = ((i >> (2 - k)) & 1) != 0;
      term = b.CreateAnd(term, set ? in[k] : b.CreateNot(in[k]));
    }
    result = b.CreateOr(result, term);
  }
  if (!with_predicate) {
    return t.write(target, result, u32_type());
  }
  if (target.elements.size() != 2) {
    return std::unexpected(t.error(instruction, "lop3.and/.or writes d|p"));
  }
  TRY_ASSIGN(llvm::Value * q, t.read(instruction.operands[5], pred_type()));
  llvm::Value* nonzero = b.CreateICmpNE(result, b.getInt32(0));
  llvm::Value* p = is_and ? b.CreateAnd(nonzero, q) : b.CreateOr(nonzero, q);
  TRY(t.write(target.elements[0], result, u32_type()));
  return t.write(target.elements[1], p, pred_type());
}

// The position of the k-th set bit of m, counted from bit 0 (k >= 1, popc(m) >= k): five steps
// of a binary search on the population count of the lower part.
llvm::Value* nth_set_bit(Builder& b, llvm::Value* m, llvm::Value* k)
{
  llvm::Value* position = b.getInt32(0);
  for (uint32_t width : {16U, 8U, 4U, 2U, 1U}) {
    llvm::Value* part = b.CreateAnd(b.CreateLShr(m, position), (1U << width) - 1);
    llvm::Value* below = b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, part);
    llvm::Value* above = b.CreateICmpUGT(k, below);
    k = b.CreateSelect(above, b.CreateSub(k, below), k);
    position = b.CreateSelect(above, b.CreateAdd(position, b.getInt32(width)), position);
  }
  return position;
}

// fns.b32 d, mask, base, offset (the ISA's loop, in closed form): offset 0 gives base if
// mask[base] is set; offset n > 0 the n-th set bit at or above base, offset -n < 0 the n-th at or
// below it; 0xffffffff where there is none. base must be <= 31 (the ISA leaves larger ones
// undefined): the ISA's loop never starts from a larger one, so its result is 0xffffffff here.
// An offset of INT_MIN gives 0 on an H200 whatever mask and base (intm_edges: 60 of 60; the ISA's
// loop finds nothing, 0xffffffff); every other offset is the ISA's (intm_*: 4096 inputs).
Expected<void> lower_fns(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"b32"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 4));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * base_in, t.read(instruction.operands[2], u32_type()));
  PtxType s32{PtxType::Kind::signed_int, 32, false};
  TRY_ASSIGN(llvm::Value * offset, t.read(instruction.operands[3], s32));
  llvm::Value* ones = b.getInt32(0xffffffffU);
  llvm::Value* in_range = b.CreateICmpULT(base_in, b.getInt32(32));
  llvm::Value* base = b.CreateAnd(base_in, 31);
  llvm::Value* negative = b.CreateICmpSLT(offset, b.getInt32(0));
  // |offset| as unsigned: INT_MIN stays 2^31, more than any count.
  llvm::Value* n = b.CreateSelect(negative, b.CreateNeg(offset), offset);
  llvm::Value* up = b.CreateAnd(mask, b.CreateShl(ones, base));
  llvm::Value* down = b.CreateAnd(mask, b.CreateLShr(ones, b.CreateSub(b.getInt32(31), base)));
  llvm::Value* chosen = b.CreateSelect(negative, down, up);
  llvm::Value* count = b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, chosen);
  // Going down, the n-th set bit from base is the (count - n + 1)-th from bit 0.
  llvm::Value* k = b.CreateSelect(negative, b.CreateAdd(b.CreateSub(count, n), b.getInt32(1)), n);
  llvm::Value* found = b.CreateAnd(b.CreateICmpNE(n, b.getInt32(0)), b.CreateICmpULE(n, count));
  llvm::Value* result = b.CreateSelect(found, nth_set_bit(b, chosen, k), ones);
  llvm::Value* base_set = b.CreateICmpNE(b.CreateAnd(b.CreateLShr(mask, base), 1), b.getInt32(0));
  llvm::Value* at_base = b.CreateSelect(base_set, base, ones);
  result = b.CreateSelect(b.CreateICmpEQ(n, b.getInt32(0)), at_base, result);
  result = b.CreateSelect(in_range, result, ones);
  result = b.CreateSelect(b.CreateICmpEQ(offset, b.getInt32(0x80000000U)), b.getInt32(0), result);
  return t.write(instruction.operands[0], result, u32_type());
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the funnel {b:a} shifted by c.
Expected<void> lower_shf(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  // PTX requires .b32 and one direction and one mode; shf.{l,r}.b32 without a mode is not PTX.
  static constexpr std::string_view k_known[] = {"l", "r", "wrap", "clamp", "b32"};
  TRY(known_modifiers(t, instruction, k_known));
  bool left = has_modifier(instruction, "l");
  bool clamp = has_modifier(instruction, "clamp");
  if (left == has_modifier(instruction, "r") || clamp == has_modifier(instruction, "wrap")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 4));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * low, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * high, t.read(instruction.operands[2], u32_type()));
  TRY_ASSIGN(llvm::Value * amount, t.read(instruction.operands[3], u32_type()));
  llvm::Value* result = b.CreateIntrinsic(left ? llvm::Intrinsic::fshl : llvm::Intrinsic::fshr,
                                          {b.getInt32Ty()}, {high, low, amount});
  if (clamp) {
    llvm::Value* full = b.CreateICmpUGE(amount, b.getInt32(32));
    result = b.CreateSelect(full, left ? low : high, result);
  }
  return t.write(instruction.operands[0], result, u32_type());
}

// bfind{.shiftamt}.type d, a: the position of the most significant non-sign bit, or all ones.
Expected<void> lower_bfind(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"shiftamt", "u32", "u64", "s32", "s64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 2));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[1], type));
  if (type.is_signed()) {
    x = b.CreateSelect(b.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)), b.CreateNot(x), x);
  }
  unsigned bits = x->getType()->getIntegerBitWidth();
  llvm::Value* leading = b.CreateZExtOrTrunc(
      b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse()), b.getInt32Ty());
  llvm::Value* found = b.CreateICmpNE(leading, b.getInt32(bits));
  llvm::Value* position = has_modifier(instruction, "shiftamt")
                              ? leading
                              : b.CreateSub(b.getInt32(bits - 1), leading);
  llvm::Value* result = b.CreateSelect(found, position, b.getInt32(0xffffffffU));
  return t.write(instruction.operands[0], result, u32_type());
}

// Field `index` of `bits` bits of x, sign- or zero-extended to i32.
llvm::Value* lane(Builder& b, llvm::Value* x, int index, int bits, bool is_signed)
{
  llvm::Value* up = b.CreateShl(x, static_cast<uint64_t>(32 - bits * (index + 1)));
  return is_signed ? b.CreateAShr(up, static_cast<uint64_t>(32 - bits))
                   : b.CreateLShr(up, static_cast<uint64_t>(32 - bits));
}

// dp4a.atype.btype d, a, b, c: c + sum of a.byte[i] * b.byte[i], i = 0..3;
// dp2a.mode.atype.btype d, a, b, c: c + sum of a.half[i] * b.byte[n + i], i = 0..1, n = 0 for .lo
// and 2 for .hi. Each lane is extended after its operand's type; the sum wraps at 32 bits (c is
// .s32 when either type is, which has the same bits). Plain IR, from which LLVM selects
// v_dot4_u32_u8 (u32.u32) and v_dot4_i32_iu8 (s32.s32) on gfx11/gfx12 by itself; it does not
// match the mixed dp4a forms, so those call llvm.amdgcn.sudot4 (v_dot4_i32_iu8 with a sign per
// operand, clamp off: the same 32-bit wrap), which every gfx11 and gfx12 target has.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-dp4a
Expected<void> lower_dot(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool four = instruction.opcode == "dp4a";
  TRY(expect_operands(t, instruction, 4));
  using Types = std::pair<PtxType, PtxType>;
  TRY_ASSIGN(Types types, two_types(t, instruction));
  auto is_word = [](PtxType type) {
    return type.bits == 32 && (type.kind == PtxType::Kind::unsigned_int ||
                               type.kind == PtxType::Kind::signed_int);
  };
  bool hi = has_modifier(instruction, "hi");
  bool lo = has_modifier(instruction, "lo");
  bool mode_ok = four ? !hi && !lo : hi != lo;
  if (!is_word(types.first) || !is_word(types.second) || !mode_ok) {
    return std::unexpected(t.error(instruction, four ? "dp4a takes .atype.btype, each .u32 or .s32"
                                                     : "dp2a takes .lo or .hi, then .atype.btype, "
                                                       "each .u32 or .s32"));
  }
  // Exactly the mode and the two types: a third type would have been ignored.
  static constexpr std::string_view k_known[] = {"lo", "hi", "u32", "s32"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() != (four ? 2U : 3U)) {
    return std::unexpected(t.unsupported(instruction));
  }
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * bb, t.read(instruction.operands[2], u32_type()));
  TRY_ASSIGN(llvm::Value * sum, t.read(instruction.operands[3], u32_type()));
  bool mixed = types.first.is_signed() != types.second.is_signed();
  if (four && mixed && t.hooks().kind() == TargetKind::amdgpu) {
    llvm::Value* sum_dot = b.CreateIntrinsic(
        llvm::Intrinsic::amdgcn_sudot4, {},
        {b.getInt1(types.first.is_signed()), a, b.getInt1(types.second.is_signed()), bb, sum,
         b.getFalse()});
    return t.write(instruction.operands[0], sum_dot, u32_type());
  }
  int first = hi ? 2 : 0;
  for (int i = 0; i < (four ? 4 : 2); ++i) {
    llvm::Value* x = lane(b, a, i, four ? 8 : 16, types.first.is_signed());
    llvm::Value* y = lane(b, bb, four ? i : first + i, 8, types.second.is_signed());
    sum = b.CreateAdd(sum, b.CreateMul(x, y));
  }
  return t.write(instruction.operands[0], sum, u32_type());
}

} // namespace

void add_bit_lowerings(LoweringTable& table)
{
  table["prmt"] = lower_prmt;
  table["lop3"] = lower_lop3;
  table["shf"] = lower_shf;
  table["bfind"] = lower_bfind;
  table["fns"] = lower_fns;
  table["dp4a"] = lower_dot;
  table["dp2a"] = lower_dot;
}

} // namespace d4r::compiler::translate
