// Comparison and selection: setp (every compare operator, the .and/.or/.xor combination with a
// predicate, the p|q destination pair), set, selp, slct.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

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

// The modifiers setp and set implement: a compare operator, .and/.or/.xor, .ftz, and the types
// (the packed .f16x2/.bf16x2 ones included: lower_setp_packed, lower_set_packed). `types` is how
// many type modifiers the form has (setp 1, set 2).
Expected<void> compare_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 size_t types)
{
  static constexpr std::string_view k_known[] = {
      "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",  "hs",  "equ", "neu",
      "ltu", "leu", "gtu", "geu", "num", "nan", "and", "or",  "xor", "ftz", "b16", "b32",
      "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "bf16", "f32", "f64", "f16x2",
      "bf16x2"};
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

// f16 bits with .ftz: a subnormal becomes a zero of its sign (PTX: setp/set .ftz.f16 flush
// subnormal inputs; widened, an f16 subnormal is a normal f32 that flush_subnormal would keep).
llvm::Value* flush_f16(Builder& b, llvm::Value* h)
{
  llvm::Value* tiny = b.CreateICmpEQ(b.CreateAnd(h, 0x7c00), b.getInt16(0));
  return b.CreateSelect(tiny, b.CreateAnd(h, 0x8000), h);
}

// x CmpOp y as the instruction's compare operator and source type (values already read).
Expected<llvm::Value*> compare_values(FunctionTranslator& t, const ptx::Instruction& instruction,
                                      PtxType type, llvm::Value* x, llvm::Value* y)
{
  Builder& b = t.builder();
  bool ftz = has_modifier(instruction, "ftz");
  if (type.is_float() && type.bits == 16) {
    llvm::Type* f32 = b.getFloatTy();
    if (ftz && !type.bf16) {
      x = flush_f16(b, x);
      y = flush_f16(b, y);
    }
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

// The comparison of operands first and first + 1.
Expected<llvm::Value*> compare(FunctionTranslator& t, const ptx::Instruction& instruction,
                               PtxType type, size_t first)
{
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[first], type));
  TRY_ASSIGN(llvm::Value * y, t.read(instruction.operands[first + 1], type));
  return compare_values(t, instruction, type, x, y);
}

bool is_packed(std::string_view modifier)
{
  return modifier == "f16x2" || modifier == "bf16x2";
}

// The packed source type's name (the last type modifier) when it is f16x2 or bf16x2.
std::optional<std::string> packed_source(const ptx::Instruction& instruction)
{
  for (auto it = instruction.modifiers.rbegin(); it != instruction.modifiers.rend(); ++it) {
    if (parse_type(*it)) {
      return is_packed(*it) ? std::optional<std::string>(*it) : std::nullopt;
    }
  }
  return std::nullopt;
}

// Each half of packed operands 1 and 2 compared as f16/bf16: [0] the lower halves, [1] the upper.
Expected<std::array<llvm::Value*, 2>> compare_halves(FunctionTranslator& t,
                                                     const ptx::Instruction& instruction, bool bf16)
{
  Builder& b = t.builder();
  const PtxType bits32{PtxType::Kind::bits, 32, false};
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[1], bits32));
  TRY_ASSIGN(llvm::Value * y, t.read(instruction.operands[2], bits32));
  const PtxType half{PtxType::Kind::floating, 16, bf16};
  std::array<llvm::Value*, 2> result{};
  for (int part = 0; part < 2; ++part) {
    auto lane = [&](llvm::Value* v) {
      return b.CreateTrunc(b.CreateLShr(v, static_cast<uint64_t>(16 * part)), b.getInt16Ty());
    };
    TRY_ASSIGN(result[static_cast<size_t>(part)],
               compare_values(t, instruction, half, lane(x), lane(y)));
  }
  return result;
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
  const ptx::Operand& target = instruction.operands[0];
  if (std::optional<std::string> packed = packed_source(instruction)) {
    // setp.CmpOp{.BoolOp}{.ftz}.f16x2 p|q, a, b{, c}: p from the lower halves, q from the upper,
    // each combined with c (PTX ISA, half precision setp). ptxas 13 also takes a single p, which
    // the ISA does not define: on the H200 it is the lower halves' result (half_compare_*); with
    // a combining predicate it is unsupported.
    bool bf16_ftz = *packed == "bf16x2" && has_modifier(instruction, "ftz");
    bool single = target.kind != ptx::OperandKind::pair;
    if (bf16_ftz || (single && instruction.operands.size() != 3)) {
      return std::unexpected(t.unsupported(instruction));
    }
    TRY_ASSIGN(auto halves, compare_halves(t, instruction, *packed == "bf16x2"));
    if (single) {
      return t.write(target, halves[0], pred_type());
    }
    TRY_ASSIGN(llvm::Value * p, combine(t, instruction, halves[0], 3));
    TRY_ASSIGN(llvm::Value * q, combine(t, instruction, halves[1], 3));
    TRY(t.write(target.elements[0], p, pred_type()));
    return t.write(target.elements[1], q, pred_type());
  }
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  TRY_ASSIGN(llvm::Value * result, compare(t, instruction, type, 1));
  TRY_ASSIGN(llvm::Value * p, combine(t, instruction, result, 3));
  if (target.kind != ptx::OperandKind::pair) {
    return t.write(target, p, pred_type());
  }
  TRY_ASSIGN(llvm::Value * q, combine(t, instruction, t.builder().CreateNot(result), 3));
  TRY(t.write(target.elements[0], p, pred_type()));
  return t.write(target.elements[1], q, pred_type());
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.f16x2 d, a, b{, c} (and bf16x2): each half of d from the
// comparison of the same halves of a and b, combined with c: 1.0 (0x3c00) or 0 for dtype .f16x2, 0x3f80 or 0 for .bf16x2, 0xffff
// or 0 for .u32/.s32 (PTX ISA, half precision set). Other destinations are unsupported.
Expected<void> lower_set_packed(FunctionTranslator& t, const ptx::Instruction& instruction,
                                const std::string& to, const std::string& from)
{
  bool bf16 = from == "bf16x2";
  uint64_t yes = 0xffff;
  if (to == "f16x2" || to == "bf16x2") {
    yes = bf16 ? 0x3f80 : 0x3c00;
  }
  bool integer = to == "u32" || to == "s32";
  if ((!integer && to != from) || (bf16 && has_modifier(instruction, "ftz"))) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(auto halves, compare_halves(t, instruction, bf16));
  Builder& b = t.builder();
  llvm::Value* result = b.getInt32(0);
  for (size_t part = 0; part < 2; ++part) {
    TRY_ASSIGN(llvm::Value * bit, combine(t, instruction, halves[part], 3));
    llvm::Value* lane = b.CreateSelect(bit, b.getInt32(static_cast<uint32_t>(yes << (16 * part))),
                                       b.getInt32(0));
    result = b.CreateOr(result, lane);
  }
  return t.write(instruction.operands[0], result, PtxType{PtxType::Kind::bits, 32, false});
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}: all ones (1.0f for .f32) or zero.
Expected<void> lower_set(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (instruction.operands.size() != 3 && instruction.operands.size() != 4) {
    return std::unexpected(t.error(instruction, "set takes 3 or 4 operands"));
  }
  TRY(compare_modifiers(t, instruction, 2));
  std::vector<std::string> names;
  for (const std::string& modifier : instruction.modifiers) {
    if (parse_type(modifier)) {
      names.push_back(modifier);
    }
  }
  if (is_packed(names[1])) {
    return lower_set_packed(t, instruction, names[0], names[1]);
  }
  if (is_packed(names[0])) {
    return std::unexpected(t.unsupported(instruction)); // a packed result needs packed sources
  }
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
