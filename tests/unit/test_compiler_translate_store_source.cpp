// A st of a register wider than its type (compiler/translate/store_source.hpp): the value ptxas
// stores on the H200 (tests/golden/cases/gap_store_wide_*), folded to constants here, and the
// rejection of registers whose writers the H200 was not seen to type.

#include "test_compiler_translate_support.hpp"

#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

TEST(TranslateStoreSource, FloatWrittenRegistersAreConvertedIntegerWrittenOnesChopped)
{
  // 2^32 + 2^31 as f64 (0x41F8000000000000): low word 0, value past u32 and s32.
  std::vector<std::string> values = host_stores(
      "  add.rn.f64 %rd3, 0d41F8000000000000, 0d0000000000000000;\n"
      "  st.global.u32 [%rd1], %rd3;\n  st.global.s32 [%rd1+4], %rd3;\n"
      "  st.global.b32 [%rd1+8], %rd3;\n  st.global.s16 [%rd1+12], %rd3;\n"
      "  st.global.f32 [%rd1+16], %rd3;\n"
      "  add.rn.f64 %rd4, 0dFFF8000000000000, 0d0000000000000000;\n"
      "  st.global.u16 [%rd1+20], %rd4;\n  st.global.s8 [%rd1+22], %rd4;\n"
      "  mov.b64 %rd5, 0x41F8000000000000;\n  st.global.u32 [%rd1+24], %rd5;\n"
      "  st.global.f32 [%rd1+28], %rd5;\n"
      "  cvt.ftz.f64.f32 %rd6, 0f3F800001;\n  st.global.u32 [%rd1+32], %rd6;\n"
      "  add.rn.f32 %r3, 0fC3000000, 0f00000000;\n  st.global.s8 [%rd1+36], %r3;\n"
      "  st.global.u8 [%rd1+37], %r3;\n");
  const std::vector<std::string> expected = {
      "FFFFFFFF", "7FFFFFFF", "FFFFFFFF", "7FFF", "4FC00000", // rzi.sat, rn to f32
      "8000",     "80",                                       // NaN from f64: 1 << (N - 1)
      "0",        "5E83F000",                                 // the low bits; cvt.rn.f32.u64
      "20000000",                                             // cvt.ftz.f64.f32: the low bits
      "80",       "0"};                                       // -128.0f as s8 and u8
  EXPECT_EQ(values, expected);
}

TEST(TranslateStoreSource, MixedOrUntypedWritersAreRejected)
{
  for (const char* body : {"  add.rn.f64 %rd3, 0d3FF0000000000000, 0d0000000000000000;\n"
                           "  @%p1 mov.b64 %rd3, 5;\n  st.global.u32 [%rd1], %rd3;\n",
                           "  abs.f64 %rd3, 0d3FF0000000000000;\n  st.global.u32 [%rd1], %rd3;\n",
                           "  ld.global.s64 %rd3, [%rd2];\n  st.global.f32 [%rd1], %rd3;\n"}) {
    Expected<Translation> translation = translate_text(kernel_text(body), host_options());
    ASSERT_FALSE(translation.has_value()) << body;
    EXPECT_NE(translation.error().message.find("unsupported: st.global."), std::string::npos)
        << translation.error().message;
  }
  // Same width: a bit copy whatever wrote the register.
  std::vector<std::string> values = host_stores(
      "  add.rn.f32 %r3, 0f3F800000, 0f00000000;\n  st.global.u32 [%rd1], %r3;\n");
  EXPECT_EQ(values, std::vector<std::string>{"3F800000"});
}

// The conversions (saturating float-to-integer, NaN selects, f64 -> f32, u64 -> f32) on values
// the translator cannot fold build into AMDGPU code objects.
TEST(TranslateStoreSource, ConversionsBuildForAmdgpu)
{
  const std::string body = "  ld.global.f64 %rd3, [%rd2];\n  st.global.u32 [%rd1], %rd3;\n"
                           "  st.global.s16 [%rd1+4], %rd3;\n  st.global.f32 [%rd1+8], %rd3;\n"
                           "  ld.global.u64 %rd4, [%rd2+8];\n  st.global.f32 [%rd1+12], %rd4;\n"
                           "  ld.global.f32 %r3, [%rd2+16];\n  st.global.u8 [%rd1+16], %r3;\n";
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> translation = translate_text(kernel_text(body), amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << target << ": " << translation.error().message;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    EXPECT_TRUE(object.has_value()) << target << ": " << object.error().message;
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
