#pragma once
// "roundf": nvcc's round-half-away-from-zero idiom (copysign 0.5, add.rz, cvt.rzi) rewritten to an
// exact sequence that needs no directed rounding mode (see roundf_idiom.cpp for the argument). A
// lone add.rz is an error naming its line. Applies to options.kernels (empty: every body); takes no
// parameters.

#include "compiler/passes/pass.hpp"
#include "util/error.hpp"

#include <memory>

namespace d4r::compiler::passes {

[[nodiscard]] Expected<std::unique_ptr<Pass>> make_roundf_pass(const PassOptions& options);

} // namespace d4r::compiler::passes
