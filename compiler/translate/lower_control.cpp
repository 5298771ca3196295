// Control flow: bra (and bra.uni), ret, exit, call (with .param arguments, or registers as the
// splice pass passes them), trap. A guard around any of them is handled by FunctionTranslator.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#control-flow-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Module.h>

namespace d4r::compiler::translate {

namespace {

// .uni asserts that the branch (call, return) is non-divergent: a performance hint.
constexpr std::string_view k_uniform[] = {"uni"};

Expected<void> lower_bra(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_uniform));
  TRY(expect_operands(t, instruction, 1));
  const ptx::Operand& target = instruction.operands.front();
  llvm::BasicBlock* block = t.label(target.text);
  if (target.kind != ptx::OperandKind::symbol || block == nullptr) {
    return std::unexpected(t.error(instruction, "unknown branch target " + target.text));
  }
  t.builder().CreateBr(block);
  return {};
}

Expected<void> lower_ret(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_uniform));
  TRY(expect_operands(t, instruction, 0));
  t.emit_return();
  return {};
}

Expected<void> lower_exit(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, {}));
  TRY(expect_operands(t, instruction, 0));
  if (!t.is_kernel()) {
    return std::unexpected(t.unsupported(instruction));
  }
  t.emit_return();
  return {};
}

Expected<void> lower_trap(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, {}));
  TRY(expect_operands(t, instruction, 0));
  t.hooks().trap(t.env(), t.next_site());
  return {};
}

// One call argument: a .param variable declared in the calling scope (nvcc) or a register or
// immediate (the splice pass), as the callee's parameter `param`.
Expected<llvm::Value*> call_argument(FunctionTranslator& t, const ptx::Instruction& instruction,
                                     const ptx::Operand& operand, const ptx::Variable& param,
                                     llvm::Type* type)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    const Symbol* symbol = t.symbol(operand.text);
    if (symbol == nullptr || symbol->space != Space::param) {
      return std::unexpected(t.error(instruction, "call argument " + operand.text +
                                                      " is not a .param variable"));
    }
    return t.builder().CreateLoad(type, symbol->storage);
  }
  std::optional<PtxType> ptx_type = parse_type(param.type);
  if (!ptx_type || !param.dims.empty()) {
    return std::unexpected(t.error(instruction, "call argument " + operand.text +
                                                    " cannot pass parameter " + param.name));
  }
  return t.read(operand, *ptx_type);
}

Expected<void> store_result(FunctionTranslator& t, const ptx::Instruction& instruction,
                            const ptx::Operand& operand, const ptx::Variable& result,
                            llvm::Value* value)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    const Symbol* symbol = t.symbol(operand.text);
    if (symbol == nullptr || symbol->space != Space::param) {
      return std::unexpected(t.error(instruction, "call result " + operand.text +
                                                      " is not a .param variable"));
    }
    t.builder().CreateStore(value, symbol->storage);
    return {};
  }
  std::optional<PtxType> type = parse_type(result.type);
  if (!type || !result.dims.empty()) {
    return std::unexpected(t.error(instruction, "call result " + operand.text +
                                                    " cannot receive " + result.name));
  }
  return t.write(operand, value, *type);
}

Expected<void> lower_call(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_uniform));
  const std::vector<ptx::Operand>& operands = instruction.operands;
  size_t at = 0;
  const ptx::Operand* results = nullptr;
  if (at < operands.size() && operands[at].kind == ptx::OperandKind::list) {
    results = &operands[at++];
  }
  if (at >= operands.size() || operands[at].kind != ptx::OperandKind::symbol) {
    return std::unexpected(t.unsupported(instruction)); // indirect calls
  }
  const std::string& name = operands[at++].text;
  const ptx::Operand* arguments = nullptr;
  if (at < operands.size() && operands[at].kind == ptx::OperandKind::list) {
    arguments = &operands[at++];
  }
  auto found = t.module().functions.find(name);
  if (Lowering builtin = find_lowering("call:" + name);
      builtin != nullptr && found != t.module().functions.end() && !found->second->body) {
    return builtin(t, instruction); // a rewrite pass's helper (builtin_call.hpp)
  }
  if (found != t.module().functions.end() && !found->second->body && !found->second->is_entry) {
    // vprintf, malloc, __assertfail or a function of another module: nothing defines it on AMD,
    // and the undefined symbol would surface only as a link error.
    return std::unexpected(t.error(instruction, "unsupported: call of extern function " + name +
                                                    " (no definition in the module)"));
  }
  llvm::Function* callee = t.module().module.getFunction(name);
  if (at != operands.size() || found == t.module().functions.end() || callee == nullptr ||
      found->second->is_entry) {
    return std::unexpected(t.error(instruction, "call of unknown function " + name));
  }
  const ptx::Function& function = *found->second;
  size_t argument_count = arguments != nullptr ? arguments->elements.size() : 0;
  size_t result_count = results != nullptr ? results->elements.size() : 0;
  if (argument_count != function.params.size() || result_count != function.returns.size()) {
    return std::unexpected(t.error(instruction, "call of " + name + " has the wrong number of "
                                                                   "arguments or results"));
  }
  std::vector<llvm::Value*> values;
  for (size_t i = 0; i < argument_count; ++i) {
    llvm::Type* type = callee->getFunctionType()->getParamType(static_cast<unsigned>(i));
    TRY_ASSIGN(llvm::Value * value,
               call_argument(t, instruction, arguments->elements[i], function.params[i], type));
    values.push_back(value);
  }
  if (t.hooks().funcs_take_thread()) {
    values.push_back(t.env().thread);
  }
  llvm::Value* returned = t.builder().CreateCall(callee, values);
  for (size_t i = 0; i < result_count; ++i) {
    llvm::Value* value = result_count == 1
                             ? returned
                             : t.builder().CreateExtractValue(returned, static_cast<unsigned>(i));
    TRY(store_result(t, instruction, results->elements[i], function.returns[i], value));
  }
  return {};
}

} // namespace

void add_control_lowerings(LoweringTable& table)
{
  table["bra"] = lower_bra;
  table["ret"] = lower_ret;
  table["exit"] = lower_exit;
  table["trap"] = lower_trap;
  table["call"] = lower_call;
}

} // namespace d4r::compiler::translate
