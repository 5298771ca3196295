// wgmma.mma_async (sm_90a) with .f16 and .bf16 (k16; f16 or f32 D, bf16 f32 only), .tf32 (k8),
// .e4m3/.e5m2 in any pairing (k32, f16 or f32 D), .s8/.u8 (k32, s32 D, .satfinite) and .b1 (k256,
// s32 D, .and.popc: the only single-bit form, no .xor) inputs, every N of the ISA, A from shared
// memory or from registers, B from shared memory; scale-d (a predicate or 0/1), imm-scale-a/b
// (1, -1) and imm-trans-a/b (0, 1); wgmma.mma_async.sp with .f16/.bf16 (k32), .e4m3/.e5m2 and
// .s8/.u8 (k64) (A keeps 2 of every 4 K elements, sp-meta and the sparsity selector say where:
// sparse_positions below) and .tf32 (k16, 1 of every 2); and
// wgmma.fence, wgmma.commit_group, wgmma.wait_group.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions
//
// Synchronously: the instruction computes D when it issues, which is one execution the ISA allows
// (D may be read only after wgmma.wait_group, shared memory may change only after it, and the
// registers of an in-flight wgmma belong to it), so the fence, commit and wait have nothing left
// to order and emit nothing. Each thread computes its own D elements (wgmma_layout.hpp: rows
// 16 w + g and 16 w + g + 8, two columns of every 8) as dot products of A rows and B columns
// read from shared memory through the descriptors, one column group per iteration of a loop (the
// code does not grow with N). Shared memory is read after the program's own barrier made it
// visible, as it must be for the H200's asynchronous proxy, so no cross-warp exchange is needed.
// A in registers: the rows a thread needs are held by the four lanes of its quad in its own warp
// (wgmma_layout.hpp), fetched by ds_bpermute on AMDGPU and one d4r_rt_warp_gather on the host.
//
// Arithmetic (every wgmma_* golden case bit for bit): f16, bf16 and tf32 as mma.sync's model of
// the H200's truncating sum (mma_fragments.hpp, mma_tensor_sum), one step of all K products; an
// f32 D is that sum rounded toward zero (NaN 0x7fffffff), an f16 D the f16 nearest to the sum
// itself, not to the f32 (mma_exact_tensor_sum; NaN 0x7fff). FP8 the same truncating sum with
// 13 bits below the largest exponent instead of 25, one step of all K, and an f32 D truncated to
// 14 significant bits (wgmma_fp8_small, wgmma_fp8_random: every result, NaN and infinities
// included). Integers exact in 64 bits, D wrapping or, with .satfinite, clamped; .b1 C +
// popc(A row AND B column), wrapping. imm-scale -1 negates every element of that operand (exact);
// scale-d false drops C (a +0 C).
// Rejected (unsupported): any other spelling (no .b1 .sp form exists; the 8-bit .sp forms take
// selector 0 only).

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/mma_fragments.hpp"
#include "compiler/translate/ptx_values.hpp"
#include "compiler/translate/wgmma_layout.hpp"

#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>

#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;
using Values = std::vector<llvm::Value*>;

constexpr int k_lanes = 32;

struct WgmmaForm {
  int n = 8;
  int k = 16;
  MmaElement a = MmaElement::f16;
  MmaElement b = MmaElement::f16;
  MmaElement d = MmaElement::f32;
  bool satfinite = false;
  bool a_registers = false;
  bool negate_a = false;
  bool negate_b = false;
  bool trans_a = false;
  bool trans_b = false;
  bool sparse = false; // wgmma.mma_async.sp: A keeps 2 of every 4 K elements
  int selector = 0;    // .sp: the sparsity selector
  [[nodiscard]] int bits() const { return mma_element_bits(a); }
  [[nodiscard]] bool single_bit() const { return a == MmaElement::b1; }
  [[nodiscard]] bool fp8() const { return a == MmaElement::e4m3 || a == MmaElement::e5m2; }
  // What a row of A (a column of B) is read as: its K elements, or .b1's 8 words of 32.
  [[nodiscard]] int a_loads() const { return single_bit() ? 8 : a_k(); }
  [[nodiscard]] int b_loads() const { return single_bit() ? 8 : k; }
  // Elements per row of A as stored (a sparse A keeps half); .sp's chunks: 4 K elements with 2
  // stored, .tf32 2 with 1.
  [[nodiscard]] int a_k() const { return sparse ? k / 2 : k; }
  [[nodiscard]] int chunk_size() const { return a == MmaElement::tf32 ? 2 : 4; }
  [[nodiscard]] int chunks() const { return k / chunk_size(); }
  // Operand index of scale-d (.sp puts sp-meta and sp-sel before it).
  [[nodiscard]] size_t scale_index() const { return sparse ? 5 : 3; }
  [[nodiscard]] bool is_float() const { return d != MmaElement::s32; }
  [[nodiscard]] int d_registers() const { return d == MmaElement::f16 ? n / 4 : n / 2; }
};

// "m64nNkK" -> (N, K) for the N the ISA lists with that K and type family.
std::optional<std::pair<int, int>> parse_shape(const std::string& name)
{
  int n = 0;
  int k = 0;
  if (!name.starts_with("m64n")) {
    return std::nullopt;
  }
  const char* first = name.data() + 4;
  const char* last = name.data() + name.size();
  auto [after_n, n_error] = std::from_chars(first, last, n);
  if (n_error != std::errc{} || after_n == last || *after_n != 'k') {
    return std::nullopt;
  }
  auto [after_k, k_error] = std::from_chars(after_n + 1, last, k);
  if (k_error != std::errc{} || after_k != last) {
    return std::nullopt;
  }
  return std::pair{n, k};
}

bool valid_n(int n, bool integer)
{
  if (n < 8 || n > 256 || n % 8 != 0) {
    return false;
  }
  // Integer forms: 8, 16, 24, then every multiple of 16 (PTX ISA, wgmma.mma_async .shape).
  return !integer || n <= 24 || n % 16 == 0;
}

// wgmma.mma_async{.sp}.sync.aligned.SHAPE{.satfinite}.DTYPE.ATYPE.BTYPE{.and.popc}; nullopt for any
// combination the ISA does not list.
std::optional<WgmmaForm> parse_form(const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  WgmmaForm form;
  form.sparse = m.size() > 1 && m[1] == "sp";
  size_t at = form.sparse ? 1 : 0;
  if (m.size() < 7 + at || m[0] != "mma_async" || m[1 + at] != "sync" || m[2 + at] != "aligned") {
    return std::nullopt;
  }
  std::optional<std::pair<int, int>> shape = parse_shape(m[3 + at]);
  size_t next = 4 + at;
  form.satfinite = m[next] == "satfinite";
  next += form.satfinite ? 1 : 0;
  // .b1 ends in .and.popc (the only operation wgmma has: no .xor).
  bool single_bit = m.size() == next + 5 && m[next + 1] == "b1" && m[next + 3] == "and" && m[next + 4] == "popc";
  if (!shape || m.size() != next + (single_bit ? 5 : 3)) {
    return std::nullopt;
  }
  std::optional<MmaElement> d = mma_element(m[next]);
  std::optional<MmaElement> a = mma_element(m[next + 1]);
  std::optional<MmaElement> b = mma_element(m[next + 2]);
  if (!d || !a || !b) {
    return std::nullopt;
  }
  form.n = shape->first;
  form.k = form.sparse ? shape->second / 2 : shape->second; // the dense K, checked below
  int spelled_k = shape->second;
  form.d = *d;
  form.a = *a;
  form.b = *b;
  bool integer_ab = (*a == MmaElement::s8 || *a == MmaElement::u8) &&
                    (*b == MmaElement::s8 || *b == MmaElement::u8);
  bool valid = false;
  if (single_bit) {
    // m64nNk256.s32.b1.b1.and.popc, the integer forms' N; no .sp and no .satfinite form exists.
    valid = *a == MmaElement::b1 && *b == MmaElement::b1 && *d == MmaElement::s32 && form.k == 256 &&
            !form.sparse && !form.satfinite;
  } else if (integer_ab) {
    valid = form.k == 32 && *d == MmaElement::s32;
  } else if (mma_element_bits(*a) == 8 && mma_element_bits(*b) == 8 && *a != MmaElement::s8 && *a != MmaElement::u8 &&
             *b != MmaElement::s8 && *b != MmaElement::u8) {
    // .e4m3/.e5m2 in any pairing, f32 or f16 D (.sp: selector 0, read_immediates).
    valid = form.k == 32 && !form.satfinite && (*d == MmaElement::f32 || *d == MmaElement::f16);
  } else if (*a == *b && !form.satfinite) {
    valid = (*a == MmaElement::f16 && form.k == 16 && (*d == MmaElement::f32 || *d == MmaElement::f16)) ||
            (*a == MmaElement::bf16 && form.k == 16 && *d == MmaElement::f32) ||
            (*a == MmaElement::tf32 && form.k == 8 && *d == MmaElement::f32);
  }
  if (!valid || !valid_n(form.n, integer_ab || single_bit)) {
    return std::nullopt;
  }
  form.k = spelled_k;
  return form;
}

// An integer immediate operand among `allowed`.
std::optional<int> immediate(const ptx::Operand& operand, std::initializer_list<int> allowed)
{
  if (operand.kind != ptx::OperandKind::integer) {
    return std::nullopt;
  }
  int value = 0;
  const char* last = operand.text.data() + operand.text.size();
  auto [end, error] = std::from_chars(operand.text.data(), last, value);
  if (error != std::errc{} || end != last) {
    return std::nullopt;
  }
  for (int candidate : allowed) {
    if (candidate == value) {
      return value;
    }
  }
  return std::nullopt;
}

// The immediates after scale-d: imm-scale-a, imm-scale-b (floats), imm-trans-a (f16/bf16 with A
// in shared memory), imm-trans-b (f16/bf16).
bool read_immediates(const ptx::Instruction& instruction, WgmmaForm& form)
{
  const std::vector<ptx::Operand>& ops = instruction.operands;
  form.a_registers = ops.size() > 1 && ops[1].kind == ptx::OperandKind::vector;
  bool half = form.a == MmaElement::f16 || form.a == MmaElement::bf16;
  size_t expected = !form.is_float() ? 4 : !half ? 6 : form.a_registers ? 7 : 8;
  size_t s = form.scale_index();
  if (ops.size() != expected + (form.sparse ? 2 : 0)) {
    return false;
  }
  if (form.sparse) {
    // Lanes 2 sel, 2 sel + 1 of each quad hold the metadata of 8 chunks, all four that of 16.
    std::optional<int> selector = form.chunks() == 8 ? immediate(ops[4], {0, 1}) : immediate(ops[4], {0});
    if (!selector) {
      return false;
    }
    form.selector = *selector;
  }
  if (!form.is_float()) {
    return true;
  }
  std::optional<int> sa = immediate(ops[s + 1], {1, -1});
  std::optional<int> sb = immediate(ops[s + 2], {1, -1});
  if (!sa || !sb) {
    return false;
  }
  form.negate_a = *sa < 0;
  form.negate_b = *sb < 0;
  if (!half) {
    return true;
  }
  std::optional<int> tb = immediate(ops.back(), {0, 1});
  std::optional<int> ta = form.a_registers ? std::optional<int>(0) : immediate(ops[s + 3], {0, 1});
  if (!ta || !tb) {
    return false;
  }
  form.trans_a = *ta == 1;
  form.trans_b = *tb == 1;
  return true;
}

// A descriptor's fields as i32 values, with what the address formula needs (wgmma_layout.hpp).
struct Descriptor {
  llvm::Value* start = nullptr;
  llvm::Value* base = nullptr;
  llvm::Value* shift = nullptr; // log2 of the swizzle width
  llvm::Value* width = nullptr;
  llvm::Value* mask = nullptr;  // width / 16 - 1
  llvm::Value* sbo = nullptr;
  llvm::Value* chunk = nullptr;     // K-major: between the two 16-byte K halves
  llvm::Value* mn_stride = nullptr; // MN-major
  llvm::Value* k_stride = nullptr;  // MN-major
};

Descriptor decode_descriptor(Builder& b, llvm::Value* bits)
{
  auto field = [&](int offset, uint64_t mask) {
    return b.CreateTrunc(b.CreateAnd(b.CreateLShr(bits, static_cast<uint64_t>(offset)), mask),
                         b.getInt32Ty());
  };
  Descriptor d;
  d.start = b.CreateShl(field(0, 0x3fff), 4);
  llvm::Value* lbo = b.CreateShl(field(16, 0x3fff), 4);
  d.sbo = b.CreateShl(field(32, 0x3fff), 4);
  d.base = field(49, 7);
  llvm::Value* mode = field(62, 3);
  llvm::Value* none = b.CreateICmpEQ(mode, b.getInt32(0));
  d.shift = b.CreateSelect(none, b.getInt32(4), b.CreateSub(b.getInt32(8), mode));
  d.width = b.CreateShl(b.getInt32(1), d.shift);
  d.mask = b.CreateSub(b.CreateLShr(d.width, 4), b.getInt32(1));
  d.chunk = b.CreateSelect(none, lbo, b.getInt32(16));
  d.mn_stride = b.CreateSelect(none, d.sbo, lbo);
  d.k_stride = b.CreateSelect(none, lbo, d.sbo);
  return d;
}

// wgmma_address() in IR: the .shared address (i32) of element (mn, k).
llvm::Value* element_address(Builder& b, const Descriptor& d, llvm::Value* mn, int k, int bytes,
                             bool mn_major)
{
  llvm::Value* off = nullptr;
  if (!mn_major) {
    auto kb = static_cast<uint32_t>(k * bytes);
    off = b.CreateAdd(b.CreateMul(b.CreateAnd(mn, 7), d.width),
                      b.CreateMul(b.CreateLShr(mn, 3), d.sbo));
    off = b.CreateAdd(off, b.CreateAdd(b.CreateMul(b.getInt32(kb / 16), d.chunk), b.getInt32(kb % 16)));
  } else {
    llvm::Value* mb = b.CreateMul(mn, b.getInt32(static_cast<uint32_t>(bytes)));
    off = b.CreateAdd(b.CreateAnd(mb, b.CreateSub(d.width, b.getInt32(1))),
                      b.CreateMul(b.CreateLShr(mb, d.shift), d.mn_stride));
    off = b.CreateAdd(off, b.CreateAdd(b.CreateMul(b.getInt32(static_cast<uint32_t>(k % 8)), d.width),
                                       b.CreateMul(b.getInt32(static_cast<uint32_t>(k / 8)), d.k_stride)));
  }
  llvm::Value* address = b.CreateAnd(b.CreateAdd(d.start, off), 0x3ffffU);
  llvm::Value* phase = b.CreateAnd(b.CreateSub(b.CreateLShr(address, 7), d.base), d.mask);
  return b.CreateXor(address, b.CreateShl(phase, 4));
}

// One element's bits (zero-extended to i32) as the value the sums take: f64 (f16, e4m3, e5m2),
// f32 (bf16, tf32 with its low 13 bits cleared), i64 (s8, u8) or the i32 word itself (.b1: 32
// elements), negated where `negate`.
llvm::Value* decode(FunctionTranslator& t, MmaElement type, llvm::Value* bits, bool negate)
{
  Builder& b = t.builder();
  llvm::Value* value = nullptr;
  switch (type) {
  case MmaElement::e4m3:
  case MmaElement::e5m2:
    value = mma_fp8_value(t, b.CreateAnd(bits, 0xffU), type == MmaElement::e4m3);
    break;
  case MmaElement::f16:
    value = b.CreateFPExt(b.CreateBitCast(b.CreateTrunc(bits, b.getInt16Ty()), b.getHalfTy()),
                          b.getDoubleTy());
    break;
  case MmaElement::bf16:
    value = b.CreateBitCast(b.CreateShl(b.CreateAnd(bits, 0xffffU), 16), b.getFloatTy());
    break;
  case MmaElement::tf32: value = b.CreateBitCast(b.CreateAnd(bits, 0xffffe000U), b.getFloatTy()); break;
  case MmaElement::s8: return b.CreateSExt(b.CreateTrunc(bits, b.getInt8Ty()), b.getInt64Ty());
  case MmaElement::u8: return b.CreateZExt(b.CreateTrunc(bits, b.getInt8Ty()), b.getInt64Ty());
  case MmaElement::b1: return bits;
  default: D4R_UNREACHABLE("wgmma inputs are f16, bf16, tf32, e4m3, e5m2, s8, u8 or b1");
  }
  return negate ? b.CreateFNeg(value) : value;
}

// Element (mn, k) of an operand in shared memory, decoded; .b1: word k (K elements 32 k ..
// 32 k + 31, bit 0 first) of the 32-byte row, as the 4-byte elements of .tf32 are laid out.
llvm::Value* shared_element(FunctionTranslator& t, const Descriptor& d, MmaElement type,
                            llvm::Value* mn, int k, bool mn_major, bool negate)
{
  Builder& b = t.builder();
  int bits = type == MmaElement::b1 ? 32 : mma_element_bits(type);
  llvm::Value* address = element_address(b, d, mn, k, bits / 8, mn_major);
  llvm::Value* pointer = t.hooks().shared_pointer(t.env(), address);
  llvm::Type* element = b.getIntNTy(static_cast<unsigned>(bits));
  llvm::Value* loaded = b.CreateAlignedLoad(element, pointer, llvm::Align(static_cast<uint64_t>(bits / 8)));
  return decode(t, type, b.CreateZExt(loaded, b.getInt32Ty()), negate);
}

// Registers of every lane of a warp, each readable by the lanes of its quad: on the host one
// d4r_rt_warp_gather of all of them (wgmma is .sync.aligned: the whole warp is here), on AMDGPU
// one ds_bpermute per fetch.
class QuadExchange {
public:
  QuadExchange(FunctionTranslator& t, const Values& regs, llvm::Value* lane)
      : m_t(t), m_regs(regs), m_quad(t.builder().CreateAnd(lane, ~3U))
  {
    if (t.hooks().kind() != TargetKind::host) {
      return;
    }
    Builder& b = t.builder();
    llvm::Type* i32 = b.getInt32Ty();
    auto count = static_cast<uint64_t>(regs.size());
    llvm::AllocaInst* mine = t.entry_alloca(llvm::ArrayType::get(i32, count), 4, "wgmma.mine");
    llvm::AllocaInst* all = t.entry_alloca(llvm::ArrayType::get(i32, count * k_lanes), 4, "wgmma.all");
    for (uint64_t r = 0; r < count; ++r) {
      b.CreateStore(regs[r], b.CreateConstInBoundsGEP1_64(i32, mine, r));
    }
    llvm::Module& module = *t.llvm_function().getParent();
    llvm::FunctionCallee gather = module.getOrInsertFunction(
        "d4r_rt_warp_gather",
        llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), i32, i32, b.getPtrTy(), i32, b.getPtrTy()}, false));
    b.CreateCall(gather, {t.env().thread, b.getInt32(t.next_site()), b.getInt32(0xffffffffU), mine,
                          b.getInt32(static_cast<uint32_t>(count)), all});
    m_gathered = all;
  }

  // Register `reg` of lane (lane & ~3) | `in_quad`.
  llvm::Value* fetch(int in_quad, int reg)
  {
    Builder& b = m_t.builder();
    llvm::Value* source = b.CreateOr(m_quad, static_cast<uint64_t>(in_quad));
    if (m_gathered == nullptr) {
      return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {},
                               {b.CreateShl(source, 2), m_regs[static_cast<size_t>(reg)]});
    }
    llvm::Value* index = b.CreateAdd(b.CreateMul(source, b.getInt32(static_cast<uint32_t>(m_regs.size()))),
                                     b.getInt32(static_cast<uint32_t>(reg)));
    return b.CreateLoad(b.getInt32Ty(), b.CreateInBoundsGEP(b.getInt32Ty(), m_gathered, index));
  }

private:
  FunctionTranslator& m_t;
  const Values& m_regs;
  llvm::Value* m_quad = nullptr;
  llvm::Value* m_gathered = nullptr;
};

// A in registers: the 8 words of rows g and g + 8 (wgmma_layout.hpp) of the calling lane's quad,
// word q of row h from lane (lane & ~3) | (q & 3), register h + 2 (q >> 2).
std::array<Values, 2> register_rows(FunctionTranslator& t, const Values& regs, llvm::Value* lane)
{
  QuadExchange exchange(t, regs, lane);
  std::array<Values, 2> rows;
  for (int h = 0; h < 2; ++h) {
    for (int q = 0; q < 8; ++q) {
      rows[static_cast<size_t>(h)].push_back(exchange.fetch(q & 3, h + 2 * (q >> 2)));
    }
  }
  return rows;
}

// .sp: for each stored element j of rows g and g + 8 (h = 0, 1), the position (0..3, i32) in its
// chunk c = j / 2 of 4 K elements: a nibble of the sp-meta register of a lane of the quad, the
// position of element 2c in its low 2 bits, of 2c + 1 in the high 2. Which lane and nibble, as
// the H200 showed (wgmma_sp_ints: every result of each form exact):
//   8 chunks a row (.f16/.bf16 k32): lane 2 sel + c / 4, nibble 4 h + c % 4 (the layout of mma.sp,
//     mma_sparse.hpp, one warp per 16 rows);
//   16 chunks (.s8/.u8 k64): lane h + 2 (c / 8), nibble c % 8 (sel 0): a lane holds 8 chunks of
//     one row, not 4 chunks of two.
Expected<std::array<Values, 2>> sparse_positions(FunctionTranslator& t, const ptx::Instruction& instruction,
                                                 const WgmmaForm& form, llvm::Value* lane)
{
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * meta, t.read(instruction.operands[3], u32_type()));
  Values regs{meta};
  QuadExchange exchange(t, regs, lane);
  bool wide = form.chunks() == 16;
  Values words; // by lane of the quad
  for (int in_quad = 0; in_quad < 4; ++in_quad) {
    bool used = wide || in_quad / 2 == form.selector;
    words.push_back(used ? exchange.fetch(in_quad, 0) : nullptr);
  }
  std::array<Values, 2> positions;
  bool pairs = form.chunk_size() == 2;
  for (int h = 0; h < 2; ++h) {
    for (int j = 0; j < form.a_k(); ++j) {
      int c = pairs ? j : j / 2;
      int in_quad = wide ? h + 2 * (c / 8) : 2 * form.selector + c / 4;
      int nibble = wide ? c % 8 : 4 * h + c % 4;
      auto shift = static_cast<uint64_t>(4 * nibble + (pairs ? 0 : 2 * (j % 2)));
      llvm::Value* word = words[static_cast<size_t>(in_quad)];
      llvm::Value* position = b.CreateAnd(b.CreateLShr(word, shift), 3);
      // .tf32: the nibble names two 16-bit halves, 0b0100 element 0, 0b1110 element 1.
      positions[static_cast<size_t>(h)].push_back(pairs ? b.CreateLShr(position, 1) : position);
    }
  }
  return positions;
}

// The K decoded elements of the calling thread's two A rows.
Expected<std::array<Values, 2>> a_rows(FunctionTranslator& t, const ptx::Instruction& instruction,
                                       const WgmmaForm& form, llvm::Value* lane, llvm::Value* row0)
{
  Builder& b = t.builder();
  std::array<Values, 2> rows;
  if (form.a_registers) {
    TRY_ASSIGN(Values regs, read_fragment(t, instruction, 1, 4, 32));
    std::array<Values, 2> words = register_rows(t, regs, lane);
    int per = form.single_bit() ? 1 : 32 / form.bits();
    for (int h = 0; h < 2; ++h) {
      for (llvm::Value* word : words[static_cast<size_t>(h)]) {
        for (int s = 0; s < per; ++s) {
          llvm::Value* bits = s == 0 ? word : b.CreateLShr(word, static_cast<uint64_t>(s * form.bits()));
          rows[static_cast<size_t>(h)].push_back(decode(t, form.a, bits, form.negate_a));
        }
      }
    }
    return rows;
  }
  TRY_ASSIGN(llvm::Value * bits, t.read(instruction.operands[1], PtxType{PtxType::Kind::bits, 64, false}));
  Descriptor d = decode_descriptor(b, bits);
  for (int h = 0; h < 2; ++h) {
    llvm::Value* row = h == 0 ? row0 : b.CreateAdd(row0, b.getInt32(8));
    for (int k = 0; k < form.a_loads(); ++k) {
      rows[static_cast<size_t>(h)].push_back(shared_element(t, d, form.a, row, k, form.trans_a, form.negate_a));
    }
  }
  return rows;
}

// C element `half` (0, 1) of an f16 pair word as f32.
llvm::Value* half_of(Builder& b, llvm::Value* word, int half)
{
  llvm::Value* bits = b.CreateTrunc(half == 0 ? word : b.CreateLShr(word, 16), b.getInt16Ty());
  return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy());
}

llvm::Value* f16_bits(Builder& b, llvm::Value* value)
{
  llvm::Value* half = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty());
  half = b.CreateSelect(b.CreateFCmpUNO(value, value), b.getInt16(0x7fff), half);
  return b.CreateZExt(half, b.getInt32Ty());
}

// The f16 nearest to an exact f64 `sum` (NaN 0x7fff): rounded to f32 toward zero with the lost
// bits kept as a sticky lowest bit (round to odd, 13 bits more than f16 has), then to nearest.
llvm::Value* nearest_f16_bits(Builder& b, llvm::Value* sum)
{
  llvm::Value* toward_zero = mma_round_f32_toward_zero(b, sum);
  llvm::Value* inexact = b.CreateFCmpUNE(b.CreateFPExt(toward_zero, b.getDoubleTy()), sum);
  llvm::Value* bits = b.CreateBitCast(toward_zero, b.getInt32Ty());
  bits = b.CreateOr(bits, b.CreateZExt(inexact, b.getInt32Ty()));
  return f16_bits(b, b.CreateBitCast(bits, b.getFloatTy()));
}

// An FP8 form's f32 D: the sum truncated toward zero to 14 significant bits (the f32 toward zero
// with its low 10 mantissa bits cleared; wgmma_fp8_small/_random: every f32 result), NaN
// 0x7fffffff.
llvm::Value* fp8_f32_bits(Builder& b, llvm::Value* sum)
{
  llvm::Value* bits = b.CreateBitCast(mma_round_f32_toward_zero(b, sum), b.getInt32Ty());
  llvm::Value* nan = b.CreateFCmpUNO(sum, sum);
  return b.CreateSelect(nan, b.getInt32(0x7fffffffU), b.CreateAnd(bits, ~0x3ffU));
}

// C + the products (.b1: popc(a AND b) of each word pair), exact in 64 bits; the s32 D wraps
// or, with .satfinite, clamps.
llvm::Value* int_sum(Builder& b, const WgmmaForm& form, const Values& a, const Values& bv, llvm::Value* c)
{
  llvm::Value* sum = c;
  for (size_t k = 0; k < a.size(); ++k) {
    llvm::Value* term = nullptr;
    if (form.single_bit()) {
      term = b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, b.CreateAnd(a[k], bv[k])), b.getInt64Ty());
    } else {
      term = b.CreateMul(a[k], bv[k]);
    }
    sum = b.CreateAdd(sum, term);
  }
  if (form.satfinite) {
    llvm::Value* high = b.getInt64(static_cast<uint64_t>(std::numeric_limits<int32_t>::max()));
    llvm::Value* low = b.getInt64(static_cast<uint64_t>(static_cast<int64_t>(std::numeric_limits<int32_t>::min())));
    sum = b.CreateSelect(b.CreateICmpSGT(sum, high), high, sum);
    sum = b.CreateSelect(b.CreateICmpSLT(sum, low), low, sum);
  }
  return b.CreateTrunc(sum, b.getInt32Ty());
}

// One loop iteration: the four D elements of column group j (words of `acc`, in place).
// .sp: the B elements the stored elements of one row meet: element j times B's K element
// 4 (j / 2) + positions[j] (.tf32: 2 j + positions[j]).
Values sparse_column(Builder& b, const Values& column, const Values& positions, int chunk_size)
{
  Values out;
  auto size = static_cast<size_t>(chunk_size);
  for (size_t j = 0; j < positions.size(); ++j) {
    size_t chunk = size * (j / (size / 2));
    llvm::Value* value = column[chunk + size - 1];
    for (auto p = static_cast<uint32_t>(size - 1); p-- > 0;) {
      value = b.CreateSelect(b.CreateICmpEQ(positions[j], b.getInt32(p)), column[chunk + p], value);
    }
    out.push_back(value);
  }
  return out;
}

void column_group(FunctionTranslator& t, const WgmmaForm& form, const Descriptor& bd,
                  const std::array<Values, 2>& rows, const std::array<Values, 2>& positions,
                  llvm::Value* acc, llvm::Value* j, llvm::Value* t4, llvm::Value* scale_d)
{
  Builder& b = t.builder();
  llvm::Type* i32 = b.getInt32Ty();
  std::array<Values, 2> cols;
  llvm::Value* col0 = b.CreateAdd(b.CreateShl(j, 3), b.CreateShl(t4, 1));
  for (int c = 0; c < 2; ++c) {
    llvm::Value* col = c == 0 ? col0 : b.CreateAdd(col0, b.getInt32(1));
    for (int k = 0; k < form.b_loads(); ++k) {
      cols[static_cast<size_t>(c)].push_back(shared_element(t, bd, form.b, col, k, form.trans_b, form.negate_b));
    }
  }
  bool f16_d = form.d == MmaElement::f16;
  // f32/s32: words 4j .. 4j + 3, one element each; f16: words 2j, 2j + 1, two elements each.
  llvm::Value* first = f16_d ? b.CreateShl(j, 1) : b.CreateShl(j, 2);
  int words = f16_d ? 2 : 4;
  Values slots;
  Values old;
  for (int w = 0; w < words; ++w) {
    slots.push_back(b.CreateInBoundsGEP(i32, acc, b.CreateAdd(first, b.getInt32(static_cast<uint32_t>(w)))));
    old.push_back(b.CreateLoad(i32, slots.back()));
  }
  Values results;
  for (int i = 0; i < 4; ++i) {
    const Values& av = rows[static_cast<size_t>(i >> 1)];
    Values bv = form.sparse ? sparse_column(b, cols[static_cast<size_t>(i & 1)], positions[static_cast<size_t>(i >> 1)],
                                            form.chunk_size())
                            : cols[static_cast<size_t>(i & 1)];
    if (!form.is_float()) {
      llvm::Value* c = b.CreateSelect(scale_d, b.CreateSExt(old[static_cast<size_t>(i)], b.getInt64Ty()), b.getInt64(0));
      results.push_back(int_sum(b, form, av, bv, c));
      continue;
    }
    llvm::Value* c = f16_d ? half_of(b, old[static_cast<size_t>(i >> 1)], i & 1)
                           : b.CreateBitCast(old[static_cast<size_t>(i)], b.getFloatTy());
    c = b.CreateSelect(scale_d, c, llvm::ConstantFP::get(b.getFloatTy(), 0.0));
    llvm::Value* sum = mma_exact_tensor_sum(b, av, bv, c, form.fp8() ? 13 : 25, form.a, form.b);
    if (f16_d) {
      results.push_back(nearest_f16_bits(b, sum));
    } else if (form.fp8()) {
      results.push_back(fp8_f32_bits(b, sum));
    } else {
      results.push_back(b.CreateBitCast(canonical_nan(b, mma_round_f32_toward_zero(b, sum)), i32));
    }
  }
  for (int w = 0; w < words; ++w) {
    llvm::Value* word = f16_d ? b.CreateOr(results[static_cast<size_t>(2 * w)],
                                           b.CreateShl(results[static_cast<size_t>(2 * w + 1)], 16))
                              : results[static_cast<size_t>(w)];
    b.CreateStore(word, slots[static_cast<size_t>(w)]);
  }
}

Expected<void> lower_mma_async(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<WgmmaForm> parsed = parse_form(instruction);
  if (!parsed || !read_immediates(instruction, *parsed)) {
    return std::unexpected(t.unsupported(instruction));
  }
  const WgmmaForm& form = *parsed;
  Builder& b = t.builder();
  llvm::Type* i32 = b.getInt32Ty();
  int registers = form.d_registers();
  TRY_ASSIGN(Values d_in, read_fragment(t, instruction, 0, registers, 32));
  TRY_ASSIGN(llvm::Value * b_bits, t.read(instruction.operands[2], PtxType{PtxType::Kind::bits, 64, false}));
  TRY_ASSIGN(llvm::Value * scale_d, t.read(instruction.operands[form.scale_index()], pred_type()));
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  llvm::Value* warp = b.CreateAnd(t.hooks().special_register(t.env(), "%warpid"), 3);
  llvm::Value* row0 = b.CreateAdd(b.CreateShl(warp, 4), b.CreateLShr(lane, 2));
  llvm::Value* t4 = b.CreateAnd(lane, 3);
  TRY_ASSIGN(auto rows, a_rows(t, instruction, form, lane, row0));
  std::array<Values, 2> positions;
  if (form.sparse) {
    TRY_ASSIGN(positions, sparse_positions(t, instruction, form, lane));
  }
  Descriptor bd = decode_descriptor(b, b_bits);
  llvm::AllocaInst* acc = t.entry_alloca(llvm::ArrayType::get(i32, static_cast<uint64_t>(registers)), 4, "wgmma.acc");
  for (int r = 0; r < registers; ++r) {
    b.CreateStore(d_in[static_cast<size_t>(r)], b.CreateConstInBoundsGEP1_64(i32, acc, static_cast<uint64_t>(r)));
  }
  llvm::Function& function = t.llvm_function();
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "wgmma.columns", &function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "wgmma.done", &function);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* j = b.CreatePHI(i32, 2, "wgmma.j");
  j->addIncoming(b.getInt32(0), before);
  column_group(t, form, bd, rows, positions, acc, j, t4, scale_d);
  llvm::Value* next = b.CreateAdd(j, b.getInt32(1));
  j->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, b.getInt32(static_cast<uint32_t>(form.n / 8))), loop, done);
  b.SetInsertPoint(done);
  Values d_out;
  for (int r = 0; r < registers; ++r) {
    d_out.push_back(b.CreateLoad(i32, b.CreateConstInBoundsGEP1_64(i32, acc, static_cast<uint64_t>(r))));
  }
  return write_fragment(t, instruction, 0, d_out, 32);
}

// wgmma.fence / commit_group .sync.aligned; wait_group .sync.aligned N: nothing to order (file
// comment).
Expected<void> lower_wgmma(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (!m.empty() && m[0] == "mma_async") {
    return lower_mma_async(t, instruction);
  }
  bool sync_aligned = m.size() == 3 && m[1] == "sync" && m[2] == "aligned";
  if (sync_aligned && (m[0] == "fence" || m[0] == "commit_group") && instruction.operands.empty()) {
    return {};
  }
  if (sync_aligned && m[0] == "wait_group" && instruction.operands.size() == 1 &&
      instruction.operands[0].kind == ptx::OperandKind::integer &&
      parse_integer(instruction.operands[0].text)) {
    return {};
  }
  return std::unexpected(t.unsupported(instruction));
}

} // namespace

void add_wgmma_lowerings(LoweringTable& table)
{
  table["wgmma"] = lower_wgmma;
}

} // namespace d4r::compiler::translate
