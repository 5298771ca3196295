#include "compiler/translate/vector_registers.hpp"

#include <array>
#include <map>
#include <string>
#include <string_view>

namespace d4r::compiler::translate {

namespace {

constexpr std::array<std::string_view, 4> k_elements = {"x", "y", "z", "w"};
constexpr std::array<std::string_view, 4> k_colour_elements = {"r", "g", "b", "a"};

int64_t vector_length(const ptx::Variable& variable)
{
  if (variable.vector == ".v2") {
    return 2;
  }
  if (variable.vector == ".v4") {
    return 4;
  }
  return 0;
}

bool is_vector_register(const ptx::Variable& variable)
{
  return variable.space == ".reg" && !variable.vector.empty();
}

Error vector_error(const ptx::Variable& variable, const std::string& message)
{
  return Error{ErrorCode::invalid_argument,
               "translate: line " + std::to_string(variable.pos.line) + ": " + message};
}

// The vector registers of one function: name -> element count. A range declaration (%v<3>)
// declares %v0, %v1, %v2.
class VectorNames {
public:
  Expected<void> add(const ptx::Variable& variable)
  {
    int64_t length = vector_length(variable);
    if (length == 0 || variable.type == ".pred" || !variable.dims.empty()) {
      return std::unexpected(vector_error(
          variable, "unsupported: register declaration " + variable.vector + variable.type + " " +
                        variable.name + " (vector registers are .v2 or .v4 of a scalar type)"));
    }
    if (variable.range < 0) {
      m_lengths[variable.name] = length;
      return {};
    }
    for (int64_t i = 0; i < variable.range; ++i) {
      m_lengths[variable.name + std::to_string(i)] = length;
    }
    return {};
  }
  [[nodiscard]] int64_t length_of(const std::string& name) const
  {
    auto it = m_lengths.find(name);
    return it == m_lengths.end() ? 0 : it->second;
  }
  [[nodiscard]] bool empty() const { return m_lengths.empty(); }

private:
  std::map<std::string, int64_t> m_lengths;
};

Expected<void> collect(const ptx::Block& block, VectorNames& names)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      TRY(collect(*inner, names));
    } else if (const auto* variable = std::get_if<ptx::Variable>(&statement.value)) {
      if (is_vector_register(*variable)) {
        TRY(names.add(*variable));
      }
    }
  }
  return {};
}

// A scalar register declared under a vector register's name would make `%v` mean two things.
Expected<void> check_no_scalar_twin(const ptx::Block& block, const VectorNames& names)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      TRY(check_no_scalar_twin(*inner, names));
    } else if (const auto* variable = std::get_if<ptx::Variable>(&statement.value)) {
      if (variable->space == ".reg" && variable->vector.empty() && variable->range < 0 &&
          names.length_of(variable->name) != 0) {
        return std::unexpected(vector_error(
            *variable, "unsupported: " + variable->name +
                           " is declared both as a vector and as a scalar register"));
      }
    }
  }
  return {};
}

ptx::Operand element_register(const ptx::Operand& vector, std::string_view element)
{
  ptx::Operand operand;
  operand.kind = vector.kind;
  operand.text = vector.text + "." + std::string(element);
  return operand;
}

void rewrite_operand(ptx::Operand& operand, const VectorNames& names)
{
  for (ptx::Operand& element : operand.elements) {
    rewrite_operand(element, names);
  }
  // Registers are usually %-names, but a declared name without % is a register too.
  bool named = operand.kind == ptx::OperandKind::reg || operand.kind == ptx::OperandKind::symbol;
  if (!named || !operand.offset.empty()) {
    return;
  }
  if (int64_t length = names.length_of(operand.text); length != 0) {
    ptx::Operand vector;
    vector.kind = ptx::OperandKind::vector;
    for (int64_t i = 0; i < length; ++i) {
      vector.elements.push_back(element_register(operand, k_elements[static_cast<size_t>(i)]));
    }
    operand = std::move(vector);
    return;
  }
  size_t dot = operand.text.rfind('.');
  if (dot == std::string::npos || names.length_of(operand.text.substr(0, dot)) == 0) {
    return;
  }
  std::string_view element = std::string_view(operand.text).substr(dot + 1);
  for (size_t i = 0; i < k_colour_elements.size(); ++i) {
    if (element == k_colour_elements[i]) {
      operand.text = operand.text.substr(0, dot + 1) + std::string(k_elements[i]);
    }
  }
}

void rewrite_block(ptx::Block& block, const VectorNames& names)
{
  std::vector<ptx::Statement> statements;
  statements.reserve(block.statements.size());
  for (ptx::Statement& statement : block.statements) {
    if (auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      rewrite_block(*inner, names);
    } else if (auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      for (ptx::Operand& operand : instruction->operands) {
        rewrite_operand(operand, names);
      }
    } else if (auto* variable = std::get_if<ptx::Variable>(&statement.value);
               variable != nullptr && is_vector_register(*variable)) {
      std::vector<std::string> vectors;
      if (variable->range < 0) {
        vectors.push_back(variable->name);
      }
      for (int64_t i = 0; i < variable->range; ++i) {
        vectors.push_back(variable->name + std::to_string(i));
      }
      for (const std::string& vector : vectors) {
        for (int64_t i = 0; i < vector_length(*variable); ++i) {
          ptx::Variable scalar = *variable;
          scalar.vector.clear();
          scalar.range = -1;
          scalar.name = vector + "." + std::string(k_elements[static_cast<size_t>(i)]);
          statements.push_back(ptx::Statement{std::move(scalar)});
        }
      }
      continue;
    }
    statements.push_back(std::move(statement));
  }
  block.statements = std::move(statements);
}

bool block_has_vector_registers(const ptx::Block& block)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      if (block_has_vector_registers(*inner)) {
        return true;
      }
    } else if (const auto* variable = std::get_if<ptx::Variable>(&statement.value)) {
      if (is_vector_register(*variable)) {
        return true;
      }
    }
  }
  return false;
}

} // namespace

bool has_vector_registers(const ptx::Module& module)
{
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr) {
      continue;
    }
    for (const ptx::Variable& param : function->params) {
      if (is_vector_register(param)) {
        return true;
      }
    }
    if (function->body && block_has_vector_registers(*function->body)) {
      return true;
    }
  }
  return false;
}

Expected<ptx::Module> expand_vector_registers(const ptx::Module& module)
{
  ptx::Module expanded = module;
  for (ptx::Item& item : expanded.items) {
    auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr) {
      continue;
    }
    for (const ptx::Variable& param : function->params) {
      if (is_vector_register(param)) {
        return std::unexpected(vector_error(
            param, "unsupported: vector register parameter " + param.name + " of " +
                       function->name));
      }
    }
    if (!function->body) {
      continue;
    }
    VectorNames names;
    TRY(collect(*function->body, names));
    if (names.empty()) {
      continue;
    }
    TRY(check_no_scalar_twin(*function->body, names));
    rewrite_block(*function->body, names);
  }
  return expanded;
}

} // namespace d4r::compiler::translate
