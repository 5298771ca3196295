#pragma once
// The opcode -> lowering table. Each lower_*.cpp registers the opcodes it owns in one function
// named add_*_lowerings; lowering.cpp calls every one of them. A new family (lower_image.cpp,
// lower_fp8.cpp, lower_mma.cpp) adds its function here and one line in lowering.cpp. A lowering
// may decline a form it does not implement by returning FunctionTranslator::unsupported().

#include "compiler/ptx/ast.hpp"
#include "util/error.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

namespace llvm {
class Value;
} // namespace llvm

namespace d4r::compiler::translate {

class FunctionTranslator;

using Lowering = Expected<void> (*)(FunctionTranslator&, const ptx::Instruction&);
using LoweringTable = std::unordered_map<std::string, Lowering>;

void add_arith_lowerings(LoweringTable& table);   // lower_arith.cpp (integers; floats in
                                                  // lower_float.cpp)
void add_compare_lowerings(LoweringTable& table); // lower_compare.cpp
void add_convert_lowerings(LoweringTable& table); // lower_convert.cpp
void add_memory_lowerings(LoweringTable& table);  // lower_memory.cpp
void add_control_lowerings(LoweringTable& table); // lower_control.cpp
void add_warp_lowerings(LoweringTable& table);    // lower_warp.cpp
void add_mma_lowerings(LoweringTable& table);     // lower_mma.cpp
void add_image_lowerings(LoweringTable& table);   // lower_image.cpp
void add_fp8_lowerings(LoweringTable& table);     // lower_fp8.cpp
void add_warp_reduce_lowerings(LoweringTable& table); // lower_warp_reduce.cpp (redux, match)
void add_int_pack_lowerings(LoweringTable& table);    // lower_int_pack.cpp (bmsk)
void add_sleep_lowerings(LoweringTable& table);       // lower_sleep.cpp (nanosleep)
void add_video_lowerings(LoweringTable& table);       // lower_video.cpp (vadd ... vset4)
void add_async_copy_lowerings(LoweringTable& table);  // lower_async_copy.cpp (cp.async)
void add_ldmatrix_lowerings(LoweringTable& table);    // lower_ldmatrix.cpp
void add_hint_lowerings(LoweringTable& table);        // lower_hints.cpp (no-op hints)
void add_cluster_lowerings(LoweringTable& table);     // lower_cluster.cpp (mapa, elect, ...)
void add_wmma_lowerings(LoweringTable& table);        // lower_wmma.cpp
void add_mbarrier_lowerings(LoweringTable& table);    // lower_mbarrier.cpp
void add_wgmma_lowerings(LoweringTable& table);       // lower_wgmma.cpp
// A call of an undefined (.extern) function NAME goes to the lowering registered as "call:NAME"
// when there is one (the rewrite passes' helpers, builtin_call.hpp); lower_control.cpp asks.
// cvt with an FP8 operand (e4m3x2, e5m2x2): lower_convert.cpp's cvt delegates to lower_fp8.cpp.
[[nodiscard]] Expected<void> lower_cvt_fp8(FunctionTranslator& t, const ptx::Instruction& instruction);
// cvt.pack.sat with integer types: lower_convert.cpp's cvt delegates to lower_int_pack.cpp.
[[nodiscard]] Expected<void> lower_cvt_pack_int(FunctionTranslator& t,
                                                const ptx::Instruction& instruction);

// Clusters of one CTA (lower_cluster.cpp): whether every cluster the function's code can run in
// is one CTA (the kernel's cluster directives; for a .func, every kernel's of the module); the
// cluster special registers (%clusterid.x, %cluster_ctarank, ...) and their u32 values, an
// "unsupported" error where the clusters may be bigger; barrier.cluster (lower_warp.cpp's
// barrier delegates it).
[[nodiscard]] bool one_cta_clusters(FunctionTranslator& t);
// Stricter: every launch of the function's code is a cluster launch of one CTA (the kernel, or for
// a .func every kernel of the module, declares .reqnctapercluster 1, 1, 1). st.async and
// red.async need it: the H200 stops them in a launch without clusters (lower_async_copy.cpp).
[[nodiscard]] bool cluster_launched_one_cta(FunctionTranslator& t);
[[nodiscard]] bool is_cluster_register(std::string_view name);
[[nodiscard]] Expected<llvm::Value*> cluster_register(FunctionTranslator& t,
                                                      const ptx::Instruction& instruction,
                                                      std::string_view name);
[[nodiscard]] Expected<void> lower_barrier_cluster(FunctionTranslator& t,
                                                   const ptx::Instruction& instruction);

// The lowering of `opcode`, or nullptr.
[[nodiscard]] Lowering find_lowering(std::string_view opcode);

} // namespace d4r::compiler::translate
