// Float arithmetic (f32, f64; f16/bf16 scalars through the support library). Round-to-nearest
// add/sub/mul/fma/div/sqrt/rcp are LLVM's own IEEE operations, exact on both targets, wrapped in
// .ftz flushing, .sat clamping and NVIDIA's NaN rules (lowering_support.hpp); the directed
// modes (.rz/.rm/.rp), min/max's rarer forms and the .approx/.full instructions call the support
// library's __d4r_ptx_* functions; min/max.f32 against a constant is a compare and a select, and
// between registers on AMDGPU the hardware's own (hardware_min_max says why it is exact). No
// global strict-FP mode is used anywhere.
// mul/add/sub without a rounding modifier may be fused into fma by NVIDIA's ptxas; here they are
// rounded separately (.rn), which is what the PTX text says.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

struct FloatOp {
  PtxType type;
  int mode = 0; // rounding, 0 (rn) when absent
  bool ftz = false;
  bool sat = false;
  std::vector<llvm::Value*> in;
};

Expected<FloatOp> read_sources(FunctionTranslator& t, const ptx::Instruction& instruction,
                               PtxType type, size_t count)
{
  TRY(expect_operands(t, instruction, count + 1));
  FloatOp op;
  op.type = type;
  op.mode = std::max(rounding_mode(instruction), 0);
  op.ftz = has_modifier(instruction, "ftz");
  op.sat = has_modifier(instruction, "sat");
  for (size_t i = 1; i <= count; ++i) {
    TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[i], type));
    op.in.push_back(value);
  }
  return op;
}

// The bit layout abs/neg need: the sign, the exponent field (all ones: inf or NaN), and what a
// NaN becomes.
struct FloatFormat {
  uint64_t sign;
  uint64_t exponent;
  bool quiet_input; // f64: the input NaN quieted; f32/f16/bf16: the canonical NaN
  uint64_t canonical;
};

FloatFormat float_format(PtxType type)
{
  if (type.bits == 64) {
    return {0x8000000000000000ULL, 0x7ff0000000000000ULL, true, 0};
  }
  if (type.bits == 32) {
    return {0x80000000U, 0x7f800000U, false, 0x7fffffffU};
  }
  return {0x8000U, type.bf16 ? 0x7f80U : 0x7c00U, false, 0x7fffU};
}

// abs/neg on a float's bits (`x` an integer of its width). NVIDIA implements both as an add of
// -0 (FADD/DADD with an operand modifier) where ptxas does not fold them into the next
// instruction, so a NaN is an arithmetic result: f32, f16, bf16 (scalar and each half of x2):
// the canonical NaN, sign cleared (nan_bits_f32_*, nan_bits_half_*: abs(0xffa00005) =
// neg(0x7fc00000) = 0x7fffffff, abs.f16(0xfc52) = 0x7fff); f64: the input quieted, its sign
// untouched (nan_bits_f64_*: abs(0xfff8000000000000) = 0xfff8000000000000, neg(0x7ff0000000000001)
// = 0x7ff8000000000001). Everything else is the bit operation (neg(+0) = -0, subnormals kept
// unless .ftz flushed them first). Integer operations, so that no LLVM float rule can touch them;
// an unguarded f32 takes fabs/fneg and the canonicalising select instead (lower_float), which the
// NaN analysis sees through.
llvm::Value* abs_neg_bits(Builder& b, llvm::Value* x, bool abs, const FloatFormat& format)
{
  llvm::Type* type = x->getType();
  auto constant = [&](uint64_t value) { return llvm::ConstantInt::get(type, value); };
  llvm::Value* magnitude = b.CreateAnd(x, constant(~format.sign));
  llvm::Value* is_nan = b.CreateICmpUGT(magnitude, constant(format.exponent));
  llvm::Value* result = abs ? magnitude : b.CreateXor(x, constant(format.sign));
  llvm::Value* nan = format.quiet_input ? b.CreateOr(x, constant(0x0008000000000000ULL))
                                        : constant(format.canonical);
  return b.CreateSelect(is_nan, nan, result);
}

// abs/neg on f16/bf16 bits (i16), .ftz flushing an f16 subnormal to a zero of its sign first.
llvm::Value* half_abs_neg(Builder& b, llvm::Value* x, bool abs, bool ftz, bool bf16)
{
  PtxType type{PtxType::Kind::floating, 16, bf16};
  if (ftz) {
    llvm::Value* subnormal = b.CreateAnd(b.CreateICmpEQ(b.CreateAnd(x, 0x7c00), b.getInt16(0)),
                                         b.CreateICmpNE(b.CreateAnd(x, 0x03ff), b.getInt16(0)));
    x = b.CreateSelect(subnormal, b.CreateAnd(x, 0x8000), x);
  }
  return abs_neg_bits(b, x, abs, float_format(type));
}

// Round-to-nearest result of a native operation on `in` (the operands after .ftz), with PTX's
// flushing, saturation and NaN rule.
llvm::Value* finish(Builder& b, const FloatOp& op, llvm::Value* result,
                    const std::vector<llvm::Value*>& in)
{
  if (op.ftz) {
    result = flush_subnormal(b, result);
  }
  if (op.sat) {
    result = saturate(b, result);
  }
  return nan_result(b, result, in);
}

std::vector<llvm::Value*> flushed_inputs(Builder& b, const FloatOp& op)
{
  std::vector<llvm::Value*> in = op.in;
  if (op.ftz) {
    for (llvm::Value*& value : in) {
      value = flush_subnormal(b, value);
    }
  }
  return in;
}

std::string suffix(const FloatOp& op)
{
  return op.type.bits == 64 ? "_f64" : "_f32";
}

// add, sub, mul or fma of `in` (scalars or vectors), rounded to nearest: LLVM's IEEE operation.
llvm::Value* ieee_operation(Builder& b, const std::string& name, const std::vector<llvm::Value*>& in)
{
  if (name == "add") {
    return b.CreateFAdd(in[0], in[1]);
  }
  if (name == "sub") {
    return b.CreateFSub(in[0], in[1]);
  }
  if (name == "mul") {
    return b.CreateFMul(in[0], in[1]);
  }
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {in[0]->getType()}, {in[0], in[1], in[2]});
}

// add, sub, mul, fma/mad with any rounding mode.
llvm::Value* rounded(FunctionTranslator& t, const std::string& name, const FloatOp& op)
{
  Builder& b = t.builder();
  llvm::Type* type = op.in[0]->getType();
  if (op.mode == 0) {
    // With the float mode flushing, the hardware operation flushes its inputs (one VALU
    // instruction on AMDGPU, SSE with DAZ on the host); what LLVM folds instead (x * 1, x + -0)
    // yields an input, which the result's flush still catches. Division and square root keep
    // theirs: AMDGPU's expansion turns denormals on around its core.
    std::vector<llvm::Value*> in = float_mode_flushes_f32(b) ? op.in : flushed_inputs(b, op);
    return finish(b, op, ieee_operation(b, name, in), in);
  }
  std::vector<llvm::Value*> args = op.in;
  args.push_back(t.i32(static_cast<uint32_t>(op.mode)));
  if (op.type.bits == 32) {
    args.push_back(t.i32(op.ftz));
    args.push_back(t.i32(op.sat));
  }
  std::string callee = "__d4r_ptx_" + name + suffix(op);
  llvm::Value* result = t.call_support(callee, type, args);
  return op.type.bits == 64 && op.sat ? t.call_support("__d4r_ptx_sat_f64", type, {result})
                                      : result;
}

// fma.rn.oob{.relu|.sat} a, b, c: +0 when a or b is the "OOB NaN" a tensor copy's out-of-bounds
// fill writes (PTX ISA, fma), the fma otherwise. The ISA names no 16-bit pattern; on the H200
// it is 0x7ff7 with either sign, as a multiplicand only (half_oob_scan: every pattern in a, b and
// c, f16 and bf16, scalar and packed); every other NaN is an ordinary one (the canonical NaN).
// ptxas 13 rejects .ftz with .oob.
llvm::Value* out_of_bounds_zero(Builder& b, const FloatOp& op, llvm::Value* result)
{
  llvm::Value* oob = b.getFalse();
  for (size_t i = 0; i < 2; ++i) {
    oob = b.CreateOr(oob, b.CreateICmpEQ(b.CreateAnd(op.in[i], 0x7fff), b.getInt16(0x7ff7)));
  }
  return b.CreateSelect(oob, b.getInt16(0), result);
}

// add/sub/mul/fma on f16 and bf16 scalars (their bits), before .oob.
Expected<llvm::Value*> half_rounded(FunctionTranslator& t, const ptx::Instruction& instruction,
                                    const std::string& name, const FloatOp& op)
{
  std::string callee = "__d4r_ptx_" + name + (op.type.bf16 ? "_bf16" : "_f16");
  bool relu = has_modifier(instruction, "relu");
  bool oob = has_modifier(instruction, "oob");
  if ((relu && (name != "fma" || op.sat)) || (op.type.bf16 && (op.sat || op.ftz)) ||
      (oob && (name != "fma" || op.ftz || op.mode != 0))) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::vector<llvm::Value*> args = op.in;
  args.push_back(t.i32(static_cast<uint32_t>(op.mode)));
  if (op.type.bf16) {
    args.push_back(t.i32(name == "fma" && relu));
    return t.call_support(callee, t.builder().getInt16Ty(), args);
  }
  args.push_back(t.i32(op.ftz));
  args.push_back(t.i32(op.sat));
  llvm::Value* result = t.call_support(callee, t.builder().getInt16Ty(), args);
  if (!relu) {
    return result;
  }
  // fma.relu.f16: a negative result (-0 and -inf included) becomes +0; the canonical NaN 0x7fff
  // has a clear sign and stays (PTX ISA, fma; the support library's bf16 .relu is the same rule).
  Builder& b = t.builder();
  llvm::Value* negative = b.CreateICmpSLT(result, b.getInt16(0));
  llvm::Value* not_nan = b.CreateICmpULE(b.CreateAnd(result, 0x7fff), b.getInt16(0x7c00));
  return b.CreateSelect(b.CreateAnd(negative, not_nan), b.getInt16(0), result);
}

// add/sub/mul/fma on f16 and bf16 scalars, with fma's .oob.
Expected<llvm::Value*> half_arith(FunctionTranslator& t, const ptx::Instruction& instruction,
                                  const std::string& name, const FloatOp& op)
{
  TRY_ASSIGN(llvm::Value * result, half_rounded(t, instruction, name, op));
  return has_modifier(instruction, "oob") ? out_of_bounds_zero(t.builder(), op, result) : result;
}

// div, rcp, sqrt, rsqrt and the .approx transcendental functions.
Expected<llvm::Value*> special(FunctionTranslator& t, const ptx::Instruction& instruction,
                               const FloatOp& op)
{
  Builder& b = t.builder();
  const std::string& name = instruction.opcode;
  llvm::Type* type = op.in[0]->getType();
  bool approx = has_modifier(instruction, "approx");
  bool f64 = op.type.bits == 64;
  if (approx || has_modifier(instruction, "full") || name == "rsqrt" || name == "ex2" ||
      name == "lg2" || name == "sin" || name == "cos" || name == "tanh") {
    std::string kind = has_modifier(instruction, "full") ? "_full" : "_approx";
    if (f64 && name == "rcp" && op.ftz) {
      return t.call_support("__d4r_ptx_rcp_approx_ftz_f64", type, {op.in[0]});
    }
    if (f64 && name == "rsqrt") {
      // rsqrt.approx.ftz.f64 reads only the high word and leaves the result's low word zero on
      // the H200 (gap_rsqrt_f64_*), as rcp.approx.ftz.f64; without .ftz it is full precision.
      return t.call_support(op.ftz ? "__d4r_ptx_rsqrt_approx_ftz_f64" : "__d4r_ptx_rsqrt_approx_f64",
                            type, {op.in[0]});
    }
    if (f64) {
      return std::unexpected(t.unsupported(instruction));
    }
    std::vector<llvm::Value*> args = op.in;
    if (name != "tanh") {
      args.push_back(t.i32(op.ftz));
    }
    return t.call_support("__d4r_ptx_" + name + kind + "_f32", type, args);
  }
  if (name != "div" && name != "rcp" && name != "sqrt") {
    return std::unexpected(t.unsupported(instruction));
  }
  if (op.mode != 0) {
    std::vector<llvm::Value*> args = op.in;
    args.push_back(t.i32(static_cast<uint32_t>(op.mode)));
    if (!f64) {
      args.push_back(t.i32(op.ftz));
    }
    return t.call_support("__d4r_ptx_" + name + suffix(op), type, args);
  }
  std::vector<llvm::Value*> in = flushed_inputs(b, op);
  llvm::Value* result = nullptr;
  if (name == "div") {
    result = b.CreateFDiv(in[0], in[1]);
  } else if (name == "rcp") {
    result = b.CreateFDiv(llvm::ConstantFP::get(type, 1.0), in[0]);
  } else {
    result = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, in[0]);
  }
  return finish(b, op, result, in);
}

// testp.op.type p, a.
Expected<void> lower_testp(FunctionTranslator& t, const ptx::Instruction& instruction,
                           PtxType type)
{
  TRY(expect_operands(t, instruction, 2));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * x, t.read(instruction.operands[1], type));
  llvm::Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Type* ftype = x->getType();
  double smallest = type.bits == 64 ? 2.2250738585072014e-308 : 1.1754943508222875e-38;
  llvm::Value* inf = llvm::ConstantFP::getInfinity(ftype);
  llvm::Value* min_normal = llvm::ConstantFP::get(ftype, smallest);
  llvm::Value* zero = llvm::ConstantFP::get(ftype, 0.0);
  llvm::Value* result = nullptr;
  if (has_modifier(instruction, "finite")) {
    result = b.CreateFCmpOLT(magnitude, inf);
  } else if (has_modifier(instruction, "infinite")) {
    result = b.CreateFCmpOEQ(magnitude, inf);
  } else if (has_modifier(instruction, "number")) {
    result = b.CreateFCmpORD(x, x);
  } else if (has_modifier(instruction, "notanumber")) {
    result = b.CreateFCmpUNO(x, x);
  } else if (has_modifier(instruction, "normal")) {
    // +0 and -0 are "normal" on an H200 (rd_testp_*, f32 and f64), unlike in the ISA's words;
    // subnormals, infinities and NaNs are not.
    llvm::Value* normal = b.CreateAnd(b.CreateFCmpOGE(magnitude, min_normal),
                                      b.CreateFCmpOLT(magnitude, inf));
    // Zero by its bits, so that a target flushing subnormals in fcmp does not count them.
    llvm::Value* bits = b.CreateBitCast(x, b.getIntNTy(type.bits));
    llvm::Value* is_zero = b.CreateICmpEQ(b.CreateShl(bits, 1), llvm::ConstantInt::get(bits->getType(), 0));
    result = b.CreateOr(normal, is_zero);
  } else if (has_modifier(instruction, "subnormal")) {
    result = b.CreateAnd(b.CreateFCmpOLT(magnitude, min_normal), b.CreateFCmpONE(magnitude, zero));
  } else {
    return std::unexpected(t.unsupported(instruction));
  }
  return t.write(instruction.operands[0], result, pred_type());
}

// min/max of a register with itself is that register, NaN bits included (even a signalling
// NaN), for f32, f64 and scalar f16 without modifiers: ptxas folds them (max.f32 x, x of
// 0xffa00000 is 0xffa00000 on an H200, rd_same_operand; min.f16 x, x of 0x7e00 is 0x7e00,
// half_same_edges). With .ftz, .NaN or .xorsign.abs, and on bf16, f16x2 and bf16x2, it is an
// arithmetic result (the canonical NaN), as for two registers (half_same_edges). A register
// declared in an inline-asm block without '%' is a symbol operand to the parser.
bool same_register_kept(const ptx::Instruction& instruction, const FloatOp& op)
{
  const ptx::Operand& first = instruction.operands[1];
  bool is_register = first.kind == ptx::OperandKind::reg || first.kind == ptx::OperandKind::symbol;
  bool scalar_f16 = op.type.bits == 16 && !op.type.bf16 && !has_packed_type(instruction);
  return is_register && first == instruction.operands[2] && !op.ftz &&
         !has_modifier(instruction, "NaN") && !has_modifier(instruction, "xorsign") &&
         !has_modifier(instruction, "abs") &&
         (op.type.bits == 32 || op.type.bits == 64 || scalar_f16);
}

// min/max on f16/bf16 bits with .ftz (f16), .NaN and .xorsign.abs (minmax.c has the rules).
Expected<llvm::Value*> half_min_max(FunctionTranslator& t, const ptx::Instruction& instruction,
                                    const FloatOp& op)
{
  bool xorsign = has_modifier(instruction, "xorsign");
  if (xorsign != has_modifier(instruction, "abs")) {
    return std::unexpected(t.unsupported(instruction)); // .abs alone is sm_100's 3-operand form
  }
  if (same_register_kept(instruction, op)) {
    return op.in[0];
  }
  llvm::Value* is_max = t.i32(instruction.opcode == "max");
  llvm::Value* nan = t.i32(has_modifier(instruction, "NaN"));
  llvm::Type* i16 = t.builder().getInt16Ty();
  if (op.type.bf16) {
    return t.call_support("__d4r_ptx_minmax_bf16", i16,
                          {op.in[0], op.in[1], is_max, nan, t.i32(xorsign)});
  }
  return t.call_support("__d4r_ptx_minmax_f16", i16,
                        {op.in[0], op.in[1], is_max, t.i32(op.ftz), nan, t.i32(xorsign)});
}

// ex2.approx.f16, ex2.approx.ftz.bf16, tanh.approx.f16/.bf16 on bits (approx.c). ptxas 13 takes
// ex2 on f16 only without .ftz and on bf16 only with it, and tanh without.
Expected<llvm::Value*> half_approx(FunctionTranslator& t, const ptx::Instruction& instruction,
                                   const FloatOp& op)
{
  bool ex2 = instruction.opcode == "ex2";
  if (!has_modifier(instruction, "approx") || (ex2 ? op.type.bf16 != op.ftz : op.ftz)) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::string callee = ex2 ? (op.type.bf16 ? "__d4r_ptx_ex2_approx_ftz_bf16" : "__d4r_ptx_ex2_approx_f16")
                           : (op.type.bf16 ? "__d4r_ptx_tanh_approx_bf16" : "__d4r_ptx_tanh_approx_f16");
  return t.call_support(callee, t.builder().getInt16Ty(), {op.in[0]});
}

// One f16/bf16 value (its i16 bits) of a scalar or packed half instruction.
Expected<llvm::Value*> half_lane(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 const std::string& name, const FloatOp& op)
{
  if (name == "abs" || name == "neg") {
    return half_abs_neg(t.builder(), op.in[0], name == "abs", op.ftz, op.type.bf16);
  }
  if (name == "min" || name == "max") {
    return half_min_max(t, instruction, op);
  }
  if (name == "ex2" || name == "tanh") {
    return half_approx(t, instruction, op);
  }
  if (name == "add" || name == "sub" || name == "mul" || name == "fma") {
    return half_arith(t, instruction, name, op);
  }
  return std::unexpected(t.unsupported(instruction));
}

// A subnormal f32 constant under .ftz is a zero of its sign, as flush_subnormal makes it.
llvm::ConstantFP* flushed_constant(llvm::ConstantFP* constant, bool ftz)
{
  if (!ftz || !constant->getValueAPF().isDenormal()) {
    return constant;
  }
  return llvm::cast<llvm::ConstantFP>(
      llvm::ConstantFP::getZero(constant->getType(), constant->isNegative()));
}

// min/max.f32 of two registers on AMDGPU: V_MAX_F32/V_MIN_F32 (RDNA3) and V_MAX_NUM_F32/
// V_MIN_NUM_F32 (RDNA4) are PTX's min/max: one NaN operand gives the other, and their pseudocode
// orders the zeros ("+0 > -0 is TRUE in this comparison"). LLVM's minnum/maxnum leave that order
// open, but the backend selects these instructions for them and LLVM 19's constant folding
// (APFloat) uses the same order; against a zero, where the backend would form a clamp bit, the
// rewrite of min_max_zeros.hpp takes over after the pipeline. In IEEE mode the backend quiets an
// operand that may be a signalling NaN first, so it, too, gives the other operand. Two NaNs give
// PTX's NaN through the canonicalising select, dropped where no one sees it. The host's fmaxf
// does not order zeros: it keeps the support library.
llvm::Value* hardware_min_max(Builder& b, bool is_max, llvm::Value* x, llvm::Value* y)
{
  llvm::Value* result =
      b.CreateBinaryIntrinsic(is_max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, x, y);
  return canonical_nan(b, result);
}

Expected<llvm::Value*> min_max(FunctionTranslator& t, const ptx::Instruction& instruction,
                               const FloatOp& op)
{
  const std::string& name = instruction.opcode;
  llvm::Type* type = op.in[0]->getType();
  if (same_register_kept(instruction, op)) { // same_register_kept says why
    return op.in[0];
  }
  if (op.type.bits == 64) {
    if (has_modifier(instruction, "NaN") || has_modifier(instruction, "xorsign") ||
        has_modifier(instruction, "abs")) {
      return std::unexpected(t.unsupported(instruction)); // f32-only forms
    }
    // Two NaNs give a, quieted: what double_arith_* (nvcc's fmin, min.f64 x, y) shows. PTX does
    // not fix that NaN and ptxas decides: the same min.f64 a, b as inline PTX gives b, quieted
    // (nan_bits_f64_edges, which therefore compares NaNs as NaNs).
    return t.call_support("__d4r_ptx_" + name + "_f64", type, {op.in[0], op.in[1]});
  }
  bool xorsign = has_modifier(instruction, "xorsign");
  if (xorsign != has_modifier(instruction, "abs")) {
    return std::unexpected(t.unsupported(instruction)); // .abs alone is sm_100's 3-operand form
  }
  if (xorsign) { // minmax.c
    return t.call_support("__d4r_ptx_minmax_xorsign_f32", type,
                          {op.in[0], op.in[1], t.i32(name == "max"), t.i32(op.ftz),
                           t.i32(has_modifier(instruction, "NaN"))});
  }
  if (!has_modifier(instruction, "NaN")) {
    Builder& b = t.builder();
    bool is_max = name == "max";
    for (int constant_at = 0; constant_at < 2; ++constant_at) {
      auto* c = llvm::dyn_cast<llvm::ConstantFP>(op.in[static_cast<size_t>(constant_at)]);
      if (c != nullptr && !c->isNaN()) {
        llvm::Value* x = op.in[static_cast<size_t>(1 - constant_at)];
        return min_max_with_constant(b, is_max, op.ftz ? flush_subnormal(b, x) : x,
                                     flushed_constant(c, op.ftz));
      }
    }
    if (t.hooks().kind() == TargetKind::amdgpu) {
      return hardware_min_max(b, is_max, op.ftz ? flush_subnormal(b, op.in[0]) : op.in[0],
                              op.ftz ? flush_subnormal(b, op.in[1]) : op.in[1]);
    }
  }
  return t.call_support("__d4r_ptx_" + name + "_f32", type,
                        {op.in[0], op.in[1], t.i32(op.ftz), t.i32(has_modifier(instruction, "NaN"))});
}

// The modifiers each float opcode implements (every one is read above or in the support library),
// besides its one type. Anything else (.relu on f32, .oob outside f16/bf16 fma, .rna, a second
// type as in the mixed-precision add.f32.f16) is "unsupported".
Expected<void> float_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  struct Known {
    std::string_view opcodes;
    std::string_view modifiers;
  };
  static constexpr Known k_known[] = {
      {" add sub mul ", " rn rz rm rp ftz sat "},
      {" fma mad ", " rn rz rm rp ftz sat relu oob "}, // .oob: f16/bf16 fma only (half_arith)
      {" div ", " approx full rn rz rm rp ftz "},
      {" rcp sqrt ", " approx rn rz rm rp ftz "},
      {" rsqrt ex2 lg2 sin cos ", " approx ftz "},
      {" tanh ", " approx "},
      {" abs neg ", " ftz "},
      {" min max ", " ftz NaN xorsign abs "},
      {" copysign ", " "},
      {" testp ", " finite infinite number notanumber normal subnormal "},
  };
  static constexpr std::string_view k_types[] = {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"};
  std::string_view allowed;
  for (const Known& known : k_known) {
    if (known.opcodes.find(" " + instruction.opcode + " ") != std::string_view::npos) {
      allowed = known.modifiers;
    }
  }
  for (const std::string& modifier : instruction.modifiers) {
    bool type = std::find(std::begin(k_types), std::end(k_types), modifier) != std::end(k_types);
    if (!type && allowed.find(" " + modifier + " ") == std::string_view::npos) {
      return std::unexpected(t.unsupported(instruction));
    }
  }
  TRY(one_type(t, instruction));
  bool relu = has_modifier(instruction, "relu");
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  bool oob = has_modifier(instruction, "oob");
  if ((relu || oob) && type.bits != 16 && !has_packed_type(instruction)) {
    return std::unexpected(t.unsupported(instruction)); // .relu and .oob are f16/bf16 forms
  }
  // .ftz exists for f32 and f16 (f16x2); on f64 only in rcp.approx.ftz.f64 and
  // rsqrt.approx.ftz.f64, on bf16 only in ex2.approx.ftz.bf16 (ptxas 13 rejects the rest).
  // flush_subnormal leaves a double alone, so an f64 .ftz that got this far would be dropped
  // without a word.
  bool approx_f64_ftz = has_modifier(instruction, "approx") &&
                        (instruction.opcode == "rcp" || instruction.opcode == "rsqrt");
  if (has_modifier(instruction, "ftz") &&
      ((type.bits == 64 && !approx_f64_ftz) || (type.bf16 && instruction.opcode != "ex2"))) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

} // namespace

// Whether an f16x2 add/sub/mul/fma is the hardware's packed operation on AMDGPU: round to
// nearest, nothing flushed, saturated or clamped. The support library's AMDGPU path computes each
// half of those with the hardware too (d4r_f16_rn_hw: IEEE binary16, rounded once, subnormals
// kept under the f16 denormal mode), so the halves are the same; one packed instruction
// (v_pk_fma_f16, v_pk_add_f16, v_pk_mul_f16) does both.
bool packed_in_hardware(const ptx::Instruction& instruction, const FloatOp& op)
{
  const std::string& name = instruction.opcode;
  return (name == "add" || name == "sub" || name == "mul" || name == "fma") && op.mode == 0 &&
         !op.ftz && !op.sat && !has_modifier(instruction, "relu") &&
         !has_modifier(instruction, "oob");
}

// The packed operation on <2 x half>, with PTX's NaN for a NaN half (canonical_nan).
llvm::Value* hardware_packed_half(Builder& b, const std::string& name, const FloatOp& op)
{
  llvm::Type* pair = llvm::FixedVectorType::get(b.getHalfTy(), 2);
  std::vector<llvm::Value*> in;
  for (llvm::Value* value : op.in) {
    in.push_back(b.CreateBitCast(value, pair));
  }
  return b.CreateBitCast(canonical_nan(b, ieee_operation(b, name, in)), b.getInt32Ty());
}

Expected<void> lower_packed_half(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::string& name = instruction.opcode;
  bool bf16 = has_modifier(instruction, "bf16x2");
  bool unary = name == "abs" || name == "neg" || name == "ex2" || name == "tanh";
  if (!(bf16 || has_modifier(instruction, "f16x2")) ||
      !(name == "add" || name == "sub" || name == "mul" || name == "fma" || name == "min" ||
        name == "max" || unary)) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(float_modifiers(t, instruction));
  size_t count = name == "fma" ? 3 : (unary ? 1 : 2);
  PtxType bits32{PtxType::Kind::bits, 32, false};
  TRY_ASSIGN(FloatOp packed, read_sources(t, instruction, bits32, count));
  Builder& b = t.builder();
  if (!bf16 && t.hooks().kind() == TargetKind::amdgpu && packed_in_hardware(instruction, packed)) {
    return t.write(instruction.operands[0], hardware_packed_half(b, name, packed), bits32);
  }
  PtxType half{PtxType::Kind::floating, 16, bf16};
  llvm::Value* result = b.getInt32(0);
  for (int part = 0; part < 2; ++part) {
    FloatOp op = packed;
    op.type = half;
    for (llvm::Value*& value : op.in) {
      value = b.CreateTrunc(b.CreateLShr(value, static_cast<uint64_t>(16 * part)), b.getInt16Ty());
    }
    TRY_ASSIGN(llvm::Value * lane, half_lane(t, instruction, name, op));
    result = b.CreateOr(result, b.CreateShl(b.CreateZExt(lane, b.getInt32Ty()),
                                            static_cast<uint64_t>(16 * part)));
  }
  return t.write(instruction.operands[0], result, bits32);
}

Expected<void> lower_float(FunctionTranslator& t, const ptx::Instruction& instruction, PtxType type)
{
  const std::string& name = instruction.opcode;
  Builder& b = t.builder();
  TRY(float_modifiers(t, instruction));
  if (name == "testp") {
    return lower_testp(t, instruction, type);
  }
  bool unary = name == "abs" || name == "neg" || name == "rcp" || name == "sqrt" ||
               name == "rsqrt" || name == "ex2" || name == "lg2" || name == "sin" ||
               name == "cos" || name == "tanh";
  size_t count = unary ? 1 : (name == "fma" || name == "mad" ? 3 : 2);
  TRY_ASSIGN(FloatOp op, read_sources(t, instruction, type, count));
  llvm::Value* result = nullptr;
  std::string arith = name == "mad" ? "fma" : name;
  bool basic = arith == "add" || arith == "sub" || arith == "mul" || arith == "fma";
  if (type.bits == 16) {
    TRY_ASSIGN(result, half_lane(t, instruction, arith, op));
  } else if (basic) {
    result = rounded(t, arith, op);
  } else if (name == "abs" || name == "neg") {
    llvm::Value* x = op.ftz ? flush_subnormal(b, op.in[0]) : op.in[0];
    const FloatFormat format = float_format(type);
    if (instruction.guard && type.bits == 32 && !op.ftz) {
      // A guarded abs/neg.f32 is the bit operation on an H200, NaN payloads kept (random
      // differential testing: @p abs.f32 0xff924985 = 0x7f924985, @p neg.f32 0x7fff1586 =
      // 0xffff1586, @!p neg.f32 0x7fffffff = 0xffffffff; r304, r139, r272), where an unguarded one
      // gives the canonical NaN (nan_bits_f32_*).
      llvm::Value* bits = b.CreateBitCast(x, b.getInt32Ty());
      llvm::Value* moved = name == "abs" ? b.CreateAnd(bits, 0x7fffffffU)
                                         : b.CreateXor(bits, 0x80000000U);
      result = b.CreateBitCast(moved, x->getType());
    } else if (type.bits == 32) {
      // LLVM's fabs and fneg are the bit operations (LangRef: NaNs included), and the canonical
      // NaN comes from the canonicalising select, which goes where nothing sees the bits: the
      // roundf idiom's |x - trunc(x)|, only ever compared with 0.5.
      result = canonical_nan(b, name == "abs" ? b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)
                                              : b.CreateFNeg(x));
    } else {
      result = b.CreateBitCast(abs_neg_bits(b, b.CreateBitCast(x, b.getIntNTy(type.bits)),
                                            name == "abs", format),
                               x->getType());
    }
  } else if (name == "min" || name == "max") {
    TRY_ASSIGN(result, min_max(t, instruction, op));
  } else if (name == "copysign") {
    // copysign.type d, a, b: b with a's sign. LLVM's copysign is that bit operation (LangRef: NaNs
    // of b keep their payload), and one the NaN analysis knows (nan_observation.hpp).
    result = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, op.in[1], op.in[0]);
  } else if (name == "div" || unary) {
    TRY_ASSIGN(result, special(t, instruction, op));
  } else {
    return std::unexpected(t.unsupported(instruction));
  }
  return t.write(instruction.operands[0], result, type);
}

} // namespace d4r::compiler::translate
