// The video instructions: scalar vadd, vsub, vabsdiff, vmin, vmax (.sat, the secondary .add/.min/
// .max, the merge form d.b0-.b3/.h0/.h1), vshl, vshr (.clamp/.wrap), vset, vmad; and the SIMD
// forms vadd2, vsub2, vavrg2, vabsdiff2, vmin2, vmax2, vset2 and their 4-way versions (operand
// selects .hxy / .bxyzw, destination masks, .sat, the secondary .add). The arithmetic is the
// support library's (kernels/support/video.c, the ISA pseudo-code), vmad's is inline IR here;
// the spelling is decoded into its constant arguments. Operand selects arrive as part of the
// register's name ("%r1.b2"), vmad's negations as Operand::minus ("-%r1"). Where an NVIDIA H200
// departs from the ISA's pseudo-code (video.c, lower_vmad), the H200 is followed. Selects on
// immediate operands are rejected (the ISA gives them none).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#video-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// Operation numbers of kernels/support/video.c.
constexpr uint32_t k_add = 0;
constexpr uint32_t k_sub = 1;
constexpr uint32_t k_absdiff = 2;
constexpr uint32_t k_min = 3;
constexpr uint32_t k_max = 4;
constexpr uint32_t k_avrg = 5;
constexpr uint32_t k_shl_clamp = 6;
constexpr uint32_t k_shr_clamp = 8;
constexpr uint32_t k_set_eq = 16;
constexpr uint32_t k_whole_word = 6; // scalar select: no .bN/.hN

// A register operand and the select after its name ("%r1.b2" -> "%r1", "b2").
struct Selected {
  ptx::Operand operand;
  std::string select;
};

Selected split_select(const ptx::Operand& operand)
{
  Selected out{operand, {}};
  if (operand.kind != ptx::OperandKind::reg && operand.kind != ptx::OperandKind::symbol) {
    return out;
  }
  size_t dot = operand.text.find('.');
  if (dot == std::string::npos) {
    return out;
  }
  out.operand.text = operand.text.substr(0, dot);
  out.select = operand.text.substr(dot + 1);
  return out;
}

// Scalar select: b0-b3 -> 0-3, h0/h1 -> 4/5, none -> 6.
std::optional<uint32_t> scalar_select(const std::string& select)
{
  if (select.empty()) {
    return k_whole_word;
  }
  if (select.size() == 2 && select[0] == 'b' && select[1] >= '0' && select[1] <= '3') {
    return static_cast<uint32_t>(select[1] - '0');
  }
  if (select.size() == 2 && select[0] == 'h' && (select[1] == '0' || select[1] == '1')) {
    return static_cast<uint32_t>(4 + select[1] - '0');
  }
  return std::nullopt;
}

// SIMD source select .hxy (n = 2) / .bxyzw (n = 4): the first digit is the highest element's
// source. Element i's index goes to bits [w*i + w-1 : w*i], w = 2 (halves) or 3 (bytes).
std::optional<uint32_t> simd_select(const std::string& select, int n, const std::string& fallback)
{
  const std::string& s = select.empty() ? fallback : select;
  const char letter = n == 2 ? 'h' : 'b';
  const char top = n == 2 ? '3' : '7';
  if (s.size() != static_cast<size_t>(n) + 1 || s[0] != letter) {
    return std::nullopt;
  }
  const int width = n == 2 ? 2 : 3;
  uint32_t code = 0;
  for (int i = 0; i < n; ++i) {
    const char digit = s[static_cast<size_t>(n - i)];
    if (digit < '0' || digit > top) {
      return std::nullopt;
    }
    code |= static_cast<uint32_t>(digit - '0') << (width * i);
  }
  return code;
}

// SIMD destination mask (.h0, .h1, .h10; .b0 ... .b3210: the elements written), all by default.
std::optional<uint32_t> simd_mask(const std::string& select, int n)
{
  if (select.empty()) {
    return (1U << n) - 1;
  }
  const char letter = n == 2 ? 'h' : 'b';
  if (select.size() < 2 || select[0] != letter) {
    return std::nullopt;
  }
  uint32_t mask = 0;
  char previous = '9';
  for (size_t i = 1; i < select.size(); ++i) {
    const char digit = select[i];
    if (digit < '0' || digit >= '0' + n || digit >= previous) {
      return std::nullopt; // digits strictly descending, as the ISA lists the masks
    }
    mask |= 1U << (digit - '0');
    previous = digit;
  }
  return mask;
}

// u32 -> 0, s32 -> 1, anything else nullopt.
std::optional<uint32_t> signedness(const std::string& type)
{
  if (type == "u32") {
    return 0;
  }
  if (type == "s32") {
    return 1;
  }
  return std::nullopt;
}

std::optional<uint32_t> comparison(const std::string& cmp)
{
  static constexpr std::string_view k_cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (uint32_t i = 0; i < std::size(k_cmps); ++i) {
    if (k_cmps[i] == cmp) {
      return k_set_eq + i;
    }
  }
  return std::nullopt;
}

// What the opcode names: the operation, the SIMD width (1 scalar, 2, 4), and the shape.
struct VideoOpcode {
  uint32_t op = 0;
  int n = 1;
  bool shift = false;
  bool set = false;
};

std::optional<VideoOpcode> video_opcode(std::string_view opcode)
{
  struct Entry {
    std::string_view name;
    uint32_t op;
    bool scalar_only;
    bool simd_only;
  };
  static constexpr Entry k_entries[] = {
      {"vadd", k_add, false, false},         {"vsub", k_sub, false, false},
      {"vabsdiff", k_absdiff, false, false}, {"vmin", k_min, false, false},
      {"vmax", k_max, false, false},         {"vavrg", k_avrg, false, true},
      {"vshl", k_shl_clamp, true, false},    {"vshr", k_shr_clamp, true, false},
      {"vset", k_set_eq, false, false}};
  for (const Entry& entry : k_entries) {
    if (!opcode.starts_with(entry.name)) {
      continue;
    }
    std::string_view rest = opcode.substr(entry.name.size());
    int n = rest.empty() ? 1 : (rest == "2" ? 2 : (rest == "4" ? 4 : 0));
    if (n == 0 || (n == 1 && entry.simd_only) || (n != 1 && entry.scalar_only)) {
      continue;
    }
    return VideoOpcode{entry.op, n, entry.name == "vshl" || entry.name == "vshr",
                       entry.name == "vset"};
  }
  return std::nullopt;
}

// The decoded modifiers: types, .sat, the secondary operation (0 none, 1 add, 2 min, 3 max) and,
// for shifts and vset, the mode or comparison folded into `op`.
struct VideoForm {
  uint32_t op = 0;
  uint32_t signs = 0; // bit 0 atype, 1 btype, 2 dtype
  bool sat = false;
  uint32_t op2 = 0;
};

std::optional<VideoForm> video_form(const ptx::Instruction& instruction, const VideoOpcode& code)
{
  const std::vector<std::string>& m = instruction.modifiers;
  const size_t types = code.set ? 2 : 3;
  if (m.size() < types) {
    return std::nullopt;
  }
  VideoForm form{code.op, 0, false, 0};
  for (size_t i = 0; i < types; ++i) {
    std::optional<uint32_t> sign = signedness(m[i]);
    if (!sign) {
      return std::nullopt;
    }
    // vset has no dtype: its types are atype, btype. The others: dtype, atype, btype.
    const size_t bit = code.set ? i : (i == 0 ? 2 : i - 1);
    form.signs |= *sign << bit;
  }
  if (code.shift && m[2] != "u32") {
    return std::nullopt; // the shift amount's type is .u32
  }
  size_t next = types;
  if (code.set) {
    std::optional<uint32_t> cmp = next < m.size() ? comparison(m[next]) : std::nullopt;
    if (!cmp) {
      return std::nullopt;
    }
    form.op = *cmp;
    ++next;
  }
  if (!code.set && next < m.size() && m[next] == "sat") {
    form.sat = true;
    ++next;
  }
  if (code.shift) {
    if (next >= m.size() || (m[next] != "clamp" && m[next] != "wrap")) {
      return std::nullopt;
    }
    form.op += m[next] == "wrap" ? 1 : 0;
    ++next;
  }
  if (next < m.size()) {
    const std::string& op2 = m[next];
    form.op2 = op2 == "add"
                   ? 1
                   : (code.n == 1 && op2 == "min" ? 2 : (code.n == 1 && op2 == "max" ? 3 : 0));
    if (form.op2 == 0) {
      return std::nullopt;
    }
    ++next;
  }
  if (next != m.size() || (code.n != 1 && form.sat && form.op2 != 0)) {
    return std::nullopt; // the SIMD forms: "saturation cannot be used with .add"
  }
  return form;
}

Expected<void> lower_video(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<VideoOpcode> code = video_opcode(instruction.opcode);
  std::optional<VideoForm> form = code ? video_form(instruction, *code) : std::nullopt;
  if (!form) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  if (ops.size() != 3 && ops.size() != 4) {
    return std::unexpected(t.error(instruction, "a video instruction takes 3 or 4 operands"));
  }
  Selected d = split_select(ops[0]);
  Selected a = split_select(ops[1]);
  Selected bb = split_select(ops[2]);
  std::optional<uint32_t> asel;
  std::optional<uint32_t> bsel;
  std::optional<uint32_t> dsel;
  if (code->n == 1) {
    asel = scalar_select(a.select);
    bsel = scalar_select(bb.select);
    dsel = scalar_select(d.select);
    // 3 operands: no c; 4: a secondary operation or a merge (d.dsel), not both.
    const bool merge = dsel && *dsel != k_whole_word;
    if (ops.size() != (form->op2 != 0 || merge ? 4U : 3U) || (merge && form->op2 != 0)) {
      return std::unexpected(t.unsupported(instruction));
    }
    // vset has no destination type: its secondary .min/.max compare c with the signedness of
    // atype on the H200 (video_extra.cu: vset.u32.u32.lt.max, vset.s32.u32.ge.max,
    // vset.u32.s32.ne.min).
    if (code->set) {
      form->signs |= (form->signs & 1U) << 2;
    }
  } else {
    asel = simd_select(a.select, code->n, code->n == 2 ? "h10" : "b3210");
    bsel = simd_select(bb.select, code->n, code->n == 2 ? "h32" : "b7654");
    dsel = simd_mask(d.select, code->n);
    if (ops.size() != 4) {
      return std::unexpected(t.unsupported(instruction));
    }
  }
  if (!asel || !bsel || !dsel) {
    return std::unexpected(t.unsupported(instruction));
  }
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * va, t.read(a.operand, u32_type()));
  TRY_ASSIGN(llvm::Value * vb, t.read(bb.operand, u32_type()));
  llvm::Value* vc = b.getInt32(0);
  if (ops.size() == 4) {
    TRY_ASSIGN(vc, t.read(ops[3], u32_type()));
  }
  const char* name =
      code->n == 1 ? "__d4r_ptx_video" : (code->n == 2 ? "__d4r_ptx_video2" : "__d4r_ptx_video4");
  llvm::Value* result =
      t.call_support(name, b.getInt32Ty(),
                     {t.i32(form->op), va, t.i32(*asel), vb, t.i32(*bsel), vc, t.i32(*dsel),
                      t.i32(form->signs), t.i32(form->sat ? 1 : 0), t.i32(form->op2)});
  return t.write(d.operand, result, u32_type());
}

// vmad's selected operand as i64: a byte or half is sign- or zero-extended after its type, a whole
// word is always sign-extended (the H200: vmad.u32.u32.u32.shr15 of 0x80000000 and 0x80ff7f01
// is 0x80ff0000, the product of the two words as signed numbers).
llvm::Value* vmad_operand(Builder& b, llvm::Value* word, uint32_t select, bool is_signed)
{
  if (select == k_whole_word) {
    return b.CreateSExt(word, b.getInt64Ty());
  }
  const uint32_t bits = select < 4 ? 8 : 16;
  const uint32_t shift = select < 4 ? 8 * select : 16 * (select - 4);
  llvm::Value* part = b.CreateTrunc(b.CreateLShr(word, shift), b.getIntNTy(bits));
  return is_signed ? b.CreateSExt(part, b.getInt64Ty()) : b.CreateZExt(part, b.getInt64Ty());
}

// vmad.dtype.atype.btype{.po}{.sat}{.shr7,.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c. The ISA:
//   signed = atype or btype is .s32, or the product or c is negated; t = ta * tb; lsb = 0;
//   .po: lsb = 1; else -a xor -b: t = ~t, lsb = 1; else -c: c = ~c, lsb = 1;
//   t = t + c + lsb; t >>= scale; .sat clamps t to the s32 (signed) or u32 range; d = t[31:0].
// What an H200 does (video_extra.cu, 14 forms x 768 inputs; int_more.cu): c is sign-extended
// whatever the types (vmad.u32.u32.u32.sat.shr7 with c = 0x80000000 saturates to 0xffffffff),
// whole-word operands too (vmad_operand), and the sum is a 64-bit two's-complement number that an
// unsigned form shifts logically (so a negative one becomes large and .sat gives 0xffffffff,
// without a shift 0). dtype changes nothing. ptxas rejects a negated c with a negated product
// and a negation with .po; so does this lowering.
Expected<void> lower_vmad(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  static constexpr std::string_view k_known[] = {"u32", "s32", "po", "sat", "shr7", "shr15"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool po = has_modifier(instruction, "po");
  const bool sat = has_modifier(instruction, "sat");
  const bool shr7 = has_modifier(instruction, "shr7");
  const bool shr15 = has_modifier(instruction, "shr15");
  const uint32_t scale = shr7 ? 7 : (shr15 ? 15 : 0);
  const size_t extra = size_t{po} + size_t{sat} + size_t{shr7} + size_t{shr15};
  if (m.size() != 3 + extra || (shr7 && shr15) || !signedness(m[0]) || !signedness(m[1]) ||
      !signedness(m[2])) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 4));
  Selected a = split_select(instruction.operands[1]);
  Selected bb = split_select(instruction.operands[2]);
  const ptx::Operand& d = instruction.operands[0];
  ptx::Operand c = instruction.operands[3];
  std::optional<uint32_t> asel = scalar_select(a.select);
  std::optional<uint32_t> bsel = scalar_select(bb.select);
  const bool negate_product = a.operand.minus != bb.operand.minus;
  const bool negate_c = c.minus;
  const bool any_minus = a.operand.minus || bb.operand.minus || negate_c;
  if (!asel || !bsel || d.text.find('.') != std::string::npos || (po && any_minus) ||
      (negate_product && negate_c)) {
    return std::unexpected(t.unsupported(instruction));
  }
  a.operand.minus = false;
  bb.operand.minus = false;
  c.minus = false;
  const bool a_signed = m[1] == "s32";
  const bool b_signed = m[2] == "s32";
  const bool is_signed = a_signed || b_signed || negate_product || negate_c;
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * va, t.read(a.operand, u32_type()));
  TRY_ASSIGN(llvm::Value * vb, t.read(bb.operand, u32_type()));
  TRY_ASSIGN(llvm::Value * vc, t.read(c, u32_type()));
  llvm::Value* product =
      b.CreateMul(vmad_operand(b, va, *asel, a_signed), vmad_operand(b, vb, *bsel, b_signed));
  uint64_t lsb = po || negate_product || negate_c ? 1 : 0;
  if (negate_product) {
    product = b.CreateNot(product);
  }
  if (negate_c) {
    vc = b.CreateNot(vc);
  }
  llvm::Value* sum = b.CreateAdd(b.CreateAdd(product, b.CreateSExt(vc, b.getInt64Ty())),
                                 b.getInt64(lsb));
  if (scale != 0) {
    sum = is_signed ? b.CreateAShr(sum, scale) : b.CreateLShr(sum, scale);
  }
  if (sat) {
    const int64_t low = is_signed ? INT32_MIN : 0;
    const int64_t high = is_signed ? INT32_MAX : int64_t{UINT32_MAX};
    sum = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, sum,
                                  b.getInt64(static_cast<uint64_t>(low)));
    sum = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, sum,
                                  b.getInt64(static_cast<uint64_t>(high)));
  }
  return t.write(d, b.CreateTrunc(sum, b.getInt32Ty()), u32_type());
}

} // namespace

void add_video_lowerings(LoweringTable& table)
{
  table["vmad"] = lower_vmad;
  for (const char* name : {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset"}) {
    table[name] = lower_video;
  }
  for (const char* name : {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"}) {
    table[std::string(name) + "2"] = lower_video;
    table[std::string(name) + "4"] = lower_video;
  }
}

} // namespace d4r::compiler::translate
