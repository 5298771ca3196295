// compiler/translate/nan_observation.hpp on small hand-written functions: which canonicalising
// selects go (their NaN reaches nothing that sees bits) and which stay (a store, a return, an
// integer use, copysign's sign where the magnitude is a number). That the translations stay
// exact is what the golden cases (test_golden_vectors, recorded on an H100/H200, NaN bits
// included) and the random programs check, with the pass in the pipeline.

#include "compiler/translate/nan_observation.hpp"
#include "tests/unit/test_compiler_ir_function_pass.hpp"

#include <gtest/gtest.h>


#include <string>

namespace {

using d4r::compiler::translate::drop_unobserved_nan_canonicalisations;
using d4r::compiler::translate::test::FunctionPassRun;
using d4r::compiler::translate::test::has;
using d4r::compiler::translate::test::run_function_pass;

constexpr const char* k_declarations = R"(
declare float @llvm.copysign.f32(float, float)
declare float @llvm.fma.f32(float, float, float)
declare i1 @llvm.is.fpclass.f32(float, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare void @sink(float)
declare <2 x half> @llvm.fma.v2f16(<2 x half>, <2 x half>, <2 x half>)
declare <2 x float> @llvm.amdgcn.cvt.pk.f32.fp8(i32, i1)
)";

// The canonicalisation of %NAME's operand X: "%NAME.nan = fcmp uno float X, 0.0" and
// "%NAME = select ..., 0x7fffffff, X".
std::string canonical(const std::string& name, const std::string& x)
{
  return "  %" + name + ".nan = fcmp uno float " + x + ", 0.000000e+00\n  %" + name +
         " = select i1 %" + name + ".nan, float 0x7FFFFFFFE0000000, float " + x + "\n";
}

FunctionPassRun run(const std::string& body)
{
  return run_function_pass(std::string(k_declarations) + body, drop_unobserved_nan_canonicalisations);
}

TEST(NanObservation, InAChainOfArithmeticOnlyTheStoredResultIsCanonicalised)
{
  FunctionPassRun result = run("define void @f(float %a, float %b, float %c, ptr %out) {\n"
                      "  %x = fmul float %a, %b\n" +
                      canonical("s1", "%x") + "  %y = call float @llvm.fma.f32(float %s1, float %c, float %a)\n" +
                      canonical("s2", "%y") + "  store float %s2, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(result.count, 1u);
  EXPECT_FALSE(has(result.ir, "%s1 =")) << result.ir;
  EXPECT_TRUE(has(result.ir, "%s2 = select")) << result.ir;
  EXPECT_TRUE(has(result.ir, "call float @llvm.fma.f32(float %x,")) << result.ir;
}

// cvt.rn.f16.f32 of an arithmetic result: the half's NaN is PTX's whenever the f32 is a NaN, so the
// f32's own canonicalisation goes; a select on another value's NaN does not replace this one.
TEST(NanObservation, ANarrowingThatReplacesEveryNanHidesTheWideOne)
{
  FunctionPassRun result = run("define void @f(float %a, float %b, float %c, ptr %out) {\n"
                               "  %x = fmul float %a, %b\n" + canonical("s1", "%x") +
                               "  %h = fptrunc float %s1 to half\n"
                               "  %n = fcmp uno float %x, 0.000000e+00\n"
                               "  %t = select i1 %n, half 0xH7FFF, half %h\n  store half %t, ptr %out\n"
                               "  %y = fadd float %a, %c\n" + canonical("s2", "%y") +
                               "  %g = fptrunc float %s2 to half\n"
                               "  %m = fcmp uno float %x, 0.000000e+00\n"
                               "  %u = select i1 %m, half 0xH7FFF, half %g\n  store half %u, ptr %out\n"
                               "  ret void\n}\n");
  EXPECT_EQ(result.count, 1u);
  EXPECT_FALSE(has(result.ir, "%s1 =")) << result.ir;
  EXPECT_TRUE(has(result.ir, "%h = fptrunc float %x to half")) << result.ir;
  EXPECT_TRUE(has(result.ir, "%s2 = select")) << result.ir;
}

// abs.f32 of an arithmetic result, compared only (roundf's |x - trunc(x)| >= 0.5): the select
// instcombine makes of canonical(fabs(d)), which tests d, goes; stored, it stays.
TEST(NanObservation, AnAbsoluteValueTestedOnItsOperandIsACanonicalisation)
{
  const std::string abs = "  %d.nan = fcmp uno float %d, 0.000000e+00\n  %m = call float @llvm.fabs.f32(float %d)\n"
                          "  %s = select i1 %d.nan, float 0x7FFFFFFFE0000000, float %m\n";
  FunctionPassRun compared = run("define i1 @f(float %a, float %b) {\n  %d = fsub float %a, %b\n" + abs +
                                 "  %half = fcmp oge float %s, 5.000000e-01\n  ret i1 %half\n}\n"
                                 "declare float @llvm.fabs.f32(float)\n");
  EXPECT_EQ(compared.count, 1u);
  EXPECT_TRUE(has(compared.ir, "fcmp oge float %m, 5.0")) << compared.ir;
  FunctionPassRun stored = run("define void @f(float %a, float %b, ptr %out) {\n  %d = fsub float %a, %b\n" + abs +
                               "  store float %s, ptr %out\n  ret void\n}\ndeclare float @llvm.fabs.f32(float)\n");
  EXPECT_EQ(stored.count, 0u);
  EXPECT_TRUE(has(stored.ir, "%s = select")) << stored.ir;
}

TEST(NanObservation, ComparisonsAndConversionsToIntegersDoNotSeeTheBits)
{
  FunctionPassRun result = run("define i32 @f(float %a, float %b) {\n  %x = fadd float %a, %b\n" +
                      canonical("s", "%x") +
                      "  %less = fcmp olt float %s, 1.0\n  %i = fptosi float %s to i32\n"
                      "  %r = select i1 %less, i32 %i, i32 7\n  ret i32 %r\n}\n");
  EXPECT_EQ(result.count, 1u) << result.ir;
}

TEST(NanObservation, AnIntegerUseAReturnOrACallSeesThem)
{
  for (const std::string& use :
       {std::string("  %bits = bitcast float %s to i32\n  %top = lshr i32 %bits, 22\n"
                    "  store i32 %top, ptr %out\n  ret float 0.0\n"),
        std::string("  %n = fneg float %s\n  ret float %n\n"),
        std::string("  call void @sink(float %s)\n  ret float 0.0\n")}) {
    FunctionPassRun result = run("define float @f(float %a, float %b, ptr %out) {\n  %x = fsub float %a, %b\n" +
                        canonical("s", "%x") + use + "}\n");
    EXPECT_EQ(result.count, 0u) << result.ir;
  }
}

TEST(NanObservation, ALaneMoveCarriesTheBitsOnToWhereTheyAreUsed)
{
  const std::string head = "define void @f(float %a, float %b, i32 %lane, ptr %out) {\n"
                           "  %x = fadd float %a, %b\n" +
                           canonical("s", "%x") +
                           "  %bits = bitcast float %s to i32\n"
                           "  %moved = call i32 @llvm.amdgcn.ds.bpermute(i32 %lane, i32 %bits)\n"
                           "  %back = bitcast i32 %moved to float\n";
  // Used by arithmetic that canonicalises in its turn: not seen.
  FunctionPassRun unseen = run(head + "  %y = fmul float %back, %a\n" + canonical("t", "%y") +
                      "  store float %t, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(unseen.count, 1u) << unseen.ir;
  // Stored as moved: seen in the other lane's store.
  FunctionPassRun seen = run(head + "  store float %back, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(seen.count, 0u) << seen.ir;
}

TEST(NanObservation, CopysignSeesTheSignOnlyWhereItsMagnitudeIsANumber)
{
  // A flush to zero: copysign(0, x) is taken only for a subnormal x, never for a NaN.
  FunctionPassRun flush = run("define void @f(float %a, float %b, ptr %out) {\n  %x = fdiv float %a, %b\n" +
                     canonical("s", "%x") +
                     "  %sub = call i1 @llvm.is.fpclass.f32(float %s, i32 144)\n"
                     "  %zero = call float @llvm.copysign.f32(float 0.0, float %s)\n"
                     "  %f = select i1 %sub, float %zero, float %s\n"
                     "  %y = fadd float %f, %a\n" +
                     canonical("t", "%y") + "  store float %t, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(flush.count, 1u) << flush.ir;
  // copysign(1, x) stored: a number whose sign is the NaN's.
  FunctionPassRun sign = run("define void @f(float %a, float %b, ptr %out) {\n  %x = fdiv float %a, %b\n" +
                    canonical("s", "%x") +
                    "  %one = call float @llvm.copysign.f32(float 1.0, float %s)\n"
                    "  store float %one, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(sign.count, 0u) << sign.ir;
}

// The roundf rewrite: r = |x - t| >= 0.5 ? t + (h + h) : t with t = trunc(x), h = copysign(0.5, x).
// h shows x's sign, but t + (h + h) is taken only where the ordered compare of |x - t| (a NaN
// whenever x is) holds, so never for a NaN x; the same sum compared with 0 instead is seen.
std::string roundf_body(const std::string& condition)
{
  return "define void @f(float %a, float %b, ptr %out) {\n  %x = fmul float %a, %b\n" + canonical("s", "%x") +
         "  %h = call float @llvm.copysign.f32(float 5.000000e-01, float %s)\n"
         "  %t = call float @llvm.trunc.f32(float %s)\n  %u = fsub float %s, %t\n"
         "  %m = call float @llvm.fabs.f32(float %u)\n" + condition +
         "  %w = fadd float %h, %h\n  %v = fadd float %t, %w\n  %r = select i1 %p, float %v, float %t\n"
         "  %q = fdiv float %r, %b\n" + canonical("c", "%q") + "  store float %c, ptr %out\n  ret void\n}\n"
         "declare float @llvm.trunc.f32(float)\ndeclare float @llvm.fabs.f32(float)\n";
}

TEST(NanObservation, RoundfsSignOfANanIsNeverChosen)
{
  FunctionPassRun rounded = run(roundf_body("  %p = fcmp oge float %m, 5.000000e-01\n"));
  EXPECT_EQ(rounded.count, 1u) << rounded.ir;
  EXPECT_FALSE(has(rounded.ir, "%s =")) << rounded.ir;
  EXPECT_TRUE(has(rounded.ir, "%c = select")) << rounded.ir;
  FunctionPassRun signed_test = run(roundf_body("  %p = fcmp oge float %h, 0.000000e+00\n"));
  EXPECT_EQ(signed_test.count, 0u) << signed_test.ir;
}

TEST(NanObservation, ALoopCarriedValueIsFollowedAroundTheLoop)
{
  // %acc goes around the loop and, after it, to a store with no canonicalisation of its own.
  FunctionPassRun result = run("define void @f(float %a, i32 %n, ptr %out) {\n"
                      "entry:\n  br label %loop\n"
                      "loop:\n  %acc = phi float [ 0.0, %entry ], [ %s, %loop ]\n"
                      "  %i = phi i32 [ 0, %entry ], [ %next, %loop ]\n"
                      "  %x = fadd float %acc, %a\n" +
                      canonical("s", "%x") +
                      "  %next = add i32 %i, 1\n  %more = icmp slt i32 %next, %n\n"
                      "  br i1 %more, label %loop, label %done\n"
                      "done:\n  store float %acc, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(result.count, 0u) << result.ir;
}

// f16x2 arithmetic on <2 x half> (the packed lowering on AMDGPU): the fp8 decode's select, which
// puts PTX's NaN in each half whose f32 is a NaN, and the product's canonicalisation go when the
// product only feeds the next fma; the stored result's stays.
TEST(NanObservation, PackedHalvesAreFollowedLikeScalars)
{
  const std::string halves = "<2 x half> <half 0xH7FFF, half 0xH7FFF>";
  FunctionPassRun result = run(
      "define void @f(i32 %pair, <2 x half> %b, <2 x half> %c, ptr %out) {\n"
      "  %w = call <2 x float> @llvm.amdgcn.cvt.pk.f32.fp8(i32 %pair, i1 false)\n"
      "  %h = fptrunc <2 x float> %w to <2 x half>\n"
      "  %wn = fcmp uno <2 x float> %w, zeroinitializer\n"
      "  %d = select <2 x i1> %wn, " + halves + ", <2 x half> %h\n"
      "  %x = call <2 x half> @llvm.fma.v2f16(<2 x half> %d, <2 x half> %b, <2 x half> %c)\n"
      "  %xn = fcmp uno <2 x half> %x, zeroinitializer\n"
      "  %s1 = select <2 x i1> %xn, " + halves + ", <2 x half> %x\n"
      "  %y = call <2 x half> @llvm.fma.v2f16(<2 x half> %s1, <2 x half> %b, <2 x half> %c)\n"
      "  %yn = fcmp uno <2 x half> %y, zeroinitializer\n"
      "  %s2 = select <2 x i1> %yn, " + halves + ", <2 x half> %y\n"
      "  %bits = bitcast <2 x half> %s2 to i32\n  store i32 %bits, ptr %out\n  ret void\n}\n");
  EXPECT_EQ(result.count, 2u) << result.ir;
  EXPECT_FALSE(has(result.ir, "%d =")) << result.ir;
  EXPECT_FALSE(has(result.ir, "%s1 =")) << result.ir;
  EXPECT_TRUE(has(result.ir, "%s2 = select")) << result.ir;
}

// A kernel's LDS whose every read feeds only arithmetic that is canonicalised before anyone sees
// it (a block reduction's partial sums): a NaN stored there is never seen, so the stored value's
// select goes. One read whose bits reach global memory, a flat load (it may read LDS), or a
// function that is not a kernel (its caller may read the LDS) keeps it.
std::string lds_reduction(const std::string& convention, const std::string& extra)
{
  return "define " + convention + " void @f(float %a, float %b, ptr addrspace(3) %lds, ptr addrspace(1) %out, ptr %flat) {\n"
         "  %x = fmul float %a, %b\n" + canonical("s1", "%x") +
         "  store float %s1, ptr addrspace(3) %lds\n"
         "  %l = load float, ptr addrspace(3) %lds\n  %y = fadd float %l, %a\n" + canonical("s2", "%y") +
         "  store float %s2, ptr addrspace(1) %out\n" + extra + "  ret void\n}\n";
}

TEST(NanObservation, LdsReadOnlyByArithmeticHidesTheNansStoredThere)
{
  FunctionPassRun hidden = run(lds_reduction("amdgpu_kernel", ""));
  EXPECT_EQ(hidden.count, 1u) << hidden.ir;
  EXPECT_FALSE(has(hidden.ir, "%s1 =")) << hidden.ir;
  EXPECT_TRUE(has(hidden.ir, "%s2 = select")) << hidden.ir;

  const std::pair<const char*, std::string> seen[] = {
      {"an LDS read stored as bits", "  %i = load i32, ptr addrspace(3) %lds\n  store i32 %i, ptr addrspace(1) %out\n"},
      {"a flat load", "  %g = load float, ptr %flat\n  store float %g, ptr addrspace(1) %out\n"},
      {"an atomic on LDS", "  %o = atomicrmw add ptr addrspace(3) %lds, i32 1 monotonic\n"},
  };
  for (const auto& [what, extra] : seen) {
    FunctionPassRun kept = run(lds_reduction("amdgpu_kernel", extra));
    EXPECT_EQ(kept.count, 0u) << what << "\n" << kept.ir;
  }
  FunctionPassRun function = run(lds_reduction("", ""));
  EXPECT_EQ(function.count, 0u) << function.ir;
}

} // namespace
