#pragma once
// "sust": surface stores to calls of the d4r_sust_* support functions (see surface_store.cpp).
// Parameter "kinds" (default "b16,p,b32", like D4R_SUST_KINDS) selects which stores are rewritten:
// b16 = sust.b.2d.v2.b16 and sust.b.2d.v4.b16, p = sust.p.2d.v4.b32, b32 = sust.b.2d.b32.

#include "compiler/passes/pass.hpp"
#include "util/error.hpp"

#include <memory>

namespace d4r::compiler::passes {

[[nodiscard]] Expected<std::unique_ptr<Pass>> make_surface_store_pass(const PassOptions& options);

} // namespace d4r::compiler::passes
