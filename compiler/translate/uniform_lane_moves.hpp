#pragma once
// Lane moves of values every lane holds alike. The mma lowering (and shfl) moves words between
// lanes with ds_bpermute whatever they hold; where the word is the same in every lane (an mma's B
// loaded from an address all lanes share, a constant, a kernel argument), any lane's copy is the
// lane's own, so the move is the value itself, with no LDS round trip and no wait.
//
// "The same in every lane" is LLVM's uniformity analysis with the AMDGPU target's sources of
// divergence (lane and work-item ids, loads other than from constant addresses, atomics, calls),
// at the use: a value computed in a loop that lanes leave at different iterations is divergent
// where it is used after the loop. The lanes a move may read from are lanes that reached it, so
// they computed the value (it dominates the move); a move that reads an inactive lane gives an
// unspecified value in PTX (shfl) and mma.sync runs on every lane.

#include <llvm/Analysis/UniformityAnalysis.h>

#include <cstddef>

namespace d4r::compiler::translate {

// Replaces `function`'s ds_bpermute of a uniform value by the value; returns how many. A no-op
// for a function that is not AMDGPU code.
size_t forward_uniform_lane_moves(llvm::Function& function, const llvm::UniformityInfo& uniformity);

} // namespace d4r::compiler::translate
