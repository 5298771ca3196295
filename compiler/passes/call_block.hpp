#pragma once
// Shared by the passes that replace one instruction with a call of a support function ("sust",
// "fp8-cvt"): the scoped call sequence nvcc itself emits for a call, and the `.extern .func`
// declaration of the callee, added once before the first function of the module.

#include "compiler/ptx/ast.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler::passes {

// One parameter of a call: its PTX type (".b32", ".f32", ...) and the operand passed or received.
struct CallValue {
  std::string type;
  ptx::Operand operand;
};

// A callee's signature: its name, the return value's type ("" for none) and the parameters' types.
struct CallSignature {
  std::string name;
  std::string return_type;
  std::vector<std::string> param_types;
};

// "{ .param T a0; st.param.T [a0], v0; ... call [(r0),] name, (a0, ...); [ld.param.T d, [r0];] }"
// with a plain `call` (a store or conversion may sit in divergent code, where call.uni would be
// wrong). A guard on the replaced instruction guards the call and the result load; the parameter
// stores only write the block's own temporaries.
[[nodiscard]] ptx::Block make_call_block(const CallSignature& signature,
                                         const std::vector<ptx::Operand>& arguments,
                                         const std::optional<ptx::Operand>& result,
                                         const std::optional<ptx::Guard>& guard);

// ".extern .func [(.param T name_ret)] name(.param T name_param_0, ...);"
[[nodiscard]] ptx::Function make_extern_declaration(const CallSignature& signature);

// Inserts the declaration before the first function unless a function of that name exists.
// Returns true when it added one.
bool ensure_declaration(ptx::Module& module, const CallSignature& signature);

// A register operand ("%r1"): for building instructions.
[[nodiscard]] ptx::Operand make_symbol_operand(std::string name);

} // namespace d4r::compiler::passes
