#pragma once
// The PTX module grammar (PTX ISA, "Syntax" and "Directives" chapters) into the tree of ast.hpp:
// module directives, variables with initialisers, .entry/.func with parameters and performance
// directives, bodies of declarations, labels, guarded instructions (an open set), operands and
// nested scopes; comments are kept as items where a statement or item may start (a comment inside
// one moves to just after it). Errors are ErrorCode::invalid_argument, "ptx:LINE:COL: ...".
// https://docs.nvidia.com/cuda/parallel-thread-execution/#syntax

#include "compiler/ptx/ast.hpp"
#include "util/error.hpp"

#include <string_view>
#include <vector>

namespace d4r::compiler::ptx {

[[nodiscard]] Expected<Module> parse_module(std::string_view text);

// A sequence of body statements ("add.s32 %r1, %r2, 1; @%p1 bra L;"), for passes that splice
// code written as PTX text.
[[nodiscard]] Expected<std::vector<Statement>> parse_statements(std::string_view text);

} // namespace d4r::compiler::ptx
