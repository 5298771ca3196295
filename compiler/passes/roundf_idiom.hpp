#pragma once
// "roundf": nvcc's round-half-away-from-zero idiom (copysign 0.5, add.rz, cvt.rzi) rewritten to an
// exact sequence that needs no directed rounding mode (see roundf_idiom.cpp for the argument). A
// lone add.rz is an error naming its line. Applies to options.kernels (empty: every body); takes no
// parameters.

#include "compiler/passes/pass.hpp"
#include "compiler/ptx/ast.hpp"
#include "util/error.hpp"

#include <memory>

namespace d4r::compiler::passes {

[[nodiscard]] Expected<std::unique_ptr<Pass>> make_roundf_pass(const PassOptions& options);

// The translation's default where no recipe asked for the pass (compiler/ptx_build.cpp): every
// idiom the pass can prove, in every function body, rewritten the same way; an add.rz it cannot
// prove to be one is left as it is, for the translator's exact directed-rounding add, and so is a
// body that already declares the pass's registers. The number of idioms rewritten.
[[nodiscard]] int64_t rewrite_proven_roundf_idioms(ptx::Module& module);

} // namespace d4r::compiler::passes
