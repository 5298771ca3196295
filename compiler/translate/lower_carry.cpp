// Carry chains, the way PTX writes multi-word arithmetic: add.cc, addc{.cc}, sub.cc, subc{.cc},
// mad{.lo,.hi}.cc and madc{.lo,.hi}{.cc} on .u32/.s32/.u64/.s64. PTX keeps one carry flag, CC.CF,
// per thread; the .cc forms write it and addc/subc/madc read it. Here it is one i1 slot per
// function (FunctionTranslator::carry_flag, promoted to SSA by mem2reg), so the chain stays plain
// LLVM IR: uadd.with.overflow, which both the host and AMDGPU (v_add_co_ci) select well.
//
// The flag is the hardware's carry, for subtraction too: sub.cc computes a + ~b + 1 and subc
// a + ~b + CF, and both leave the carry out of that sum (1 when no borrow). A chain of subs is the
// same multi-word difference either way, but a borrow flag (the ISA's prose, d = a - (b + CF))
// gives the wrong answer as soon as a chain mixes the two: sub.cc then addc, add.cc then subc,
// or the flag read back with addc 0, 0. Golden cases carry_signed_* record every .cc form on
// every type after a carry-in of 0 and 1, the flag read back both ways, and mixed chains: this
// model matches every word of all 1,152 threads (97 each); the earlier borrow flag differed in 41%
// of the words.
// The signed types have the same bits and carry: the flag is the unsigned carry out of the
// width; only mad.hi's product depends on the sign.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#extended-precision-integer-arithmetic-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

struct CarryForm {
  bool subtract = false; // sub/subc: a + ~b + (1 or CF)
  bool multiply = false; // mad/madc: a * b (.lo or .hi) + c
  bool carry_in = false; // addc/subc/madc read CC.CF
  bool carry_out = false; // .cc writes CC.CF
};

// .u32, .s32, .u64 or .s64, and none of the modifiers a carry form cannot take.
Expected<PtxType> carry_type(FunctionTranslator& t, const ptx::Instruction& instruction,
                             const CarryForm& form)
{
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  bool integer =
      type.kind == PtxType::Kind::unsigned_int || type.kind == PtxType::Kind::signed_int;
  if (!integer || (type.bits != 32 && type.bits != 64)) {
    std::string message = instruction.opcode + " with a carry takes .u32, .s32, .u64 or .s64";
    return std::unexpected(t.error(instruction, message));
  }
  static constexpr std::string_view k_known[] = {"cc", "lo", "hi", "u32", "s32", "u64", "s64",
                                                 "sat", "wide"}; // .sat, .wide: rejected below
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  if (has_modifier(instruction, "sat") || has_modifier(instruction, "wide") ||
      (!form.multiply && (has_modifier(instruction, "lo") || has_modifier(instruction, "hi")))) {
    return std::unexpected(t.unsupported(instruction));
  }
  return type;
}

// The high half of the double-width product, after the type's sign.
llvm::Value* product_high(Builder& b, llvm::Value* x, llvm::Value* y, bool is_signed)
{
  unsigned bits = x->getType()->getIntegerBitWidth();
  llvm::Type* wide = b.getIntNTy(bits * 2);
  llvm::Value* product = is_signed ? b.CreateMul(b.CreateSExt(x, wide), b.CreateSExt(y, wide))
                                   : b.CreateMul(b.CreateZExt(x, wide), b.CreateZExt(y, wide));
  return b.CreateTrunc(b.CreateLShr(product, bits), x->getType());
}

// {x + y + carry_in, carry out} through llvm.uadd.with.overflow (twice when carry_in is not a
// constant 0; at most one of the two steps carries).
std::pair<llvm::Value*, llvm::Value*> add_with_carry(Builder& b, llvm::Value* x, llvm::Value* y,
                                                     llvm::Value* carry_in)
{
  auto step = [&](llvm::Value* lhs, llvm::Value* rhs) {
    llvm::Value* pair = b.CreateBinaryIntrinsic(llvm::Intrinsic::uadd_with_overflow, lhs, rhs);
    return std::pair{b.CreateExtractValue(pair, 0), b.CreateExtractValue(pair, 1)};
  };
  auto [sum, carry] = step(x, y);
  if (auto* constant = llvm::dyn_cast<llvm::ConstantInt>(carry_in); constant && constant->isZero()) {
    return {sum, carry};
  }
  auto [total, second] = step(sum, b.CreateZExt(carry_in, x->getType()));
  return {total, b.CreateOr(carry, second)};
}

Expected<void> lower_carry_form(FunctionTranslator& t, const ptx::Instruction& instruction,
                                const CarryForm& form)
{
  TRY_ASSIGN(PtxType type, carry_type(t, instruction, form));
  TRY(expect_operands(t, instruction, form.multiply ? 4 : 3));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * lhs, t.read(instruction.operands[1], type));
  TRY_ASSIGN(llvm::Value * rhs, t.read(instruction.operands[2], type));
  if (form.multiply) {
    lhs = has_modifier(instruction, "hi") ? product_high(b, lhs, rhs, type.is_signed())
                                          : b.CreateMul(lhs, rhs); // .lo, PTX's default
    TRY_ASSIGN(rhs, t.read(instruction.operands[3], type));
  }
  // sub.cc: a + ~b + 1; subc: a + ~b + CF; add/mad: + 0 or + CF.
  llvm::Value* carry_in = form.subtract ? b.getTrue() : b.getFalse();
  if (form.carry_in) {
    carry_in = b.CreateLoad(b.getInt1Ty(), t.carry_flag(), "cc.cf");
  }
  if (form.subtract) {
    rhs = b.CreateNot(rhs);
  }
  auto [result, out] = add_with_carry(b, lhs, rhs, carry_in);
  if (form.carry_out) {
    b.CreateStore(out, t.carry_flag());
  }
  return t.write(instruction.operands[0], result, type);
}

Expected<void> lower_addc(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_carry_form(t, instruction, {false, false, true, has_modifier(instruction, "cc")});
}

Expected<void> lower_subc(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_carry_form(t, instruction, {true, false, true, has_modifier(instruction, "cc")});
}

Expected<void> lower_madc(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_carry_form(t, instruction, {false, true, true, has_modifier(instruction, "cc")});
}

} // namespace

// add.cc, sub.cc and mad.cc: lower_arith.cpp hands every .cc form of its opcodes here.
Expected<void> lower_carry_out(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::string& op = instruction.opcode;
  if (op != "add" && op != "sub" && op != "mad") {
    return std::unexpected(t.unsupported(instruction));
  }
  return lower_carry_form(t, instruction, {op == "sub", op == "mad", false, true});
}

void add_carry_lowerings(LoweringTable& table)
{
  table["addc"] = lower_addc;
  table["subc"] = lower_subc;
  table["madc"] = lower_madc;
}

} // namespace d4r::compiler::translate
