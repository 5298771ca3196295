#pragma once
// Calls of the rewrite passes' helper functions (compiler/passes/: surface_store.cpp's d4r_sust_*,
// fp8_convert.cpp's d4r_dec_e4m3x2; d4r-contract.md section 4) are translated as the instruction
// each call replaced, so a rewritten module translates and runs exactly like the original. The
// passes declare the helpers `.extern .func` and pass every operand through a .param temporary
// (or, in hand-written PTX, a register); lower_control.cpp's call lowering hands a call of an
// undefined function to the lowering registered as "call:NAME" (lowering.hpp), which reads the
// operands with these helpers.

#include "compiler/translate/function_translator.hpp"

#include <string>
#include <vector>

namespace d4r::compiler::translate {

// The operands of `call (results), name, (arguments)`.
struct BuiltinCall {
  std::vector<ptx::Operand> results;
  std::string name;
  std::vector<ptx::Operand> arguments;
};

[[nodiscard]] inline Expected<BuiltinCall> parse_builtin_call(FunctionTranslator& t,
                                                              const ptx::Instruction& instruction)
{
  BuiltinCall call;
  size_t at = 0;
  const std::vector<ptx::Operand>& operands = instruction.operands;
  if (at < operands.size() && operands[at].kind == ptx::OperandKind::list) {
    call.results = operands[at++].elements;
  }
  if (at >= operands.size() || operands[at].kind != ptx::OperandKind::symbol) {
    return std::unexpected(t.unsupported(instruction));
  }
  call.name = operands[at++].text;
  if (at < operands.size() && operands[at].kind == ptx::OperandKind::list) {
    call.arguments = operands[at++].elements;
  }
  if (at != operands.size()) {
    return std::unexpected(t.error(instruction, "malformed call of " + call.name));
  }
  return call;
}

// A call argument: a .param variable of the calling scope (the bits it holds, as `type`) or a
// register or immediate.
[[nodiscard]] inline Expected<llvm::Value*> read_call_operand(FunctionTranslator& t,
                                                              const ptx::Instruction& instruction,
                                                              const ptx::Operand& operand,
                                                              PtxType type)
{
  if (operand.kind != ptx::OperandKind::symbol) {
    return t.read(operand, type);
  }
  const Symbol* symbol = t.symbol(operand.text);
  if (symbol == nullptr || symbol->space != Space::param) {
    return std::unexpected(
        t.error(instruction, "call argument " + operand.text + " is not a .param variable"));
  }
  return t.builder().CreateLoad(llvm_type(t.context(), type), symbol->storage);
}

// Stores a call result into a .param variable of the calling scope or a register.
[[nodiscard]] inline Expected<void> write_call_result(FunctionTranslator& t,
                                                      const ptx::Instruction& instruction,
                                                      const ptx::Operand& operand,
                                                      llvm::Value* value, PtxType type)
{
  if (operand.kind != ptx::OperandKind::symbol) {
    return t.write(operand, value, type);
  }
  const Symbol* symbol = t.symbol(operand.text);
  if (symbol == nullptr || symbol->space != Space::param) {
    return std::unexpected(
        t.error(instruction, "call result " + operand.text + " is not a .param variable"));
  }
  t.builder().CreateStore(value, symbol->storage);
  return {};
}

} // namespace d4r::compiler::translate
