#pragma once
// mma.sp and mma.sp::ordered_metadata (sparse A, sm_80+; PTX ISA 9.7.14.6 "Matrix multiply-
// accumulate operation using mma.sp instruction with sparse matrix A"):
// https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-for-sparse-mma
//
//   mma.sp{::ordered_metadata}.sync.aligned.SHAPE.row.col{.satfinite}.D.A.B.C d, a, b, c, e, f;
//
// A (M x K) keeps K/2 elements of each row: chunks of 4 columns with 2 stored (.f16, .bf16, .s8,
// .u8, .e4m3, .e5m2), of 2 with 1 (.tf32), or of 8 with 2 stored pairs (.s4, .u4). Each chunk's
// positions are a 4-bit nibble of metadata e, held by the lanes that the immediate sparsity
// selector f names in each group of four. The stored elements sit in the lanes as the dense A of
// half the K (mma_layout.hpp mma_fragment with K/2: the ISA's sparse A figures are those), B, C
// and D as in the dense shape. The product is mma_fragments.hpp's, with the arithmetic of the dense
// forms (MmaSparsity: every stored element times the row of B its metadata names).

#include "compiler/translate/function_translator.hpp"

#include <optional>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

// Where the metadata of one row of A lives: chunk q of row r (0..15) is nibble `bit` / 4 of the
// metadata register of lane 4 (r % 8) + `lane_in_group`.
struct SparseMetadataSlot {
  int lane_in_group = 0;
  int bit = 0;
  bool operator==(const SparseMetadataSlot&) const = default;
};

// The ISA's metadata layout (its figures "Sparse MMA metadata layout", as the H200 reads them:
// mma_sp_float_*, mma_sp_int_*) for a shape with `chunks` chunks per row (4, 8 or 16) of
// `element_bits` elements and sparsity selector `selector`: one lane per group for 4 chunks (lane
// `selector`), a pair for 8 (lanes 2 selector and 2 selector + 1), all four for 16 (selector 0).
// 16- and 32-bit elements: lane h of them holds chunks 4h .. 4h + 3 of row g in bits 15..0 and of
// row g + 8 in bits 31..16, chunk 4h + u in bits 4u + 3 .. 4u (+ 16). 8- and 4-bit elements: lane
// h holds chunks 8 (h / 2) .. 8 (h / 2) + 7 of row g (h even) or g + 8 (h odd), chunk 8 (h / 2) + u
// in bits 4u + 3 .. 4u. nullopt for a selector the ISA leaves undefined.
[[nodiscard]] std::optional<SparseMetadataSlot> sparse_metadata_slot(int chunks, int element_bits,
                                                                     int selector, int row,
                                                                     int chunk);

// mma.sp (modifiers[0] "sp" or "sp::ordered_metadata").
[[nodiscard]] Expected<void> lower_mma_sparse(FunctionTranslator& t,
                                              const ptx::Instruction& instruction);

} // namespace d4r::compiler::translate
