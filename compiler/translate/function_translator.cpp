#include "compiler/translate/function_translator.hpp"

#include "compiler/translate/lowering.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <variant>

namespace d4r::compiler::translate {

std::optional<PtxType> parse_type(std::string_view name)
{
  if (!name.empty() && name.front() == '.') {
    name.remove_prefix(1);
  }
  using Kind = PtxType::Kind;
  if (name == "pred") {
    return PtxType{Kind::pred, 1, false};
  }
  if (name == "f16" || name == "bf16") {
    return PtxType{Kind::floating, 16, name == "bf16"};
  }
  if (name == "f16x2" || name == "bf16x2") {
    return PtxType{Kind::bits, 32, name == "bf16x2"};
  }
  if (name.size() < 2) {
    return std::nullopt;
  }
  Kind kind = Kind::bits;
  switch (name.front()) {
  case 'b': kind = Kind::bits; break;
  case 'u': kind = Kind::unsigned_int; break;
  case 's': kind = Kind::signed_int; break;
  case 'f': kind = Kind::floating; break;
  default: return std::nullopt;
  }
  int bits = 0;
  std::string_view digits = name.substr(1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  bool valid = kind == Kind::floating ? (bits == 32 || bits == 64)
                                      : (bits == 8 || bits == 16 || bits == 32 || bits == 64 ||
                                         (kind == Kind::bits && bits == 128));
  if (!valid) {
    return std::nullopt;
  }
  return PtxType{kind, bits, false};
}

llvm::Type* llvm_type(llvm::LLVMContext& context, PtxType type)
{
  if (type.kind == PtxType::Kind::pred) {
    return llvm::Type::getInt1Ty(context);
  }
  if (type.kind == PtxType::Kind::floating && type.bits == 32) {
    return llvm::Type::getFloatTy(context);
  }
  if (type.kind == PtxType::Kind::floating && type.bits == 64) {
    return llvm::Type::getDoubleTy(context);
  }
  return llvm::Type::getIntNTy(context, static_cast<unsigned>(type.bits));
}

std::string type_spelling(PtxType type)
{
  switch (type.kind) {
  case PtxType::Kind::pred: return "pred";
  case PtxType::Kind::bits: return "b" + std::to_string(type.bits);
  case PtxType::Kind::unsigned_int: return "u" + std::to_string(type.bits);
  case PtxType::Kind::signed_int: return "s" + std::to_string(type.bits);
  case PtxType::Kind::floating:
    return (type.bf16 ? "bf" : "f") + std::to_string(type.bits);
  }
  return "?";
}

llvm::Value* adapt_value(llvm::IRBuilder<>& builder, llvm::Value* value, PtxType from, PtxType to)
{
  if (from == to) {
    return value;
  }
  llvm::LLVMContext& context = builder.getContext();
  if (value->getType()->isFloatingPointTy()) {
    value = builder.CreateBitCast(value, builder.getIntNTy(static_cast<unsigned>(from.bits)));
  }
  if (to.kind == PtxType::Kind::pred) {
    return from.kind == PtxType::Kind::pred ? value : builder.CreateIsNotNull(value);
  }
  unsigned to_bits = static_cast<unsigned>(to.bits);
  if (static_cast<unsigned>(from.bits) > to_bits) {
    value = builder.CreateTrunc(value, builder.getIntNTy(to_bits));
  } else if (static_cast<unsigned>(from.bits) < to_bits) {
    value = from.is_signed() ? builder.CreateSExt(value, builder.getIntNTy(to_bits))
                             : builder.CreateZExt(value, builder.getIntNTy(to_bits));
  }
  llvm::Type* target = llvm_type(context, to);
  return target->isFloatingPointTy() ? builder.CreateBitCast(value, target) : value;
}

FunctionTranslator::FunctionTranslator(ModuleState& module, const ptx::Function& function,
                                       llvm::Function& target)
    : m_module(module), m_function(function), m_target(target), m_builder(module.context)
{
}

Error FunctionTranslator::error(const ptx::Instruction& instruction,
                                const std::string& message) const
{
  std::string what = m_function.is_entry ? "kernel " : "function ";
  return Error{ErrorCode::invalid_argument,
               "translate: " + what + m_function.name + ": line " +
                   std::to_string(instruction.pos.line) + ": " + message};
}

Error FunctionTranslator::unsupported(const ptx::Instruction& instruction) const
{
  std::string what = m_function.is_entry ? "kernel " : "function ";
  std::string opcode = instruction.opcode;
  for (const std::string& modifier : instruction.modifiers) {
    opcode += "." + modifier;
  }
  return Error{ErrorCode::invalid_argument, "translate: " + what + m_function.name +
                                                ": unsupported: " + opcode + " at line " +
                                                std::to_string(instruction.pos.line)};
}

llvm::AllocaInst* FunctionTranslator::entry_alloca(llvm::Type* type, int64_t align,
                                                   const std::string& name)
{
  llvm::IRBuilder<> entry(m_entry);
  llvm::AllocaInst* slot = entry.CreateAlloca(type, nullptr, name);
  if (align > 0) {
    slot->setAlignment(llvm::Align(static_cast<uint64_t>(align)));
  }
  return slot;
}

llvm::AllocaInst* FunctionTranslator::carry_flag()
{
  if (m_carry == nullptr) {
    m_carry = entry_alloca(m_builder.getInt1Ty(), 0, "cc.cf");
    llvm::IRBuilder<> entry(m_entry);
    entry.CreateStore(entry.getFalse(), m_carry);
  }
  return m_carry;
}

Expected<void> FunctionTranslator::translate()
{
  m_entry = llvm::BasicBlock::Create(context(), "entry", &m_target);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(context(), "body", &m_target);
  m_builder.SetInsertPoint(body);
  m_thread = hooks().thread_argument(m_target, m_function.is_entry);
  m_scopes.emplace_back();
  TRY(setup_params());
  assert(m_function.body && "only definitions are translated");
  TRY(collect_labels(*m_function.body));
  TRY(translate_block(*m_function.body));
  if (m_builder.GetInsertBlock()->getTerminator() == nullptr) {
    emit_return();
  }
  llvm::IRBuilder<> entry(m_entry);
  entry.CreateBr(body);
  return {};
}

Expected<void> FunctionTranslator::collect_labels(const ptx::Block& block)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* label = std::get_if<ptx::Label>(&statement.value)) {
      if (m_labels.contains(label->name)) {
        return make_error(ErrorCode::invalid_argument,
                          "translate: function " + m_function.name + ": line " +
                              std::to_string(label->pos.line) + ": label " + label->name +
                              " is defined twice");
      }
      m_labels[label->name] = llvm::BasicBlock::Create(context(), label->name, &m_target);
    } else if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      TRY(collect_labels(*inner));
    }
  }
  return {};
}

Expected<void> FunctionTranslator::translate_block(const ptx::Block& block)
{
  m_scopes.emplace_back();
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      TRY(translate_instruction(*instruction));
    } else if (const auto* label = std::get_if<ptx::Label>(&statement.value)) {
      llvm::BasicBlock* target = m_labels.at(label->name);
      if (m_builder.GetInsertBlock()->getTerminator() == nullptr) {
        m_builder.CreateBr(target);
      }
      m_builder.SetInsertPoint(target);
    } else if (const auto* variable = std::get_if<ptx::Variable>(&statement.value)) {
      TRY(declare(*variable));
    } else if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      TRY(translate_block(*inner));
    }
  }
  m_scopes.pop_back();
  return {};
}

void FunctionTranslator::start_dead_block()
{
  m_builder.SetInsertPoint(llvm::BasicBlock::Create(context(), "dead", &m_target));
}

Expected<void> FunctionTranslator::translate_instruction(const ptx::Instruction& instruction)
{
  m_current = &instruction;
  Lowering lowering = find_lowering(instruction.opcode);
  if (lowering == nullptr) {
    return std::unexpected(unsupported(instruction));
  }
  if (m_builder.GetInsertBlock()->getTerminator() != nullptr) {
    start_dead_block();
  }
  if (!instruction.guard) {
    return lowering(*this, instruction);
  }
  ptx::Operand predicate;
  predicate.kind = ptx::OperandKind::reg;
  predicate.text = instruction.guard->predicate;
  TRY_ASSIGN(llvm::Value * condition, read(predicate, PtxType{PtxType::Kind::pred, 1, false}));
  llvm::BasicBlock* then = llvm::BasicBlock::Create(context(), "guarded", &m_target);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(context(), "next", &m_target);
  if (instruction.guard->negated) {
    m_builder.CreateCondBr(condition, next, then);
  } else {
    m_builder.CreateCondBr(condition, then, next);
  }
  m_builder.SetInsertPoint(then);
  TRY(lowering(*this, instruction));
  if (m_builder.GetInsertBlock()->getTerminator() == nullptr) {
    m_builder.CreateBr(next);
  }
  m_builder.SetInsertPoint(next);
  return {};
}

Expected<std::pair<llvm::AllocaInst*, PtxType>> FunctionTranslator::reg(const std::string& name)
{
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') {
    --digits;
  }
  std::string prefix = name.substr(0, digits);
  int64_t index = -1;
  if (digits < name.size()) {
    index = std::stoll(name.substr(digits));
  }
  for (auto scope = m_scopes.rbegin(); scope != m_scopes.rend(); ++scope) {
    auto exact = scope->regs.find(name);
    if (exact != scope->regs.end() && exact->second.range < 0) {
      RegDecl& decl = exact->second;
      if (decl.slots.empty()) {
        decl.slots[0] = entry_alloca(llvm_type(context(), decl.type), 0, name);
      }
      return std::pair{decl.slots[0], decl.type};
    }
    auto ranged = scope->regs.find(prefix);
    if (index >= 0 && ranged != scope->regs.end() && index < ranged->second.range) {
      RegDecl& decl = ranged->second;
      llvm::AllocaInst*& slot = decl.slots[index];
      if (slot == nullptr) {
        slot = entry_alloca(llvm_type(context(), decl.type), 0, name);
      }
      return std::pair{slot, decl.type};
    }
  }
  return std::unexpected(Error{ErrorCode::invalid_argument,
                               m_current != nullptr
                                   ? error(*m_current, "undefined register " + name).message
                                   : "translate: function " + m_function.name +
                                         ": undefined register " + name});
}

bool FunctionTranslator::is_register(const std::string& name) const
{
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') {
    --digits;
  }
  for (const Scope& scope : m_scopes) {
    auto exact = scope.regs.find(name);
    if (exact != scope.regs.end() && exact->second.range < 0) {
      return true;
    }
    auto ranged = scope.regs.find(name.substr(0, digits));
    if (digits < name.size() && ranged != scope.regs.end() && ranged->second.range >= 0) {
      return true;
    }
  }
  return false;
}

const Symbol* FunctionTranslator::symbol(const std::string& name) const
{
  for (auto scope = m_scopes.rbegin(); scope != m_scopes.rend(); ++scope) {
    auto it = scope->symbols.find(name);
    if (it != scope->symbols.end()) {
      return &it->second;
    }
  }
  auto it = m_module.symbols.find(name);
  return it == m_module.symbols.end() ? nullptr : &it->second;
}

llvm::BasicBlock* FunctionTranslator::label(const std::string& name) const
{
  auto it = m_labels.find(name);
  return it == m_labels.end() ? nullptr : it->second;
}

llvm::FunctionCallee FunctionTranslator::support(std::string_view name, llvm::Type* result,
                                                 llvm::ArrayRef<llvm::Type*> params)
{
  llvm::FunctionType* type = llvm::FunctionType::get(result, params, false);
  return m_module.module.getOrInsertFunction(llvm::StringRef(name.data(), name.size()), type);
}

llvm::Value* FunctionTranslator::call_support(std::string_view name, llvm::Type* result,
                                              llvm::ArrayRef<llvm::Value*> args)
{
  std::vector<llvm::Type*> params;
  for (llvm::Value* arg : args) {
    params.push_back(arg->getType());
  }
  return m_builder.CreateCall(support(name, result, params), args);
}

Expected<llvm::Value*> FunctionTranslator::read(const ptx::Operand& operand, PtxType type)
{
  if (operand.minus) {
    return std::unexpected(
        error(*m_current, "unsupported: negated source operand -" + operand.text));
  }
  bool named_register = operand.kind == ptx::OperandKind::symbol && operand.offset.empty() &&
                        is_register(operand.text);
  if (operand.negated) {
    // `!p` is a predicate's negation, whether the register is spelled %p or p (inline-asm locals
    // have no '%'; the '!' on those was once ignored). Anything else negated is not PTX.
    if (type.kind != PtxType::Kind::pred ||
        (operand.kind != ptx::OperandKind::reg && !named_register)) {
      return std::unexpected(error(*m_current, "only a predicate register can be negated: !" +
                                                   operand.text));
    }
    TRY_ASSIGN(llvm::Value * value, read_reg(operand, type));
    return m_builder.CreateNot(value);
  }
  switch (operand.kind) {
  case ptx::OperandKind::reg: return read_reg(operand, type);
  case ptx::OperandKind::integer:
  case ptx::OperandKind::floating: return read_immediate(operand, type);
  case ptx::OperandKind::symbol:
    if (named_register) {
      return read_reg(operand, type);
    }
    return read_symbol(operand, type);
  case ptx::OperandKind::address:
  case ptx::OperandKind::vector:
  case ptx::OperandKind::list:
  case ptx::OperandKind::pair:
  case ptx::OperandKind::sink: break;
  }
  return std::unexpected(error(*m_current, "an address, vector or list operand is not a value"));
}

Expected<llvm::Value*> FunctionTranslator::read_reg(const ptx::Operand& operand, PtxType type)
{
  if (operand.minus) {
    // Only vmad takes -a, and lower_video.cpp reads its operands' negations itself: anywhere else
    // a lowering would read the register as if the '-' were not there.
    return std::unexpected(
        error(*m_current, "unsupported: negated source operand -" + operand.text));
  }
  if (operand.text == "%is_explicit_cluster") {
    // 1 in a kernel declared with a cluster shape (.explicitcluster, .reqnctapercluster): what
    // the register says is the kernel's, so a .func cannot know it.
    if (!m_function.is_entry) {
      return std::unexpected(unsupported(*m_current));
    }
    bool explicit_cluster = std::ranges::any_of(m_function.performance, [](const auto& directive) {
      return directive.name == ".explicitcluster" || directive.name == ".reqnctapercluster";
    });
    return adapt_value(m_builder, m_builder.getInt32(explicit_cluster ? 1 : 0),
                       PtxType{PtxType::Kind::unsigned_int, 32, false}, type);
  }
  PtxType u32{PtxType::Kind::unsigned_int, 32, false};
  if (is_cluster_register(operand.text)) { // lower_cluster.cpp: clusters of one CTA
    TRY_ASSIGN(llvm::Value * value, cluster_register(*this, *m_current, operand.text));
    return adapt_value(m_builder, value, u32, type);
  }
  if (operand.text == "%dynamic_smem_size") {
    // The launch's dynamic .shared bytes: what the block has beyond the kernel's static part, so
    // a .func (whose kernel, and static part, this translation cannot know) cannot read it.
    if (!m_function.is_entry) {
      return std::unexpected(unsupported(*m_current));
    }
    const KernelSignature* signature = m_module.kernels.at(m_function.name);
    llvm::Value* bytes = hooks().dynamic_shared_size(env(), signature->static_shared_bytes);
    return adapt_value(m_builder, bytes, u32, type);
  }
  if (is_special_register(operand.text)) {
    llvm::Value* special = hooks().special_register(env(), operand.text);
    if (special == nullptr) { // one neither target models (%envregN, %aggr_smem_size, ...)
      return std::unexpected(unsupported(*m_current));
    }
    PtxType from{PtxType::Kind::unsigned_int,
                 static_cast<int>(special->getType()->getIntegerBitWidth()), false};
    return adapt_value(m_builder, special, from, type);
  }
  TRY_ASSIGN(auto slot, reg(operand.text));
  llvm::Value* value = m_builder.CreateLoad(slot.first->getAllocatedType(), slot.first);
  return adapt_value(m_builder, value, slot.second, type);
}

Expected<llvm::Value*> FunctionTranslator::read_immediate(const ptx::Operand& operand,
                                                          PtxType type)
{
  // Which immediate fits which operand follows ptxas 13 (issue 11): an integer literal is never a
  // float operand and a float literal never an integer one, except a 0f literal as .b32 and a 0d
  // or decimal one as .b64 (their bits); f16/bf16 operands take no immediate at all. Anything
  // else is rejected rather than given a meaning ptxas would not.
  llvm::Type* target = llvm_type(context(), type);
  auto mismatch = [&]() {
    return std::unexpected(error(*m_current, "the immediate " + operand.text + " cannot be a ." +
                                                 type_spelling(type) + " operand"));
  };
  if (operand.kind == ptx::OperandKind::integer) {
    std::optional<uint64_t> value = parse_integer(operand.text);
    if (!value) {
      return std::unexpected(error(*m_current, "bad integer " + operand.text));
    }
    if (type.kind == PtxType::Kind::floating) {
      return mismatch();
    }
    if (type.kind == PtxType::Kind::pred && *value > 1 && *value != ~uint64_t{0}) {
      // A predicate immediate is 0, 1 or -1 (true: nvcc writes `mov.pred %p, -1`); truncating 2
      // to i1 would make it false.
      return mismatch();
    }
    return llvm::ConstantInt::get(target, *value); // truncated to the width, as ptxas does
  }
  std::optional<FloatLiteral> literal = parse_float(operand.text);
  if (!literal) {
    return std::unexpected(error(*m_current, "bad floating-point constant " + operand.text));
  }
  if (target->isDoubleTy() && literal->bits == 32) {
    // A 0f literal in an f64 operand is its 32 bits zero-extended, not its value (immediates:
    // mov.f64 d, 0f3FAAAAAB gives 0x000000003FAAAAAB on an H200; cvt.rn.f32.f64 of 0f3EAAAAAB
    // gives 0).
    return llvm::ConstantExpr::getBitCast(m_builder.getInt64(literal->raw), target);
  }
  if (target->isFloatingPointTy()) {
    return float_constant(target, *literal); // 0d or decimal in an f32 operand: its value, rounded
  }
  if (type.kind != PtxType::Kind::bits || type.bits != literal->bits) {
    return mismatch();
  }
  return llvm::ConstantInt::get(target, literal->raw);
}

Expected<llvm::Value*> FunctionTranslator::read_symbol(const ptx::Operand& operand, PtxType type)
{
  int64_t offset = 0;
  if (!operand.offset.empty()) {
    std::optional<uint64_t> parsed = parse_integer(operand.offset);
    if (!parsed) {
      return std::unexpected(error(*m_current, "bad offset " + operand.offset));
    }
    offset = static_cast<int64_t>(*parsed);
  }
  PtxType from{PtxType::Kind::unsigned_int, 64, false};
  if (const Symbol* found = symbol(operand.text)) {
    if (found->variable != nullptr && is_handle_variable(*found->variable)) {
      // mov.u64 %rd, tex: a .texref's value is its handle (unified mode), which the variable holds.
      if (offset != 0 || found->space != Space::global) {
        return std::unexpected(error(*m_current, "unsupported: " + operand.text + " with an offset"));
      }
      return adapt_value(m_builder, m_builder.CreateLoad(m_builder.getInt64Ty(), found->storage), from, type);
    }
    if (found->space == Space::shared) {
      llvm::Value* address =
          found->dynamic_shared
              ? hooks().dynamic_shared_symbol(env(), found->offset)
              : hooks().shared_symbol(env(), llvm::cast_or_null<llvm::GlobalVariable>(found->storage),
                                      found->offset);
      address = m_builder.CreateAdd(address, m_builder.getInt32(static_cast<uint32_t>(offset)));
      return adapt_value(m_builder, address, PtxType{PtxType::Kind::unsigned_int, 32, false}, type);
    }
    // The address of a parameter (clang passes a by-value struct so, and Triton takes it too)
    // is where its copy lives: the kernel's parameter block or the function's argument slot,
    // both in the .param space that ld.param through a register reads (function_scope.cpp).
    llvm::Value* pointer = m_builder.CreateConstGEP1_64(
        m_builder.getInt8Ty(), found->storage, found->offset + offset);
    unsigned bits = m_module.module.getDataLayout().getPointerSizeInBits(
        pointer->getType()->getPointerAddressSpace());
    llvm::Value* address = m_builder.CreatePtrToInt(pointer, m_builder.getIntNTy(bits));
    from.bits = static_cast<int>(bits);
    return adapt_value(m_builder, address, from, type);
  }
  if (llvm::Function* function = m_module.module.getFunction(operand.text)) {
    return adapt_value(m_builder, m_builder.CreatePtrToInt(function, m_builder.getInt64Ty()), from,
                       type);
  }
  if (operand.text == "WARP_SZ") { // the ISA's one predefined identifier: the warp size
    llvm::Value* size = m_builder.getInt32(static_cast<uint32_t>(32 + offset));
    return adapt_value(m_builder, size, PtxType{PtxType::Kind::unsigned_int, 32, false}, type);
  }
  return std::unexpected(error(*m_current, "undefined symbol " + operand.text));
}

Expected<void> FunctionTranslator::write(const ptx::Operand& operand, llvm::Value* value,
                                         PtxType type)
{
  if (operand.kind == ptx::OperandKind::sink) {
    return {};
  }
  if (operand.negated || operand.minus) {
    return std::unexpected(error(*m_current, "a destination cannot be negated: " +
                                                 std::string(operand.negated ? "!" : "-") +
                                                 operand.text));
  }
  bool named_register = operand.kind == ptx::OperandKind::symbol && is_register(operand.text);
  if (operand.kind != ptx::OperandKind::reg && !named_register) {
    return std::unexpected(error(*m_current, "destination " + operand.text + " is not a register"));
  }
  TRY_ASSIGN(auto slot, reg(operand.text));
  llvm::Value* stored = adapt_value(m_builder, value, type, slot.second);
  m_builder.CreateStore(stored, slot.first);
  return {};
}

} // namespace d4r::compiler::translate
