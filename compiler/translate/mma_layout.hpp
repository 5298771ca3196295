#pragma once
// Where each element of an m16n8k16 (PTX mma.sync) or 16x16x16 (AMDGPU WMMA) operand lives: lane,
// 32-bit word (register) and sub-element within the word, as pure functions, and the word remaps
// between two layouts that lower_mma.cpp turns into cross-lane moves (ds_bpermute, or loads from
// the host's gathered warp). Plain C++ without LLVM so tests can check the maps on the host.
//
// Layouts (g = lane >> 2, t = lane & 3; i = the element's index in PTX fragment order):
//   ptx    PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type" (f16,
//          bf16 A/B; f32 and f16 C/D) and 9.7.14.5.9 "... with integer type" (the .e4m3/.e5m2
//          A/B rows of that section):
//          https://docs.nvidia.com/cuda/parallel-thread-execution/#mma-16816-float
//   gfx11  RDNA3 wave32 v_wmma_f32_16x16x16_{f16,bf16}: A lane L = row L%16, 16 K values in 8
//          words (lanes 16-31 repeat lanes 0-15); B lane L = column L%16, 16 K values; C/D word
//          w = row 2w + L/16, column L%16 ("RDNA 3 ISA" 7.9 and AMD GPUOpen, "How to accelerate
//          AI applications on RDNA 3 using WMMA", https://gpuopen.com/learn/wmma_on_rdna3/).
//   ptx_widened  the PTX 8-bit (e4m3/e5m2) A or B fragment with every byte widened to 16 bits in
//          place: word 2w + h holds bytes 2h and 2h + 1 of PTX word w. RDNA3 has no FP8 WMMA, so
//          lower_mma.cpp decodes FP8 to f16 in the PTX layout and remaps that to gfx11's f16.
//   gfx12  RDNA4 wave32 (no repetition): A lane L = row L%16, K = 8*(L/16) + 0..7; B lane L =
//          column L%16, same K; C/D word w = row w + 8*(L/16), column L%16; fp8 packs 4 K values
//          per word in the same order, lowest byte first. This is the layout AMD's own libraries
//          use: composable_kernel (ck_tile warp_gemm_attribute_wmma_impl_base_traits.hpp, gfx12:
//          kABKLane 2, kK1PerLane 8; C kCM1PerLane 8), Triton's AMDWmmaEncodingAttr version 2,
//          IREE (IREEGPUAttrs.cpp) and MLIR's AMDGPUToROCDL (fp8: 8 bytes bitcast to <2 x i32>).
//          IREE notes that the RDNA 4 ISA manual's own table orders K differently within a lane
//          (the hardware "bounces between the low halves and high halves of lanes every two
//          registers"); that is a permutation of K applied to A and B alike, so D is the same
//          sum, possibly added in another order. C/D agrees with every source. (GPUOpen, "Using
//          the Matrix Cores of AMD RDNA 4 architecture GPUs",
//          https://gpuopen.com/learn/using_matrix_core_amd_rdna4/.)
//   rows   portable: lane L holds rows g and g + 8 of A completely (words 0..W-1, W..2W-1).
//   cols   portable: lane L holds columns 2t and 2t + 1 of B completely.
// A is 16x16 (M x K), B 16x8 (K x N; WMMA's 16 columns: 8..15 are zero padding), C/D 16x8.

#include <optional>
#include <vector>

namespace d4r::compiler::translate {

enum class MmaOperand { a, b, c }; // c: C and D
enum class MmaLayout { ptx, ptx_widened, gfx11, gfx12, rows, cols };

struct MmaLayoutSpec {
  MmaLayout layout = MmaLayout::ptx;
  MmaOperand operand = MmaOperand::a;
  int element_bits = 16; // 8 (e4m3, e5m2), 16 (f16, bf16, f16 C/D) or 32 (f32 C/D)
};

struct MatrixPos {
  int row = -1;
  int col = -1;
  bool operator==(const MatrixPos&) const = default;
};

// 32-bit words per lane; 0 for a combination that does not exist.
[[nodiscard]] int mma_layout_words(const MmaLayoutSpec& spec);
// The matrix element in sub-element `sub` (low bits first) of word `word` of lane `lane`.
[[nodiscard]] MatrixPos mma_layout_position(const MmaLayoutSpec& spec, int lane, int word, int sub);

// One destination word: whole word `word` of lane `lane` of the source, or zero (lane -1).
struct MmaWordSource {
  int lane = -1;
  int word = -1;
  bool operator==(const MmaWordSource&) const = default;
};

// For every destination lane L and word w, sources[L * words + w]: where the word comes from.
struct MmaWordRemap {
  int words = 0;
  std::vector<MmaWordSource> sources;
};

// The remap that gives every lane its `destination` words from `source` words; elements absent
// from `source` (WMMA padding) are zero. nullopt when some destination word would need parts of
// two source words (never for the layouts above).
[[nodiscard]] std::optional<MmaWordRemap> mma_word_remap(const MmaLayoutSpec& destination,
                                                         const MmaLayoutSpec& source);

// Fragments of any shape (lower_mma.cpp's other shapes and types, lower_wmma.cpp): where each
// element of one operand lives, as a table. Registers are 32 bits, or 64 for f64 elements.
struct MmaShape {
  int m = 16;
  int n = 8;
  int k = 16;
};

struct Fragment {
  int rows = 0;      // A: M, B: K, C/D: M
  int cols = 0;      // A: K, B: N, C/D: N
  int registers = 0; // per lane
  int element_bits = 16;
  int register_bits = 32;
  // positions[(lane * registers + reg) * per_register() + sub]; sub 0 is the lowest bits.
  std::vector<MatrixPos> positions;
  [[nodiscard]] int per_register() const { return register_bits / element_bits; }
  [[nodiscard]] MatrixPos at(int lane, int reg, int sub) const
  {
    return positions[static_cast<size_t>((lane * registers + reg) * per_register() + sub)];
  }
};

// The ISA's per-thread fragments of mma.sync for shapes m16n8kK and m8n8kK (every type but the
// f16 m8n8k4, whose quad-pair layout is separate): with g = lane >> 2, t = lane & 3 and p elements
// a register, A register j holds row g + 8 (j & 1) (m8n8: g), columns 4p (j >> 1) + p t + 0..p-1;
// B register j holds rows 4p j + p t + 0..p-1 of column g; C/D element i is at row g + 8 (i >= 2),
// column 2t + (i & 1). PTX ISA 9.7.14.5 "Matrix Fragments for mma.m*n*k*":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-1688
// (one figure per shape and type; mma_layout.cpp writes them as these formulas). nullopt for a
// shape the formulas do not describe.
[[nodiscard]] std::optional<Fragment> mma_fragment(MmaShape shape, MmaOperand operand,
                                                   int element_bits);

// mma.m8n8k4 with .f16 A/B (PTX ISA 9.7.14.5.1): four independent 8x8x4 products, computation q
// on lanes 4q..4q+3 (the low group) and 16+4q..16+4q+3 (the high group). They are written as one
// product of a 32x4 A and a 4x32 B whose D is read only in its diagonal 8x8 blocks: computation
// q's A rows are rows 8q..8q+7, its B columns columns 8q..8q+7, its C/D block (8q.., 8q..). With
// hi = 4 for the high group and i the element index: A row-major row L%4 + hi, column i; A
// column-major row i%4 + hi, column L%4; B row-major row L%4, column i + hi; B column-major row i,
// column L%4 + hi; C/D .f16 row L%4 + hi, column i; C/D .f32 row X + hi with X = (L & 1) + (i & 2),
// column (i & 4) + (L & 2) + (i & 1). `row_major` is the operand's layout (C/D: ignored).
[[nodiscard]] Fragment mma_m8n8k4_fragment(MmaOperand operand, bool row_major, int element_bits);

// Our wmma fragments (the ISA leaves them to the implementation: only what wmma.store writes is
// observable). A and B: element f = (lane * registers + reg) * p + sub of the warp is element
// f mod (rows * cols) of A in row-major order (B: column-major), so lane L holds whole runs of a
// row of A (a column of B) and f16's 8 registers repeat the matrix (m16n16k16: lane L holds row
// L % 16 of A and column L % 16 of B, the RDNA3 WMMA layout). C/D: element e of lane L is at
// column L % N, row e * (32 / N) + L / N, so a lane's D elements share one column of B.
[[nodiscard]] Fragment wmma_fragment(MmaShape shape, MmaOperand operand, int element_bits,
                                     int registers, int register_bits);

// For every lane L, the registers of `fragment` that hold line lines[L] (a row when `rows`, else a
// column), the line's elements in order, one register after another: sources[L * words + w] holds
// elements w * p ... w * p + p - 1. The lane itself is preferred where it holds them. nullopt when
// some register holds them in another order or split.
[[nodiscard]] std::optional<MmaWordRemap> fragment_lines(const Fragment& fragment, bool rows,
                                                         const std::vector<int>& lines);

// Element by element (for layouts whose registers cut across lines, such as m8n8k4's
// column-major A): out[L * length + e] holds element e of line lines[L]; the lane itself is
// preferred. nullopt when some element has no holder.
struct FragmentElement {
  int lane = -1;
  int reg = -1;
  int sub = -1;
};
[[nodiscard]] std::optional<std::vector<FragmentElement>>
fragment_elements(const Fragment& fragment, bool rows, const std::vector<int>& lines);

} // namespace d4r::compiler::translate
