// compiler/translate/uniform_lane_moves.hpp through the translator: a lane move (shfl, an mma's
// operand remap) of a value every lane holds alike is the value itself on AMDGPU, and a value that
// differs between lanes, directly or through a loop the lanes leave at different iterations, keeps
// its ds_bpermute.

#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace d4r::compiler::translate::test {
namespace {

// %rd4 = in + 4 * %tid.x: an address of each lane's own.
const std::string k_lane_address = "  mov.u32 %r13, %tid.x;\n  mul.wide.u32 %rd3, %r13, 4;\n"
                                   "  add.s64 %rd4, %rd2, %rd3;\n  add.s64 %rd5, %rd1, %rd3;\n";

int lane_moves(const std::string& body, const char* target)
{
  Expected<Translation> translation = translate_text(kernel_text(body), amdgpu_options(target));
  EXPECT_TRUE(translation.has_value()) << translation.error().message;
  if (!translation) {
    return -1;
  }
  EXPECT_EQ(verify_text(*translation->module), "");
  return occurrences(ir_text(*translation->module), "call i32 @llvm.amdgcn.ds.bpermute");
}

TEST(UniformLaneMoves, AShuffleOfAValueEveryLaneHoldsIsTheValue)
{
  const std::string shuffle = "  shfl.sync.idx.b32 %r2, %r1, %r13, 31, -1;\n  st.global.b32 [%rd5], %r2;\n";
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    EXPECT_EQ(lane_moves(k_lane_address + "  ld.global.b32 %r1, [%rd2];\n" + shuffle, target), 0);
    EXPECT_EQ(lane_moves(k_lane_address + "  ld.global.b32 %r1, [%rd4];\n" + shuffle, target), 1);
    // The lanes leave the loop at different iterations: %r1 differs after it.
    EXPECT_EQ(lane_moves(k_lane_address +
                             "  mov.u32 %r1, 0;\nloop:\n  add.u32 %r1, %r1, 3;\n"
                             "  ld.global.b32 %r3, [%rd4];\n  setp.lt.u32 %p1, %r1, %r3;\n"
                             "  @%p1 bra loop;\n" + shuffle,
                         target),
              1);
  }
}

// An m16n8k16 whose A and C each lane loads for itself, and whose B comes from `b_address`.
std::string mma_body(const std::string& b_address)
{
  std::string body = k_lane_address;
  for (int word = 1; word <= 4; ++word) {
    body += "  ld.global.b32 %r" + std::to_string(word) + ", [%rd4+" + std::to_string(128 * word) + "];\n";
    body += "  ld.global.f32 %f" + std::to_string(word) + ", [%rd4+" + std::to_string(1024 + 128 * word) + "];\n";
  }
  body += "  ld.global.b32 %r5, [" + b_address + "];\n  ld.global.b32 %r6, [" + b_address + "+4];\n";
  body += "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, "
          "{%r5, %r6}, {%f1, %f2, %f3, %f4};\n";
  for (int word = 5; word <= 8; ++word) {
    body += "  st.global.f32 [%rd5+" + std::to_string(128 * (word - 5)) + "], %f" + std::to_string(word) + ";\n";
  }
  return body;
}

TEST(UniformLaneMoves, AnMmaOperandSharedByEveryLaneIsNotMoved)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    const int shared_b = lane_moves(mma_body("%rd2"), target);
    const int own_b = lane_moves(mma_body("%rd4"), target);
    // A, C and D move in both; B only where each lane loaded its own words.
    EXPECT_GT(shared_b, 0);
    EXPECT_LT(shared_b, own_b);
    // Shared B words move as a constant B would: not at all.
    std::string constant_b = mma_body("%rd2");
    for (const auto& [load, move] : {std::pair<std::string, std::string>{"ld.global.b32 %r5, [%rd2];", "mov.b32 %r5, 0x3c003c00;"},
                                     {"ld.global.b32 %r6, [%rd2+4];", "mov.b32 %r6, 0x40004000;"}}) {
      constant_b.replace(constant_b.find(load), load.size(), move);
    }
    EXPECT_EQ(lane_moves(constant_b, target), shared_b);
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
