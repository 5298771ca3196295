// FunctionTranslator, part two: declarations (registers, .local/.param variables, parameters and
// return values), addresses and the .func return.

#include "compiler/translate/function_translator.hpp"

#include "compiler/translate/ptx_values.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace d4r::compiler::translate {

bool is_handle_variable(const ptx::Variable& variable)
{
  return variable.type == ".texref" || variable.type == ".samplerref" || variable.type == ".surfref";
}

std::string storage_type(const ptx::Variable& variable)
{
  return is_handle_variable(variable) ? ".b64" : variable.type;
}

Expected<int64_t> variable_size(const ptx::Variable& variable)
{
  std::optional<PtxType> type = parse_type(storage_type(variable));
  if (!type || type->kind == PtxType::Kind::pred) {
    return make_error(ErrorCode::invalid_argument,
                      "variable " + variable.name + " has unsupported type " + variable.type);
  }
  int64_t size = type->bits / 8;
  if (variable.vector == ".v2") {
    size *= 2;
  } else if (variable.vector == ".v4") {
    size *= 4;
  } else if (variable.vector == ".v8") {
    size *= 8;
  }
  for (int64_t dim : variable.dims) {
    size *= dim < 0 ? 0 : dim;
  }
  return size;
}

int64_t variable_align(const ptx::Variable& variable)
{
  if (variable.align > 0) {
    return variable.align;
  }
  std::optional<PtxType> type = parse_type(storage_type(variable));
  int64_t natural = type && type->bits >= 8 ? type->bits / 8 : 1;
  if (variable.vector == ".v2") {
    natural *= 2;
  } else if (variable.vector == ".v4") {
    natural *= 4;
  }
  return natural;
}

Expected<llvm::Type*> variable_type(llvm::LLVMContext& context, const ptx::Variable& variable)
{
  std::optional<PtxType> type = parse_type(storage_type(variable));
  if (!type) {
    return make_error(ErrorCode::invalid_argument,
                      "variable " + variable.name + " has unsupported type " + variable.type);
  }
  if (variable.dims.empty() && variable.vector.empty()) {
    return llvm_type(context, *type);
  }
  TRY_ASSIGN(int64_t size, variable_size(variable));
  return llvm::ArrayType::get(llvm::Type::getInt8Ty(context), static_cast<uint64_t>(size));
}

Error FunctionTranslator::declaration_error(const ptx::Variable& variable,
                                            const std::string& message) const
{
  std::string what = m_function.is_entry ? "kernel " : "function ";
  return Error{ErrorCode::invalid_argument, "translate: " + what + m_function.name + ": line " +
                                                std::to_string(variable.pos.line) + ": " +
                                                message};
}

Expected<void> FunctionTranslator::declare(const ptx::Variable& variable)
{
  if (variable.space == ".reg") {
    std::optional<PtxType> type = parse_type(variable.type);
    if (!type || !variable.vector.empty() || !variable.dims.empty()) {
      return std::unexpected(declaration_error(
          variable, "unsupported: register declaration " + variable.vector + variable.type + " " +
                        variable.name));
    }
    RegDecl decl;
    decl.type = *type;
    decl.range = variable.range;
    m_scopes.back().regs[variable.name] = std::move(decl);
    return {};
  }
  if (variable.space == ".local" || variable.space == ".param") {
    auto type = variable_type(context(), variable);
    if (!type) {
      return std::unexpected(declaration_error(variable, type.error().message));
    }
    Symbol symbol;
    symbol.space = variable.space == ".local" ? Space::local : Space::param;
    symbol.storage = entry_alloca(*type, variable_align(variable), variable.name);
    symbol.variable = &variable;
    m_scopes.back().symbols[variable.name] = symbol;
    return {};
  }
  auto it = m_module.body_symbols.find(&variable);
  if (it == m_module.body_symbols.end()) {
    return std::unexpected(declaration_error(
        variable, "unsupported: " + variable.space + " variable " + variable.name));
  }
  m_scopes.back().symbols[variable.name] = it->second;
  return {};
}

Expected<void> FunctionTranslator::add_param(const ptx::Variable& param, llvm::Value* argument)
{
  if (param.space == ".reg") {
    TRY(declare(param));
    TRY_ASSIGN(auto slot, reg(param.name));
    if (argument != nullptr) {
      m_builder.CreateStore(argument, slot.first);
    }
    return {};
  }
  auto type = variable_type(context(), param);
  if (!type) {
    return std::unexpected(declaration_error(param, type.error().message));
  }
  Symbol symbol;
  symbol.space = Space::param;
  symbol.storage = entry_alloca(*type, variable_align(param), param.name);
  symbol.variable = &param;
  if (argument != nullptr) {
    m_builder.CreateStore(argument, symbol.storage);
  }
  m_scopes.back().symbols[param.name] = symbol;
  return {};
}

Expected<void> FunctionTranslator::setup_params()
{
  if (m_function.is_entry) {
    const KernelSignature& signature = *m_module.kernels.at(m_function.name);
    m_param_block = hooks().kernel_param_block(env(), m_target, signature);
    for (const KernelParam& param : signature.params) {
      Symbol symbol;
      symbol.space = Space::param;
      symbol.storage = m_param_block;
      symbol.offset = param.offset;
      m_scopes.back().symbols[param.name] = symbol;
    }
    return {};
  }
  unsigned index = 0;
  for (const ptx::Variable& param : m_function.params) {
    TRY(add_param(param, m_target.getArg(index++)));
  }
  for (const ptx::Variable& result : m_function.returns) {
    TRY(add_param(result, nullptr));
  }
  return {};
}

void FunctionTranslator::emit_return()
{
  if (m_function.is_entry || m_function.returns.empty()) {
    m_builder.CreateRetVoid();
    return;
  }
  std::vector<llvm::Value*> values;
  for (const ptx::Variable& result : m_function.returns) {
    llvm::Value* value = nullptr;
    if (result.space == ".reg") {
      auto slot = reg(result.name);
      assert(slot && "return registers are declared in setup_params");
      value = m_builder.CreateLoad(slot->first->getAllocatedType(), slot->first);
    } else {
      auto* storage = llvm::cast<llvm::AllocaInst>(symbol(result.name)->storage);
      value = m_builder.CreateLoad(storage->getAllocatedType(), storage);
    }
    values.push_back(value);
  }
  if (values.size() == 1) {
    m_builder.CreateRet(values.front());
    return;
  }
  m_builder.CreateAggregateRet(values.data(), static_cast<unsigned>(values.size()));
}

llvm::Value* FunctionTranslator::to_pointer(llvm::Value* address, Space space)
{
  if (space == Space::shared) {
    return hooks().shared_pointer(env(), m_builder.CreateZExtOrTrunc(address, m_builder.getInt32Ty()));
  }
  unsigned address_space = hooks().address_space(space);
  unsigned bits = m_module.module.getDataLayout().getPointerSizeInBits(address_space);
  llvm::Value* sized = m_builder.CreateZExtOrTrunc(address, m_builder.getIntNTy(bits));
  return m_builder.CreateIntToPtr(sized, m_builder.getPtrTy(address_space));
}

Expected<llvm::Value*> FunctionTranslator::symbol_pointer(const Symbol& found, Space space,
                                                          int64_t offset)
{
  if (found.space == Space::shared) {
    llvm::Value* window =
        found.dynamic_shared
            ? hooks().dynamic_shared_symbol(env(), found.offset)
            : hooks().shared_symbol(env(), llvm::cast_or_null<llvm::GlobalVariable>(found.storage),
                                    found.offset);
    window = m_builder.CreateAdd(window, m_builder.getInt32(static_cast<uint32_t>(offset)));
    if (space == Space::shared) {
      return hooks().shared_pointer(env(), window);
    }
    llvm::Value* generic = hooks().convert_address(env(), Space::shared, true, window, 64);
    return to_pointer(generic, Space::generic);
  }
  llvm::Value* pointer =
      m_builder.CreateConstGEP1_64(m_builder.getInt8Ty(), found.storage, found.offset + offset);
  if (space == Space::generic && pointer->getType()->getPointerAddressSpace() != 0) {
    pointer = m_builder.CreateAddrSpaceCast(pointer, m_builder.getPtrTy(0));
  }
  return pointer;
}

Expected<llvm::Value*> FunctionTranslator::address(const ptx::Operand& operand, Space space)
{
  if (operand.kind != ptx::OperandKind::address || operand.elements.size() != 1) {
    return std::unexpected(error(*m_current, "expected an address [base+offset]"));
  }
  const ptx::Operand& base = operand.elements.front();
  if (base.minus || base.negated) {
    return std::unexpected(error(*m_current, "bad address base " + base.text));
  }
  int64_t offset = 0;
  if (!base.offset.empty()) {
    std::optional<uint64_t> parsed = parse_integer(base.offset);
    if (!parsed) {
      return std::unexpected(error(*m_current, "bad offset " + base.offset));
    }
    offset = static_cast<int64_t>(*parsed);
  }
  if (base.kind == ptx::OperandKind::symbol && !is_register(base.text)) {
    const Symbol* found = symbol(base.text);
    if (found == nullptr) {
      return std::unexpected(error(*m_current, "undefined symbol " + base.text));
    }
    return symbol_pointer(*found, space, offset);
  }
  PtxType type{PtxType::Kind::unsigned_int, 64, false};
  bool named = base.kind == ptx::OperandKind::symbol;
  if ((base.kind == ptx::OperandKind::reg && !is_special_register(base.text)) || named) {
    TRY_ASSIGN(auto slot, reg(base.text));
    type.bits = slot.second.bits;
  } else if (base.kind != ptx::OperandKind::integer && base.kind != ptx::OperandKind::reg) {
    return std::unexpected(error(*m_current, "bad address base " + base.text));
  }
  // A named register's offset belongs to the address, not to the register.
  TRY_ASSIGN(llvm::Value * value,
             base.kind == ptx::OperandKind::integer ? read(base, type) : read_reg(base, type));
  value = m_builder.CreateAdd(value, llvm::ConstantInt::get(value->getType(),
                                                            static_cast<uint64_t>(offset)));
  return to_pointer(value, space);
}

} // namespace d4r::compiler::translate
