#include "compiler/passes/call_block.hpp"

#include <cassert>
#include <cstddef>
#include <string>
#include <utility>

namespace d4r::compiler::passes {

namespace {

ptx::Variable make_param(const std::string& type, std::string name)
{
  ptx::Variable variable;
  variable.space = ".param";
  variable.type = type;
  variable.name = std::move(name);
  return variable;
}

// "st.param.b32" -> opcode "st", modifiers {"param", "b32"}.
ptx::Instruction make_param_move(const char* opcode, const std::string& type)
{
  ptx::Instruction instruction;
  instruction.opcode = opcode;
  instruction.modifiers = {"param", type.substr(1)};
  return instruction;
}

// Emplaced in place: g++ 12 warns (maybe-uninitialized, a false positive) when a Statement
// temporary holding a Variable is moved into the vector.
template <typename T> void append(ptx::Block& block, T value)
{
  block.statements.emplace_back();
  block.statements.back().value.template emplace<T>(std::move(value));
}

ptx::Operand make_address(const std::string& name)
{
  ptx::Operand address;
  address.kind = ptx::OperandKind::address;
  address.elements.push_back(make_symbol_operand(name));
  return address;
}

ptx::Operand make_list(std::vector<ptx::Operand> elements)
{
  ptx::Operand list;
  list.kind = ptx::OperandKind::list;
  list.elements = std::move(elements);
  return list;
}

} // namespace

ptx::Operand make_symbol_operand(std::string name)
{
  ptx::Operand operand;
  operand.kind = ptx::OperandKind::symbol;
  operand.text = std::move(name);
  return operand;
}

ptx::Block make_call_block(const CallSignature& signature,
                           const std::vector<ptx::Operand>& arguments,
                           const std::optional<ptx::Operand>& result,
                           const std::optional<ptx::Guard>& guard)
{
  assert(arguments.size() == signature.param_types.size() && "one argument per parameter");
  assert(result.has_value() == !signature.return_type.empty() && "a result iff a return type");
  ptx::Block block;
  std::vector<ptx::Operand> names;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& type = signature.param_types[i];
    std::string name = "d4r_arg" + std::to_string(i);
    append(block, make_param(type, name));
    ptx::Instruction store = make_param_move("st", type);
    store.operands = {make_address(name), arguments[i]};
    append(block, std::move(store));
    names.push_back(make_symbol_operand(name));
  }
  ptx::Instruction call;
  call.guard = guard;
  call.opcode = "call";
  if (result) {
    append(block, make_param(signature.return_type, "d4r_ret0"));
    call.operands.push_back(make_list({make_symbol_operand("d4r_ret0")}));
  }
  call.operands.push_back(make_symbol_operand(signature.name));
  call.operands.push_back(make_list(std::move(names)));
  append(block, std::move(call));
  if (result) {
    ptx::Instruction load = make_param_move("ld", signature.return_type);
    load.guard = guard;
    load.operands = {*result, make_address("d4r_ret0")};
    append(block, std::move(load));
  }
  return block;
}

ptx::Function make_extern_declaration(const CallSignature& signature)
{
  ptx::Function function;
  function.linkage = ".extern";
  function.name = signature.name;
  if (!signature.return_type.empty()) {
    function.returns.push_back(make_param(signature.return_type, signature.name + "_ret"));
  }
  for (size_t i = 0; i < signature.param_types.size(); ++i) {
    function.params.push_back(
        make_param(signature.param_types[i], signature.name + "_param_" + std::to_string(i)));
  }
  return function;
}

bool ensure_declaration(ptx::Module& module, const CallSignature& signature)
{
  auto first_function = module.items.end();
  for (auto it = module.items.begin(); it != module.items.end(); ++it) {
    const auto* function = std::get_if<ptx::Function>(&it->value);
    if (function == nullptr) {
      continue;
    }
    if (function->name == signature.name) {
      return false;
    }
    if (first_function == module.items.end()) {
      first_function = it;
    }
  }
  module.items.insert(first_function, ptx::Item{make_extern_declaration(signature)});
  return true;
}

} // namespace d4r::compiler::passes
