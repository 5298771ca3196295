#include "compiler/translate/store_source.hpp"

#include <llvm/IR/Intrinsics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::compiler::translate {
namespace {

// Whether the .reg declaration `variable` names `name` (one name, or one of a %r<N> range).
bool declares(const ptx::Variable& variable, const std::string& name)
{
  if (variable.space != ".reg") {
    return false;
  }
  if (variable.range < 0) {
    return variable.name == name;
  }
  if (!name.starts_with(variable.name) || name.size() == variable.name.size()) {
    return false;
  }
  int64_t index = 0;
  for (char c : std::string_view(name).substr(variable.name.size())) {
    if (c < '0' || c > '9' || index > variable.range) {
      return false;
    }
    index = index * 10 + (c - '0');
  }
  return index < variable.range;
}

bool block_declares(const ptx::Block& block, const std::string& name)
{
  for (const ptx::Statement& statement : block.statements) {
    const auto* variable = std::get_if<ptx::Variable>(&statement.value);
    if (variable != nullptr && declares(*variable, name)) {
      return true;
    }
  }
  return false;
}

// The innermost block around `store` that declares `name` (the scope the store reads), or null.
const ptx::Block* declaring_block(const ptx::Block& block, const ptx::Instruction& store,
                                  const std::string& name, const ptx::Block* outer, bool& found)
{
  const ptx::Block* scope = block_declares(block, name) ? &block : outer;
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      if (instruction == &store || (instruction->pos.line == store.pos.line &&
                                    instruction->pos.column == store.pos.column &&
                                    *instruction == store)) {
        found = true;
        return scope;
      }
    } else if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      const ptx::Block* result = declaring_block(*inner, store, name, scope, found);
      if (found) {
        return result;
      }
    }
  }
  return nullptr;
}

// What the instructions that write a register are, for ptxas's typing of it.
struct Writers {
  bool integer = false;  // b/u/s types
  bool is_signed = false;
  bool floating = false; // f32/f64 as wide as the register
  bool other = false;    // no type, a half type, or a float of another width
};

bool names(const ptx::Operand& operand, const std::string& name)
{
  return (operand.kind == ptx::OperandKind::reg || operand.kind == ptx::OperandKind::symbol) &&
         operand.text == name;
}

// Whether `instruction` writes `name`: its first operand is the destination (or a vector, pair
// or call-result list of them), except for the few whose first operand is a source.
bool writes(const ptx::Instruction& instruction, const std::string& name)
{
  static constexpr std::string_view k_source_first[] = {"bar", "barrier", "nanosleep", "pmevent"};
  if (instruction.operands.empty()) {
    return false;
  }
  for (std::string_view opcode : k_source_first) {
    if (instruction.opcode == opcode) {
      return false;
    }
  }
  const ptx::Operand& first = instruction.operands[0];
  if (names(first, name)) {
    return true;
  }
  if (first.kind == ptx::OperandKind::vector || first.kind == ptx::OperandKind::pair ||
      first.kind == ptx::OperandKind::list) {
    for (const ptx::Operand& element : first.elements) {
      if (names(element, name)) {
        return true;
      }
    }
  }
  return false;
}

void classify(const ptx::Instruction& instruction, int register_bits, Writers& writers)
{
  std::optional<PtxType> type;
  for (const std::string& modifier : instruction.modifiers) {
    type = parse_type(modifier);
    if (type) {
      break; // the first type is the destination's (cvt, set, slct) or the only one
    }
  }
  if (!type || instruction.opcode == "call") {
    writers.other = true;
  } else if (type->is_float()) {
    // Only the producers the H200 was seen to convert after (gap_store_wide_*, rd_same_operand,
    // rd_cvt_widen_*, gap_select_*); cvt.ftz.f64.f32 keeps the low bits there (rd_cvt_ftz_*), as
    // if ptxas typed its result as bits; any other float producer is not guessed.
    // cvt only from another float (f32/f16 -> f64, f64 -> f32); no .sat form was seen: ptxas
    // keeps the bits of some producers (64-bit shift amounts after mul.sat.f32, cvt.f32.s8 or
    // cvt.f32.bf16 in random programs r10, r44, r57, but converts after add/max/mad.f32).
    static constexpr std::string_view k_converted[] = {"ld",  "add", "sub", "mul", "fma",
                                                       "mad", "min", "max", "slct", "cvt"};
    bool as_wide = type->bits == register_bits && !type->bf16 && type->bits >= 32;
    bool known = false;
    for (std::string_view opcode : k_converted) {
      known = known || instruction.opcode == opcode;
    }
    bool ftz = false;
    bool sat = false;
    int types = 0;
    bool from_float = true;
    for (const std::string& modifier : instruction.modifiers) {
      ftz = ftz || modifier == "ftz";
      sat = sat || modifier == "sat" || modifier == "satfinite";
      if (std::optional<PtxType> each = parse_type(modifier); each && ++types == 2) {
        from_float = each->is_float() && !each->bf16;
      }
    }
    known = known && !sat && (instruction.opcode != "cvt" || from_float);
    if (as_wide && instruction.opcode == "cvt" && ftz) {
      (type->bits == 64 && from_float ? writers.integer : writers.other) = true; // cvt.ftz.f64.f32
    } else if (as_wide && known) {
      writers.floating = true;
    } else {
      writers.other = true;
    }
  } else if (type->kind == PtxType::Kind::pred) {
    writers.other = true;
  } else {
    writers.integer = true;
    writers.is_signed = writers.is_signed || type->is_signed();
  }
}

void collect(const ptx::Block& block, const std::string& name, int register_bits,
             Writers& writers)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      if (writes(*instruction, name)) {
        classify(*instruction, register_bits, writers);
      }
    } else if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      if (!block_declares(*inner, name)) {
        collect(*inner, name, register_bits, writers);
      }
    }
  }
}

Writers writers_of(FunctionTranslator& t, const ptx::Instruction& reader, const std::string& name,
                   int register_bits)
{
  bool found = false;
  const ptx::Block* scope = declaring_block(*t.function().body, reader, name, nullptr, found);
  Writers writers;
  collect(scope != nullptr ? *scope : *t.function().body, name, register_bits, writers);
  return writers;
}

} // namespace

Expected<llvm::Value*> read_store_source(FunctionTranslator& t, const ptx::Instruction& store,
                                         const ptx::Operand& source, PtxType type)
{
  bool named = source.kind == ptx::OperandKind::reg || source.kind == ptx::OperandKind::symbol;
  if (!named || !t.is_register(source.text) || !t.function().body) {
    return t.read(source, type);
  }
  TRY_ASSIGN(auto slot, t.reg(source.text));
  const PtxType declared = slot.second;
  bool wider = declared.kind != PtxType::Kind::pred && declared.bits > type.bits;
  if (!wider) {
    return t.read(source, type);
  }
  Writers writers = writers_of(t, store, source.text, declared.bits);
  if (writers.other || (writers.integer && writers.floating)) {
    return std::unexpected(t.unsupported(store));
  }
  if (!writers.floating) {
    if (!type.is_float()) {
      return t.read(source, type); // the low bits
    }
    if (type.bits != 32 || declared.bits != 64 || writers.is_signed) {
      return std::unexpected(t.unsupported(store));
    }
    TRY_ASSIGN(llvm::Value * bits, t.read(source, PtxType{PtxType::Kind::unsigned_int, 64}));
    return t.builder().CreateUIToFP(bits, t.builder().getFloatTy());
  }
  // A float value as wide as the register.
  llvm::IRBuilder<>& b = t.builder();
  PtxType value_type{PtxType::Kind::floating, declared.bits};
  TRY_ASSIGN(llvm::Value * value, t.read(source, value_type));
  if (type.is_float()) {
    if (type.bits != 32 || declared.bits != 64 || type.bf16) {
      return std::unexpected(t.unsupported(store));
    }
    return b.CreateFPTrunc(value, b.getFloatTy());
  }
  llvm::Type* integer = b.getIntNTy(static_cast<unsigned>(type.bits));
  llvm::Intrinsic::ID saturating =
      type.is_signed() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
  llvm::Value* converted = b.CreateIntrinsic(saturating, {integer, value->getType()}, {value});
  uint64_t nan = declared.bits == 64 ? uint64_t{1} << (type.bits - 1) : 0;
  llvm::Value* is_nan = b.CreateFCmpUNO(value, value);
  return b.CreateSelect(is_nan, llvm::ConstantInt::get(integer, nan), converted);
}

} // namespace d4r::compiler::translate
