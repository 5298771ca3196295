// wmma.load.{a,b,c}, wmma.mma and wmma.store.d (sm_70+): every shape and type of PTX ISA 8.x
// (9.7.14.4): .f16 and .bf16 (m16n16k16, m32n8k16, m8n32k16; f16 or f32 accumulators, bf16 f32),
// .s8/.u8 (s32, .satfinite), .tf32 (m16n16k8, f32), .f64 (m8n8k4, .rn/.rz/.rm/.rp), .s4/.u4
// (m8n8k32) and .b1 (m8n8k128, .xor.popc/.and.popc); .row/.col; .global, .shared(::cta) or
// generic addresses with an optional stride (in elements; default the matrix's own width).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-wmma
//
// The ISA leaves the fragment layout to the implementation ("the identity of individual matrix
// elements in the fragment is unspecified"): a program sees only what wmma.store.d writes (and
// element-wise operations on fragment registers, which any layout keeps). Ours is
// mma_layout.hpp's wmma_fragment(): the register counts PTX fixes (f16 A/B: eight .f16x2
// registers, so the 16x16 A is held twice), A in row-major runs, B in column-major runs, C/D
// lane L in column L % N; for m16n16k16 A/B that is RDNA3's WMMA lane layout. wmma.load and
// wmma.store move each lane's elements to and from memory with the given layout and stride, one
// element at a time (a sub-byte register is one 32-bit word: the ISA allows those only with A
// row-major and B column-major, where a register's elements are consecutive in memory). wmma.mma
// is the portable product of mma_fragments.hpp (its arithmetic rules are there); a fragment's
// .row/.col in wmma.mma changes nothing here, since the loads already placed the elements.

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/mma_fragments.hpp"
#include "compiler/translate/mma_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;
using Values = std::vector<llvm::Value*>;

constexpr int k_lanes = 32;

std::optional<MmaShape> wmma_shape(const std::string& name)
{
  static const std::pair<const char*, MmaShape> k_shapes[] = {
      {"m16n16k16", {16, 16, 16}}, {"m32n8k16", {32, 8, 16}}, {"m8n32k16", {8, 32, 16}},
      {"m16n16k8", {16, 16, 8}},   {"m8n8k4", {8, 8, 4}},     {"m8n8k32", {8, 8, 32}},
      {"m8n8k128", {8, 8, 128}}};
  for (const auto& [spelling, shape] : k_shapes) {
    if (name == spelling) {
      return shape;
    }
  }
  return std::nullopt;
}

bool big_shape(const MmaShape& s)
{
  return s.k == 16 && s.m * s.n == 256;
}

// Whether A/B of `type` exist in `shape` (PTX ISA, wmma.load).
bool multiplicand_exists(const MmaShape& shape, MmaElement type)
{
  switch (type) {
  case MmaElement::f16:
  case MmaElement::bf16:
  case MmaElement::s8:
  case MmaElement::u8: return big_shape(shape);
  case MmaElement::tf32: return shape.m == 16 && shape.n == 16 && shape.k == 8;
  case MmaElement::f64: return shape.m == 8 && shape.k == 4;
  case MmaElement::s4:
  case MmaElement::u4: return shape.m == 8 && shape.k == 32;
  case MmaElement::b1: return shape.m == 8 && shape.k == 128;
  case MmaElement::e4m3:
  case MmaElement::e5m2:
  case MmaElement::f32:
  case MmaElement::s32: return false;
  }
  return false;
}

bool accumulator_exists(const MmaShape& shape, MmaElement type)
{
  if (big_shape(shape)) {
    return type == MmaElement::f16 || type == MmaElement::f32 || type == MmaElement::s32;
  }
  if (shape.k == 8) {
    return type == MmaElement::f32;
  }
  if (shape.k == 4) {
    return type == MmaElement::f64;
  }
  return type == MmaElement::s32;
}

// Our fragment of one operand (file comment), with the register counts PTX fixes.
Fragment fragment_of(const MmaShape& shape, MmaOperand operand, MmaElement type)
{
  int bits = mma_element_bits(type);
  int register_bits = bits == 64 ? 64 : 32;
  int rows = operand == MmaOperand::b ? shape.k : shape.m;
  int cols = operand == MmaOperand::a ? shape.k : shape.n;
  int registers = rows * cols * bits / (k_lanes * register_bits);
  if (type == MmaElement::f16 && operand != MmaOperand::c) {
    registers = 8;
  }
  return wmma_fragment(shape, operand, bits, registers, register_bits);
}

struct Transfer { // one wmma.load or wmma.store
  MmaOperand operand = MmaOperand::a;
  MmaShape shape;
  MmaElement type = MmaElement::f16;
  bool row_major = true;
  Space space = Space::generic;
};

// wmma.load.{a,b,c} / wmma.store.d .sync.aligned.LAYOUT.SHAPE{.SPACE}.TYPE (any order after the
// operand letter, as ptxas takes them).
std::optional<Transfer> parse_transfer(const ptx::Instruction& instruction, bool load)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() < 2) {
    return std::nullopt;
  }
  Transfer transfer;
  if (load) {
    if (m[1] != "a" && m[1] != "b" && m[1] != "c") {
      return std::nullopt;
    }
    transfer.operand = m[1] == "a" ? MmaOperand::a : m[1] == "b" ? MmaOperand::b : MmaOperand::c;
  } else if (m[1] != "d") {
    return std::nullopt;
  } else {
    transfer.operand = MmaOperand::c;
  }
  int seen = 0; // sync, layout, shape, type: one each (.aligned: optional before PTX 6.3 style)
  bool space = false;
  bool aligned = false;
  for (size_t i = 2; i < m.size(); ++i) {
    const std::string& modifier = m[i];
    std::optional<MmaShape> shape = wmma_shape(modifier);
    std::optional<MmaElement> type = mma_element(modifier);
    if (modifier == "sync") {
      seen += 1;
    } else if (modifier == "aligned" && !aligned) {
      aligned = true;
    } else if (modifier == "row" || modifier == "col") {
      transfer.row_major = modifier == "row";
      seen += 1;
    } else if (shape) {
      transfer.shape = *shape;
      seen += 1;
    } else if (type) {
      transfer.type = *type;
      seen += 1;
    } else if (!space && (modifier == "global" || modifier == "shared" || modifier == "shared::cta")) {
      transfer.space = modifier == "global" ? Space::global : Space::shared;
      space = true;
    } else {
      return std::nullopt;
    }
  }
  if (seen != 4 || m.size() != 6 + (space ? 1U : 0U) + (aligned ? 1U : 0U)) {
    return std::nullopt;
  }
  bool exists = transfer.operand == MmaOperand::c
                    ? accumulator_exists(transfer.shape, transfer.type)
                    : multiplicand_exists(transfer.shape, transfer.type);
  int bits = mma_element_bits(transfer.type);
  // Sub-byte A is row-major only, B column-major only (the ISA's wmma.load restrictions).
  bool sub_byte_ok = bits >= 8 || transfer.row_major == (transfer.operand == MmaOperand::a);
  if (!exists || !sub_byte_ok) {
    return std::nullopt;
  }
  return transfer;
}

// The stride operand (elements) or the matrix's own leading dimension.
Expected<llvm::Value*> stride_of(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 const Fragment& fragment, bool row_major)
{
  if (instruction.operands.size() == 3) {
    return t.read(instruction.operands[2], u32_type());
  }
  return t.builder().getInt32(static_cast<uint32_t>(row_major ? fragment.cols : fragment.rows));
}

// Byte offset (i64) of element (row, col) packed as row << 16 | col in `position`.
llvm::Value* element_offset(Builder& b, llvm::Value* position, llvm::Value* stride, bool row_major,
                            int bits)
{
  llvm::Value* row = b.CreateLShr(position, 16);
  llvm::Value* col = b.CreateAnd(position, 0xffffU);
  llvm::Value* index = row_major ? b.CreateAdd(b.CreateMul(row, stride), col)
                                 : b.CreateAdd(b.CreateMul(col, stride), row);
  llvm::Value* wide = b.CreateZExt(index, b.getInt64Ty());
  return bits >= 8 ? b.CreateMul(wide, b.getInt64(static_cast<uint64_t>(bits / 8)))
                   : b.CreateLShr(b.CreateMul(wide, b.getInt64(static_cast<uint64_t>(bits))), 3);
}

// Per register and sub-element: the calling lane's (row << 16 | col).
std::vector<llvm::Value*> positions(FunctionTranslator& t, const Fragment& fragment,
                                    llvm::Value* lane, bool whole_registers)
{
  std::vector<llvm::Value*> out;
  int subs = whole_registers ? 1 : fragment.per_register();
  for (int reg = 0; reg < fragment.registers; ++reg) {
    for (int sub = 0; sub < subs; ++sub) {
      std::vector<uint32_t> entries(k_lanes);
      for (int l = 0; l < k_lanes; ++l) {
        MatrixPos pos = fragment.at(l, reg, sub);
        entries[static_cast<size_t>(l)] = static_cast<uint32_t>(pos.row) << 16 | static_cast<uint32_t>(pos.col);
      }
      out.push_back(mma_lane_table(t, entries, lane));
    }
  }
  return out;
}

Expected<void> lower_load(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<Transfer> transfer = parse_transfer(instruction, true);
  if (!transfer || (instruction.operands.size() != 2 && instruction.operands.size() != 3)) {
    return std::unexpected(t.unsupported(instruction));
  }
  Builder& b = t.builder();
  Fragment fragment = fragment_of(transfer->shape, transfer->operand, transfer->type);
  TRY_ASSIGN(llvm::Value * base, t.address(instruction.operands[1], transfer->space));
  TRY_ASSIGN(llvm::Value * stride, stride_of(t, instruction, fragment, transfer->row_major));
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  int bits = fragment.element_bits;
  bool whole = bits < 8; // one 32-bit word per register (file comment)
  std::vector<llvm::Value*> where = positions(t, fragment, lane, whole);
  int subs = whole ? 1 : fragment.per_register();
  llvm::Type* register_type = b.getIntNTy(static_cast<unsigned>(fragment.register_bits));
  llvm::Type* element_type = whole ? register_type : b.getIntNTy(static_cast<unsigned>(bits));
  Values regs;
  for (int reg = 0; reg < fragment.registers; ++reg) {
    llvm::Value* value = llvm::ConstantInt::get(register_type, 0);
    for (int sub = 0; sub < subs; ++sub) {
      llvm::Value* offset = element_offset(b, where[static_cast<size_t>(reg * subs + sub)], stride,
                                           transfer->row_major, bits);
      llvm::Value* pointer = b.CreateInBoundsGEP(b.getInt8Ty(), base, offset);
      llvm::Value* element = b.CreateLoad(element_type, pointer);
      element = b.CreateZExt(element, register_type);
      value = b.CreateOr(value, sub == 0 ? element : b.CreateShl(element, static_cast<uint64_t>(bits * sub)));
    }
    regs.push_back(value);
  }
  return write_fragment(t, instruction, 0, regs, fragment.register_bits);
}

Expected<void> lower_store(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<Transfer> transfer = parse_transfer(instruction, false);
  if (!transfer || (instruction.operands.size() != 2 && instruction.operands.size() != 3)) {
    return std::unexpected(t.unsupported(instruction));
  }
  Builder& b = t.builder();
  Fragment fragment = fragment_of(transfer->shape, MmaOperand::c, transfer->type);
  TRY_ASSIGN(llvm::Value * base, t.address(instruction.operands[0], transfer->space));
  TRY_ASSIGN(Values regs, read_fragment(t, instruction, 1, fragment.registers, fragment.register_bits));
  TRY_ASSIGN(llvm::Value * stride, stride_of(t, instruction, fragment, transfer->row_major));
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  std::vector<llvm::Value*> where = positions(t, fragment, lane, false);
  int bits = fragment.element_bits;
  int subs = fragment.per_register();
  llvm::Type* element_type = b.getIntNTy(static_cast<unsigned>(bits));
  for (int reg = 0; reg < fragment.registers; ++reg) {
    for (int sub = 0; sub < subs; ++sub) {
      llvm::Value* offset = element_offset(b, where[static_cast<size_t>(reg * subs + sub)], stride,
                                           transfer->row_major, bits);
      llvm::Value* reg_value = regs[static_cast<size_t>(reg)];
      llvm::Value* shifted = sub == 0 ? reg_value : b.CreateLShr(reg_value, static_cast<uint64_t>(bits * sub));
      b.CreateStore(b.CreateTrunc(shifted, element_type), b.CreateInBoundsGEP(b.getInt8Ty(), base, offset));
    }
  }
  return {};
}

std::optional<MmaProduct> parse_product(const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  MmaProduct p;
  std::vector<MmaElement> types;
  std::vector<bool> layouts;
  int sync = 0; // 1 per .sync, 10 per .aligned
  bool shape_seen = false;
  bool popc = false;
  bool bit_op = false;
  int rounding = -1;
  for (size_t i = 1; i < m.size(); ++i) {
    const std::string& modifier = m[i];
    std::optional<MmaShape> shape = wmma_shape(modifier);
    std::optional<MmaElement> type = mma_element(modifier);
    static const char* const k_rounding[] = {"rn", "rz", "rm", "rp"};
    const char* const* mode = std::find(std::begin(k_rounding), std::end(k_rounding), modifier);
    if (modifier == "sync" || modifier == "aligned") {
      sync += modifier == "sync" ? 1 : 10;
    } else if (modifier == "row" || modifier == "col") {
      layouts.push_back(modifier == "row");
    } else if (shape && !shape_seen) {
      p.shape = *shape;
      shape_seen = true;
    } else if (type) {
      types.push_back(*type);
    } else if (modifier == "satfinite" && !p.satfinite) {
      p.satfinite = true;
    } else if ((modifier == "xor" || modifier == "and") && !bit_op) {
      p.b1_and = modifier == "and";
      bit_op = true;
    } else if (modifier == "popc" && !popc) {
      popc = true;
    } else if (mode != std::end(k_rounding) && rounding < 0) {
      rounding = static_cast<int>(mode - std::begin(k_rounding));
    } else {
      return std::nullopt;
    }
  }
  // .sync, and .aligned where given (PTX before 6.3 wrote wmma without it).
  if ((sync != 1 && sync != 11) || layouts.size() != 2 || !shape_seen || (types.size() != 2 && types.size() != 4)) {
    return std::nullopt;
  }
  p.d = types.front();
  p.c = types.back();
  p.a = types.size() == 2 ? MmaElement::f16 : types[1];
  p.b = types.size() == 2 ? MmaElement::f16 : types[2];
  bool f16 = p.a == MmaElement::f16;
  bool integer = p.c == MmaElement::s32;
  bool b1 = p.a == MmaElement::b1;
  bool sub_byte = mma_element_bits(p.a) < 8;
  bool valid = multiplicand_exists(p.shape, p.a) && multiplicand_exists(p.shape, p.b) &&
               accumulator_exists(p.shape, p.c) && accumulator_exists(p.shape, p.d) &&
               (f16 == (types.size() == 2)) && (f16 || p.c == p.d) &&
               (p.a == p.b || (integer && mma_element_bits(p.a) == mma_element_bits(p.b) && !b1)) &&
               (!p.satfinite || (integer && !b1)) && (b1 == (bit_op && popc)) &&
               (rounding < 0 || p.a == MmaElement::f64) &&
               (!sub_byte || (layouts[0] && !layouts[1]));
  if (!valid || (p.c == MmaElement::f16 && !f16) || (integer != (p.d == MmaElement::s32))) {
    return std::nullopt;
  }
  p.f64_rounding = std::max(rounding, 0);
  // ptxas runs wmma.m16n16k8 .tf32 as k = 4 tensor-core steps (mat_wmma_tf32_f64_random: every
  // result as two rounded steps, a third of them off as one).
  p.k_group = p.a == MmaElement::tf32 ? 4 : 0;
  return p;
}

Expected<void> lower_product(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<MmaProduct> product = parse_product(instruction);
  if (!product) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 4));
  Fragment a = fragment_of(product->shape, MmaOperand::a, product->a);
  Fragment b = fragment_of(product->shape, MmaOperand::b, product->b);
  Fragment c = fragment_of(product->shape, MmaOperand::c, product->c);
  Fragment d = fragment_of(product->shape, MmaOperand::c, product->d);
  TRY_ASSIGN(Values a_regs, read_fragment(t, instruction, 1, a.registers, a.register_bits));
  TRY_ASSIGN(Values b_regs, read_fragment(t, instruction, 2, b.registers, b.register_bits));
  TRY_ASSIGN(Values c_regs, read_fragment(t, instruction, 3, c.registers, c.register_bits));
  Values d_regs = emit_mma_product(t, *product, a, b, c, a_regs, b_regs, c_regs);
  return write_fragment(t, instruction, 0, d_regs, d.register_bits);
}

Expected<void> lower_wmma(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.empty()) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (m[0] == "load") {
    return lower_load(t, instruction);
  }
  if (m[0] == "store") {
    return lower_store(t, instruction);
  }
  if (m[0] == "mma") {
    return lower_product(t, instruction);
  }
  return std::unexpected(t.unsupported(instruction));
}

} // namespace

void add_wmma_lowerings(LoweringTable& table)
{
  table["wmma"] = lower_wmma;
}

} // namespace d4r::compiler::translate
