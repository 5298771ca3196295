#pragma once
// Prints the tree of ast.hpp as PTX text in nvcc's layout (directives at column 0, statements
// indented by tabs, labels at column 0). parse_module(print_module(m)) == m for any tree the
// parser built; for unedited input the text has the source's items in the source's order.

#include "compiler/ptx/ast.hpp"

#include <string>

namespace d4r::compiler::ptx {

[[nodiscard]] std::string print_module(const Module& module);

// One item or piece, without a trailing newline (for messages, tests and passes).
[[nodiscard]] std::string print_instruction(const Instruction& instruction);
[[nodiscard]] std::string print_operand(const Operand& operand);
[[nodiscard]] std::string print_variable(const Variable& variable);
[[nodiscard]] std::string print_directive(const Directive& directive);

// Appends statements at the given depth (1: a function body), each ending in a newline.
void print_statements(const std::vector<Statement>& statements, int depth, std::string& out);

} // namespace d4r::compiler::ptx
