#pragma once
// "fp8-cvt": cvt.rn.f16x2.e4m3x2 to a call of d4r_dec_e4m3x2 (see fp8_convert.cpp).

#include "compiler/passes/pass.hpp"
#include "util/error.hpp"

#include <memory>

namespace d4r::compiler::passes {

[[nodiscard]] Expected<std::unique_ptr<Pass>> make_fp8_convert_pass(const PassOptions& options);

} // namespace d4r::compiler::passes
