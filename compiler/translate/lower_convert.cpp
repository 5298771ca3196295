// Moves and conversions: mov (registers, immediates, special registers, symbol addresses, and the
// vector pack/unpack forms `mov.b32 %r, {%h1, %h2}` / `mov.b64 {%r1, %r2}, %rd`, element 0 in the
// low bits), cvta / cvta.to, and cvt between every pair of integer and float types with the exact
// rounding, .ftz and .sat of the PTX ISA. Integer conversions are plain LLVM; float conversions are
// native where LLVM's result is the exact PTX one (round-to-nearest int -> float, f32 -> f64,
// f64 -> f32 .rn) and calls of the support library's __d4r_ptx_cvt_* otherwise. FP8 conversions
// (e4m3/e5m2, stage 5) are delegated to lower_fp8.cpp (lower_cvt_fp8).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>

namespace d4r::compiler::translate {

namespace {

// cvt.rn.f16.f32 without .sat: LLVM's fptrunc is IEEE round-to-nearest-even (one v_cvt_f16_f32 on
// AMDGPU, vcvtps2ph or libgcc's __truncsfhf2 on the host) instead of the support library's
// general rounding routine, 10x fewer instructions in f16 stores. .ftz changes nothing: an f32
// subnormal (< 2^-126) rounds to a signed zero in f16 either way. NaN is the canonical 0x7fff, as
// the H200 wrote for every NaN input (cvt_f32_* goldens).
llvm::Value* round_f32_to_f16(llvm::IRBuilder<>& b, llvm::Value* value)
{
  llvm::Value* bits = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty());
  return b.CreateSelect(b.CreateFCmpUNO(value, value), b.getInt16(0x7fff), bits);
}

// cvt{.ftz}.f32.f16 is exact (every f16 value, subnormals included, is a normal f32 or zero, so
// .ftz changes nothing): LLVM's fpext (one v_cvt_f32_f16 on AMDGPU; F16C or libgcc's
// __extendhfsf2 on the host) instead of the support library's decode through f64, which cost
// about 15 instructions and a branch per conversion (72 per texture_layers layer). NaN is the
// canonical 0x7fffffff (cvt_f16_exhaustive: every NaN half); .sat clamps after that.
llvm::Value* widen_f16(llvm::IRBuilder<>& b, llvm::Value* bits, bool sat)
{
  llvm::Value* value = b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy());
  value = canonical_nan(b, value);
  return sat ? saturate(b, value) : value;
}

// `value` rounded to an integral value of its type in `mode` (0 rni, 1 rzi, 2 rmi, 3 rpi), exactly.
llvm::Value* round_to_integral(llvm::IRBuilder<>& b, llvm::Value* value, int mode)
{
  static constexpr llvm::Intrinsic::ID k_by_mode[] = {llvm::Intrinsic::roundeven, llvm::Intrinsic::trunc,
                                                      llvm::Intrinsic::floor, llvm::Intrinsic::ceil};
  return b.CreateUnaryIntrinsic(k_by_mode[mode], value);
}

// cvt{.ftz}{.sat}.{rni,rzi,rmi,rpi}.f32.f32 (`mode` 0..3): LLVM's rounding to an integral value,
// exact in every mode (v_rndne/v_trunc/v_floor/v_ceil_f32 on AMDGPU; SSE4.1 or libm on the host)
// where the support library's bit operations cost about twenty instructions and two branches. A
// subnormal is flushed first under .ftz (floor(-tiny) is -1, of its flush -0); NaN gives PTX's
// canonical NaN, or +0 under .sat, which clamps after the rounding.
llvm::Value* round_to_integral_f32(llvm::IRBuilder<>& b, llvm::Value* value, int mode, bool ftz, bool sat)
{
  llvm::Value* rounded = round_to_integral(b, ftz ? flush_subnormal(b, value) : value, mode);
  return sat ? saturate(b, rounded) : canonical_nan(b, rounded);
}

PtxType bits_type(int bits)
{
  return PtxType{PtxType::Kind::bits, bits, false};
}

// .sat on f16 bits: NaN, -0 and negative values become +0, values above 1.0 (0x3c00) 1.0.
llvm::Value* saturate_f16(llvm::IRBuilder<>& b, llvm::Value* h)
{
  llvm::Value* nan = b.CreateICmpUGT(b.CreateAnd(h, 0x7fff), b.getInt16(0x7c00));
  llvm::Value* zero = b.CreateOr(b.CreateICmpSLT(h, b.getInt16(0)), nan);
  llvm::Value* one = b.CreateICmpUGT(h, b.getInt16(0x3c00));
  return b.CreateSelect(zero, b.getInt16(0), b.CreateSelect(one, b.getInt16(0x3c00), h));
}

// cvt.f64.bf16, exact; a NaN keeps its sign and payload, quieted, as cvt.f64.f16 does on an H200
// (__d4r_ptx_cvt_f64_f16).
llvm::Value* widen_bf16_f64(FunctionTranslator& t, llvm::Value* h)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* value = t.call_support("__d4r_ptx_cvt_f64_bf16", b.getDoubleTy(), {h});
  llvm::Value* wide = b.CreateZExt(h, b.getInt64Ty());
  llvm::Value* nan_bits = b.CreateOr(
      b.CreateOr(b.CreateShl(b.CreateAnd(wide, 0x8000), 48), b.getInt64(0x7ff8000000000000ULL)),
      b.CreateShl(b.CreateAnd(wide, 0x7f), 45));
  llvm::Value* nan = b.CreateICmpUGT(b.CreateAnd(h, 0x7fff), b.getInt16(0x7f80));
  return b.CreateSelect(nan, b.CreateBitCast(nan_bits, b.getDoubleTy()), value);
}

Expected<void> lower_mov(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  // mov moves bits: one type and nothing else.
  for (const std::string& modifier : instruction.modifiers) {
    if (!parse_type(modifier)) {
      return std::unexpected(t.unsupported(instruction));
    }
  }
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 2));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  llvm::IRBuilder<>& b = t.builder();
  const ptx::Operand& target = instruction.operands[0];
  const ptx::Operand& source = instruction.operands[1];
  if (target.kind == ptx::OperandKind::vector) { // unpack
    int parts = static_cast<int>(target.elements.size());
    if (parts < 2 || type.bits % parts != 0) {
      return std::unexpected(t.error(instruction, "bad vector destination"));
    }
    int width = type.bits / parts;
    TRY_ASSIGN(llvm::Value * whole, t.read(source, bits_type(type.bits)));
    for (int i = 0; i < parts; ++i) {
      llvm::Value* part = b.CreateTrunc(b.CreateLShr(whole, static_cast<uint64_t>(i * width)),
                                        b.getIntNTy(static_cast<unsigned>(width)));
      TRY(t.write(target.elements[static_cast<size_t>(i)], part, bits_type(width)));
    }
    return {};
  }
  if (source.kind == ptx::OperandKind::vector) { // pack
    int parts = static_cast<int>(source.elements.size());
    if (parts < 2 || type.bits % parts != 0) {
      return std::unexpected(t.error(instruction, "bad vector source"));
    }
    int width = type.bits / parts;
    llvm::Type* whole_type = b.getIntNTy(static_cast<unsigned>(type.bits));
    llvm::Value* whole = llvm::ConstantInt::get(whole_type, 0);
    for (int i = 0; i < parts; ++i) {
      TRY_ASSIGN(llvm::Value * part, t.read(source.elements[static_cast<size_t>(i)],
                                            bits_type(width)));
      part = b.CreateShl(b.CreateZExt(part, whole_type), static_cast<uint64_t>(i * width));
      whole = b.CreateOr(whole, part);
    }
    return t.write(target, whole, bits_type(type.bits));
  }
  TRY_ASSIGN(llvm::Value * value, t.read(source, type));
  return t.write(target, value, type);
}

// cvta{.to}.space.{u32,u64}. .param/.param::entry (PTX 7.7): a parameter's address (mov of its
// name) to generic and back, which is where the kernel's parameter block or the function's
// argument copy lives. .shared::cluster: the CTA's own .shared window where every cluster is one
// CTA (lower_cluster.cpp), "unsupported" where clusters may be bigger.
Expected<void> lower_cvta(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "to",    "global", "shared",       "shared::cta", "shared::cluster", "local",
      "const", "param",  "param::entry", "u32",         "u64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 2));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  bool to = has_modifier(instruction, "to");
  Space space = Space::global;
  if (has_modifier(instruction, "shared") || has_modifier(instruction, "shared::cta")) {
    space = Space::shared;
  } else if (has_modifier(instruction, "shared::cluster")) {
    if (!one_cta_clusters(t)) {
      return std::unexpected(t.unsupported(instruction));
    }
    space = Space::shared;
  } else if (has_modifier(instruction, "local")) {
    space = Space::local;
  } else if (has_modifier(instruction, "const")) {
    space = Space::constant;
  } else if (has_modifier(instruction, "param") || has_modifier(instruction, "param::entry")) {
    space = Space::param;
  } else if (!has_modifier(instruction, "global")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], type));
  llvm::Value* converted = t.hooks().convert_address(t.env(), space, !to, value,
                                                     static_cast<unsigned>(type.bits));
  return t.write(instruction.operands[0], converted, type);
}

// Integer -> integer: truncation or extension by the source's sign; .sat clamps to the
// destination's range.
llvm::Value* int_to_int(llvm::IRBuilder<>& b, llvm::Value* value, PtxType from, PtxType to,
                        bool sat)
{
  unsigned to_bits = static_cast<unsigned>(to.bits);
  if (!sat) {
    return from.is_signed() ? b.CreateSExtOrTrunc(value, b.getIntNTy(to_bits))
                            : b.CreateZExtOrTrunc(value, b.getIntNTy(to_bits));
  }
  llvm::Type* wide = b.getInt128Ty();
  llvm::Value* extended = from.is_signed() ? b.CreateSExt(value, wide) : b.CreateZExt(value, wide);
  llvm::APInt max = to.is_signed() ? llvm::APInt::getSignedMaxValue(to_bits)
                                   : llvm::APInt::getMaxValue(to_bits);
  llvm::APInt min = to.is_signed() ? llvm::APInt::getSignedMinValue(to_bits)
                                   : llvm::APInt::getMinValue(to_bits);
  llvm::Value* high = llvm::ConstantInt::get(wide, to.is_signed() ? max.sext(128) : max.zext(128));
  llvm::Value* low = llvm::ConstantInt::get(wide, to.is_signed() ? min.sext(128) : min.zext(128));
  llvm::Value* clamped = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax,
                                                 b.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                                                         extended, high),
                                                 low);
  return b.CreateTrunc(clamped, b.getIntNTy(to_bits));
}

std::string type_name(PtxType type)
{
  if (type.is_float()) {
    return type.bf16 ? "bf16" : "f" + std::to_string(type.bits);
  }
  return (type.is_signed() ? "s" : "u") + std::to_string(type.bits);
}

// f16/bf16 bits -> f32, exactly.
llvm::Value* half_to_f32(FunctionTranslator& t, llvm::Value* bits, PtxType from, bool ftz)
{
  llvm::Type* f32 = t.builder().getFloatTy();
  if (from.bf16) {
    return t.call_support("__d4r_ptx_cvt_f32_bf16_ex", f32, {bits, t.i32(ftz), t.i32(0)});
  }
  return widen_f16(t.builder(), bits, false);
}

Expected<llvm::Value*> float_to_int(FunctionTranslator& t, const ptx::Instruction& instruction,
                                    llvm::Value* value, PtxType from, PtxType to)
{
  int mode = rounding_mode(instruction);
  bool ftz = has_modifier(instruction, "ftz");
  if (from.bits == 16) {
    value = half_to_f32(t, value, from, false);
    from = f32_type();
  }
  if (mode < 0 || mode > 3) {
    return std::unexpected(t.unsupported(instruction));
  }
  // LLVM's rounding to an integral value, then its saturating conversion (PTX clamps to the
  // destination's range; v_cvt_{i,u}32_f32/f64 on AMDGPU clamp in hardware). A NaN gives 0, or
  // 1 << (width - 1) from an f64 or into a 64-bit integer (PTX ISA, cvt, Integer Notes).
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* source = ftz && from.bits == 32 ? flush_subnormal(b, value) : value;
  llvm::Value* integral = mode == 1 ? source : round_to_integral(b, source, mode);
  llvm::Type* result = b.getIntNTy(static_cast<unsigned>(to.bits));
  llvm::Value* converted =
      b.CreateIntrinsic(to.is_signed() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                        {result, integral->getType()}, {integral});
  if (from.bits != 64 && to.bits != 64) {
    return converted;
  }
  llvm::Value* nan = llvm::ConstantInt::get(result, llvm::APInt::getSignMask(static_cast<unsigned>(to.bits)));
  return b.CreateSelect(b.CreateFCmpUNO(value, value), nan, converted);
}

Expected<llvm::Value*> int_to_float(FunctionTranslator& t, const ptx::Instruction& instruction,
                                    llvm::Value* value, PtxType from, PtxType to)
{
  llvm::IRBuilder<>& b = t.builder();
  int mode = rounding_mode(instruction);
  mode = mode < 0 ? 0 : mode;
  if (from.bits < 32) {
    value = from.is_signed() ? b.CreateSExt(value, b.getInt32Ty()) : b.CreateZExt(value, b.getInt32Ty());
    from.bits = 32;
  }
  llvm::Value* result = nullptr;
  bool exact = to.bits == 64 && from.bits == 32;
  if (to.bits != 16 && (mode == 0 || exact)) {
    llvm::Type* type = llvm_type(t.context(), to);
    result = from.is_signed() ? b.CreateSIToFP(value, type) : b.CreateUIToFP(value, type);
  } else if (to.bits == 16 && to.bf16 && from.bits == 32) {
    PtxType wide = from;
    wide.bits = 64;
    value = from.is_signed() ? b.CreateSExt(value, b.getInt64Ty()) : b.CreateZExt(value, b.getInt64Ty());
    result = t.call_support("__d4r_ptx_cvt_" + type_name(to) + "_" + type_name(wide),
                            b.getInt16Ty(), {value, t.i32(mode)});
  } else {
    std::string name = "__d4r_ptx_cvt_" + type_name(to) + "_" + type_name(from);
    result = t.call_support(name, llvm_type(t.context(), to), {value, t.i32(mode)});
  }
  if (has_modifier(instruction, "sat")) {
    if (to.bf16) {
      return std::unexpected(t.unsupported(instruction)); // ptxas 13 has no .sat to bf16
    }
    result = to.bits == 16 ? saturate_f16(b, result) : saturate(b, result);
  }
  return result;
}

// cvt.f64.f32: the exact widening; a NaN keeps its sign and payload, quieted (0x7f800001 ->
// 0x7ff8000020000000), and under .ftz every NaN is the canonical f32 NaN widened
// (0x7fffffffe0000000), as the H200 gives (cvt_f32_ftz_*). LLVM's fpext leaves a NaN's payload
// open, hence the explicit bits.
llvm::Value* widen_f32(llvm::IRBuilder<>& b, llvm::Value* value, bool ftz)
{
  llvm::Value* nan_bits = b.getInt64(0x7fffffffe0000000ULL);
  if (!ftz) {
    llvm::Value* bits = b.CreateZExt(b.CreateBitCast(value, b.getInt32Ty()), b.getInt64Ty());
    llvm::Value* sign = b.CreateShl(b.CreateLShr(bits, 31), 63);
    llvm::Value* payload = b.CreateShl(b.CreateAnd(bits, 0x7fffffULL), 29);
    nan_bits = b.CreateOr(b.CreateOr(sign, payload), b.getInt64(0x7ff8000000000000ULL));
  }
  return b.CreateSelect(b.CreateFCmpUNO(value, value), b.CreateBitCast(nan_bits, b.getDoubleTy()),
                        b.CreateFPExt(value, b.getDoubleTy()));
}

// cvt.rn.f32.f64: IEEE rounding to nearest even (subnormal results kept); a NaN keeps its sign
// and the top 23 bits of its payload, quieted (0xfff4000000000000 -> 0xffe00000, cvt_f64_random).
llvm::Value* narrow_f64(llvm::IRBuilder<>& b, llvm::Value* value)
{
  llvm::Value* bits = b.CreateBitCast(value, b.getInt64Ty());
  llvm::Value* sign = b.CreateShl(b.CreateLShr(bits, 63), 31);
  llvm::Value* payload = b.CreateAnd(b.CreateLShr(bits, 29), 0x7fffffULL);
  llvm::Value* nan_bits = b.CreateTrunc(
      b.CreateOr(b.CreateOr(sign, payload), b.getInt64(0x7fc00000ULL)), b.getInt32Ty());
  return b.CreateSelect(b.CreateFCmpUNO(value, value), b.CreateBitCast(nan_bits, b.getFloatTy()),
                        b.CreateFPTrunc(value, b.getFloatTy()));
}

// Float -> float of another format, or cvt.rXi within one format.
Expected<llvm::Value*> float_to_float(FunctionTranslator& t, const ptx::Instruction& instruction,
                                      llvm::Value* value, PtxType from, PtxType to)
{
  llvm::IRBuilder<>& b = t.builder();
  int mode = rounding_mode(instruction);
  bool ftz = has_modifier(instruction, "ftz");
  bool sat = has_modifier(instruction, "sat");
  bool integral = false;
  for (const char* name : {"rni", "rzi", "rmi", "rpi"}) {
    integral = integral || has_modifier(instruction, name);
  }
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* f64 = b.getDoubleTy();
  if (from == to) {
    if (from.bits == 32 && integral) {
      return round_to_integral_f32(b, value, mode, ftz, sat);
    }
    if (from.bits == 32) { // cvt{.ftz}{.sat}.f32.f32
      llvm::Value* result = ftz ? flush_subnormal(b, value) : value;
      return canonical_nan(b, sat ? saturate(b, result) : result);
    }
    if (from.bits == 64 && integral) {
      llvm::Value* rounded = t.call_support("__d4r_ptx_cvt_rint_f64", f64, {value, t.i32(mode)});
      return sat ? t.call_support("__d4r_ptx_sat_f64", f64, {rounded}) : rounded;
    }
    if (from.bits == 16 && integral && !(sat && from.bf16)) { // no .sat on bf16 (ptxas 13)
      llvm::Value* rounded =
          t.call_support(from.bf16 ? "__d4r_ptx_cvt_rint_bf16" : "__d4r_ptx_cvt_rint_f16",
                         b.getInt16Ty(), {value, t.i32(mode)});
      return sat ? saturate_f16(b, rounded) : rounded; // a NaN (0x7fff) saturates to +0
    }
    if (from.bits == 64 && sat) {
      return t.call_support("__d4r_ptx_sat_f64", f64, {value});
    }
    return std::unexpected(t.unsupported(instruction));
  }
  mode = mode < 0 ? 0 : mode;
  bool with_bf16 = (from.bits == 16 && from.bf16) || (to.bits == 16 && to.bf16);
  bool half_pair = from.bits == 16 && to.bits == 16;
  if (with_bf16 && (half_pair || from.bits == 64 || to.bits == 64)) {
    // sm_90's bf16 <-> f64 and f16 <-> bf16: no .ftz or .sat (ptxas 13 rejects them); without a
    // rounding modifier f16 <-> bf16 rounds to nearest (half_cvt_exhaustive).
    if (ftz || sat) {
      return std::unexpected(t.unsupported(instruction));
    }
    if (half_pair) {
      return t.call_support(to.bf16 ? "__d4r_ptx_cvt_bf16_f16" : "__d4r_ptx_cvt_f16_bf16",
                            b.getInt16Ty(), {value, t.i32(mode)});
    }
    if (to.bits == 64) {
      return widen_bf16_f64(t, value);
    }
    return t.call_support("__d4r_ptx_cvt_bf16_f64_ex", b.getInt16Ty(), {value, t.i32(mode)});
  }
  // Where the float mode flushes f32 denormals, the hardware conversions would flush what PTX
  // keeps without .ftz: those, .sat and the directed modes stay in the support library.
  bool mode_keeps_denormals = ftz || !float_mode_flushes_f32(b);
  if (from.bits == 32 && to.bits == 64 && !sat && mode_keeps_denormals) {
    return widen_f32(b, ftz ? flush_subnormal(b, value) : value, ftz);
  }
  if (from.bits == 64 && to.bits == 32 && !sat && mode == 0 && mode_keeps_denormals) {
    llvm::Value* narrowed = narrow_f64(b, value);
    return ftz ? flush_subnormal(b, narrowed) : narrowed;
  }
  if (from.bits == 32 && to.bits == 64) {
    return t.call_support("__d4r_ptx_cvt_f64_f32", f64, {value, t.i32(ftz), t.i32(sat)});
  }
  if (from.bits == 64 && to.bits == 32) {
    return t.call_support("__d4r_ptx_cvt_f32_f64", f32,
                          {value, t.i32(mode), t.i32(ftz), t.i32(sat)});
  }
  if (from.bits == 32 && to.bits == 16) {
    // cvt.frnd2{.relu}{.satfinite}.{f16,bf16}.f32: .relu makes a negative result (and -0) +0,
    // .satfinite clamps to the largest finite value (the support library's _ex conversions,
    // which the packed f16x2/bf16x2 forms use too).
    int relu = has_modifier(instruction, "relu");
    int satfinite = has_modifier(instruction, "satfinite");
    if ((relu != 0 || satfinite != 0) && to.bf16) {
      return t.call_support("__d4r_ptx_cvt_bf16_f32_ex", b.getInt16Ty(),
                            {value, t.i32(mode), t.i32(sat), t.i32(relu), t.i32(satfinite)});
    }
    if (relu != 0 || satfinite != 0) {
      return t.call_support("__d4r_ptx_cvt_f16_f32_ex", b.getInt16Ty(),
                            {value, t.i32(mode), t.i32(ftz), t.i32(sat), t.i32(relu),
                             t.i32(satfinite)});
    }
    if (to.bf16) {
      return t.call_support("__d4r_ptx_cvt_bf16_f32", b.getInt16Ty(),
                            {value, t.i32(mode), t.i32(sat)});
    }
    if (mode == 0 && !sat) {
      return round_f32_to_f16(b, value);
    }
    return t.call_support("__d4r_ptx_cvt_f16_f32", b.getInt16Ty(),
                          {value, t.i32(mode), t.i32(ftz), t.i32(sat)});
  }
  if (from.bits == 16 && to.bits == 32) {
    if (from.bf16) {
      return t.call_support("__d4r_ptx_cvt_f32_bf16_ex", f32, {value, t.i32(ftz), t.i32(sat)});
    }
    return widen_f16(b, value, sat);
  }
  if (from.bits == 64 && to.bits == 16 && !to.bf16) {
    return t.call_support("__d4r_ptx_cvt_f16_f64", b.getInt16Ty(),
                          {value, t.i32(mode), t.i32(sat)});
  }
  if (from.bits == 16 && to.bits == 64 && !from.bf16) {
    return t.call_support("__d4r_ptx_cvt_f64_f16", f64, {value, t.i32(sat)});
  }
  return std::unexpected(t.unsupported(instruction));
}

// The modifiers of the scalar cvt forms: the rounding modes (.rna only exists for .tf32), .ftz,
// .sat, .relu/.satfinite (f32 -> f16/bf16 only) and exactly two types. A rounding modifier the
// conversion does not use is harmless: int -> int and f32 -> f64 are exact whatever the mode.
Expected<void> cvt_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "rn",  "rz",  "rm",  "rp",  "rni", "rzi", "rmi", "rpi", "ftz", "sat", "relu",
      "satfinite", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16",
      "f32", "f64"};
  TRY(known_modifiers(t, instruction, k_known));
  size_t types = 0;
  size_t modes = 0;
  for (const std::string& modifier : instruction.modifiers) {
    types += parse_type(modifier) ? 1 : 0;
    modes += modifier.size() >= 2 && modifier[0] == 'r' && modifier != "relu" ? 1 : 0;
  }
  if (types != 2 || modes > 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

// cvt.rna{.satfinite}.tf32.f32 and cvt.{rn,rz}{.relu}.tf32.f32 d, a (sm_80, sm_90): d is a .b32
// holding the tf32 value in f32 layout, its 13 low bits zero (minmax.c). The sm_100 forms
// (.satfinite with .rn/.rz) are rejected, as ptxas 13 does for sm_90.
Expected<void> lower_cvt_tf32(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"rna", "rn", "rz", "satfinite", "relu", "tf32",
                                                 "f32"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 2));
  const std::vector<std::string>& m = instruction.modifiers;
  bool rna = has_modifier(instruction, "rna");
  bool rn = has_modifier(instruction, "rn");
  bool rz = has_modifier(instruction, "rz");
  bool relu = has_modifier(instruction, "relu");
  bool satfinite = has_modifier(instruction, "satfinite");
  bool types = m.size() >= 2 && m[m.size() - 2] == "tf32" && m.back() == "f32" &&
               std::count(m.begin(), m.end(), "f32") == 1;
  if (!types || rna + rn + rz != 1 || (rna && relu) || (!rna && satfinite)) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], f32_type()));
  int mode = rna ? 4 : (rz ? 1 : 0);
  llvm::Value* result = t.call_support("__d4r_ptx_cvt_tf32_f32", t.builder().getInt32Ty(),
                                       {value, t.i32(mode), t.i32(relu), t.i32(satfinite)});
  return t.write(instruction.operands[0], result, bits_type(32));
}

bool names_fp8(const ptx::Instruction& instruction)
{
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier.starts_with("e4m3") || modifier.starts_with("e5m2") ||
        modifier.starts_with("e2m") || modifier.starts_with("e3m") || modifier.starts_with("ue8")) {
      return true;
    }
  }
  return false;
}

// cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b: a goes to the upper half.
Expected<void> lower_cvt_pack(FunctionTranslator& t, const ptx::Instruction& instruction,
                              bool bf16)
{
  TRY(expect_operands(t, instruction, 3));
  llvm::IRBuilder<>& b = t.builder();
  int mode = std::max(rounding_mode(instruction), 0);
  int relu = has_modifier(instruction, "relu");
  int satfinite = has_modifier(instruction, "satfinite");
  llvm::Value* halves[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; ++i) {
    TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[static_cast<size_t>(i) + 1],
                                           f32_type()));
    halves[i] = bf16 ? t.call_support("__d4r_ptx_cvt_bf16_f32_ex", b.getInt16Ty(),
                                      {value, t.i32(mode), t.i32(0), t.i32(relu),
                                       t.i32(satfinite)})
                     : t.call_support("__d4r_ptx_cvt_f16_f32_ex", b.getInt16Ty(),
                                      {value, t.i32(mode), t.i32(0), t.i32(0), t.i32(relu),
                                       t.i32(satfinite)});
  }
  llvm::Value* high = b.CreateShl(b.CreateZExt(halves[0], b.getInt32Ty()), 16);
  llvm::Value* packed = b.CreateOr(high, b.CreateZExt(halves[1], b.getInt32Ty()));
  return t.write(instruction.operands[0], packed, bits_type(32));
}

Expected<void> lower_cvt(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (names_fp8(instruction)) {
    return lower_cvt_fp8(t, instruction); // lower_fp8.cpp
  }
  if (has_modifier(instruction, "tf32")) {
    return lower_cvt_tf32(t, instruction);
  }
  if (has_modifier(instruction, "pack") && !has_modifier(instruction, "f16x2") &&
      !has_modifier(instruction, "bf16x2")) {
    return lower_cvt_pack_int(t, instruction); // lower_int_pack.cpp
  }
  if (has_modifier(instruction, "f16x2") || has_modifier(instruction, "bf16x2")) {
    static constexpr std::string_view k_pack[] = {"rn", "rz", "relu", "satfinite", "f16x2",
                                                  "bf16x2", "f32"};
    TRY(known_modifiers(t, instruction, k_pack));
    bool one_destination = has_modifier(instruction, "f16x2") != has_modifier(instruction, "bf16x2");
    size_t f32s = static_cast<size_t>(
        std::count(instruction.modifiers.begin(), instruction.modifiers.end(), "f32"));
    if (instruction.operands.size() == 3 && one_destination && f32s == 1 &&
        instruction.modifiers.back() == "f32" && rounding_mode(instruction) >= 0) {
      return lower_cvt_pack(t, instruction, has_modifier(instruction, "bf16x2"));
    }
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(cvt_modifiers(t, instruction));
  TRY(expect_operands(t, instruction, 2));
  TRY_ASSIGN(auto types, two_types(t, instruction));
  auto [to, from] = types;
  bool narrows_f32 = from == f32_type() && to.is_float() && to.bits == 16;
  if ((has_modifier(instruction, "relu") || has_modifier(instruction, "satfinite")) &&
      !narrows_f32) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], from));
  llvm::Value* result = nullptr;
  if (!from.is_float() && !to.is_float()) {
    result = int_to_int(t.builder(), value, from, to, has_modifier(instruction, "sat"));
  } else if (from.is_float() && !to.is_float()) {
    TRY_ASSIGN(result, float_to_int(t, instruction, value, from, to));
  } else if (!from.is_float()) {
    TRY_ASSIGN(result, int_to_float(t, instruction, value, from, to));
  } else {
    TRY_ASSIGN(result, float_to_float(t, instruction, value, from, to));
  }
  return t.write(instruction.operands[0], result, to);
}

} // namespace

void add_convert_lowerings(LoweringTable& table)
{
  table["mov"] = lower_mov;
  table["cvta"] = lower_cvta;
  table["cvt"] = lower_cvt;
}

} // namespace d4r::compiler::translate
