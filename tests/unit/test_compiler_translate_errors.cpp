// Translator errors: an unknown or not-yet-supported instruction is "unsupported: OPCODE at line
// L", malformed instructions are clear errors naming the kernel and line; never a crash.

#include "test_compiler_translate_support.hpp"

#include <tuple>

namespace d4r::compiler::translate::test {
namespace {

std::string error_of(const std::string& body, TargetKind kind = TargetKind::host)
{
  TranslateOptions options = kind == TargetKind::host ? host_options() : amdgpu_options("gfx1201");
  Expected<Translation> translation = translate_text(kernel_text(body), options);
  if (translation) {
    return "(translated)";
  }
  EXPECT_EQ(translation.error().code, ErrorCode::invalid_argument);
  return translation.error().message;
}

TEST(TranslateErrors, UnsupportedOpcodeNamesItAndItsLine)
{
  // kernel_text puts the body on line 14.
  std::string message = error_of("  frobnicate.b32 %r1, %r2;");
  EXPECT_EQ(message, "translate: kernel k: unsupported: frobnicate.b32 at line 14");
  EXPECT_NE(error_of("  frobnicate.b32 %r1, %r2;", TargetKind::amdgpu)
                .find("unsupported: frobnicate.b32 at line 14"),
            std::string::npos);
}

// Instructions no lowering is registered for (later stages register theirs in lowering.cpp; the
// corpus test checks that the corpus stops only at those).
TEST(TranslateErrors, UnregisteredInstructionsAreUnsupported)
{
  EXPECT_EQ(error_of("  tcgen05.fence::before_thread_sync;"),
            "translate: kernel k: unsupported: tcgen05.fence::before_thread_sync at line 14");
  // Registered opcodes decline forms they do not implement (.im2col::w is sm_100's).
  EXPECT_EQ(error_of("  cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::"
                     "bytes [%rd1], [%rd2, {%r1, %r2, %r3}], [%rd3], {%rs1, %rs2};",
                     TargetKind::amdgpu),
            "translate: kernel k: unsupported: cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w."
            "mbarrier::complete_tx::bytes at line 14");
  EXPECT_EQ(error_of("  add.sat.u32 %r1, %r2, %r3;"),
            "translate: kernel k: unsupported: add.sat.u32 at line 14");
  EXPECT_EQ(error_of("  shfl.sync.idx.b64 %rd3, %rd4, 1, 31, -1;", TargetKind::amdgpu),
            "translate: kernel k: unsupported: shfl.sync.idx.b64 at line 14");
  EXPECT_EQ(error_of("  cvta.param::func.u64 %rd3, %rd2;"),
            "translate: kernel k: unsupported: cvta.param::func.u64 at line 14");
}

// printf, malloc and assert in CUDA become calls of extern functions that nothing defines on AMD:
// each is "unsupported" at translation (the daemon answers NOT_FOUND and ZLUDA compiles the
// kernel), never an undefined symbol at link time; a kernel of the module that calls none of them
// still translates.
TEST(TranslateErrors, ExternFunctionsAreUnsupportedNotLinkErrors)
{
  std::string module = ".version 8.0\n.target sm_80\n.address_size 64\n"
                       ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                       ".extern .func (.param .b64 r) malloc(.param .b64 size);\n"
                       ".extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, "
                       ".param .b64 fn, .param .b64 c);\n"
                       ".visible .entry calls_printf()\n{\n.param .b64 f;\n.param .b64 a;\n"
                       ".param .b32 r;\ncall.uni (r), vprintf, (f, a);\nret;\n}\n"
                       ".visible .entry calls_malloc()\n{\n.param .b64 s;\n.param .b64 r;\n"
                       "call.uni (r), malloc, (s);\nret;\n}\n"
                       ".visible .entry calls_assert()\n{\n.param .b64 m;\n.param .b32 l;\n"
                       "call.uni __assertfail, (m, m, l, m, m);\nret;\n}\n"
                       ".visible .entry calls_nothing()\n{\nret;\n}\n";
  for (const char* target : {"host", "gfx1201"}) {
    SCOPED_TRACE(target);
    TranslateOptions options =
        std::string(target) == "host" ? host_options() : amdgpu_options(target);
    for (const auto& [kernel, callee, line] :
         {std::tuple{"calls_printf", "vprintf", 12}, std::tuple{"calls_malloc", "malloc", 19},
          std::tuple{"calls_assert", "__assertfail", 26}}) {
      Expected<ptx::Module> parsed = ptx::parse_module(module);
      ASSERT_TRUE(parsed) << parsed.error().message;
      std::erase_if(parsed->items, [&](const ptx::Item& item) {
        const auto* function = std::get_if<ptx::Function>(&item.value);
        return function != nullptr && function->is_entry && function->name != kernel;
      });
      Expected<Translation> translation = translate_module(*parsed, options);
      ASSERT_FALSE(translation) << kernel;
      EXPECT_EQ(translation.error().message,
                std::string("translate: kernel ") + kernel + ": line " + std::to_string(line) +
                    ": unsupported: call of extern function " + callee +
                    " (no definition in the module)");
    }
    Expected<ptx::Module> alone = ptx::parse_module(module);
    ASSERT_TRUE(alone) << alone.error().message;
    std::erase_if(alone->items, [](const ptx::Item& item) {
      const auto* function = std::get_if<ptx::Function>(&item.value);
      return function != nullptr && function->is_entry && function->name != "calls_nothing";
    });
    Expected<Translation> translated = translate_module(*alone, options);
    EXPECT_TRUE(translated) << translated.error().message;
  }
}

TEST(TranslateErrors, UndefinedRegister)
{
  EXPECT_EQ(error_of("  add.s32 %r1, %r2, %q9;"),
            "translate: kernel k: line 14: undefined register %q9");
  // %r<16> declares %r0..%r15 only.
  EXPECT_EQ(error_of("  mov.u32 %r16, 1;"), "translate: kernel k: line 14: undefined register %r16");
}

TEST(TranslateErrors, BadOperandCounts)
{
  EXPECT_EQ(error_of("  add.s32 %r1, %r2;"),
            "translate: kernel k: line 14: add takes 3 operands, not 2");
  EXPECT_EQ(error_of("  ld.global.u32 %r1;"),
            "translate: kernel k: line 14: ld takes 2 operands, not 1");
  EXPECT_EQ(error_of("  selp.b32 %r1, %r2, %r3;"),
            "translate: kernel k: line 14: selp takes 4 operands, not 3");
}

TEST(TranslateErrors, BadTargetsAndSymbols)
{
  EXPECT_EQ(error_of("  bra $L_nowhere;"),
            "translate: kernel k: line 14: unknown branch target $L_nowhere");
  EXPECT_EQ(error_of("  ld.global.u32 %r1, [nothing];"),
            "translate: kernel k: line 14: undefined symbol nothing");
  EXPECT_EQ(error_of("  call.uni nothing, (%r1);"),
            "translate: kernel k: line 14: call of unknown function nothing");
  // A '-' on a register is vmad's alone (lower_video.cpp): no other lowering may read past it,
  // and vmad rejects a negated c with a negated product, as ptxas does.
  EXPECT_EQ(error_of("  add.s32 %r1, -%r2, %r3;"),
            "translate: kernel k: line 14: unsupported: negated source operand -%r2");
  EXPECT_EQ(error_of("  neg.s32 -%r1, %r2;"),
            "translate: kernel k: line 14: a destination cannot be negated: -%r1");
  EXPECT_EQ(error_of("  vmad.s32.s32.s32 %r1, -%r2, %r3, -%r4;"),
            "translate: kernel k: unsupported: vmad.s32.s32.s32 at line 14");
  EXPECT_EQ(error_of("  add.s32 %r1, %r2, [%rd1];"),
            "translate: kernel k: line 14: an address, vector or list operand is not a value");
}

TEST(TranslateErrors, BadProcessorIsAnError)
{
  Expected<Translation> translation =
      translate_text(kernel_text("  mov.u32 %r1, 1;"), amdgpu_options("gfx9999"));
  ASSERT_FALSE(translation);
  EXPECT_NE(translation.error().message.find("gfx9999"), std::string::npos);
}

} // namespace
} // namespace d4r::compiler::translate::test
