#pragma once
// Builds a pass from its recipe name ("sust", "fp8-cvt", ...). An unknown name or a bad parameter
// is ErrorCode::invalid_argument naming the pass.

#include "compiler/passes/pass.hpp"
#include "util/error.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace d4r::compiler::passes {

[[nodiscard]] Expected<std::unique_ptr<Pass>> make_pass(std::string_view name,
                                                        const PassOptions& options);

// Every name make_pass knows, in registration order.
[[nodiscard]] std::vector<std::string_view> pass_names();

} // namespace d4r::compiler::passes
