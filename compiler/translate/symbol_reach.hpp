#pragma once
// Which kernels reach a module-scope symbol: a kernel reaches a name when its body, or the body of
// any .func it calls (directly or through other functions), names it in an operand. The host lays
// out the module's .shared variables with it (module_translator.cpp): a variable only one kernel
// reaches shares its bytes with other kernels' such variables instead of adding to every block's
// window (clang writes each kernel's __shared__ arrays as module-scope variables).

#include "compiler/ptx/ast.hpp"

#include <map>
#include <set>
#include <string>

namespace d4r::compiler::translate {

// For each of `names`, the .entry names that reach it (an unreached name maps to an empty set).
[[nodiscard]] std::map<std::string, std::set<std::string>>
kernels_reaching(const ptx::Module& module, const std::set<std::string>& names);

} // namespace d4r::compiler::translate
