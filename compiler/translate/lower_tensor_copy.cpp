// The tensor-map instructions of sm_90, over the tensor map as this project lays it out
// (tensor_map_layout.hpp: the client writes that layout where CUDA's cuTensorMapEncode* writes
// NVIDIA's opaque one):
//   - cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
//     {.multicast::cluster}{.L2::cache_hint} [dst], [map, {coords}], [mbar]{, ctaMask}{, policy}
//     (also .shared::cta as the destination, PTX 8.6): the whole box copied by the support
//     library (kernels/support/tensor_copy.c: out-of-bounds fill, element strides, the swizzle
//     patterns), then complete-tx of the box's bytes on the barrier, as lower_async_copy.cpp does
//     for cp.async.bulk (a copy done synchronously is one of the orders the ISA allows; where
//     every cluster is one CTA, .shared::cluster addresses are the CTA's own, and ctaMask bit 0
//     is the own CTA: lower_cluster.cpp).
//   - cp.async.bulk.tensor.{1d..5d}.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//     [map, {coords}], [src]{, policy}: the box's in-bounds elements written; the bulk-group
//     waits are no-ops (lower_async_copy.cpp).
//   - cp.reduce.async.bulk.tensor.{1d..5d}.global.shared::cta.redOp{.tile}.bulk_group
//     {.L2::cache_hint}: each in-bounds element combined atomically; the element type is the
//     map's (add/min/max/inc/dec/and/or/xor where PTX defines them for it).
//   - tensormap.replace.tile.field{.global|.shared::cta}.b1024.{b32|b64} [map]{, ord}, value: one
//     field of our layout written (rank as rank - 1, as PTX gives it).
//   - tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
//     [dst], [src], 128: the 128 bytes copied, then a fence at the scope (AMD has one proxy for
//     everything this translator emits, as lower_memory.cpp's fence.proxy says).
//   - the im2col forms of the three (3d..5d): .im2col loads with their {offsets} operand after
//     [mbar], .im2col_no_offs stores and reductions: kernels/support/tensor_copy_im2col.c (the
//     pixel traversal over the map's bounding box, each pixel's row copied as a tile box).
// A map the support library cannot use at run time (not our layout, another rank or mode than
// the instruction's, a reduction the element type lacks) traps the kernel instead of
// guessing.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace

#include "compiler/translate/lower_tensor_copy.hpp"

#include "compiler/translate/lower_mbarrier.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"
#include "compiler/translate/tensor_map_layout.hpp"

#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

constexpr PtxType k_b64{PtxType::Kind::bits, 64, false};
constexpr PtxType k_s32{PtxType::Kind::signed_int, 32, false};

// Traps where `failed` holds; the code after goes on in a fresh block.
void trap_if(FunctionTranslator& t, llvm::Value* failed)
{
  Builder& b = t.builder();
  llvm::BasicBlock* trap = llvm::BasicBlock::Create(t.context(), "tmap.bad", &t.llvm_function());
  llvm::BasicBlock* next = llvm::BasicBlock::Create(t.context(), "tmap.ok", &t.llvm_function());
  b.CreateCondBr(failed, trap, next);
  b.SetInsertPoint(trap);
  t.hooks().trap(t.env(), t.next_site());
  if (b.GetInsertBlock()->getTerminator() == nullptr) {
    b.CreateUnreachable();
  }
  b.SetInsertPoint(next);
}

// Records in the object that it reads tensor maps in our layout (D4R_TENSOR_MAP_SYMBOL): the
// launch metadata reports it, so the daemon serves the object only to a client that writes that
// layout. Externally initialised, so internalise() keeps it as a symbol of the object.
void record_tensor_map_use(FunctionTranslator& t)
{
  llvm::Module& module = t.module().module;
  if (t.hooks().kind() != TargetKind::amdgpu || module.getNamedGlobal(D4R_TENSOR_MAP_SYMBOL)) {
    return;
  }
  llvm::IntegerType* i32 = llvm::Type::getInt32Ty(t.context());
  auto* marker = new llvm::GlobalVariable(
      module, i32, false, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(i32, D4R_TENSOR_MAP_MAGIC), D4R_TENSOR_MAP_SYMBOL, nullptr,
      llvm::GlobalValue::NotThreadLocal, t.hooks().address_space(Space::constant), true);
  marker->setAlignment(llvm::Align(4));
  marker->setVisibility(llvm::GlobalValue::ProtectedVisibility);
}

// A pointer as the support library takes it (generic, address space 0).
llvm::Value* generic(FunctionTranslator& t, llvm::Value* pointer)
{
  if (pointer->getType()->getPointerAddressSpace() == 0) {
    return pointer;
  }
  return t.builder().CreateAddrSpaceCast(pointer, t.builder().getPtrTy(0));
}

// The .shared window address (u32) an address operand [base+offset] designates: what the swizzle
// patterns are a function of.
Expected<llvm::Value*> shared_window(FunctionTranslator& t, const ptx::Instruction& instruction,
                                     const ptx::Operand& operand)
{
  if (operand.kind != ptx::OperandKind::address || operand.elements.size() != 1) {
    return std::unexpected(t.error(instruction, "expected a shared address [base+offset]"));
  }
  ptx::Operand base = operand.elements.front();
  std::optional<uint64_t> offset = base.offset.empty() ? 0 : parse_integer(base.offset);
  if (!offset) {
    return std::unexpected(t.error(instruction, "bad offset " + base.offset));
  }
  base.offset.clear();
  TRY_ASSIGN(llvm::Value * window, t.read(base, u32_type()));
  return t.builder().CreateAdd(window, t.i32(static_cast<uint32_t>(*offset)));
}

struct MapOperand {
  llvm::Value* map = nullptr;          // generic pointer to the 128 bytes
  std::array<llvm::Value*, 5> coords{}; // i32, 0 past the rank
};

// [map, {c0, ..}]: the map's address (a .param, .const or .global symbol, or a generic address in
// a register) and `rank` .s32 coordinates.
Expected<MapOperand> map_operand(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 const ptx::Operand& operand, int rank)
{
  const bool shaped = operand.kind == ptx::OperandKind::address && operand.elements.size() == 2 &&
                      operand.elements[1].kind == ptx::OperandKind::vector &&
                      operand.elements[1].elements.size() == static_cast<size_t>(rank);
  if (!shaped) {
    return std::unexpected(t.error(instruction, "takes [tensorMap, {" + std::to_string(rank) +
                                                    " coordinates}]"));
  }
  ptx::Operand base;
  base.kind = ptx::OperandKind::address;
  base.elements.push_back(operand.elements[0]);
  MapOperand result;
  TRY_ASSIGN(llvm::Value * map, t.address(base, Space::generic));
  result.map = generic(t, map);
  for (size_t i = 0; i < 5; ++i) {
    result.coords[i] = t.i32(0);
    if (i < static_cast<size_t>(rank)) {
      TRY_ASSIGN(result.coords[i], t.read(operand.elements[1].elements[i], k_s32));
    }
  }
  return result;
}

// The rank of ".Nd".
std::optional<int> rank_of(std::string_view modifier)
{
  if (modifier.size() == 2 && modifier[1] == 'd' && modifier[0] >= '1' && modifier[0] <= '5') {
    return modifier[0] - '0';
  }
  return std::nullopt;
}

// Whether m[at] is `name`; steps past it when it is.
bool take(const std::vector<std::string>& m, size_t& at, std::string_view name)
{
  if (at < m.size() && m[at] == name) {
    at += 1;
    return true;
  }
  return false;
}

Expected<void> ignore_policy(FunctionTranslator& t, const ptx::Operand& operand)
{
  TRY_ASSIGN(llvm::Value * policy, t.read(operand, k_b64));
  (void)policy; // a cache policy: no observable effect
  return {};
}

// The im2col offsets operand {o1, ..} of a load: rank - 2 .b16 values, zero-extended (offsets
// into the filter window); 0 past them.
Expected<std::array<llvm::Value*, 3>> im2col_offsets(FunctionTranslator& t,
                                                     const ptx::Instruction& instruction,
                                                     const ptx::Operand& operand, int rank)
{
  const size_t count = static_cast<size_t>(rank - 2);
  if (operand.kind != ptx::OperandKind::vector || operand.elements.size() != count) {
    return std::unexpected(
        t.error(instruction, "takes {" + std::to_string(count) + " im2col offsets} after [mbar]"));
  }
  std::array<llvm::Value*, 3> result{t.i32(0), t.i32(0), t.i32(0)};
  for (size_t i = 0; i < count; ++i) {
    TRY_ASSIGN(llvm::Value * offset,
               t.read(operand.elements[i], PtxType{PtxType::Kind::bits, 16, false}));
    result[i] = t.builder().CreateZExt(offset, t.builder().getInt32Ty());
  }
  return result;
}

// global -> shared: the modifiers after dst.src are {.tile|.im2col}.mbarrier::complete_tx::bytes
// {.multicast::cluster}{.L2::cache_hint}; .im2col takes its offsets after [mbar].
Expected<void> lower_tensor_load(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 int rank, std::string_view destination, size_t at)
{
  const std::vector<std::string>& m = instruction.modifiers;
  const bool im2col = take(m, at, "im2col");
  if (!im2col) {
    (void)take(m, at, "tile");
  }
  const bool completes = take(m, at, "mbarrier::complete_tx::bytes");
  const bool multicast = take(m, at, "multicast::cluster");
  const bool hint = take(m, at, "L2::cache_hint");
  if (!completes || at != m.size() || (multicast && destination != "shared::cluster") ||
      (im2col && rank < 3)) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  if (ops.size() != 3 + size_t{im2col} + size_t{multicast} + size_t{hint}) {
    return std::unexpected(t.error(instruction, "takes [dst], [tensorMap, coords], [mbar]" +
                                                    std::string(im2col ? ", {offsets}" : "") +
                                                    (multicast ? ", ctaMask" : "") +
                                                    (hint ? ", cache-policy" : "")));
  }
  std::array<llvm::Value*, 3> offsets{};
  if (im2col) {
    TRY_ASSIGN(offsets, im2col_offsets(t, instruction, ops[3], rank));
  }
  if (hint) {
    TRY(ignore_policy(t, ops.back()));
  }
  TRY_ASSIGN(llvm::Value * target, mbarrier_pointer(t, instruction, ops[0], destination));
  TRY_ASSIGN(llvm::Value * window, shared_window(t, instruction, ops[0]));
  TRY_ASSIGN(MapOperand map, map_operand(t, instruction, ops[1], rank));
  TRY_ASSIGN(llvm::Value * barrier, mbarrier_pointer(t, instruction, ops[2], destination));
  Builder& b = t.builder();
  llvm::BasicBlock* after = nullptr;
  if (multicast) { // a cluster of one CTA: bit 0 is the own CTA, the others name none
    TRY_ASSIGN(llvm::Value * mask,
               t.read(ops[3 + size_t{im2col}], PtxType{PtxType::Kind::bits, 16, false}));
    llvm::BasicBlock* own = llvm::BasicBlock::Create(t.context(), "tmap.own", &t.llvm_function());
    after = llvm::BasicBlock::Create(t.context(), "tmap.after", &t.llvm_function());
    b.CreateCondBr(b.CreateTrunc(mask, b.getInt1Ty()), own, after);
    b.SetInsertPoint(own);
  }
  const auto& c = map.coords;
  std::vector<llvm::Value*> args = {generic(t, target), window, map.map,
                                    t.i32(static_cast<uint32_t>(rank)), c[0], c[1], c[2], c[3], c[4]};
  if (im2col) { // kernels/support/tensor_copy_im2col.c
    args.insert(args.end(), offsets.begin(), offsets.end());
  }
  llvm::Value* bytes = t.call_support(
      im2col ? "__d4r_ptx_tensor_load_im2col" : "__d4r_ptx_tensor_load", b.getInt32Ty(), args);
  trap_if(t, b.CreateICmpSLT(bytes, t.i32(0)));
  mbarrier_complete_tx(t, barrier, bytes);
  if (after != nullptr) {
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }
  return {};
}

constexpr std::string_view k_reduce_ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};

// shared -> global, a store or a reduction: {.redOp}{.tile|.im2col_no_offs}.bulk_group
// {.L2::cache_hint}.
Expected<void> lower_tensor_store(FunctionTranslator& t, const ptx::Instruction& instruction,
                                  int rank, bool reduce, size_t at)
{
  const std::vector<std::string>& m = instruction.modifiers;
  std::optional<uint32_t> op;
  for (uint32_t i = 0; reduce && i < std::size(k_reduce_ops); ++i) {
    if (take(m, at, k_reduce_ops[i])) {
      op = i;
      break;
    }
  }
  const bool im2col = take(m, at, "im2col_no_offs");
  if (!im2col) {
    (void)take(m, at, "tile");
  }
  const bool grouped = take(m, at, "bulk_group");
  const bool hint = take(m, at, "L2::cache_hint");
  if (!grouped || at != m.size() || reduce != op.has_value() || (im2col && rank < 3)) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  if (ops.size() != 2 + size_t{hint}) {
    return std::unexpected(t.error(
        instruction, "takes [tensorMap, coords], [src]" + std::string(hint ? ", cache-policy" : "")));
  }
  if (hint) {
    TRY(ignore_policy(t, ops.back()));
  }
  TRY_ASSIGN(MapOperand map, map_operand(t, instruction, ops[0], rank));
  TRY_ASSIGN(llvm::Value * source, t.address(ops[1], Space::shared));
  TRY_ASSIGN(llvm::Value * window, shared_window(t, instruction, ops[1]));
  Builder& b = t.builder();
  const auto& c = map.coords;
  std::vector<llvm::Value*> args = {generic(t, source), window, map.map,
                                    t.i32(static_cast<uint32_t>(rank))};
  if (op) {
    args.push_back(t.i32(*op));
  }
  args.insert(args.end(), {c[0], c[1], c[2], c[3], c[4]});
  const std::string name = std::string(op ? "__d4r_ptx_tensor_reduce" : "__d4r_ptx_tensor_store") +
                           (im2col ? "_im2col" : ""); // tensor_copy_im2col.c
  llvm::Value* bytes = t.call_support(name, b.getInt32Ty(), args);
  trap_if(t, b.CreateICmpSLT(bytes, t.i32(0)));
  return {};
}

// The field tensormap.replace writes: its offset in our layout, its width, whether an ordinal
// picks one of several, the PTX type of the value, and what the stored value adds (rank - 1).
struct Field {
  std::string_view name;
  int64_t offset;
  int bytes;
  int ordinals; // 0: none
  int bits;     // .b32 or .b64
  int add;
};

constexpr Field k_fields[] = {
    {"global_address", D4R_TMAP_OFF_GLOBAL_ADDRESS, 8, 0, 64, 0},
    {"rank", D4R_TMAP_OFF_RANK, 1, 0, 32, 1},
    {"box_dim", D4R_TMAP_OFF_BOX_DIM, 4, 5, 32, 0},
    {"global_dim", D4R_TMAP_OFF_GLOBAL_DIM, 4, 5, 32, 0},
    {"global_stride", D4R_TMAP_OFF_GLOBAL_STRIDE, 8, 4, 64, 0},
    {"element_stride", D4R_TMAP_OFF_ELEMENT_STRIDE, 4, 5, 32, 0},
    {"elemtype", D4R_TMAP_OFF_ELEMENT_TYPE, 1, 0, 32, 0},
    {"interleave_layout", D4R_TMAP_OFF_INTERLEAVE, 1, 0, 32, 0},
    {"swizzle_mode", D4R_TMAP_OFF_SWIZZLE, 1, 0, 32, 0},
    {"swizzle_atomicity", D4R_TMAP_OFF_SWIZZLE_ATOMICITY, 1, 0, 32, 0},
    {"fill_mode", D4R_TMAP_OFF_FILL, 1, 0, 32, 0},
};

// tensormap.replace.tile.field{.space}.b1024.type [addr]{, ord}, new_val.
Expected<void> lower_tensormap_replace(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  const Field* field = nullptr;
  for (const Field& candidate : k_fields) {
    field = m.size() >= 3 && m[2] == candidate.name ? &candidate : field;
  }
  size_t at = 3;
  const bool global = take(m, at, "global");
  const bool shared = !global && take(m, at, "shared::cta");
  const bool wide = at + 2 == m.size() && m[at] == "b1024" && m[at + 1] == "b64";
  const bool narrow = at + 2 == m.size() && m[at] == "b1024" && m[at + 1] == "b32";
  if (m[1] != "tile" || field == nullptr || !(field->bits == 64 ? wide : narrow)) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  TRY(expect_operands(t, instruction, field->ordinals > 0 ? 3 : 2));
  int64_t offset = field->offset;
  if (field->ordinals > 0) {
    const ptx::Operand& ord = ops[1];
    std::optional<uint64_t> index =
        ord.kind == ptx::OperandKind::integer ? parse_integer(ord.text) : std::nullopt;
    if (!index || *index >= static_cast<uint64_t>(field->ordinals)) {
      return std::unexpected(t.error(instruction, "the ordinal is a constant below " +
                                                      std::to_string(field->ordinals)));
    }
    offset += static_cast<int64_t>(*index) * field->bytes;
  }
  const Space space = global ? Space::global : shared ? Space::shared : Space::generic;
  TRY_ASSIGN(llvm::Value * base, t.address(ops[0], space));
  TRY_ASSIGN(llvm::Value * value,
             t.read(ops.back(), PtxType{PtxType::Kind::bits, field->bits, false}));
  Builder& b = t.builder();
  if (field->add != 0) {
    value = b.CreateAdd(value, llvm::ConstantInt::get(value->getType(), field->add));
  }
  llvm::Type* stored = b.getIntNTy(static_cast<unsigned>(field->bytes * 8));
  llvm::Value* pointer = b.CreateConstGEP1_64(b.getInt8Ty(), base, offset);
  b.CreateAlignedStore(b.CreateZExtOrTrunc(value, stored), pointer,
                       llvm::Align(static_cast<uint64_t>(field->bytes)));
  return {};
}

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
// [dst], [src], 128.
Expected<void> lower_tensormap_fenceproxy(FunctionTranslator& t,
                                          const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", "cta",
      "cluster",       "gpu",    "sys",         "sync",               "aligned"};
  TRY(known_modifiers(t, instruction, k_known));
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() != 8 || m[1] != "global" || m[2] != "shared::cta" || m[3] != "tensormap::generic" ||
      m[4] != "release" || m[6] != "sync" || m[7] != "aligned") {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  const ptx::Operand& size = instruction.operands[2];
  if (size.kind != ptx::OperandKind::integer || size.text != "128") {
    return std::unexpected(t.error(instruction, "tensormap.cp_fenceproxy copies 128 bytes"));
  }
  TRY_ASSIGN(llvm::Value * target, t.address(instruction.operands[0], Space::global));
  TRY_ASSIGN(llvm::Value * source, t.address(instruction.operands[1], Space::shared));
  Builder& b = t.builder();
  for (int64_t word = 0; word < D4R_TENSOR_MAP_BYTES / 8; ++word) {
    llvm::Value* bits = b.CreateAlignedLoad(
        b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt64Ty(), source, word), llvm::Align(8));
    b.CreateAlignedStore(bits, b.CreateConstGEP1_64(b.getInt64Ty(), target, word), llvm::Align(8));
  }
  const std::string_view scope = m[5] == "cluster" ? "gpu" : std::string_view(m[5]);
  if (scope != "cta" && scope != "gpu" && scope != "sys") {
    return std::unexpected(t.unsupported(instruction));
  }
  t.hooks().fence(t.env(), scope);
  return {};
}

Expected<void> lower_tensormap(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() >= 2 && m[0] == "replace") {
    record_tensor_map_use(t);
    return lower_tensormap_replace(t, instruction);
  }
  if (!m.empty() && m[0] == "cp_fenceproxy") {
    return lower_tensormap_fenceproxy(t, instruction);
  }
  return std::unexpected(t.unsupported(instruction));
}

} // namespace

Expected<void> lower_tensor_copy(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "reduce",     "async", "bulk", "tensor", "1d", "2d", "3d", "4d", "5d", "shared::cluster",
      "shared::cta", "global", "tile", "im2col", "im2col_no_offs", "mbarrier::complete_tx::bytes",
      "bulk_group",
      "multicast::cluster", "L2::cache_hint", "add", "min", "max", "inc", "dec", "and", "or",
      "xor"};
  TRY(known_modifiers(t, instruction, k_known));
  const std::vector<std::string>& m = instruction.modifiers;
  const bool reduce = !m.empty() && m[0] == "reduce";
  const size_t first = reduce ? 1 : 0;
  if (m.size() < first + 6 || m[first] != "async" || m[first + 1] != "bulk" ||
      m[first + 2] != "tensor") {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<int> rank = rank_of(m[first + 3]);
  const std::string& destination = m[first + 4];
  const std::string& source = m[first + 5];
  if (!rank) {
    return std::unexpected(t.unsupported(instruction));
  }
  record_tensor_map_use(t);
  const bool to_shared = destination == "shared::cluster" || destination == "shared::cta";
  if (!reduce && to_shared && source == "global") {
    return lower_tensor_load(t, instruction, *rank, destination, first + 6);
  }
  if (destination == "global" && source == "shared::cta") {
    return lower_tensor_store(t, instruction, *rank, reduce, first + 6);
  }
  return std::unexpected(t.unsupported(instruction));
}

void add_tensor_copy_lowerings(LoweringTable& table)
{
  table["tensormap"] = lower_tensormap;
}

} // namespace d4r::compiler::translate
