#include "compiler/translate/mma_sparse.hpp"

#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/mma_fragments.hpp"
#include "compiler/translate/mma_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;
using Values = std::vector<llvm::Value*>;
using E = MmaElement;

bool one_of(E e, std::initializer_list<E> set)
{
  return std::find(set.begin(), set.end(), e) != set.end();
}

struct SparseForm {
  MmaProduct product;
  MmaSparsity::Chunks chunks = MmaSparsity::Chunks::two_of_four;
  int chunk_columns = 4; // columns of A per chunk
};

// The shapes and types of mma.sp in PTX ISA 8.x (9.7.14.6.3, "mma.sp"): f16 m16n8k16/k32 with f16
// or f32 C = D; bf16 m16n8k16/k32, tf32 m16n8k8/k16 and FP8 m16n8k64 with f32; s8/u8 m16n8k32/k64
// and s4/u4 m16n8k64/k128 with s32 (.satfinite optional).
bool sparse_form_exists(int k, const MmaProduct& p)
{
  bool f32 = p.c == E::f32 && p.d == E::f32;
  bool s32 = p.c == E::s32 && p.d == E::s32;
  if (p.a == E::f16 && p.b == E::f16) {
    return (k == 16 || k == 32) && p.c == p.d && one_of(p.c, {E::f16, E::f32});
  }
  if (p.a == E::bf16 && p.b == E::bf16) {
    return (k == 16 || k == 32) && f32;
  }
  if (p.a == E::tf32 && p.b == E::tf32) {
    return (k == 8 || k == 16) && f32;
  }
  if (one_of(p.a, {E::e4m3, E::e5m2}) && one_of(p.b, {E::e4m3, E::e5m2})) {
    return k == 64 && f32;
  }
  if (one_of(p.a, {E::s8, E::u8}) && one_of(p.b, {E::s8, E::u8})) {
    return (k == 32 || k == 64) && s32;
  }
  if (one_of(p.a, {E::s4, E::u4}) && one_of(p.b, {E::s4, E::u4})) {
    return (k == 64 || k == 128) && s32;
  }
  return false;
}

std::optional<SparseForm> parse_sparse_form(const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() < 10 || (m[0] != "sp" && m[0] != "sp::ordered_metadata") || m[1] != "sync" ||
      m[2] != "aligned" || m[4] != "row" || m[5] != "col") {
    return std::nullopt;
  }
  int mm = 0;
  int n = 0;
  int k = 0;
  if (std::sscanf(m[3].c_str(), "m%dn%dk%d", &mm, &n, &k) != 3 || mm != 16 || n != 8 ||
      m[3] != "m16n8k" + std::to_string(k)) {
    return std::nullopt;
  }
  size_t next = 6;
  bool satfinite = m[next] == "satfinite";
  next += satfinite ? 1 : 0;
  if (m.size() != next + 4) {
    return std::nullopt;
  }
  std::optional<E> types[4];
  for (size_t i = 0; i < 4; ++i) {
    types[i] = mma_element(m[next + i]);
    if (!types[i]) {
      return std::nullopt;
    }
  }
  SparseForm form;
  MmaProduct& p = form.product;
  p.shape = MmaShape{16, 8, k};
  p.d = *types[0];
  p.a = *types[1];
  p.b = *types[2];
  p.c = *types[3];
  p.satfinite = satfinite;
  if (!sparse_form_exists(k, p) || (satfinite && p.c != E::s32)) {
    return std::nullopt;
  }
  if (p.a == E::tf32) {
    form.chunks = MmaSparsity::Chunks::one_of_two;
    form.chunk_columns = 2;
  } else if (one_of(p.a, {E::s4, E::u4})) {
    form.chunks = MmaSparsity::Chunks::pairs_of_eight;
    form.chunk_columns = 8;
  }
  return form;
}

} // namespace

std::optional<SparseMetadataSlot> sparse_metadata_slot(int chunks, int element_bits, int selector,
                                                       int row, int chunk)
{
  int lanes = chunks / 4;
  if ((lanes != 1 && lanes != 2 && lanes != 4) || selector < 0 || selector * lanes >= 4 ||
      row < 0 || row >= 16 || chunk < 0 || chunk >= chunks) {
    return std::nullopt;
  }
  int half = row / 8;
  if (element_bits >= 16) {
    return SparseMetadataSlot{selector * lanes + chunk / 4, 16 * half + 4 * (chunk % 4)};
  }
  if (lanes == 1) {
    return std::nullopt; // no 8- or 4-bit shape has 4 chunks a row
  }
  return SparseMetadataSlot{selector * lanes + 2 * (chunk / 8) + half, 4 * (chunk % 8)};
}

Expected<void> lower_mma_sparse(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<SparseForm> form = parse_sparse_form(instruction);
  if (!form) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 6));
  const ptx::Operand& selector_operand = instruction.operands[5];
  if (selector_operand.kind != ptx::OperandKind::integer) {
    return std::unexpected(t.error(instruction, "mma.sp operand 6: expected an immediate sparsity selector"));
  }
  const MmaProduct& p = form->product;
  int chunks = p.shape.k / form->chunk_columns;
  int selector = static_cast<int>(std::strtol(selector_operand.text.c_str(), nullptr, 0));
  int bits = mma_element_bits(p.a);
  if (!sparse_metadata_slot(chunks, bits, selector, 0, 0)) {
    return std::unexpected(t.error(instruction, "mma.sp: sparsity selector " + selector_operand.text +
                                                    " is undefined for this shape"));
  }
  MmaShape half_k{16, 8, p.shape.k / 2};
  std::optional<Fragment> a = mma_fragment(half_k, MmaOperand::a, mma_element_bits(p.a));
  std::optional<Fragment> b = mma_fragment(p.shape, MmaOperand::b, mma_element_bits(p.b));
  std::optional<Fragment> c = mma_fragment(p.shape, MmaOperand::c, mma_element_bits(p.c));
  if (!a || !b || !c) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(Values a_regs, read_fragment(t, instruction, 1, a->registers, a->register_bits));
  TRY_ASSIGN(Values b_regs, read_fragment(t, instruction, 2, b->registers, b->register_bits));
  TRY_ASSIGN(Values c_regs, read_fragment(t, instruction, 3, c->registers, c->register_bits));
  TRY_ASSIGN(llvm::Value * metadata, t.read(instruction.operands[4], PtxType{PtxType::Kind::bits, 32, false}));

  // The metadata registers of the lanes of this lane's group that hold any (lane_in_group -> word).
  Builder& builder = t.builder();
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  llvm::Value* group = builder.CreateAnd(lane, ~3U);
  std::map<int, llvm::Value*> held;
  for (int row : {0, 8}) {
    for (int q = 0; q < chunks; ++q) {
      int source = sparse_metadata_slot(chunks, bits, selector, row, q)->lane_in_group;
      if (!held.contains(source)) {
        held[source] = t.hooks().warp_exchange(t.env(), t.next_site(), builder.getInt32(0xffffffffU),
                                               metadata, builder.CreateAdd(group, builder.getInt32(static_cast<uint32_t>(source))));
      }
    }
  }
  // Row g's (half 0) or row g + 8's (half 1) nibbles, chunk q at bits 4 (q % 8) of word q / 8.
  std::map<int, Values> rows;
  auto row_words = [&](int half) -> const Values& {
    if (!rows.contains(half)) {
      Values words(static_cast<size_t>((chunks + 7) / 8), builder.getInt32(0));
      for (int q = 0; q < chunks; ++q) {
        SparseMetadataSlot slot = *sparse_metadata_slot(chunks, bits, selector, 8 * half, q);
        llvm::Value* nibble = builder.CreateAnd(
            builder.CreateLShr(held[slot.lane_in_group], static_cast<uint64_t>(slot.bit)), 15);
        llvm::Value*& word = words[static_cast<size_t>(q / 8)];
        word = builder.CreateOr(word, builder.CreateShl(nibble, static_cast<uint64_t>(4 * (q % 8))));
      }
      rows[half] = words;
    }
    return rows[half];
  };
  MmaSparsity sparsity;
  sparsity.chunks = form->chunks;
  const Fragment& c_layout = *c;
  sparsity.row_metadata = [&](int d_element) {
    // The row of D element i is the same half for every lane: g or g + 8.
    MatrixPos pos = c_layout.at(0, d_element / c_layout.per_register(), d_element % c_layout.per_register());
    return row_words(pos.row >= 8 ? 1 : 0);
  };
  Values d = emit_mma_product(t, p, *a, *b, *c, a_regs, b_regs, c_regs, nullptr, &sparsity);
  return write_fragment(t, instruction, 0, d, c->register_bits);
}

} // namespace d4r::compiler::translate
