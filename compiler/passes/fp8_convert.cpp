#include "compiler/passes/fp8_convert.hpp"

// cvt.rn.f16x2.e4m3x2 to a call of d4r_dec_e4m3x2 (d4r-contract.md section 4, "FP8 decode"). PTX
// ISA "cvt":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt
//
//   cvt.rn.f16x2.e4m3x2 %rD, %rsS  ->  { .param .b16 a0; st.param.b16 [a0], %rsS;
//                                        .param .b32 r0; call (r0), d4r_dec_e4m3x2, (a0);
//                                        ld.param.b32 %rD, [r0]; }
//
// ZLUDA lowers the instruction to about 25 integer instructions; the helper (tex_common.h) uses
// v_cvt_pk_f32_fp8 where the target has it and ZLUDA's lowering (D4R_TEX_SOFT_E4M3) where it does
// not, so this pass is the same for every target: the choice is made when the helper is built.
//
// Why the call computes the same bytes. Every finite e4m3 value (1 sign, 4 exponent bits with bias
// 7, 3 mantissa bits; largest 448, smallest subnormal 2^-9) is exactly representable in f16 (5
// exponent bits, 10 mantissa bits; range to 65504, subnormals to 2^-24), so the conversion has
// no rounding at all: .rn never acts, and any exact decoder gives the same f16 bits, signed zeros
// included. The helper decodes exactly (fp8 -> f32 is exact, f32 -> f16 of an exactly
// representable value is exact) and keeps the instruction's lane order: the low byte of the b16
// source becomes the low f16 of the b32 result, the high byte the high half. The operands travel
// as bit copies (st.param.b16 / ld.param.b32 of registers of those widths). The one difference
// is the NaN codes 0x7f / 0xff, whose f16 NaN bits may differ; all 65536 code pairs were checked
// on an RX 9070 XT (seeds/native-kernels.md), and the kernels this serves never stage those codes
// (they clamp to +-448 before encoding).
//
// Parameters: "expect" (optional), the number of conversions the recipe expects (the dec0 folded
// recipe expects exactly 32); any other count is an error, so a changed kernel is refused.

#include "compiler/passes/call_block.hpp"
#include "compiler/ptx/printer.hpp"

#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace d4r::compiler::passes {

namespace {

const CallSignature k_decode_signature = {"d4r_dec_e4m3x2", ".b32", {".b16"}};

bool is_decode(const ptx::Instruction& instruction)
{
  static const std::vector<std::string> k_modifiers = {"rn", "f16x2", "e4m3x2"};
  return instruction.opcode == "cvt" && instruction.modifiers == k_modifiers;
}

class Fp8ConvertPass final : public Pass {
public:
  Fp8ConvertPass(PassOptions options, std::optional<int64_t> expect)
      : m_options(std::move(options)), m_expect(expect)
  {
  }

  std::string_view name() const override { return "fp8-cvt"; }

  Expected<PassResult> run(ptx::Module& module) override
  {
    PassResult result;
    for (ptx::Item& item : module.items) {
      auto* function = std::get_if<ptx::Function>(&item.value);
      if (function == nullptr || !function->body || !applies_to(m_options, function->name)) {
        continue;
      }
      TRY(rewrite_block(*function->body, function->name, result));
    }
    if (m_expect && result.rewrites != *m_expect) {
      return make_error(ErrorCode::rejected,
                        "passes: fp8-cvt: expected " + std::to_string(*m_expect) +
                            " conversions, found " + std::to_string(result.rewrites));
    }
    if (result.changed()) {
      ensure_declaration(module, k_decode_signature);
    }
    return result;
  }

private:
  static Expected<void> rewrite_block(ptx::Block& block, const std::string& function,
                                      PassResult& result)
  {
    for (ptx::Statement& statement : block.statements) {
      if (auto* inner = std::get_if<ptx::Block>(&statement.value)) {
        TRY(rewrite_block(*inner, function, result));
        continue;
      }
      auto* convert = std::get_if<ptx::Instruction>(&statement.value);
      if (convert == nullptr || !is_decode(*convert)) {
        continue;
      }
      if (convert->operands.size() != 2 || convert->operands[0].kind != ptx::OperandKind::reg) {
        return make_error(ErrorCode::invalid_argument, "passes: fp8-cvt: function " + function +
                                                           ": '" +
                                                           ptx::print_instruction(*convert) +
                                                           "': expected a register and a b16");
      }
      statement.value = make_call_block(k_decode_signature, {convert->operands[1]},
                                        convert->operands[0], convert->guard);
      ++result.rewrites;
    }
    return {};
  }

  PassOptions m_options;
  std::optional<int64_t> m_expect;
};

Expected<std::optional<int64_t>> parse_expect(const std::string& text)
{
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return make_error(ErrorCode::invalid_argument,
                      "passes: fp8-cvt: parameter expect: '" + text + "' is not a count");
  }
  return value;
}

} // namespace

Expected<std::unique_ptr<Pass>> make_fp8_convert_pass(const PassOptions& options)
{
  std::optional<int64_t> expect;
  for (const auto& [key, value] : options.parameters) {
    if (key != "expect") {
      return make_error(ErrorCode::invalid_argument,
                        "passes: fp8-cvt: unknown parameter '" + key + "' (known: expect)");
    }
    TRY_ASSIGN(expect, parse_expect(value));
  }
  return std::make_unique<Fp8ConvertPass>(options, expect);
}

} // namespace d4r::compiler::passes
