// mma.sync.aligned.m16n8k16.row.col with A/B in .f16, .bf16, .e4m3 or .e5m2 (sm_89 PTX) and C/D
// in .f32 or .f16 (stage 6); every other shape and type of PTX 8.x (m16n8k8 f16/bf16/tf32,
// m16n8k4 tf32, m16n8k32 FP8, f64 m8n8k4/m16n8k4/k8/k16, s8/u8, s4/u4, b1 .xor/.and.popc,
// .satfinite, m8n8k4 .f16 on quad-pairs) goes to lower_other() below: the ISA's fragments
// (mma_layout.hpp mma_fragment, mma_m8n8k4_fragment) and mma_fragments.hpp's portable product. Fragment layouts: PTX ISA 9.7.14.5.8 "Matrix Fragments for
// mma.m16n8k16 with floating point type" and 9.7.14.5.9 "Matrix Fragments for mma.m16n8k16 with
// integer type" (whose tables carry the .e4m3/.e5m2 rows); mma_layout.hpp has them as functions.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#matrix-fragments-for-mma-m16n8k16-with-floating-point-type
//
// Portable lowering (the host, every AMDGPU target, and any form WMMA cannot take): every lane
// fetches rows g and g + 8 of A and columns 2t and 2t + 1 of B from the lanes that hold them (on
// the host one d4r_rt_warp_gather of every lane's A and B registers, on AMDGPU one ds_bpermute per
// word), then computes its own four D elements. Arithmetic: every product of two f16, bf16 or FP8
// values is exact in f32; NVIDIA leaves the tensor core's accumulation unspecified. f16 and bf16:
// as the H200 sums (mma_fragments.hpp, mma_tensor_sum: terms truncated to 25 bits below the
// largest exponent estimate; corpus_gemm_f16_random and the mat_*_random goldens bit-exact). FP8:
// mma_fragments.hpp mma_fp8_sum (as ptxas runs it on the H200: two f16 tensor-core steps over the
// halves of K, then C added and rounded to nearest; every FP8 golden). NaN results become NVIDIA's
// canonical 0x7fffffff (f16 D: 0x7fff). FP8 bytes decode through a 256-entry f64 table (exact by
// construction), and each product is one f64 multiply (exact).
//
// Native lowering (TranslateOptions::mma_native, AMDGPU): gfx11 v_wmma_f32_16x16x16_{f16,bf16}
// and gfx12 v_wmma_f32_16x16x16_{f16,bf16,fp8_fp8,bf8_bf8}, for f32 C/D. m16n8k16 is the left half
// of a 16x16x16 WMMA: B and C columns 8..15 are zero, and D's columns 0..7 are the result. The A,
// B and C fragments move to the WMMA lane layout and D back by ds_bpermute, along the word remaps
// mma_word_remap() derives from the two layouts (tests/unit/test_compiler_translate_mma_layout.cpp
// checks them against a host model of both WMMA layouts); C's and D's moves are marks that
// wmma_accumulator.hpp drops where C is an earlier mma's D (a K loop's accumulator stays in the
// WMMA layout). e4m3/e5m2 on gfx11 (no FP8 WMMA) take the f16 WMMA in the fast set (the bytes
// decoded to f16 first, summed as the hardware sums) and the portable lowering in the accuracy
// set; f16 C/D always take the portable lowering.

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/mma_fragments.hpp"
#include "compiler/translate/mma_layout.hpp"
#include "compiler/translate/mma_sparse.hpp"
#include "compiler/translate/wmma_accumulator.hpp"

#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;
using Values = std::vector<llvm::Value*>;

constexpr int k_lanes = 32;

enum class MmaInput { f16, bf16, e4m3, e5m2 };

struct MmaForm {
  MmaInput input = MmaInput::f16;
  bool c_f32 = true;
  bool d_f32 = true;
  int input_bits() const { return input == MmaInput::e4m3 || input == MmaInput::e5m2 ? 8 : 16; }
  int a_words() const { return input_bits() == 8 ? 2 : 4; }
  int b_words() const { return input_bits() == 8 ? 1 : 2; }
};

std::optional<MmaInput> input_type(const std::string& name)
{
  if (name == "f16") {
    return MmaInput::f16;
  }
  if (name == "bf16") {
    return MmaInput::bf16;
  }
  if (name == "e4m3") {
    return MmaInput::e4m3;
  }
  if (name == "e5m2") {
    return MmaInput::e5m2;
  }
  return std::nullopt;
}

// mma.sync.aligned.m16n8k16.row.col.DTYPE.ATYPE.BTYPE.CTYPE; nullopt for any other form.
std::optional<MmaForm> parse_form(const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() != 9 || m[0] != "sync" || m[1] != "aligned" || m[2] != "m16n8k16" ||
      m[3] != "row" || m[4] != "col" || m[6] != m[7]) {
    return std::nullopt;
  }
  std::optional<MmaInput> input = input_type(m[6]);
  bool d_ok = m[5] == "f32" || m[5] == "f16";
  bool c_ok = m[8] == "f32" || m[8] == "f16";
  if (!input || !d_ok || !c_ok) {
    return std::nullopt;
  }
  MmaForm form{*input, m[8] == "f32", m[5] == "f32"};
  if (form.input == MmaInput::bf16 && !(form.c_f32 && form.d_f32)) {
    return std::nullopt; // PTX has bf16 only with f32 accumulators
  }
  if (form.input_bits() == 8 && form.c_f32 != form.d_f32) {
    return std::nullopt; // FP8 inputs take one accumulator type for C and D (ptxas refuses a mix)
  }
  return form;
}

Expected<Values> read_words(FunctionTranslator& t, const ptx::Instruction& instruction,
                            size_t index, size_t count)
{
  const ptx::Operand& operand = instruction.operands[index];
  if (operand.kind != ptx::OperandKind::vector || operand.elements.size() != count) {
    return std::unexpected(t.error(instruction, "mma operand " + std::to_string(index + 1) +
                                                    ": expected {" + std::to_string(count) +
                                                    " registers}"));
  }
  Values words;
  for (const ptx::Operand& element : operand.elements) {
    TRY_ASSIGN(llvm::Value * word, t.read(element, PtxType{PtxType::Kind::bits, 32, false}));
    words.push_back(word);
  }
  return words;
}

// Host: every lane's `mine` words in one d4r_rt_warp_gather; the fetch reads the gathered array
// (word `word` + `offset` of lane `source_lane`).
llvm::Value* host_gather(FunctionTranslator& t, const Values& mine)
{
  Builder& b = t.builder();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::BasicBlock& entry_block = t.llvm_function().getEntryBlock();
  Builder entry(&entry_block, entry_block.begin());
  llvm::AllocaInst* mine_slot =
      entry.CreateAlloca(llvm::ArrayType::get(i32, mine.size()), nullptr, "mma.mine");
  llvm::AllocaInst* all_slot =
      entry.CreateAlloca(llvm::ArrayType::get(i32, mine.size() * k_lanes), nullptr, "mma.all");
  for (size_t i = 0; i < mine.size(); ++i) {
    b.CreateStore(mine[i], b.CreateConstInBoundsGEP1_64(i32, mine_slot, i));
  }
  llvm::Module& module = *t.llvm_function().getParent();
  llvm::FunctionCallee gather = module.getOrInsertFunction(
      "d4r_rt_warp_gather",
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), i32, i32, b.getPtrTy(), i32, b.getPtrTy()},
                              false));
  b.CreateCall(gather, {t.env().thread, b.getInt32(t.next_site()), b.getInt32(0xffffffffU),
                        mine_slot, b.getInt32(static_cast<uint32_t>(mine.size())), all_slot});
  return all_slot;
}

MmaFetch gathered_fetch(Builder& b, llvm::Value* all, int stride, int offset)
{
  return [&b, all, stride, offset](llvm::Value* source_lane, int word) -> llvm::Value* {
    llvm::Value* index = b.CreateAdd(b.CreateMul(source_lane, b.getInt32(static_cast<uint32_t>(stride))),
                                     b.getInt32(static_cast<uint32_t>(offset + word)));
    return b.CreateLoad(b.getInt32Ty(), b.CreateInBoundsGEP(b.getInt32Ty(), all, index));
  };
}

// Element `sub` of a packed A/B word, exactly: f64 for f16 and FP8, f32 for bf16.
llvm::Value* decode_input(FunctionTranslator& t, MmaInput input, llvm::Value* word, int sub)
{
  Builder& b = t.builder();
  switch (input) {
  case MmaInput::f16: {
    llvm::Value* bits = b.CreateTrunc(b.CreateLShr(word, static_cast<uint64_t>(16 * sub)), b.getInt16Ty());
    return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getDoubleTy());
  }
  case MmaInput::bf16: { // f32, as mma_tensor_sum takes it
    llvm::Value* bits = sub == 0 ? b.CreateShl(word, 16) : b.CreateAnd(word, 0xffff0000U);
    return b.CreateBitCast(bits, b.getFloatTy());
  }
  case MmaInput::e4m3:
  case MmaInput::e5m2: {
    llvm::Value* byte = b.CreateAnd(b.CreateLShr(word, static_cast<uint64_t>(8 * sub)), 0xff);
    return mma_fp8_value(t, byte, input == MmaInput::e4m3);
  }
  }
  D4R_UNREACHABLE("every mma input type is covered");
}

// Accumulator element `i` (0..3) of C as f32 (an f16 C widens exactly).
llvm::Value* c_element(Builder& b, const Values& c, bool f32, int i)
{
  if (f32) {
    return b.CreateBitCast(c[static_cast<size_t>(i)], b.getFloatTy());
  }
  llvm::Value* bits = b.CreateTrunc(b.CreateLShr(c[static_cast<size_t>(i / 2)],
                                                 static_cast<uint64_t>(16 * (i % 2))),
                                    b.getInt16Ty());
  return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy());
}

Expected<void> write_d(FunctionTranslator& t, const ptx::Instruction& instruction, bool f32,
                       const Values& d)
{
  Builder& b = t.builder();
  const ptx::Operand& target = instruction.operands[0];
  if (f32) {
    for (size_t i = 0; i < 4; ++i) {
      TRY(t.write(target.elements[i], d[i], f32_type()));
    }
    return {};
  }
  for (size_t j = 0; j < 2; ++j) {
    Values halves;
    for (size_t s = 0; s < 2; ++s) {
      llvm::Value* value = d[2 * j + s];
      llvm::Value* half = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty());
      half = b.CreateSelect(b.CreateFCmpUNO(value, value), b.getInt16(0x7fff), half);
      halves.push_back(b.CreateZExt(half, b.getInt32Ty()));
    }
    llvm::Value* word = b.CreateOr(halves[0], b.CreateShl(halves[1], 16));
    TRY(t.write(target.elements[j], word, PtxType{PtxType::Kind::bits, 32, false}));
  }
  return {};
}

struct Fragments {
  Values a, b, c;
};

Expected<void> lower_portable(FunctionTranslator& t, const ptx::Instruction& instruction,
                              const MmaForm& form, const Fragments& in)
{
  Builder& b = t.builder();
  int bits = form.input_bits();
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  MmaWordRemap to_rows = layout_word_remap({MmaLayout::rows, MmaOperand::a, bits}, {MmaLayout::ptx, MmaOperand::a, bits});
  MmaWordRemap to_cols = layout_word_remap({MmaLayout::cols, MmaOperand::b, bits}, {MmaLayout::ptx, MmaOperand::b, bits});
  MmaFetch fetch_a;
  MmaFetch fetch_b;
  if (t.hooks().kind() == TargetKind::host) {
    Values mine = in.a;
    mine.insert(mine.end(), in.b.begin(), in.b.end());
    llvm::Value* all = host_gather(t, mine);
    int stride = static_cast<int>(mine.size());
    fetch_a = gathered_fetch(b, all, stride, 0);
    fetch_b = gathered_fetch(b, all, stride, static_cast<int>(in.a.size()));
  } else {
    fetch_a = bpermute_fetch(b, in.a);
    fetch_b = bpermute_fetch(b, in.b);
  }
  Values rows = emit_word_remap(t, to_rows, lane, fetch_a);
  Values cols = emit_word_remap(t, to_cols, lane, fetch_b);
  int per_word = 32 / bits;
  size_t width = rows.size() / 2; // words per row (column)
  Values d;
  for (int i = 0; i < 4; ++i) {
    size_t row = i >= 2 ? width : 0;
    size_t col = (i & 1) != 0 ? width : 0;
    Values a_values;
    Values b_values;
    for (size_t w = 0; w < width; ++w) {
      for (int s = 0; s < per_word; ++s) {
        a_values.push_back(decode_input(t, form.input, rows[row + w], s));
        b_values.push_back(decode_input(t, form.input, cols[col + w], s));
      }
    }
    llvm::Value* c = c_element(b, in.c, form.c_f32, i);
    bool tensor = form.input == MmaInput::f16 || form.input == MmaInput::bf16;
    MmaElement element = form.input == MmaInput::f16 ? MmaElement::f16 : MmaElement::bf16;
    d.push_back(tensor ? mma_tensor_sum(b, a_values, b_values, c, 0, element)
                       : mma_fp8_sum(b, a_values, b_values, c, !form.d_f32));
  }
  return write_d(t, instruction, form.d_f32, d);
}

bool is_gfx11(const TranslateOptions& options)
{
  return options.processor.starts_with("gfx11");
}

bool native_possible(FunctionTranslator& t, const MmaForm& form)
{
  const TranslateOptions& options = t.module().options;
  if (t.hooks().kind() != TargetKind::amdgpu || !options.mma_native || !form.c_f32 || !form.d_f32) {
    return false;
  }
  if (is_gfx11(options)) {
    // FP8 through the f16 WMMA (below) sums as the hardware does, not as the H200's tensor
    // cores: the fast set only; the accuracy set keeps the portable, exact lowering.
    return form.input_bits() == 16 || options.float_policy == FloatPolicy::fast;
  }
  return options.processor.starts_with("gfx12");
}

llvm::Value* pack_vector(Builder& b, const Values& words, llvm::Type* vector_type)
{
  llvm::Value* packed = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getInt32Ty(), words.size()));
  for (size_t i = 0; i < words.size(); ++i) {
    packed = b.CreateInsertElement(packed, words[i], i);
  }
  return b.CreateBitCast(packed, vector_type);
}

llvm::Value* wmma_call(Builder& b, MmaInput input, llvm::Value* a, llvm::Value* bv, llvm::Value* c)
{
  llvm::Intrinsic::ID id = llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_f16;
  switch (input) {
  case MmaInput::f16: break;
  case MmaInput::bf16: id = llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_bf16; break;
  case MmaInput::e4m3: id = llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_fp8_fp8; break;
  case MmaInput::e5m2: id = llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_bf8_bf8; break;
  }
  return b.CreateIntrinsic(id, {c->getType(), a->getType()}, {a, bv, c});
}

llvm::Type* operand_type(Builder& b, MmaInput input, int words)
{
  unsigned count = static_cast<unsigned>(words);
  switch (input) {
  case MmaInput::f16: return llvm::FixedVectorType::get(b.getHalfTy(), 2 * count);
  case MmaInput::bf16: return llvm::FixedVectorType::get(b.getInt16Ty(), 2 * count);
  case MmaInput::e4m3:
  case MmaInput::e5m2: return llvm::FixedVectorType::get(b.getInt32Ty(), count);
  }
  D4R_UNREACHABLE("every mma input type is covered");
}

// RDNA3 has no FP8 WMMA: an FP8 fragment's words of four e4m3/e5m2 bytes become words of two
// f16 in place (mma_layout.hpp ptx_widened) for the f16 WMMA, each pair decoded exactly (every
// FP8 value is an f16) as cvt.rn.f16x2.{e4m3x2,e5m2x2} decodes it (a NaN becomes f16 0x7fff).
Values widened_to_f16(FunctionTranslator& t, const Values& words, MmaInput input)
{
  Builder& b = t.builder();
  const char* decode = input == MmaInput::e5m2 ? "__d4r_ptx_cvt_f16x2_e5m2x2" : "__d4r_ptx_cvt_f16x2_e4m3x2";
  Values halves;
  for (llvm::Value* word : words) {
    for (uint64_t shift : {0, 16}) {
      llvm::Value* pair = b.CreateTrunc(b.CreateLShr(word, shift), b.getInt16Ty());
      halves.push_back(t.call_support(decode, b.getInt32Ty(), {pair, t.i32(0)}));
    }
  }
  return halves;
}

Expected<void> lower_native(FunctionTranslator& t, const ptx::Instruction& instruction,
                            const MmaForm& form, const Fragments& in)
{
  Builder& b = t.builder();
  bool gfx11 = is_gfx11(t.module().options);
  MmaLayout family = gfx11 ? MmaLayout::gfx11 : MmaLayout::gfx12;
  int bits = form.input_bits();
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  MmaInput input = form.input;
  MmaLayoutSpec a_source{MmaLayout::ptx, MmaOperand::a, bits};
  MmaLayoutSpec b_source{MmaLayout::ptx, MmaOperand::b, bits};
  Values a_words = in.a;
  Values b_words = in.b;
  if (gfx11 && bits == 8) {
    a_words = widened_to_f16(t, in.a, input);
    b_words = widened_to_f16(t, in.b, input);
    a_source = {MmaLayout::ptx_widened, MmaOperand::a, 16};
    b_source = {MmaLayout::ptx_widened, MmaOperand::b, 16};
    input = MmaInput::f16;
    bits = 16;
  }
  Values a = emit_word_remap(t, layout_word_remap({family, MmaOperand::a, bits}, a_source), lane,
                             bpermute_fetch(b, a_words));
  Values bw = emit_word_remap(t, layout_word_remap({family, MmaOperand::b, bits}, b_source), lane,
                              bpermute_fetch(b, b_words));
  llvm::Type* accumulator = llvm::FixedVectorType::get(b.getFloatTy(), 8);
  llvm::Value* c = mark_wmma_accumulator(b, family, in.c);
  llvm::Value* result =
      wmma_call(b, input, pack_vector(b, a, operand_type(b, input, static_cast<int>(a.size()))),
                pack_vector(b, bw, operand_type(b, input, static_cast<int>(bw.size()))), c);
  llvm::Value* canonical = llvm::PoisonValue::get(accumulator);
  for (unsigned i = 0; i < 8; ++i) {
    canonical = b.CreateInsertElement(canonical, canonical_nan(b, b.CreateExtractElement(result, i)), i);
  }
  Values d;
  for (int word = 0; word < 4; ++word) {
    d.push_back(b.CreateBitCast(mark_ptx_word(b, family, canonical, word), b.getFloatTy()));
  }
  return write_d(t, instruction, true, d);
}

struct OtherForm {
  MmaProduct product;
  Fragment a, b, c;
  std::optional<Fragment> d; // where D's layout is not C's
};

bool one_of(MmaElement e, std::initializer_list<MmaElement> set)
{
  return std::find(set.begin(), set.end(), e) != set.end();
}

bool shape_is(std::initializer_list<const char*> names, const std::string& name)
{
  return std::find_if(names.begin(), names.end(), [&](const char* n) { return name == n; }) !=
         names.end();
}

// Whether the PTX ISA has mma.sync with these shape and types (9.7.14.5.14, "mma"; sm_90
// PTX 8.x): every form but m8n8k4 with .f16 and the m16n8k16 forms lower_portable/native take.
bool other_form_exists(const std::string& shape, const MmaProduct& p)
{
  using E = MmaElement;
  bool same_acc = p.c == p.d;
  if (p.a == E::f16 && p.b == E::f16) {
    return shape_is({"m16n8k8"}, shape) && same_acc && one_of(p.c, {E::f16, E::f32});
  }
  if ((p.a == E::bf16 && p.b == E::bf16) || (p.a == E::tf32 && p.b == E::tf32)) {
    bool ok = p.a == E::bf16 ? shape_is({"m16n8k8"}, shape)
                             : shape_is({"m16n8k4", "m16n8k8"}, shape);
    return ok && p.c == E::f32 && p.d == E::f32;
  }
  if (one_of(p.a, {E::e4m3, E::e5m2}) && one_of(p.b, {E::e4m3, E::e5m2})) {
    return shape_is({"m16n8k16", "m16n8k32"}, shape) && same_acc &&
           one_of(p.c, {E::f16, E::f32});
  }
  if (p.a == E::f64 && p.b == E::f64) {
    return shape_is({"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"}, shape) &&
           p.c == E::f64 && p.d == E::f64;
  }
  bool s32 = p.c == E::s32 && p.d == E::s32;
  if (one_of(p.a, {E::s8, E::u8}) && one_of(p.b, {E::s8, E::u8})) {
    return shape_is({"m8n8k16", "m16n8k16", "m16n8k32"}, shape) && s32;
  }
  if (one_of(p.a, {E::s4, E::u4}) && one_of(p.b, {E::s4, E::u4})) {
    return shape_is({"m8n8k32", "m16n8k32", "m16n8k64"}, shape) && s32;
  }
  if (p.a == E::b1 && p.b == E::b1) {
    return shape_is({"m8n8k128", "m16n8k128", "m16n8k256"}, shape) && s32;
  }
  return false;
}

std::optional<MmaShape> parse_shape(const std::string& name)
{
  int m = 0;
  int n = 0;
  int k = 0;
  if (std::sscanf(name.c_str(), "m%dn%dk%d", &m, &n, &k) != 3 ||
      name != "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k)) {
    return std::nullopt;
  }
  return MmaShape{m, n, k};
}

// mma.sync.aligned.m8n8k4.ALAYOUT.BLAYOUT.D.f16.f16.C with D = C (f16 or f32), or f16 C and f32
// D (the ISA has no f32 C with f16 D for this shape): the quad-pair fragments
// (mma_m8n8k4_fragment); with f16 C and f32 D, C's elements move to D's layout first.
std::optional<OtherForm> parse_m8n8k4_f16(const std::vector<std::string>& m)
{
  bool layouts = (m[3] == "row" || m[3] == "col") && (m[4] == "row" || m[4] == "col");
  if (m.size() != 9 || m[0] != "sync" || m[1] != "aligned" || m[2] != "m8n8k4" || !layouts || m[6] != "f16" || m[7] != "f16" ||
      (m[5] != "f16" && m[5] != "f32") || (m[8] != "f16" && m[8] != "f32") ||
      (m[5] == "f16" && m[8] == "f32")) {
    return std::nullopt;
  }
  OtherForm form;
  MmaProduct& p = form.product;
  p.shape = MmaShape{32, 32, 4};
  p.a = MmaElement::f16;
  p.b = MmaElement::f16;
  p.c = m[8] == "f16" ? MmaElement::f16 : MmaElement::f32;
  p.d = m[5] == "f16" ? MmaElement::f16 : MmaElement::f32;
  form.a = mma_m8n8k4_fragment(MmaOperand::a, m[3] == "row", 16);
  form.b = mma_m8n8k4_fragment(MmaOperand::b, m[4] == "row", 16);
  form.c = mma_m8n8k4_fragment(MmaOperand::c, true, mma_element_bits(p.c));
  if (p.d != p.c) {
    form.d = mma_m8n8k4_fragment(MmaOperand::c, true, mma_element_bits(p.d));
  }
  return form;
}

// mma.sync.aligned.SHAPE.row.col{.satfinite}.D.A.B.C{.xor.popc|.and.popc} with PTX's fragments.
std::optional<OtherForm> parse_other_form(const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() == 9 && m[2] == "m8n8k4" && m[6] == "f16") {
    return parse_m8n8k4_f16(m);
  }
  if (m.size() < 9 || m[0] != "sync" || m[1] != "aligned" || m[3] != "row" || m[4] != "col") {
    return std::nullopt;
  }
  std::optional<MmaShape> shape = parse_shape(m[2]);
  size_t next = 5;
  bool satfinite = m[next] == "satfinite";
  next += satfinite ? 1 : 0;
  if (!shape || m.size() < next + 4) {
    return std::nullopt;
  }
  std::optional<MmaElement> types[4];
  for (size_t i = 0; i < 4; ++i) {
    types[i] = mma_element(m[next + i]);
    if (!types[i]) {
      return std::nullopt;
    }
  }
  next += 4;
  OtherForm form;
  MmaProduct& p = form.product;
  p.shape = *shape;
  p.d = *types[0];
  p.a = *types[1];
  p.b = *types[2];
  p.c = *types[3];
  p.satfinite = satfinite;
  bool b1 = p.a == MmaElement::b1;
  if (b1) {
    if (m.size() != next + 2 || (m[next] != "xor" && m[next] != "and") || m[next + 1] != "popc") {
      return std::nullopt;
    }
    p.b1_and = m[next] == "and";
  } else if (m.size() != next) {
    return std::nullopt;
  }
  bool integer = p.c == MmaElement::s32;
  if ((satfinite && (!integer || b1)) || !other_form_exists(m[2], p)) {
    return std::nullopt;
  }
  std::optional<Fragment> a = mma_fragment(p.shape, MmaOperand::a, mma_element_bits(p.a));
  std::optional<Fragment> b = mma_fragment(p.shape, MmaOperand::b, mma_element_bits(p.b));
  std::optional<Fragment> c = mma_fragment(p.shape, MmaOperand::c, mma_element_bits(p.c));
  if (!a || !b || !c) {
    return std::nullopt;
  }
  form.a = *a;
  form.b = *b;
  form.c = *c;
  return form;
}

Expected<void> lower_other(FunctionTranslator& t, const ptx::Instruction& instruction,
                           const OtherForm& form)
{
  TRY(expect_operands(t, instruction, 4));
  const MmaProduct& p = form.product;
  TRY_ASSIGN(Values a, read_fragment(t, instruction, 1, form.a.registers, form.a.register_bits));
  TRY_ASSIGN(Values b, read_fragment(t, instruction, 2, form.b.registers, form.b.register_bits));
  TRY_ASSIGN(Values c, read_fragment(t, instruction, 3, form.c.registers, form.c.register_bits));
  Values d = emit_mma_product(t, p, form.a, form.b, form.c, a, b, c, form.d ? &*form.d : nullptr);
  return write_fragment(t, instruction, 0, d, form.c.register_bits);
}

// mma.sync.aligned.SHAPE.ALAYOUT.BLAYOUT{.satfinite}.dtype.atype.btype.ctype{.op.popc} d, a, b, c.
Expected<void> lower_mma(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (!instruction.modifiers.empty() && instruction.modifiers.front().starts_with("sp")) {
    return lower_mma_sparse(t, instruction); // mma.sp, mma.sp::ordered_metadata
  }
  std::optional<MmaForm> form = parse_form(instruction);
  if (!form) {
    std::optional<OtherForm> other = parse_other_form(instruction);
    if (!other) {
      return std::unexpected(t.unsupported(instruction));
    }
    return lower_other(t, instruction, *other);
  }
  TRY(expect_operands(t, instruction, 4));
  Fragments in;
  TRY_ASSIGN(in.a, read_words(t, instruction, 1, static_cast<size_t>(form->a_words())));
  TRY_ASSIGN(in.b, read_words(t, instruction, 2, static_cast<size_t>(form->b_words())));
  TRY_ASSIGN(in.c, read_words(t, instruction, 3, form->c_f32 ? 4 : 2));
  const ptx::Operand& target = instruction.operands[0];
  if (target.kind != ptx::OperandKind::vector || target.elements.size() != (form->d_f32 ? 4U : 2U)) {
    return std::unexpected(t.error(instruction, "mma operand 1: expected {" +
                                                    std::to_string(form->d_f32 ? 4 : 2) +
                                                    " registers}"));
  }
  if (native_possible(t, *form)) {
    return lower_native(t, instruction, *form, in);
  }
  return lower_portable(t, instruction, *form, in);
}

} // namespace

void add_mma_lowerings(LoweringTable& table)
{
  table["mma"] = lower_mma;
}

} // namespace d4r::compiler::translate
