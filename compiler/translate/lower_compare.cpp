// Comparison and selection: setp (every compare operator, the .and/.or/.xor combination with a
// predicate, the p|q destination pair), set, selp, slct.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;
using Predicate = llvm::CmpInst::Predicate;

std::optional<Predicate> float_predicate(std::string_view op)
{
  static constexpr std::pair<std::string_view, Predicate> k_ops[] = {
      {"eq", Predicate::FCMP_OEQ},  {"ne", Predicate::FCMP_ONE},  {"lt", Predicate::FCMP_OLT},
      {"le", Predicate::FCMP_OLE},  {"gt", Predicate::FCMP_OGT},  {"ge", Predicate::FCMP_OGE},
      {"equ", Predicate::FCMP_UEQ}, {"neu", Predicate::FCMP_UNE}, {"ltu", Predicate::FCMP_ULT},
      {"leu", Predicate::FCMP_ULE}, {"gtu", Predicate::FCMP_UGT}, {"geu", Predicate::FCMP_UGE},
      {"num", Predicate::FCMP_ORD}, {"nan", Predicate::FCMP_UNO}};
  for (const auto& [name, predicate] : k_ops) {
    if (name == op) {
      return predicate;
    }
  }
  return std::nullopt;
}

std::optional<Predicate> int_predicate(std::string_view op, bool is_signed)
{
  static constexpr std::pair<std::string_view, Predicate> k_ops[] = {
      {"eq", Predicate::ICMP_EQ},  {"ne", Predicate::ICMP_NE},  {"lo", Predicate::ICMP_ULT},
      {"ls", Predicate::ICMP_ULE}, {"hi", Predicate::ICMP_UGT}, {"hs", Predicate::ICMP_UGE}};
  for (const auto& [name, predicate] : k_ops) {
    if (name == op) {
      return predicate;
    }
  }
  static constexpr std::pair<std::string_view, Predicate> k_ordered[] = {
      {"lt", Predicate::ICMP_SLT}, {"le", Predicate::ICMP_SLE}, {"gt", Predicate::ICMP_SGT},
      {"ge", Predicate::ICMP_SGE}};
  for (const auto& [name, predicate] : k_ordered) {
    if (name == op) {
      return is_signed ? predicate : llvm::CmpInst::getUnsignedPredicate(predicate);
    }
  }
  return std::nullopt;
}

// The modifiers setp and set implement: a compare operator, .and/.or/.xor, .ftz, and scalar types.
// The packed .f16x2/.bf16x2 forms compare each half into its own predicate (setp p|q) or half
// (set): read as one 32-bit integer they would be compared as integers, so they are
// "unsupported". `types` is how many type modifiers the form has (setp 1, set 2).
Expected<void> compare_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 size_t types)
{
  static constexpr std::string_view k_known[] = {
      "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",  "hs",  "equ", "neu",
      "ltu", "leu", "gtu", "geu", "num", "nan", "and", "or",  "xor", "ftz", "b16", "b32",
      "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"};
  TRY(known_modifiers(t, instruction, k_known));
  size_t count = 0;
  size_t combiners = 0;
  for (const std::string& modifier : instruction.modifiers) {
    count += parse_type(modifier) ? 1 : 0;
    combiners += modifier == "and" || modifier == "or" || modifier == "xor" ? 1 : 0;
  }
  if (count != types || combiners > 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

// The comparison of operands 1 and 2 as the instruction's compare operator and source type.
Expected<llvm::Value*> compare(FunctionTranslator& t, const ptx::Instruction& instruction,
                               PtxType type, size_t first)
{
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[first], type));
  TRY_ASSIGN(llvm::Value * y, t.read(instruction.operands[first + 1], type));
  bool ftz = has_modifier(instruction, "ftz");
  if (type.is_float() && type.bits == 16) {
    llvm::Type* f32 = b.getFloatTy();
    const char* name = type.bf16 ? "__d4r_ptx_cvt_f32_bf16_ex" : "__d4r_ptx_cvt_f32_f16";
    x = t.call_support(name, f32, {x, t.i32(ftz), t.i32(0)});
    y = t.call_support(name, f32, {y, t.i32(ftz), t.i32(0)});
  }
  std::optional<Predicate> predicate;
  for (const std::string& modifier : instruction.modifiers) {
    predicate = type.is_float() ? float_predicate(modifier)
                                : int_predicate(modifier, type.is_signed());
    if (predicate) {
      break;
    }
  }
  if (!predicate) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (type.is_float()) {
    if (ftz) {
      x = flush_subnormal(b, x);
      y = flush_subnormal(b, y);
    }
    return b.CreateFCmp(*predicate, x, y);
  }
  return b.CreateICmp(*predicate, x, y);
}

// `value` combined with the optional predicate operand by .and/.or/.xor.
Expected<llvm::Value*> combine(FunctionTranslator& t, const ptx::Instruction& instruction,
                               llvm::Value* value, size_t predicate_at)
{
  bool is_and = has_modifier(instruction, "and");
  bool is_or = has_modifier(instruction, "or");
  bool is_xor = has_modifier(instruction, "xor");
  if (!is_and && !is_or && !is_xor) {
    return value;
  }
  if (instruction.operands.size() <= predicate_at) {
    return std::unexpected(t.error(instruction, "the combining predicate is missing"));
  }
  TRY_ASSIGN(llvm::Value * c, t.read(instruction.operands[predicate_at], pred_type()));
  Builder& b = t.builder();
  return is_and ? b.CreateAnd(value, c) : (is_or ? b.CreateOr(value, c) : b.CreateXor(value, c));
}

Expected<void> lower_setp(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (instruction.operands.size() != 3 && instruction.operands.size() != 4) {
    return std::unexpected(t.error(instruction, "setp takes 3 or 4 operands"));
  }
  TRY(compare_modifiers(t, instruction, 1));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  TRY_ASSIGN(llvm::Value * result, compare(t, instruction, type, 1));
  const ptx::Operand& target = instruction.operands[0];
  TRY_ASSIGN(llvm::Value * p, combine(t, instruction, result, 3));
  if (target.kind != ptx::OperandKind::pair) {
    return t.write(target, p, pred_type());
  }
  TRY_ASSIGN(llvm::Value * q, combine(t, instruction, t.builder().CreateNot(result), 3));
  TRY(t.write(target.elements[0], p, pred_type()));
  return t.write(target.elements[1], q, pred_type());
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}: all ones (1.0f for .f32) or zero.
Expected<void> lower_set(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (instruction.operands.size() != 3 && instruction.operands.size() != 4) {
    return std::unexpected(t.error(instruction, "set takes 3 or 4 operands"));
  }
  TRY(compare_modifiers(t, instruction, 2));
  TRY_ASSIGN(auto types, two_types(t, instruction));
  auto [to, from] = types;
  TRY_ASSIGN(llvm::Value * result, compare(t, instruction, from, 1));
  TRY_ASSIGN(result, combine(t, instruction, result, 3));
  Builder& b = t.builder();
  llvm::Type* type = llvm_type(t.context(), to);
  // 1.0 in the destination format: f16 and bf16 travel as their bits (0x3c00, 0x3f80).
  llvm::Value* yes = !to.is_float()    ? llvm::ConstantInt::getAllOnesValue(type)
                     : to.bits == 16 ? b.getInt16(to.bf16 ? 0x3f80 : 0x3c00)
                                     : llvm::ConstantFP::get(type, 1.0);
  return t.write(instruction.operands[0],
                 b.CreateSelect(result, yes, llvm::Constant::getNullValue(type)), to);
}

Expected<void> lower_selp(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  // A selection moves bits, so any one scalar type (f16x2 as its 32 bits) is exact.
  static constexpr std::string_view k_known[] = {"b16", "b32", "b64", "u16", "u32", "u64",
                                                 "s16", "s32", "s64", "f16", "bf16", "f16x2",
                                                 "bf16x2", "f32", "f64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 4));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  // A float selection is made on the bits: NaNs travel unchanged (nan_bits_f32/f64: selp of
  // 0xffa00005 gives 0xffa00005 on an H200), and no float select can be rewritten into a min/max.
  // Immediates are read as the float type first, so that a decimal literal is converted.
  Builder& b = t.builder();
  const PtxType bits{PtxType::Kind::bits, type.bits, false};
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], type));
  TRY_ASSIGN(llvm::Value * bb, t.read(instruction.operands[2], type));
  TRY_ASSIGN(llvm::Value * c, t.read(instruction.operands[3], pred_type()));
  llvm::Type* itype = b.getIntNTy(static_cast<unsigned>(type.bits));
  a = b.CreateBitCast(a, itype);
  bb = b.CreateBitCast(bb, itype);
  return t.write(instruction.operands[0], b.CreateSelect(c, a, bb), bits);
}

// slct.dtype.s32 d, a, b, c: c >= 0 ? a : b (slct{.ftz}.dtype.f32 compares a float c).
Expected<void> lower_slct(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"ftz", "b16", "b32", "b64", "u16", "u32", "u64",
                                                 "s16", "s32", "s64", "f32", "f64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 4));
  TRY_ASSIGN(auto types, two_types(t, instruction));
  auto [to, selector] = types;
  size_t count = 0;
  for (const std::string& modifier : instruction.modifiers) {
    count += parse_type(modifier) ? 1 : 0;
  }
  bool selector_ok = selector == PtxType{PtxType::Kind::signed_int, 32, false} ||
                     selector == f32_type();
  if (count != 2 || !selector_ok) {
    return std::unexpected(t.unsupported(instruction)); // PTX: c is .s32 or .f32
  }
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * a, t.read(instruction.operands[1], to));
  TRY_ASSIGN(llvm::Value * bb, t.read(instruction.operands[2], to));
  TRY_ASSIGN(llvm::Value * c, t.read(instruction.operands[3], selector));
  llvm::Value* take_a = nullptr;
  if (selector.is_float()) {
    if (has_modifier(instruction, "ftz")) {
      c = flush_subnormal(b, c);
    }
    take_a = b.CreateFCmpOGE(c, llvm::ConstantFP::get(c->getType(), 0.0));
  } else {
    take_a = b.CreateICmpSGE(c, llvm::ConstantInt::get(c->getType(), 0));
  }
  return t.write(instruction.operands[0], b.CreateSelect(take_a, a, bb), to);
}

} // namespace

void add_compare_lowerings(LoweringTable& table)
{
  table["setp"] = lower_setp;
  table["set"] = lower_set;
  table["selp"] = lower_selp;
  table["slct"] = lower_slct;
}

} // namespace d4r::compiler::translate
