#include "compiler/translate/symbol_reach.hpp"

#include <variant>
#include <vector>

namespace d4r::compiler::translate {

namespace {

// Every symbol an operand names, at any depth (addresses, vectors, call lists).
void collect_symbols(const ptx::Operand& operand, std::set<std::string>& out)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    out.insert(operand.text);
  }
  for (const ptx::Operand& element : operand.elements) {
    collect_symbols(element, out);
  }
}

void collect_symbols(const ptx::Block& block, std::set<std::string>& out)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      collect_symbols(*inner, out);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      for (const ptx::Operand& operand : instruction->operands) {
        collect_symbols(operand, out);
      }
    }
  }
}

} // namespace

std::map<std::string, std::set<std::string>>
kernels_reaching(const ptx::Module& module, const std::set<std::string>& names)
{
  // The names each function's own body mentions: variables and callees alike.
  std::map<std::string, std::set<std::string>> mentions;
  std::vector<std::string> kernels;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr || !function->body) {
      continue;
    }
    collect_symbols(*function->body, mentions[function->name]);
    if (function->is_entry) {
      kernels.push_back(function->name);
    }
  }
  std::map<std::string, std::set<std::string>> reaching;
  for (const std::string& name : names) {
    reaching[name];
  }
  for (const std::string& kernel : kernels) {
    std::set<std::string> visited = {kernel};
    std::vector<std::string> work = {kernel};
    while (!work.empty()) {
      std::string function = std::move(work.back());
      work.pop_back();
      for (const std::string& name : mentions[function]) {
        if (names.contains(name)) {
          reaching[name].insert(kernel);
        }
        if (mentions.contains(name) && visited.insert(name).second) {
          work.push_back(name);
        }
      }
    }
  }
  return reaching;
}

} // namespace d4r::compiler::translate
