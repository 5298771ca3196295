// compiler/translate/exact_round_trip.hpp on small hand-written functions: the FP8 decode's
// f32 -> f16 -> f32 round trip goes where the NaN case is PTX's constant, and stays for values
// that may round in f16 or where a NaN would come through. The premise, that every e4m3 and e5m2
// number is exact in f16, is checked over all 512 encodings. What gfx12 code it makes is
// TranslateFp8.DecodedWeightsWidenWithoutARoundTrip's job.

#include "compiler/translate/exact_round_trip.hpp"
#include "tests/unit/test_compiler_ir_function_pass.hpp"

#include <gtest/gtest.h>


#include <cmath>
#include <limits>
#include <string>

namespace {

using d4r::compiler::translate::fold_exact_half_round_trips;
using d4r::compiler::translate::test::FunctionPassRun;
using d4r::compiler::translate::test::has;
using d4r::compiler::translate::test::run_function_pass;

// `body` is @f's body; %w is element 0 of the hardware's e4m3 decode of %packed, %h = fptrunc %w,
// %back = fpext %h, %isnan = fcmp uno %w, 0.0.
FunctionPassRun run(const std::string& body, const std::string& decode = "fp8")
{
  const std::string text =
      "declare <2 x float> @llvm.amdgcn.cvt.pk.f32." + decode + "(i32, i1)\n"
      "define float @f(i32 %packed, float %other) {\n"
      "  %pair = call <2 x float> @llvm.amdgcn.cvt.pk.f32." + decode + "(i32 %packed, i1 false)\n"
      "  %w = extractelement <2 x float> %pair, i64 0\n"
      "  %h = fptrunc float %w to half\n  %back = fpext half %h to float\n"
      "  %isnan = fcmp uno float %w, 0.000000e+00\n" + body + "}\n";
  return run_function_pass(text, fold_exact_half_round_trips);
}

TEST(ExactRoundTrip, TheDecodedWeightIsUsedWhereItIsANumber)
{
  for (const char* decode : {"fp8", "bf8"}) {
    FunctionPassRun result = run("  %s = select i1 %isnan, float 0x7FFFFC0000000000, float %back\n"
                        "  ret float %s\n",
                        decode);
    EXPECT_EQ(result.count, 1u) << result.ir;
    EXPECT_TRUE(has(result.ir, "%s = select i1 %isnan, float 0x7FFFFC0000000000, float %w"))
        << result.ir;
  }
}

TEST(ExactRoundTrip, ARoundTripANaNWouldPassThroughStays)
{
  // Used as it is, or chosen when the weight is a NaN: which NaN comes out is the hardware's.
  for (const std::string& body :
       {std::string("  ret float %back\n"),
        std::string("  %s = select i1 %isnan, float %back, float 0x7FFFFC0000000000\n"
                    "  ret float %s\n"),
        std::string("  %s = select i1 %isnan, float 1.0, float %back\n  ret float %s\n")}) {
    FunctionPassRun result = run(body);
    EXPECT_EQ(result.count, 0u) << result.ir;
  }
}

TEST(ExactRoundTrip, OnlyTheDecodeIsKnownExactAndOnlyItsOwnNaNTestCounts)
{
  // %other may need rounding in f16; %isnan tests %w, not %other.
  FunctionPassRun other = run("  %oh = fptrunc float %other to half\n  %ob = fpext half %oh to float\n"
                     "  %on = fcmp uno float %other, 0.000000e+00\n"
                     "  %s = select i1 %on, float 0x7FFFFC0000000000, float %ob\n"
                     "  ret float %s\n");
  EXPECT_EQ(other.count, 0u) << other.ir;
  FunctionPassRun mismatched = run("  %on = fcmp uno float %other, 0.000000e+00\n"
                          "  %s = select i1 %on, float 0x7FFFFC0000000000, float %back\n"
                          "  ret float %s\n");
  EXPECT_EQ(mismatched.count, 0u) << mismatched.ir;
  FunctionPassRun ordered = run("  %lt = fcmp ult float %w, 0.000000e+00\n"
                       "  %s = select i1 %lt, float 0x7FFFFC0000000000, float %back\n"
                       "  ret float %s\n");
  EXPECT_EQ(ordered.count, 0u) << ordered.ir;
}

// The value of FP8 encoding `code` (e4m3: 4 exponent bits, bias 7, 0x7f/0xff NaN; e5m2: 5 and
// 15, IEEE-like), from the format's definition.
double fp8_value(unsigned code, bool e5m2)
{
  const int mantissa_bits = e5m2 ? 2 : 3;
  const int bias = e5m2 ? 15 : 7;
  const unsigned exponent = (code & 0x7f) >> mantissa_bits;
  const unsigned mantissa = code & ((1u << mantissa_bits) - 1);
  const double sign = (code & 0x80) != 0 ? -1.0 : 1.0;
  if (e5m2 && exponent == 31) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (!e5m2 && (code & 0x7f) == 0x7f) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double fraction = static_cast<double>(mantissa) / (1 << mantissa_bits);
  return exponent == 0 ? sign * std::ldexp(fraction, 1 - bias)
                       : sign * std::ldexp(1.0 + fraction, static_cast<int>(exponent) - bias);
}

TEST(ExactRoundTrip, EveryFp8NumberIsExactInHalf)
{
  int numbers = 0;
  for (bool e5m2 : {false, true}) {
    for (unsigned code = 0; code < 256; ++code) {
      const double value = fp8_value(code, e5m2);
      if (std::isnan(value)) {
        continue;
      }
      const auto narrow = static_cast<float>(value);
      EXPECT_EQ(static_cast<double>(narrow), value) << code;
      EXPECT_EQ(static_cast<float>(static_cast<_Float16>(narrow)), narrow)
          << (e5m2 ? "e5m2 " : "e4m3 ") << code;
      ++numbers;
    }
  }
  EXPECT_EQ(numbers, 254 + 256 - 6); // e4m3: two NaNs; e5m2: six NaNs (exponent 31, mantissa != 0)
}

} // namespace
