#pragma once
// "splice": replaces the instructions after a checked cut point with a call of a native tail
// function (see splice.cpp). Parameters:
//   cut_after   the cut instruction as PTX ("bar.warp.sync -1"), compared exactly (operands too)
//   occurrence  "N" (1-based) or "last"; absent: the cut instruction must be unique
//   expect      the instructions ending at the cut, as PTX; opcodes and modifiers must match
//   function    the tail's name
//   arguments   ';'-separated: "%r5" (a register), or "OPCODE [+OFFSET]" with an optional "{I}":
//               the destination (element I of a vector) of the unique such instruction
// Applies to options.kernels, or to every .entry when none are named.

#include "compiler/passes/pass.hpp"
#include "util/error.hpp"

#include <memory>

namespace d4r::compiler::passes {

[[nodiscard]] Expected<std::unique_ptr<Pass>> make_splice_pass(const PassOptions& options);

} // namespace d4r::compiler::passes
