// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 d, [p]: the ISA's fragment
// layout. Matrix j (0 .. num-1) is 8 rows of 8 b16; lane 8j + r supplies row r's address. Lane t
// receives in d[j] the two elements of row t/4 at columns 2(t%4) and 2(t%4)+1 (one 32-bit word at
// byte 4(t%4) of the row); with .trans, the elements at column t/4 of rows 2(t%4) and 2(t%4)+1.
// So each lane fetches the row address it needs from the lane that holds it (the warp exchange
// hook) and loads its own elements. Without a state space the addresses are generic (both
// halves are exchanged). The sm_100a shapes (.m16n16, .m8n16, .b8 and the packed b6/b4 types)
// are unsupported. stmatrix (its inverse) and movmatrix (a transpose by two warp exchanges) are
// below.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <optional>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// The address operand's value as an integer of `bits` (its base register or symbol plus offset).
Expected<llvm::Value*> address_value(FunctionTranslator& t, const ptx::Instruction& instruction,
                                     const ptx::Operand& operand, int bits)
{
  if (operand.kind != ptx::OperandKind::address || operand.elements.size() != 1) {
    return std::unexpected(t.error(instruction, "the matrix address is an operand [p]"));
  }
  ptx::Operand base = operand.elements.front();
  int64_t offset = 0;
  if (!base.offset.empty()) {
    std::optional<uint64_t> parsed = parse_integer(base.offset);
    if (!parsed) {
      return std::unexpected(t.error(instruction, "bad offset " + base.offset));
    }
    offset = static_cast<int64_t>(*parsed);
    base.offset.clear();
  }
  TRY_ASSIGN(llvm::Value * value, t.read(base, PtxType{PtxType::Kind::unsigned_int, bits, false}));
  return t.builder().CreateAdd(
      value, llvm::ConstantInt::get(value->getType(), static_cast<uint64_t>(offset)));
}

// Lane `source`'s row address (shared: i32; generic: i64 as two exchanges) plus `byte_offset`,
// as a pointer in the instruction's space.
llvm::Value* row_pointer(FunctionTranslator& t, llvm::Value* mine, bool shared, llvm::Value* source,
                         llvm::Value* byte_offset)
{
  Builder& b = t.builder();
  llvm::Value* mask = b.getInt32(0xffffffffU); // .sync.aligned: the whole warp
  if (shared) {
    llvm::Value* row = t.hooks().warp_exchange(t.env(), t.next_site(), mask, mine, source);
    return t.hooks().shared_pointer(t.env(), b.CreateAdd(row, byte_offset));
  }
  llvm::Value* low = t.hooks().warp_exchange(t.env(), t.next_site(), mask,
                                             b.CreateTrunc(mine, b.getInt32Ty()), source);
  llvm::Value* high = t.hooks().warp_exchange(
      t.env(), t.next_site(), mask, b.CreateTrunc(b.CreateLShr(mine, 32), b.getInt32Ty()), source);
  llvm::Value* row = b.CreateOr(b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), 32),
                                b.CreateZExt(low, b.getInt64Ty()));
  row = b.CreateAdd(row, b.CreateZExt(byte_offset, b.getInt64Ty()));
  return b.CreateIntToPtr(row, b.getPtrTy(t.hooks().address_space(Space::generic)));
}

Expected<void> lower_ldmatrix(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"sync", "aligned", "m8n8",   "x1",          "x2",
                                                 "x4",   "trans",   "shared", "shared::cta", "b16"};
  TRY(known_modifiers(t, instruction, k_known));
  const int num = has_modifier(instruction, "x1")   ? 1
                  : has_modifier(instruction, "x2") ? 2
                  : has_modifier(instruction, "x4") ? 4
                                                    : 0;
  const bool trans = has_modifier(instruction, "trans");
  const bool shared =
      has_modifier(instruction, "shared") || has_modifier(instruction, "shared::cta");
  const size_t expected = 5 + size_t{trans} + size_t{shared};
  if (num == 0 || !has_modifier(instruction, "sync") || !has_modifier(instruction, "aligned") ||
      !has_modifier(instruction, "m8n8") || !has_modifier(instruction, "b16") ||
      instruction.modifiers.size() != expected) {
    return std::unexpected(t.unsupported(instruction)); // two counts, two spaces, other shapes
  }
  TRY(expect_operands(t, instruction, 2));
  const ptx::Operand& target = instruction.operands[0];
  std::vector<ptx::Operand> registers;
  if (target.kind == ptx::OperandKind::vector) {
    registers = target.elements;
  } else {
    registers.push_back(target);
  }
  if (registers.size() != static_cast<size_t>(num)) {
    return std::unexpected(t.error(instruction, "ldmatrix needs one register per matrix"));
  }
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * mine,
             address_value(t, instruction, instruction.operands[1], shared ? 32 : 64));
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  llvm::Value* group = b.CreateLShr(lane, 2);           // t / 4
  llvm::Value* quad = b.CreateAnd(lane, b.getInt32(3)); // t % 4
  const PtxType b32{PtxType::Kind::bits, 32, false};
  for (int j = 0; j < num; ++j) {
    llvm::Value* first_row = b.getInt32(static_cast<uint32_t>(8 * j));
    llvm::Value* word = nullptr;
    if (!trans) {
      llvm::Value* source = b.CreateAdd(first_row, group);
      llvm::Value* pointer = row_pointer(t, mine, shared, source, b.CreateShl(quad, 2));
      word = b.CreateAlignedLoad(b.getInt32Ty(), pointer, llvm::Align(4));
    } else {
      llvm::Value* column = b.CreateShl(group, 1); // byte offset of column t/4
      llvm::Value* halves[2] = {nullptr, nullptr};
      for (int k = 0; k < 2; ++k) {
        llvm::Value* source = b.CreateAdd(
            first_row, b.CreateAdd(b.CreateShl(quad, 1), b.getInt32(static_cast<uint32_t>(k))));
        llvm::Value* pointer = row_pointer(t, mine, shared, source, column);
        halves[k] = b.CreateZExt(b.CreateAlignedLoad(b.getInt16Ty(), pointer, llvm::Align(2)),
                                 b.getInt32Ty());
      }
      word = b.CreateOr(halves[0], b.CreateShl(halves[1], 16));
    }
    TRY(t.write(registers[static_cast<size_t>(j)], word, b32));
  }
  return {};
}

// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 [p], r: the inverse of
// ldmatrix (PTX ISA 9.7.14.5.16). Lane 8j + r supplies row r's address of matrix j; lane t's
// register j holds the elements of row t/4 at columns 2(t%4), 2(t%4)+1, stored as one word at byte
// 4(t%4) of that row; with .trans they go to column t/4 of rows 2(t%4) and 2(t%4)+1 instead.
Expected<void> lower_stmatrix(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"sync", "aligned", "m8n8",   "x1",          "x2",
                                                 "x4",   "trans",   "shared", "shared::cta", "b16"};
  TRY(known_modifiers(t, instruction, k_known));
  const int num = has_modifier(instruction, "x1")   ? 1
                  : has_modifier(instruction, "x2") ? 2
                  : has_modifier(instruction, "x4") ? 4
                                                    : 0;
  const bool trans = has_modifier(instruction, "trans");
  const bool shared =
      has_modifier(instruction, "shared") || has_modifier(instruction, "shared::cta");
  const size_t expected = 5 + size_t{trans} + size_t{shared};
  if (num == 0 || !has_modifier(instruction, "sync") || !has_modifier(instruction, "aligned") ||
      !has_modifier(instruction, "m8n8") || !has_modifier(instruction, "b16") ||
      instruction.modifiers.size() != expected) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 2));
  const ptx::Operand& source = instruction.operands[1];
  std::vector<ptx::Operand> registers;
  if (source.kind == ptx::OperandKind::vector) {
    registers = source.elements;
  } else {
    registers.push_back(source);
  }
  if (registers.size() != static_cast<size_t>(num)) {
    return std::unexpected(t.error(instruction, "stmatrix needs one register per matrix"));
  }
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * mine,
             address_value(t, instruction, instruction.operands[0], shared ? 32 : 64));
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  llvm::Value* group = b.CreateLShr(lane, 2);
  llvm::Value* quad = b.CreateAnd(lane, b.getInt32(3));
  const PtxType b32{PtxType::Kind::bits, 32, false};
  for (int j = 0; j < num; ++j) {
    TRY_ASSIGN(llvm::Value * word, t.read(registers[static_cast<size_t>(j)], b32));
    llvm::Value* first_row = b.getInt32(static_cast<uint32_t>(8 * j));
    if (!trans) {
      llvm::Value* pointer = row_pointer(t, mine, shared, b.CreateAdd(first_row, group), b.CreateShl(quad, 2));
      b.CreateAlignedStore(word, pointer, llvm::Align(4));
      continue;
    }
    for (int k = 0; k < 2; ++k) {
      llvm::Value* row = b.CreateAdd(
          first_row, b.CreateAdd(b.CreateShl(quad, 1), b.getInt32(static_cast<uint32_t>(k))));
      llvm::Value* pointer = row_pointer(t, mine, shared, row, b.CreateShl(group, 1));
      llvm::Value* half = b.CreateTrunc(k == 0 ? word : b.CreateLShr(word, 16), b.getInt16Ty());
      b.CreateAlignedStore(half, pointer, llvm::Align(2));
    }
  }
  return {};
}

// movmatrix.sync.aligned.m8n8.trans.b16 d, a (PTX ISA 9.7.14.5.17): the 8x8 b16 matrix in
// ldmatrix's fragment layout (lane 4r + c/2 holds M[r][c] in half c%2), transposed in place:
// lane t receives M[2(t%4) + j][t/4] in half j, from lane 8(t%4) + 4j + t/8, half (t/4) % 2.
Expected<void> lower_movmatrix(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"sync", "aligned", "m8n8", "trans", "b16"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() != 5) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 2));
  Builder& b = t.builder();
  const PtxType b32{PtxType::Kind::bits, 32, false};
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], b32));
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  llvm::Value* quad = b.CreateAnd(lane, b.getInt32(3));
  llvm::Value* shift = b.CreateShl(b.CreateAnd(b.CreateLShr(lane, 2), b.getInt32(1)), 4);
  llvm::Value* base = b.CreateAdd(b.CreateShl(quad, 3), b.CreateLShr(lane, 3));
  llvm::Value* result = nullptr;
  for (int j = 0; j < 2; ++j) {
    llvm::Value* source = b.CreateAdd(base, b.getInt32(static_cast<uint32_t>(4 * j)));
    llvm::Value* fetched = t.hooks().warp_exchange(t.env(), t.next_site(), b.getInt32(0xffffffffU),
                                                   value, source);
    llvm::Value* half = b.CreateAnd(b.CreateLShr(fetched, shift), b.getInt32(0xffff));
    result = j == 0 ? half : b.CreateOr(result, b.CreateShl(half, 16));
  }
  return t.write(instruction.operands[0], result, b32);
}

} // namespace

void add_ldmatrix_lowerings(LoweringTable& table)
{
  table["ldmatrix"] = lower_ldmatrix;
  table["stmatrix"] = lower_stmatrix;
  table["movmatrix"] = lower_movmatrix;
}

} // namespace d4r::compiler::translate
