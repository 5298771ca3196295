#include "compiler/translate/mma_fragments.hpp"

#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;
using Values = std::vector<llvm::Value*>;

constexpr int k_lanes = 32;

bool is_float_input(MmaElement e)
{
  return e == MmaElement::f16 || e == MmaElement::bf16 || e == MmaElement::tf32 ||
         e == MmaElement::e4m3 || e == MmaElement::e5m2;
}

// Every lane's A and B registers, readable by any lane: on the host one d4r_rt_warp_gather of
// all of them (64-bit registers as two words), on AMDGPU ds_bpermute per word.
class Exchange {
public:
  // c: C's registers where D's layout differs from C's (empty otherwise: not exchanged).
  Exchange(FunctionTranslator& t, const Values& a, const Values& b, const Values& c)
      : m_t(t), m_regs{a, b, c}
  {
    if (t.hooks().kind() != TargetKind::host) {
      return;
    }
    Values words;
    for (int operand = 0; operand < 3; ++operand) {
      m_offset[operand] = static_cast<int>(words.size());
      for (llvm::Value* reg : m_regs[operand]) {
        append_words(words, reg);
      }
    }
    m_stride = static_cast<int>(words.size());
    m_all = gather(words);
  }

  // Register `reg` of operand 0 (A), 1 (B) or 2 (C) of lane `source_lane`.
  llvm::Value* fetch(int operand, llvm::Value* source_lane, int reg)
  {
    Builder& b = m_t.builder();
    llvm::Value* mine = m_regs[operand][static_cast<size_t>(reg)];
    bool wide = mine->getType()->isIntegerTy(64);
    if (m_all == nullptr) {
      llvm::Value* address = b.CreateShl(source_lane, 2);
      auto permute = [&](llvm::Value* word) -> llvm::Value* {
        return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {}, {address, word});
      };
      if (!wide) {
        return permute(mine);
      }
      llvm::Value* low = permute(b.CreateTrunc(mine, b.getInt32Ty()));
      llvm::Value* high = permute(b.CreateTrunc(b.CreateLShr(mine, 32), b.getInt32Ty()));
      return join(low, high);
    }
    int word = m_offset[operand];
    for (int r = 0; r < reg; ++r) {
      word += m_regs[operand][static_cast<size_t>(r)]->getType()->isIntegerTy(64) ? 2 : 1;
    }
    llvm::Value* low = load_word(source_lane, word);
    return wide ? join(low, load_word(source_lane, word + 1)) : low;
  }

private:
  void append_words(Values& words, llvm::Value* reg)
  {
    Builder& b = m_t.builder();
    if (!reg->getType()->isIntegerTy(64)) {
      words.push_back(reg);
      return;
    }
    words.push_back(b.CreateTrunc(reg, b.getInt32Ty()));
    words.push_back(b.CreateTrunc(b.CreateLShr(reg, 32), b.getInt32Ty()));
  }

  llvm::Value* join(llvm::Value* low, llvm::Value* high)
  {
    Builder& b = m_t.builder();
    return b.CreateOr(b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), 32),
                      b.CreateZExt(low, b.getInt64Ty()));
  }

  llvm::Value* gather(const Values& words)
  {
    Builder& b = m_t.builder();
    llvm::Type* i32 = b.getInt32Ty();
    llvm::BasicBlock& entry_block = m_t.llvm_function().getEntryBlock();
    Builder entry(&entry_block, entry_block.begin());
    llvm::AllocaInst* mine = entry.CreateAlloca(llvm::ArrayType::get(i32, words.size()), nullptr,
                                                "mma.mine");
    llvm::AllocaInst* all = entry.CreateAlloca(
        llvm::ArrayType::get(i32, words.size() * k_lanes), nullptr, "mma.all");
    for (size_t i = 0; i < words.size(); ++i) {
      b.CreateStore(words[i], b.CreateConstInBoundsGEP1_64(i32, mine, i));
    }
    llvm::Module& module = *m_t.llvm_function().getParent();
    llvm::FunctionCallee callee = module.getOrInsertFunction(
        "d4r_rt_warp_gather",
        llvm::FunctionType::get(b.getVoidTy(),
                                {b.getPtrTy(), i32, i32, b.getPtrTy(), i32, b.getPtrTy()}, false));
    b.CreateCall(callee, {m_t.env().thread, b.getInt32(m_t.next_site()), b.getInt32(0xffffffffU),
                          mine, b.getInt32(static_cast<uint32_t>(words.size())), all});
    return all;
  }

  llvm::Value* load_word(llvm::Value* source_lane, int word)
  {
    Builder& b = m_t.builder();
    llvm::Value* index = b.CreateAdd(b.CreateMul(source_lane, b.getInt32(static_cast<uint32_t>(m_stride))),
                                     b.getInt32(static_cast<uint32_t>(word)));
    return b.CreateLoad(b.getInt32Ty(), b.CreateInBoundsGEP(b.getInt32Ty(), m_all, index));
  }

  FunctionTranslator& m_t;
  Values m_regs[3];
  int m_offset[3] = {0, 0, 0};
  int m_stride = 0;
  llvm::Value* m_all = nullptr;
};

// The registers `remap` names for the calling lane, from operand `operand`'s registers.
Values fetch_line(FunctionTranslator& t, Exchange& exchange, const Values& mine, int operand,
                  const MmaWordRemap& remap, llvm::Value* lane)
{
  Builder& b = t.builder();
  Values out;
  for (int w = 0; w < remap.words; ++w) {
    std::vector<uint32_t> lanes(k_lanes);
    std::vector<uint32_t> regs(k_lanes);
    std::set<int> distinct;
    bool local = true;
    for (int l = 0; l < k_lanes; ++l) {
      const MmaWordSource& source = remap.sources[static_cast<size_t>(l * remap.words + w)];
      lanes[static_cast<size_t>(l)] = static_cast<uint32_t>(source.lane);
      regs[static_cast<size_t>(l)] = static_cast<uint32_t>(source.word);
      distinct.insert(source.word);
      local = local && source.lane == l;
    }
    llvm::Value* which = distinct.size() > 1 ? mma_lane_table(t, regs, lane) : nullptr;
    llvm::Value* source_lane = local ? nullptr : mma_lane_table(t, lanes, lane);
    llvm::Value* value = nullptr;
    for (int candidate : distinct) {
      llvm::Value* fetched = local ? mine[static_cast<size_t>(candidate)]
                                   : exchange.fetch(operand, source_lane, candidate);
      value = value == nullptr
                  ? fetched
                  : b.CreateSelect(b.CreateICmpEQ(which, b.getInt32(static_cast<uint32_t>(candidate))),
                                   fetched, value);
    }
    out.push_back(value);
  }
  return out;
}

// Element `sub` of an A/B register: f64 (f16, tf32, FP8, f64), f32 (bf16: see accumulate) or i64.
llvm::Value* decode(FunctionTranslator& t, MmaElement type, llvm::Value* reg, int sub)
{
  Builder& b = t.builder();
  int bits = mma_element_bits(type);
  llvm::Value* field = sub == 0 ? reg : b.CreateLShr(reg, static_cast<uint64_t>(bits * sub));
  switch (type) {
  case MmaElement::f16:
    return b.CreateFPExt(b.CreateBitCast(b.CreateTrunc(field, b.getInt16Ty()), b.getHalfTy()),
                         b.getDoubleTy());
  case MmaElement::bf16: {
    llvm::Value* high = b.CreateShl(b.CreateAnd(field, 0xffffU), 16);
    return b.CreateBitCast(high, b.getFloatTy());
  }
  case MmaElement::tf32:
    return b.CreateFPExt(b.CreateBitCast(b.CreateAnd(reg, 0xffffe000U), b.getFloatTy()),
                         b.getDoubleTy());
  case MmaElement::e4m3:
  case MmaElement::e5m2:
    return mma_fp8_value(t, b.CreateAnd(field, 0xffU), type == MmaElement::e4m3);
  case MmaElement::f64: return b.CreateBitCast(reg, b.getDoubleTy());
  case MmaElement::s8:
  case MmaElement::s4: {
    llvm::Value* narrow = b.CreateTrunc(field, b.getIntNTy(static_cast<unsigned>(bits)));
    return b.CreateSExt(narrow, b.getInt64Ty());
  }
  case MmaElement::u8:
  case MmaElement::u4:
    return b.CreateZExt(b.CreateTrunc(field, b.getIntNTy(static_cast<unsigned>(bits))),
                        b.getInt64Ty());
  case MmaElement::b1:
  case MmaElement::f32:
  case MmaElement::s32: break;
  }
  D4R_UNREACHABLE("b1, f32 and s32 are not decoded element by element");
}

// Accumulator element `i` of C: f32 (f32 and f16 C), f64, or i64 (s32).
llvm::Value* c_element(Builder& b, MmaElement type, const Values& c, int i)
{
  switch (type) {
  case MmaElement::f16: {
    llvm::Value* reg = c[static_cast<size_t>(i / 2)];
    llvm::Value* bits = b.CreateTrunc(b.CreateLShr(reg, static_cast<uint64_t>(16 * (i % 2))),
                                      b.getInt16Ty());
    return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy());
  }
  case MmaElement::f32: return b.CreateBitCast(c[static_cast<size_t>(i)], b.getFloatTy());
  case MmaElement::f64: return b.CreateBitCast(c[static_cast<size_t>(i)], b.getDoubleTy());
  case MmaElement::s32: return b.CreateSExt(c[static_cast<size_t>(i)], b.getInt64Ty());
  default: break;
  }
  D4R_UNREACHABLE("accumulators are f16, f32, f64 or s32");
}

llvm::Value* float_sum(FunctionTranslator& t, const MmaProduct& product, const Values& a,
                       const Values& bv, llvm::Value* c)
{
  return mma_fp8_sum(t.builder(), a, bv, c, product.d == MmaElement::f16);
}

llvm::Value* f64_sum(FunctionTranslator& t, const MmaProduct& product, const Values& a,
                     const Values& bv, llvm::Value* c)
{
  Builder& b = t.builder();
  llvm::Value* sum = c;
  for (size_t k = 0; k < a.size(); ++k) {
    if (product.f64_rounding == 0) {
      llvm::Value* fused = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getDoubleTy()}, {a[k], bv[k], sum});
      llvm::Value* operands[] = {a[k], bv[k], sum};
      sum = nan_result(b, fused, operands);
      continue;
    }
    sum = t.call_support("__d4r_ptx_fma_f64", b.getDoubleTy(),
                         {a[k], bv[k], sum, t.i32(static_cast<uint32_t>(product.f64_rounding))});
  }
  return sum;
}

llvm::Value* int_sum(Builder& b, const MmaProduct& product, const Values& a, const Values& bv,
                     llvm::Value* c)
{
  llvm::Value* sum = c;
  for (size_t k = 0; k < a.size(); ++k) {
    sum = b.CreateAdd(sum, b.CreateMul(a[k], bv[k]));
  }
  if (product.satfinite) {
    sum = b.CreateSelect(b.CreateICmpSGT(sum, b.getInt64(std::numeric_limits<int32_t>::max())),
                         b.getInt64(std::numeric_limits<int32_t>::max()), sum);
    sum = b.CreateSelect(b.CreateICmpSLT(sum, b.getInt64(static_cast<uint64_t>(std::numeric_limits<int32_t>::min()))),
                         b.getInt64(static_cast<uint64_t>(std::numeric_limits<int32_t>::min())), sum);
  }
  return b.CreateTrunc(sum, b.getInt32Ty());
}

llvm::Value* popc_sum(Builder& b, const MmaProduct& product, const Values& a, const Values& bv,
                      llvm::Value* c)
{
  llvm::Value* sum = b.CreateTrunc(c, b.getInt32Ty());
  for (size_t w = 0; w < a.size(); ++w) {
    llvm::Value* bits = product.b1_and ? b.CreateAnd(a[w], bv[w]) : b.CreateXor(a[w], bv[w]);
    sum = b.CreateAdd(sum, b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, bits));
  }
  return sum;
}

// Every element of the registers of one line, in order.
Values decode_line(FunctionTranslator& t, MmaElement type, const Values& regs, int per_register)
{
  Values out;
  for (llvm::Value* reg : regs) {
    for (int sub = 0; sub < per_register; ++sub) {
      out.push_back(decode(t, type, reg, sub));
    }
  }
  return out;
}

// Line lines[lane] of `fragment` (rows of A when `rows`, else columns of B), decoded (b1: the raw
// registers): whole registers where the layout keeps a line's elements together, else element by
// element.
Values fetch_decoded(FunctionTranslator& t, Exchange& exchange, const Fragment& fragment,
                     const Values& regs, int operand, MmaElement type, bool rows,
                     const std::vector<int>& lines, llvm::Value* lane)
{
  std::optional<MmaWordRemap> remap = fragment_lines(fragment, rows, lines);
  if (remap) {
    Values words = fetch_line(t, exchange, regs, operand, *remap, lane);
    return type == MmaElement::b1 ? words : decode_line(t, type, words, fragment.per_register());
  }
  std::optional<std::vector<FragmentElement>> elements = fragment_elements(fragment, rows, lines);
  assert(elements && type != MmaElement::b1 && "every element of a line has a holder");
  Builder& b = t.builder();
  size_t length = elements->size() / k_lanes;
  Values out;
  for (size_t e = 0; e < length; ++e) {
    MmaWordRemap one;
    one.words = 1;
    std::vector<uint32_t> shifts(k_lanes);
    for (size_t l = 0; l < k_lanes; ++l) {
      const FragmentElement& source = (*elements)[l * length + e];
      one.sources.push_back(MmaWordSource{source.lane, source.reg});
      shifts[l] = static_cast<uint32_t>(source.sub * fragment.element_bits);
    }
    llvm::Value* reg = fetch_line(t, exchange, regs, operand, one, lane).front();
    llvm::Value* shift = mma_lane_table(t, shifts, lane);
    if (reg->getType()->isIntegerTy(64)) {
      shift = b.CreateZExt(shift, b.getInt64Ty());
    }
    out.push_back(decode(t, type, b.CreateLShr(reg, shift), 0));
  }
  return out;
}

// D elements (f32, f64 or i32 values) packed into D registers.
Values pack_d(Builder& b, MmaElement type, const Values& elements)
{
  Values out;
  switch (type) {
  case MmaElement::f32:
    for (llvm::Value* e : elements) {
      out.push_back(b.CreateBitCast(e, b.getInt32Ty()));
    }
    return out;
  case MmaElement::f64:
    for (llvm::Value* e : elements) {
      out.push_back(b.CreateBitCast(e, b.getInt64Ty()));
    }
    return out;
  case MmaElement::s32: return elements;
  case MmaElement::f16:
    for (size_t i = 0; i + 1 < elements.size(); i += 2) {
      llvm::Value* halves[2] = {nullptr, nullptr};
      for (size_t s = 0; s < 2; ++s) {
        llvm::Value* value = elements[i + s];
        llvm::Value* half = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty());
        half = b.CreateSelect(b.CreateFCmpUNO(value, value), b.getInt16(0x7fff), half);
        halves[s] = b.CreateZExt(half, b.getInt32Ty());
      }
      out.push_back(b.CreateOr(halves[0], b.CreateShl(halves[1], 16)));
    }
    return out;
  default: break;
  }
  D4R_UNREACHABLE("D is f16, f32, f64 or s32");
}

} // namespace

int mma_element_bits(MmaElement element)
{
  switch (element) {
  case MmaElement::f16:
  case MmaElement::bf16: return 16;
  case MmaElement::tf32:
  case MmaElement::f32:
  case MmaElement::s32: return 32;
  case MmaElement::e4m3:
  case MmaElement::e5m2:
  case MmaElement::s8:
  case MmaElement::u8: return 8;
  case MmaElement::f64: return 64;
  case MmaElement::s4:
  case MmaElement::u4: return 4;
  case MmaElement::b1: return 1;
  }
  return 0;
}

std::optional<MmaElement> mma_element(std::string_view name)
{
  static const std::map<std::string_view, MmaElement> k_names = {
      {"f16", MmaElement::f16}, {"bf16", MmaElement::bf16}, {"tf32", MmaElement::tf32},
      {"e4m3", MmaElement::e4m3}, {"e5m2", MmaElement::e5m2}, {"f64", MmaElement::f64},
      {"s8", MmaElement::s8},   {"u8", MmaElement::u8},     {"s4", MmaElement::s4},
      {"u4", MmaElement::u4},   {"b1", MmaElement::b1},     {"f32", MmaElement::f32},
      {"s32", MmaElement::s32}};
  auto it = k_names.find(name);
  return it == k_names.end() ? std::nullopt : std::optional<MmaElement>(it->second);
}

// A field of the lane's bits: (lane >> shift) & mask, times `scale` (modulo 2^32).
struct LaneField {
  uint32_t shift = 0;
  uint32_t mask = 0;
  uint32_t scale = 0;
  uint32_t of(uint32_t lane) const { return ((lane >> shift) & mask) * scale; }
};

// entries[lane] as entries[0] plus one or two fields of the lane's bits (the remaps' tables mostly
// are: a quad's index, a row's parity, their sums), where one is; nullopt otherwise.
std::optional<std::vector<LaneField>> lane_fields(const std::vector<uint32_t>& entries)
{
  constexpr uint32_t k_lane_bits = 5;
  const uint32_t base = entries[0];
  auto fits = [&](const std::vector<LaneField>& fields) {
    for (uint32_t lane = 0; lane < entries.size(); ++lane) {
      uint32_t value = base;
      for (const LaneField& field : fields) {
        value += field.of(lane);
      }
      if (value != entries[lane]) {
        return false;
      }
    }
    return true;
  };
  auto field = [&](uint32_t shift, uint32_t width) {
    return LaneField{shift, (1U << width) - 1, entries[size_t{1} << shift] - base};
  };
  for (uint32_t shift = 0; shift < k_lane_bits; ++shift) {
    for (uint32_t width = 1; shift + width <= k_lane_bits; ++width) {
      if (fits({field(shift, width)})) {
        return std::vector<LaneField>{field(shift, width)};
      }
      for (uint32_t shift2 = shift + width; shift2 < k_lane_bits; ++shift2) {
        for (uint32_t width2 = 1; shift2 + width2 <= k_lane_bits; ++width2) {
          std::vector<LaneField> both = {field(shift, width), field(shift2, width2)};
          if (fits(both)) {
            return both;
          }
        }
      }
    }
  }
  return std::nullopt;
}

llvm::Value* mma_lane_table(llvm::IRBuilder<>& b, const std::vector<uint32_t>& entries,
                            llvm::Value* lane, unsigned constant_space)
{
  bool uniform = std::all_of(entries.begin(), entries.end(),
                             [&](uint32_t entry) { return entry == entries[0]; });
  if (uniform) {
    return b.getInt32(entries[0]);
  }
  if (std::optional<std::vector<LaneField>> fields = lane_fields(entries)) {
    llvm::Value* value = b.getInt32(entries[0]);
    for (const LaneField& field : *fields) {
      llvm::Value* bits = b.CreateAnd(b.CreateLShr(lane, field.shift), field.mask);
      value = b.CreateAdd(value, b.CreateMul(bits, b.getInt32(field.scale)));
    }
    return value;
  }
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Constant* init = llvm::ConstantDataArray::get(b.getContext(), llvm::ArrayRef(entries));
  llvm::GlobalVariable* table = nullptr;
  int count = 0;
  for (llvm::GlobalVariable& global : module.globals()) {
    if (global.getName().starts_with("d4r.mma.lanes")) {
      ++count;
      if (global.getInitializer() == init) {
        table = &global;
      }
    }
  }
  if (table == nullptr) {
    table = new llvm::GlobalVariable(module, init->getType(), true,
                                     llvm::GlobalValue::PrivateLinkage, init,
                                     "d4r.mma.lanes" + std::to_string(count), nullptr,
                                     llvm::GlobalValue::NotThreadLocal, constant_space);
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  llvm::Value* slot = b.CreateInBoundsGEP(init->getType(), table, {b.getInt32(0), lane});
  return b.CreateLoad(b.getInt32Ty(), slot);
}

llvm::Value* mma_lane_table(FunctionTranslator& t, const std::vector<uint32_t>& entries,
                            llvm::Value* lane)
{
  return mma_lane_table(t.builder(), entries, lane, t.hooks().address_space(Space::constant));
}

MmaFetch bpermute_fetch(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& words)
{
  return [&b, words](llvm::Value* source_lane, int word) -> llvm::Value* {
    llvm::Value* address = b.CreateShl(source_lane, 2);
    return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {},
                             {address, words[static_cast<size_t>(word)]});
  };
}

MmaWordRemap layout_word_remap(const MmaLayoutSpec& destination, const MmaLayoutSpec& source)
{
  std::optional<MmaWordRemap> remap = mma_word_remap(destination, source);
  assert(remap && "mma layouts always remap word by word");
  return *remap;
}

std::vector<llvm::Value*> emit_word_remap(llvm::IRBuilder<>& b, const MmaWordRemap& remap,
                                          llvm::Value* lane, const MmaFetch& fetch,
                                          unsigned constant_space)
{
  std::vector<llvm::Value*> out;
  for (int word = 0; word < remap.words; ++word) {
    std::vector<uint32_t> lanes(k_lanes), words(k_lanes), zero(k_lanes);
    std::set<int> distinct;
    for (int l = 0; l < k_lanes; ++l) {
      const MmaWordSource& source = remap.sources[static_cast<size_t>(l * remap.words + word)];
      zero[l] = source.lane < 0 ? 1 : 0;
      lanes[l] = static_cast<uint32_t>(source.lane < 0 ? l : source.lane);
      if (source.lane >= 0) {
        distinct.insert(source.word);
        words[l] = static_cast<uint32_t>(source.word);
      }
    }
    if (distinct.empty()) {
      out.push_back(b.getInt32(0));
      continue;
    }
    // A lane that gets zero fetches whatever is cheapest: what the lane 8 or 16 away fetches
    // (WMMA's padding columns mirror real ones), so that the table may be a few bit operations.
    for (int l = 0; l < k_lanes; ++l) {
      if (zero[l] == 0) {
        continue;
      }
      words[l] = static_cast<uint32_t>(*distinct.begin());
      for (int mirror : {l ^ 8, l ^ 16, l ^ 24}) {
        if (zero[mirror] == 0) {
          lanes[l] = lanes[mirror];
          words[l] = words[mirror];
          break;
        }
      }
    }
    llvm::Value* source_lane = mma_lane_table(b, lanes, lane, constant_space);
    llvm::Value* which = distinct.size() > 1 ? mma_lane_table(b, words, lane, constant_space) : nullptr;
    llvm::Value* value = nullptr;
    for (int candidate : distinct) {
      llvm::Value* fetched = fetch(source_lane, candidate);
      value = value == nullptr
                  ? fetched
                  : b.CreateSelect(b.CreateICmpEQ(which, b.getInt32(candidate)), fetched, value);
    }
    if (distinct.size() == 1 && std::find(zero.begin(), zero.end(), 1U) == zero.end()) {
      out.push_back(value);
      continue;
    }
    llvm::Value* is_zero = b.CreateICmpNE(mma_lane_table(b, zero, lane, constant_space), b.getInt32(0));
    out.push_back(b.CreateSelect(is_zero, b.getInt32(0), value));
  }
  return out;
}

std::vector<llvm::Value*> emit_word_remap(FunctionTranslator& t, const MmaWordRemap& remap,
                                          llvm::Value* lane, const MmaFetch& fetch)
{
  return emit_word_remap(t.builder(), remap, lane, fetch, t.hooks().address_space(Space::constant));
}

// Element `i` of D's layout taken from C's (another lane's, another register): an f32 (f16 C).
llvm::Value* moved_c_element(FunctionTranslator& t, Exchange& exchange, const Fragment& c,
                             const Values& c_regs, const Fragment& d, int i, llvm::Value* lane)
{
  Builder& b = t.builder();
  std::map<std::pair<int, int>, std::vector<FragmentElement>> holders;
  for (int l = 0; l < k_lanes; ++l) {
    for (int reg = 0; reg < c.registers; ++reg) {
      for (int sub = 0; sub < c.per_register(); ++sub) {
        MatrixPos pos = c.at(l, reg, sub);
        holders[{pos.row, pos.col}].push_back(FragmentElement{l, reg, sub});
      }
    }
  }
  MmaWordRemap one;
  one.words = 1;
  std::vector<uint32_t> shifts(k_lanes);
  for (int l = 0; l < k_lanes; ++l) {
    MatrixPos pos = d.at(l, i / d.per_register(), i % d.per_register());
    const std::vector<FragmentElement>& found = holders.at({pos.row, pos.col});
    FragmentElement chosen = found.front();
    for (const FragmentElement& holder : found) {
      chosen = holder.lane == l ? holder : chosen;
    }
    one.sources.push_back(MmaWordSource{chosen.lane, chosen.reg});
    shifts[static_cast<size_t>(l)] = static_cast<uint32_t>(chosen.sub * c.element_bits);
  }
  llvm::Value* reg = fetch_line(t, exchange, c_regs, 2, one, lane).front();
  llvm::Value* half = b.CreateTrunc(b.CreateLShr(reg, mma_lane_table(t, shifts, lane)), b.getInt16Ty());
  return b.CreateFPExt(b.CreateBitCast(half, b.getHalfTy()), b.getFloatTy());
}

namespace {

// The elements of column `bv` (K of them) that the compressed elements of one row multiply
// (MmaSparsity), chosen by the row's metadata words.
Values sparse_partners(Builder& b, const MmaSparsity& sparse, size_t stored, const Values& bv,
                       const Values& metadata)
{
  using Chunks = MmaSparsity::Chunks;
  int per_chunk = sparse.chunks == Chunks::two_of_four ? 2 : sparse.chunks == Chunks::one_of_two ? 1 : 4;
  int width = sparse.chunks == Chunks::two_of_four ? 4 : sparse.chunks == Chunks::one_of_two ? 2 : 8;
  Values out;
  for (size_t c = 0; c < stored; ++c) {
    int q = static_cast<int>(c) / per_chunk;
    int j = static_cast<int>(c) % per_chunk;
    llvm::Value* word = metadata[static_cast<size_t>(q / 8)];
    llvm::Value* nibble = b.CreateAnd(b.CreateLShr(word, static_cast<uint64_t>(4 * (q % 8))), 15);
    // Candidate columns: first + v * stride for v in [0, count), selected by `index`.
    llvm::Value* index = nullptr;
    int first = width * q;
    int stride = 1;
    int count = 4;
    switch (sparse.chunks) {
    case Chunks::two_of_four:
      index = b.CreateAnd(b.CreateLShr(nibble, static_cast<uint64_t>(2 * j)), 3);
      break;
    case Chunks::one_of_two:
      index = b.CreateAnd(b.CreateLShr(nibble, 1), 1);
      count = 2;
      break;
    case Chunks::pairs_of_eight:
      index = b.CreateAnd(b.CreateLShr(nibble, static_cast<uint64_t>(2 * (j / 2))), 3);
      first += j % 2;
      stride = 2;
      break;
    }
    llvm::Value* partner = bv[static_cast<size_t>(first)];
    for (int v = 1; v < count; ++v) {
      partner = b.CreateSelect(b.CreateICmpEQ(index, b.getInt32(static_cast<uint32_t>(v))),
                               bv[static_cast<size_t>(first + v * stride)], partner);
    }
    out.push_back(partner);
  }
  return out;
}

} // namespace

Values emit_mma_product(FunctionTranslator& t, const MmaProduct& product, const Fragment& a,
                        const Fragment& b_fragment, const Fragment& c, const Values& a_regs,
                        const Values& b_regs, const Values& c_regs, const Fragment* d_layout,
                        const MmaSparsity* sparse)
{
  Builder& b = t.builder();
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  bool moved = d_layout != nullptr;
  assert((!moved || product.c == MmaElement::f16) && "only an f16 C moves to D's layout");
  Exchange exchange(t, a_regs, b_regs, moved ? c_regs : Values{});
  const Fragment& d_fragment = moved ? *d_layout : c;
  std::map<std::vector<int>, Values> rows;
  std::map<std::vector<int>, Values> cols;
  Values d;
  int elements = d_fragment.registers * d_fragment.per_register();
  for (int i = 0; i < elements; ++i) {
    std::vector<int> row_of(k_lanes);
    std::vector<int> col_of(k_lanes);
    for (int l = 0; l < k_lanes; ++l) {
      MatrixPos pos = d_fragment.at(l, i / d_fragment.per_register(), i % d_fragment.per_register());
      row_of[static_cast<size_t>(l)] = pos.row;
      col_of[static_cast<size_t>(l)] = pos.col;
    }
    bool b1 = product.a == MmaElement::b1;
    if (!rows.contains(row_of)) {
      rows[row_of] = fetch_decoded(t, exchange, a, a_regs, 0, product.a, true, row_of, lane);
    }
    if (!cols.contains(col_of)) {
      cols[col_of] = fetch_decoded(t, exchange, b_fragment, b_regs, 1, product.b, false, col_of, lane);
    }
    const Values& av = rows[row_of];
    const Values bv = sparse == nullptr ? cols[col_of]
                                        : sparse_partners(b, *sparse, av.size(), cols[col_of],
                                                          sparse->row_metadata(i));
    llvm::Value* ci = moved ? moved_c_element(t, exchange, c, c_regs, d_fragment, i, lane)
                            : c_element(b, product.c, c_regs, i);
    if (b1) {
      d.push_back(popc_sum(b, product, av, bv, ci));
    } else if (product.a == MmaElement::f16 || product.a == MmaElement::bf16 ||
               product.a == MmaElement::tf32) {
      d.push_back(mma_tensor_sum(b, av, bv, ci, product.k_group, product.a));
    } else if (is_float_input(product.a)) {
      d.push_back(float_sum(t, product, av, bv, ci));
    } else if (product.a == MmaElement::f64) {
      d.push_back(f64_sum(t, product, av, bv, ci));
    } else {
      d.push_back(int_sum(b, product, av, bv, ci));
    }
  }
  return pack_d(b, product.d, d);
}

Expected<Values> read_fragment(FunctionTranslator& t, const ptx::Instruction& instruction,
                               size_t index, int count, int bits)
{
  const ptx::Operand& operand = instruction.operands[index];
  if (operand.kind != ptx::OperandKind::vector ||
      operand.elements.size() != static_cast<size_t>(count)) {
    return std::unexpected(t.error(instruction, "operand " + std::to_string(index + 1) +
                                                    ": expected {" + std::to_string(count) +
                                                    " registers}"));
  }
  Values regs;
  for (const ptx::Operand& element : operand.elements) {
    TRY_ASSIGN(llvm::Value * reg, t.read(element, PtxType{PtxType::Kind::bits, bits, false}));
    regs.push_back(reg);
  }
  return regs;
}

Expected<void> write_fragment(FunctionTranslator& t, const ptx::Instruction& instruction,
                              size_t index, const Values& regs, int bits)
{
  const ptx::Operand& operand = instruction.operands[index];
  if (operand.kind != ptx::OperandKind::vector || operand.elements.size() != regs.size()) {
    return std::unexpected(t.error(instruction, "operand " + std::to_string(index + 1) +
                                                    ": expected {" + std::to_string(regs.size()) +
                                                    " registers}"));
  }
  for (size_t i = 0; i < regs.size(); ++i) {
    TRY(t.write(operand.elements[i], regs[i], PtxType{PtxType::Kind::bits, bits, false}));
  }
  return {};
}

int mma_min_exponent(MmaElement element)
{
  switch (element) {
  case MmaElement::f16:
  case MmaElement::e5m2: return -14;
  case MmaElement::e4m3: return -6;
  default: return -126; // bf16, tf32, f32
  }
}

namespace {

// e(x) of mma_min_exponent as i32 for an f64 `x` that holds a value of a format whose smallest
// normal exponent is `min_exponent` (every such value is normal in f64); infinities and NaN give
// 1024, zero gives `zero`.
llvm::Value* exponent_of(Builder& b, llvm::Value* x, int min_exponent, int zero)
{
  llvm::Value* bits = b.CreateBitCast(x, b.getInt64Ty());
  llvm::Value* field = b.CreateAnd(b.CreateLShr(bits, 52), 0x7ffU);
  llvm::Value* e = b.CreateSub(b.CreateTrunc(field, b.getInt32Ty()), b.getInt32(1023));
  e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, b.getInt32(static_cast<uint32_t>(min_exponent)));
  llvm::Value* is_zero = b.CreateFCmpOEQ(x, llvm::ConstantFP::get(x->getType(), 0.0));
  return b.CreateSelect(is_zero, b.getInt32(static_cast<uint32_t>(zero)), e);
}

// 2^e as f64 for e in [-1022, 1023].
llvm::Value* power_of_two(Builder& b, llvm::Value* e)
{
  llvm::Value* field = b.CreateZExt(b.CreateAdd(e, b.getInt32(1023)), b.getInt64Ty());
  return b.CreateBitCast(b.CreateShl(field, 52), b.getDoubleTy());
}

llvm::Value* widened(Builder& b, llvm::Value* value)
{
  return value->getType()->isDoubleTy() ? value : b.CreateFPExt(value, b.getDoubleTy());
}

} // namespace

llvm::Value* mma_exact_tensor_sum(Builder& b, const Values& a, const Values& bv, llvm::Value* c,
                                  int bits, MmaElement a_type, MmaElement b_type)
{
  constexpr int k_absent = -900; // below every real term
  llvm::Value* c64 = widened(b, c);
  llvm::Value* emax = exponent_of(b, c64, mma_min_exponent(MmaElement::f32), k_absent);
  Values products;
  for (size_t k = 0; k < a.size(); ++k) {
    llvm::Value* x = widened(b, a[k]);
    llvm::Value* y = widened(b, bv[k]);
    llvm::Value* ea = exponent_of(b, x, mma_min_exponent(a_type), k_absent);
    llvm::Value* eb = exponent_of(b, y, mma_min_exponent(b_type), k_absent);
    llvm::Value* absent = b.CreateOr(b.CreateICmpEQ(ea, b.getInt32(static_cast<uint32_t>(k_absent))),
                                     b.CreateICmpEQ(eb, b.getInt32(static_cast<uint32_t>(k_absent))));
    llvm::Value* e = b.CreateSelect(absent, b.getInt32(static_cast<uint32_t>(k_absent)), b.CreateAdd(ea, eb));
    emax = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, emax, e);
    products.push_back(b.CreateFMul(x, y)); // exact: at most 22 significant bits
  }
  // An infinite or NaN term (exponent 1024) makes every finite one vanish: the sum is that term's.
  emax = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, emax, b.getInt32(1000));
  constexpr int k_finest_quantum = -158;
  llvm::Value* exponent = b.CreateBinaryIntrinsic(
      llvm::Intrinsic::smax, b.CreateSub(emax, b.getInt32(static_cast<uint32_t>(bits))),
      b.getInt32(static_cast<uint32_t>(k_finest_quantum)));
  llvm::Value* quantum = power_of_two(b, exponent);
  llvm::Value* inverse = power_of_two(b, b.CreateNeg(exponent));
  auto truncated = [&](llvm::Value* term) {
    llvm::Value* units = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, b.CreateFMul(term, inverse));
    return b.CreateFMul(units, quantum);
  };
  llvm::Value* sum = truncated(c64);
  for (llvm::Value* product : products) {
    sum = b.CreateFAdd(sum, truncated(product)); // multiples of 2^(E - bits) below 2^(E + 7): exact
  }
  return sum;
}

llvm::Value* mma_tensor_sum(Builder& b, const Values& a, const Values& bv, llvm::Value* c, int group,
                            MmaElement input)
{
  size_t step = group > 0 ? static_cast<size_t>(group) : a.size();
  llvm::Value* acc = c;
  for (size_t first = 0; first < a.size(); first += step) {
    size_t last = std::min(a.size(), first + step);
    Values x(a.begin() + static_cast<ptrdiff_t>(first), a.begin() + static_cast<ptrdiff_t>(last));
    Values y(bv.begin() + static_cast<ptrdiff_t>(first), bv.begin() + static_cast<ptrdiff_t>(last));
    acc = mma_round_f32_toward_zero(b, mma_exact_tensor_sum(b, x, y, acc, 25, input, input));
  }
  return canonical_nan(b, acc);
}

llvm::Value* mma_fp8_sum(Builder& b, const Values& a, const Values& bv, llvm::Value* c,
                         bool f16_accumulator)
{
  // The halves of K as ptxas hands them to the two tensor-core steps: elements k with k % 4 < 2
  // (the low f16x2 of each widened FP8 register) first, then the rest.
  Values first_a;
  Values first_b;
  Values second_a;
  Values second_b;
  for (size_t k = 0; k < a.size(); ++k) {
    (k % 4 < 2 ? first_a : second_a).push_back(a[k]);
    (k % 4 < 2 ? first_b : second_b).push_back(bv[k]);
  }
  auto step = [&](const Values& x, const Values& y, llvm::Value* acc) {
    llvm::Value* sum = mma_round_f32_toward_zero(b, mma_exact_tensor_sum(b, x, y, acc, 25, MmaElement::f16,
                                                                          MmaElement::f16));
    if (f16_accumulator) { // the f16 step's result is its f32 sum rounded to nearest
      sum = b.CreateFPExt(b.CreateFPTrunc(sum, b.getHalfTy()), b.getFloatTy());
    }
    return sum;
  };
  llvm::Value* zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
  llvm::Value* products = step(second_a, second_b, step(first_a, first_b, zero));
  // C + S rounded once: two f32 (or f16) values have an exact f64 sum unless far apart, where
  // rounding it twice agrees.
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Value* total = b.CreateFAdd(b.CreateFPExt(products, f64), b.CreateFPExt(c, f64));
  llvm::Value* rounded = f16_accumulator
                             ? b.CreateFPExt(b.CreateFPTrunc(total, b.getHalfTy()), b.getFloatTy())
                             : b.CreateFPTrunc(total, b.getFloatTy());
  return canonical_nan(b, rounded);
}

llvm::Value* mma_round_f32_toward_zero(Builder& b, llvm::Value* sum)
{
  llvm::Value* nearest = b.CreateFPTrunc(sum, b.getFloatTy());
  llvm::Value* back = b.CreateFPExt(nearest, b.getDoubleTy());
  // A sum of 2^128 or more is an infinity, as the H200's tensor cores give it (tests/random:
  // the f32 tf32/bf16 sums that overflow), not the largest finite value rounding toward zero
  // would give; below 2^128 the sum is truncated.
  llvm::Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, sum);
  llvm::Value* finite = b.CreateFCmpOLT(magnitude, llvm::ConstantFP::get(b.getDoubleTy(), 0x1p128));
  llvm::Value* away = b.CreateAnd(
      finite, b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back), magnitude));
  llvm::Value* bits = b.CreateBitCast(nearest, b.getInt32Ty());
  llvm::Value* smaller = b.CreateBitCast(b.CreateSub(bits, b.getInt32(1)), b.getFloatTy());
  llvm::Value* rounded = b.CreateSelect(away, smaller, nearest);
  llvm::Value* vanished = b.CreateAnd(b.CreateFCmpOEQ(rounded, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
                                      b.CreateFCmpONE(sum, llvm::ConstantFP::get(b.getDoubleTy(), 0.0)));
  return b.CreateSelect(vanished, llvm::ConstantFP::get(b.getFloatTy(), 0.0), rounded);
}

namespace {

// The value of FP8 code `code` (e4m3: bias 7, no infinities, S.1111.111 NaN; e5m2: bias 15,
// IEEE-like), exactly.
double fp8_value(uint32_t code, bool e4m3)
{
  int man_bits = e4m3 ? 3 : 2;
  int bias = e4m3 ? 7 : 15;
  uint32_t exponent = (code & 0x7fU) >> man_bits;
  uint32_t mantissa = code & ((1U << man_bits) - 1);
  double magnitude = 0.0;
  if (e4m3 && (code & 0x7fU) == 0x7fU) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (!e4m3 && exponent == 31) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - man_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa + (1U << man_bits)),
                           static_cast<int>(exponent) - bias - man_bits);
  }
  return (code & 0x80U) != 0 ? -magnitude : magnitude;
}

} // namespace

llvm::Value* mma_fp8_value(FunctionTranslator& t, llvm::Value* byte, bool e4m3)
{
  Builder& b = t.builder();
  llvm::Module& module = *t.llvm_function().getParent();
  std::string name = e4m3 ? "d4r.mma.e4m3" : "d4r.mma.e5m2";
  llvm::GlobalVariable* table = module.getNamedGlobal(name);
  if (table == nullptr) {
    std::vector<double> values;
    for (uint32_t code = 0; code < 256; ++code) {
      values.push_back(fp8_value(code, e4m3));
    }
    llvm::Constant* init = llvm::ConstantDataArray::get(t.context(), llvm::ArrayRef(values));
    table = new llvm::GlobalVariable(module, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                     init, name, nullptr, llvm::GlobalValue::NotThreadLocal,
                                     t.hooks().address_space(Space::constant));
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  llvm::Value* slot = b.CreateInBoundsGEP(table->getValueType(), table, {b.getInt32(0), byte});
  return b.CreateLoad(b.getDoubleTy(), slot);
}

} // namespace d4r::compiler::translate
