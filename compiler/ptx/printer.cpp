#include "compiler/ptx/printer.hpp"

#include "util/error.hpp"

#include <string_view>
#include <type_traits>

namespace d4r::compiler::ptx {
namespace {

void indent(int depth, std::string& out)
{
  out.append(static_cast<size_t>(depth), '\t');
}

void append_operand(const Operand& operand, std::string& out);

void append_elements(const std::vector<Operand>& elements, std::string& out)
{
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    append_operand(elements[i], out);
  }
}

void append_operand(const Operand& operand, std::string& out)
{
  switch (operand.kind) {
  case OperandKind::reg:
  case OperandKind::symbol:
  case OperandKind::sink:
    out += operand.negated ? "!" : "";
    out += operand.minus ? "-" : "";
    out += operand.text;
    if (!operand.offset.empty()) {
      out += '+';
      out += operand.offset;
    }
    return;
  case OperandKind::integer:
  case OperandKind::floating:
    out += operand.text;
    return;
  case OperandKind::address:
    out += '[';
    append_elements(operand.elements, out);
    out += ']';
    return;
  case OperandKind::vector:
    out += '{';
    append_elements(operand.elements, out);
    out += '}';
    return;
  case OperandKind::list:
    out += '(';
    append_elements(operand.elements, out);
    out += ')';
    return;
  case OperandKind::pair:
    for (size_t i = 0; i < operand.elements.size(); ++i) {
      out += i > 0 ? "|" : "";
      append_operand(operand.elements[i], out);
    }
    return;
  }
  D4R_UNREACHABLE("unknown operand kind");
}

void append_instruction(const Instruction& instruction, std::string& out)
{
  if (instruction.guard) {
    out += instruction.guard->negated ? "@!" : "@";
    out += instruction.guard->predicate;
    out += ' ';
  }
  out += instruction.opcode;
  for (const std::string& modifier : instruction.modifiers) {
    out += '.';
    out += modifier;
  }
  if (!instruction.operands.empty()) {
    out += " \t";
    append_elements(instruction.operands, out);
  }
  out += ';';
}

void append_initializer(const Initializer& init, std::string& out)
{
  if (!init.is_list) {
    out += init.scalar;
    return;
  }
  out += '{';
  for (size_t i = 0; i < init.elements.size(); ++i) {
    out += i > 0 ? ", " : "";
    append_initializer(init.elements[i], out);
  }
  out += '}';
}

void append_word(std::string_view word, std::string& out)
{
  if (word.empty()) {
    return;
  }
  if (!out.empty() && out.back() != '\t' && out.back() != '\n' && out.back() != '(') {
    out += ' ';
  }
  out += word;
}

void append_variable(const Variable& var, std::string& out)
{
  append_word(var.linkage, out);
  append_word(var.space, out);
  for (const std::string& attribute : var.attributes) {
    append_word(attribute, out);
  }
  if (var.align > 0) {
    append_word(".align " + std::to_string(var.align), out);
  }
  append_word(var.vector, out);
  append_word(var.type, out);
  for (const std::string& part : var.pointer) {
    append_word(part, out);
  }
  append_word(var.name, out);
  if (var.range >= 0) {
    out += '<' + std::to_string(var.range) + '>';
  }
  for (int64_t dim : var.dims) {
    out += dim >= 0 ? '[' + std::to_string(dim) + ']' : std::string("[]");
  }
  if (var.init) {
    out += " = ";
    append_initializer(*var.init, out);
  }
}

// Arguments joined by spaces, no space before a comma; a .section body gets one line per
// directive inside it.
void append_directive(const Directive& directive, std::string& out)
{
  out += directive.name;
  bool in_block = false;
  for (const std::string& arg : directive.args) {
    bool new_line = directive.end == DirectiveEnd::block &&
                    (arg == "{" || arg == "}" || (in_block && arg.front() == '.'));
    in_block = in_block || (directive.end == DirectiveEnd::block && arg == "{");
    out += arg == "," ? "" : (new_line ? "\n" : " ");
    out += arg;
  }
  out += directive.end == DirectiveEnd::semicolon ? ";" : "";
}

void append_params(const std::vector<Variable>& params, std::string& out)
{
  out += '(';
  for (size_t i = 0; i < params.size(); ++i) {
    out += i > 0 ? ",\n\t" : "\n\t";
    append_variable(params[i], out);
  }
  out += params.empty() ? ")" : "\n)";
}

void append_function(const Function& function, std::string& out)
{
  append_word(function.linkage, out);
  append_word(function.is_entry ? ".entry" : ".func", out);
  if (!function.returns.empty()) {
    out += ' ';
    append_params(function.returns, out);
  }
  append_word(function.name, out);
  append_params(function.params, out);
  for (const Directive& directive : function.performance) {
    out += '\n';
    append_directive(directive, out);
  }
  if (!function.body) {
    out += ";\n";
    return;
  }
  out += "\n{\n";
  print_statements(function.body->statements, 1, out);
  out += "}\n";
}

} // namespace

void print_statements(const std::vector<Statement>& statements, int depth, std::string& out)
{
  for (const Statement& statement : statements) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, Label>) {
            out += value.name;
            out += ":\n";
            return;
          } else if constexpr (std::is_same_v<T, Block>) {
            indent(depth, out);
            out += "{\n";
            print_statements(value.statements, depth + 1, out);
            indent(depth, out);
            out += "}\n";
            return;
          } else {
            indent(depth, out);
            if constexpr (std::is_same_v<T, Instruction>) {
              append_instruction(value, out);
            } else if constexpr (std::is_same_v<T, Variable>) {
              append_variable(value, out);
              out += ';';
            } else if constexpr (std::is_same_v<T, Directive>) {
              append_directive(value, out);
            } else {
              static_assert(std::is_same_v<T, Comment>);
              out += value.text;
            }
            out += '\n';
          }
        },
        statement.value);
  }
}

std::string print_module(const Module& module)
{
  std::string out;
  for (const Item& item : module.items) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, Function>) {
            append_function(value, out);
          } else if constexpr (std::is_same_v<T, Variable>) {
            append_variable(value, out);
            out += ";\n";
          } else if constexpr (std::is_same_v<T, Directive>) {
            append_directive(value, out);
            out += '\n';
          } else {
            static_assert(std::is_same_v<T, Comment>);
            out += value.text;
            out += '\n';
          }
        },
        item.value);
  }
  return out;
}

std::string print_instruction(const Instruction& instruction)
{
  std::string out;
  append_instruction(instruction, out);
  return out;
}

std::string print_operand(const Operand& operand)
{
  std::string out;
  append_operand(operand, out);
  return out;
}

std::string print_variable(const Variable& variable)
{
  std::string out;
  append_variable(variable, out);
  return out;
}

std::string print_directive(const Directive& directive)
{
  std::string out;
  append_directive(directive, out);
  return out;
}

} // namespace d4r::compiler::ptx
