// Stage 5, FP8 conversions (cvt with an e4m3x2 or e5m2x2 operand; lower_convert.cpp's cvt hands
// them here), and the fp8-cvt pass's `call (d), d4r_dec_e4m3x2, (a)`, which is
// cvt.rn.f16x2.e4m3x2 d, a:
//   cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}                d(b32), a(b16)   a[15:8] -> d[31:16]
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32        d(b16), a, b     a -> d[15:8], b -> d[7:0]
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2      d(b16), a(b32)   a[31:16] -> d[15:8]
// Host and gfx11 (TranslateOptions::fp8_native false): the support library's exact software
// conversions (kernels/support/fp8.c, __d4r_ptx_cvt_*). gfx12: the hardware instructions
// (v_cvt_pk_f32_fp8 / _bf8, v_cvt_pk_fp8_f32 / _bf8_f32 through llvm.amdgcn.cvt.pk.*), with
// fix-ups where the hardware's semantics are not PTX's:
//   - decode: every e4m3/e5m2 value is exact in f32 and in f16, so fp8 -> f32 -> f16 is exact;
//     the hardware's NaN (whatever its payload and sign) becomes PTX's canonical f16 NaN 0x7fff,
//     and .relu (negative values and -0 -> +0, NaN kept) is applied to the f16 bits.
//   - encode: the instruction rounds to nearest even like PTX, but without its clamp bit (which
//     the intrinsic does not expose) e4m3 overflow gives NaN and e5m2 overflow infinity, where
//     .satfinite wants +-max finite (448, 57344). The source is clamped to [-max, max] first
//     (every value beyond max rounds to max under .satfinite, infinities included); NaN sources
//     give PTX's 0x7f whatever the hardware produces; .relu maps negative sources (and -0) to
//     +0 before the conversion, so a negative value that rounds to -0 also gives +0, as PTX says.
//   f16x2 sources are widened to f32 first (exact), so they round once, as in PTX.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt

#include "compiler/translate/builtin_call.hpp"
#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/IntrinsicsAMDGPU.h>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

PtxType bits_type(int bits)
{
  return PtxType{PtxType::Kind::bits, bits, false};
}

bool native(FunctionTranslator& t)
{
  return t.hooks().kind() == TargetKind::amdgpu && t.module().options.fp8_native;
}

// One f32 (from the hardware's fp8 decode) -> PTX's f16 bits (i16).
llvm::Value* decoded_half(Builder& b, llvm::Value* value, bool relu)
{
  llvm::Value* bits = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty());
  llvm::Value* nan = b.CreateFCmpUNO(value, value);
  if (relu) {
    llvm::Value* negative = b.CreateICmpSLT(bits, b.getInt16(0));
    bits = b.CreateSelect(negative, b.getInt16(0), bits);
  }
  return b.CreateSelect(nan, b.getInt16(0x7fff), bits);
}

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} of the i16 `pair` -> i32 f16x2 bits.
llvm::Value* decode(FunctionTranslator& t, llvm::Value* pair, bool e5m2, bool relu)
{
  Builder& b = t.builder();
  if (!native(t)) {
    return t.call_support(e5m2 ? "__d4r_ptx_cvt_f16x2_e5m2x2" : "__d4r_ptx_cvt_f16x2_e4m3x2",
                          b.getInt32Ty(), {pair, t.i32(relu)});
  }
  llvm::Intrinsic::ID id =
      e5m2 ? llvm::Intrinsic::amdgcn_cvt_pk_f32_bf8 : llvm::Intrinsic::amdgcn_cvt_pk_f32_fp8;
  llvm::Value* floats = b.CreateIntrinsic(id, {}, {b.CreateZExt(pair, b.getInt32Ty()), b.getFalse()});
  if (!relu) {
    // Both halves at once, as <2 x half>: the packed f16x2 arithmetic takes them so, and the NaN
    // analysis sees each half's NaN replaced (nan_observation.hpp).
    llvm::Type* halves = llvm::FixedVectorType::get(b.getHalfTy(), 2);
    llvm::Value* decoded = b.CreateSelect(b.CreateFCmpUNO(floats, floats), ptx_half_nan(halves),
                                          b.CreateFPTrunc(floats, halves));
    return b.CreateBitCast(decoded, b.getInt32Ty());
  }
  llvm::Value* low = decoded_half(b, b.CreateExtractElement(floats, uint64_t{0}), relu);
  llvm::Value* high = decoded_half(b, b.CreateExtractElement(floats, uint64_t{1}), relu);
  return b.CreateOr(b.CreateZExt(low, b.getInt32Ty()),
                    b.CreateShl(b.CreateZExt(high, b.getInt32Ty()), 16));
}

// The f32 source of a hardware encode after .satfinite's clamp and .relu.
llvm::Value* encode_source(Builder& b, llvm::Value* value, bool e5m2, bool relu)
{
  llvm::Value* max = llvm::ConstantFP::get(b.getFloatTy(), e5m2 ? 57344.0 : 448.0);
  llvm::Value* min = llvm::ConstantFP::get(b.getFloatTy(), e5m2 ? -57344.0 : -448.0);
  llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOGT(value, max), max, value);
  clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, min), min, clamped);
  if (relu) {
    llvm::Value* sign = b.CreateICmpSLT(b.CreateBitCast(value, b.getInt32Ty()), b.getInt32(0));
    clamped = b.CreateSelect(sign, llvm::ConstantFP::get(b.getFloatTy(), 0.0), clamped);
  }
  return clamped;
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, hi, lo -> i16.
llvm::Value* encode(FunctionTranslator& t, llvm::Value* high, llvm::Value* low, bool e5m2,
                    bool relu)
{
  Builder& b = t.builder();
  if (!native(t)) {
    return t.call_support(e5m2 ? "__d4r_ptx_cvt_e5m2x2_f32" : "__d4r_ptx_cvt_e4m3x2_f32",
                          b.getInt16Ty(), {high, low, t.i32(1), t.i32(relu)});
  }
  llvm::Intrinsic::ID id =
      e5m2 ? llvm::Intrinsic::amdgcn_cvt_pk_bf8_f32 : llvm::Intrinsic::amdgcn_cvt_pk_fp8_f32;
  llvm::Value* packed = b.CreateIntrinsic(
      id, {}, {encode_source(b, low, e5m2, relu), encode_source(b, high, e5m2, relu),
               b.getInt32(0), b.getFalse()});
  llvm::Value* bytes = b.CreateTrunc(packed, b.getInt16Ty());
  llvm::Value* low_byte = b.CreateSelect(b.CreateFCmpUNO(low, low), b.getInt16(0x7f),
                                         b.CreateAnd(bytes, b.getInt16(0xff)));
  llvm::Value* high_byte = b.CreateSelect(b.CreateFCmpUNO(high, high), b.getInt16(0x7f00),
                                          b.CreateAnd(bytes, b.getInt16(0xff00)));
  return b.CreateOr(high_byte, low_byte);
}

// The two f32 halves (high, low) of an f16x2 register, exactly.
std::pair<llvm::Value*, llvm::Value*> widen_f16x2(Builder& b, llvm::Value* pair)
{
  auto half = [&](uint64_t shift) {
    llvm::Value* bits = b.CreateTrunc(b.CreateLShr(pair, shift), b.getInt16Ty());
    return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy());
  };
  return {half(16), half(0)};
}

Expected<void> lower_encode(FunctionTranslator& t, const ptx::Instruction& instruction, bool e5m2,
                            bool relu)
{
  Builder& b = t.builder();
  if (!has_modifier(instruction, "satfinite")) {
    return std::unexpected(t.unsupported(instruction)); // PTX requires .satfinite
  }
  llvm::Value* result = nullptr;
  if (has_modifier(instruction, "f16x2")) {
    TRY(expect_operands(t, instruction, 2));
    TRY_ASSIGN(llvm::Value * pair, t.read(instruction.operands[1], bits_type(32)));
    if (!native(t)) {
      result = t.call_support(e5m2 ? "__d4r_ptx_cvt_e5m2x2_f16x2" : "__d4r_ptx_cvt_e4m3x2_f16x2",
                              b.getInt16Ty(), {pair, t.i32(1), t.i32(relu)});
    } else {
      auto [high, low] = widen_f16x2(b, pair);
      result = encode(t, high, low, e5m2, relu);
    }
  } else if (has_modifier(instruction, "f32")) {
    TRY(expect_operands(t, instruction, 3));
    TRY_ASSIGN(llvm::Value * high, t.read(instruction.operands[1], f32_type()));
    TRY_ASSIGN(llvm::Value * low, t.read(instruction.operands[2], f32_type()));
    result = encode(t, high, low, e5m2, relu);
  } else {
    return std::unexpected(t.unsupported(instruction));
  }
  return t.write(instruction.operands[0], result, bits_type(16));
}

// call (d), d4r_dec_e4m3x2, (a): cvt.rn.f16x2.e4m3x2 d, a.
Expected<void> lower_call_dec_e4m3x2(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY_ASSIGN(BuiltinCall call, parse_builtin_call(t, instruction));
  if (call.results.size() != 1 || call.arguments.size() != 1) {
    return std::unexpected(t.error(instruction, "call of " + call.name +
                                                    " has the wrong number of arguments or results"));
  }
  TRY_ASSIGN(llvm::Value * pair, read_call_operand(t, instruction, call.arguments[0], bits_type(16)));
  return write_call_result(t, instruction, call.results[0], decode(t, pair, false, false),
                           bits_type(32));
}

} // namespace

Expected<void> lower_cvt_fp8(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool relu = has_modifier(instruction, "relu");
  if (!has_modifier(instruction, "rn")) {
    return std::unexpected(t.unsupported(instruction));
  }
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier != "rn" && modifier != "relu" && modifier != "satfinite" && modifier != "f16x2" &&
        modifier != "f32" && modifier != "e4m3x2" && modifier != "e5m2x2") {
      return std::unexpected(t.unsupported(instruction)); // e2m1x2, ue8m0x2, bf16x2, ...
    }
  }
  bool e5m2 = has_modifier(instruction, "e5m2x2");
  if (!e5m2 && !has_modifier(instruction, "e4m3x2")) {
    return std::unexpected(t.unsupported(instruction));
  }
  // cvt.rn{.relu}.f16x2.e4m3x2: the destination type comes first.
  const std::string& destination = instruction.modifiers[instruction.modifiers.size() - 2];
  if (destination == "f16x2") {
    if (has_modifier(instruction, "satfinite") || has_modifier(instruction, "f32")) {
      return std::unexpected(t.unsupported(instruction));
    }
    TRY(expect_operands(t, instruction, 2));
    TRY_ASSIGN(llvm::Value * pair, t.read(instruction.operands[1], bits_type(16)));
    return t.write(instruction.operands[0], decode(t, pair, e5m2, relu), bits_type(32));
  }
  return lower_encode(t, instruction, e5m2, relu);
}

void add_fp8_lowerings(LoweringTable& table)
{
  table["call:d4r_dec_e4m3x2"] = lower_call_dec_e4m3x2;
}

} // namespace d4r::compiler::translate
