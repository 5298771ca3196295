// cvt.{rni,rzi,rmi,rpi}{.ftz}.<integer>.{f32,f64} as the translator lowers them (LLVM's rounding
// intrinsics and saturating conversions, lower_convert.cpp float_to_int), run on the CPU executor
// for thousands of inputs of every class (subnormals, halves, integer-range edges, infinities,
// NaNs) and compared with a reference from the C library: nearbyint under the matching rounding
// mode, clamped to the destination's range, NaN as PTX's Integer Notes say. The H200 goldens
// (cvt_f32_edges, cvt_f64_random, ...) check the same code against NVIDIA's results.

#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_kernels_ptx_support_common.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

using namespace d4r::test::ptx_support;

struct Destination {
  const char* type;  // PTX type
  const char* reg;   // register it is written to
  const char* store; // st.global type
  int bytes;
  bool is_signed;
};

constexpr std::array<Destination, 8> k_destinations = {{
    {"s64", "%rd7", "b64", 8, true}, {"u64", "%rd7", "b64", 8, false},
    {"s32", "%r2", "b32", 4, true},  {"u32", "%r2", "b32", 4, false},
    {"s16", "%rs1", "b16", 2, true}, {"u16", "%rs1", "b16", 2, false},
    {"s8", "%rs1", "b8", 1, true},   {"u8", "%rs1", "b8", 1, false},
}};
constexpr std::array<const char*, 4> k_mode_names = {"rni", "rzi", "rmi", "rpi"};
// Per input: the f32 source, the f32 source under .ftz, the f64 source.
constexpr int k_sources = 3;
constexpr int k_slots = k_sources * 4 * static_cast<int>(k_destinations.size());
constexpr int k_slot_bytes = 8;

int slot(int source, int mode, int destination)
{
  return (source * 4 + mode) * static_cast<int>(k_destinations.size()) + destination;
}

// Thread i reads an f32 at in + 16 i and an f64 at in + 16 i + 8 and writes every conversion to
// its slot of out + k_slots * 8 * i.
std::string conversions_kernel()
{
  std::string body = "  mov.u32 %r1, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mad.lo.u32 %r1, %r3, 256, %r1;\n"
                     "  mul.wide.u32 %rd3, %r1, 16;\n  add.s64 %rd4, %rd2, %rd3;\n"
                     "  mul.wide.u32 %rd5, %r1, " + std::to_string(k_slots * k_slot_bytes) + ";\n"
                     "  add.s64 %rd6, %rd1, %rd5;\n"
                     "  ld.global.f32 %f1, [%rd4];\n  ld.global.f64 %fd1, [%rd4+8];\n";
  for (int source = 0; source < k_sources; ++source) {
    for (int mode = 0; mode < 4; ++mode) {
      for (size_t d = 0; d < k_destinations.size(); ++d) {
        const Destination& to = k_destinations[d];
        std::string form = std::string("cvt.") + k_mode_names[static_cast<size_t>(mode)] +
                           (source == 1 ? ".ftz." : ".") + to.type + (source == 2 ? ".f64" : ".f32");
        body += "  " + form + " " + to.reg + ", " + (source == 2 ? "%fd1" : "%f1") + ";\n";
        body += std::string("  st.global.") + to.store + " [%rd6+" +
                std::to_string(slot(source, mode, static_cast<int>(d)) * k_slot_bytes) + "], " + to.reg + ";\n";
      }
    }
  }
  return kernel_text(body);
}

// The slot's bytes as the destination type, sign- or zero-extended to 64 bits.
uint64_t read_slot(const std::byte* at, const Destination& to)
{
  uint64_t value = 0;
  std::memcpy(&value, at, static_cast<size_t>(to.bytes));
  const int bits = to.bytes * 8;
  if (to.is_signed && bits < 64 && ((value >> (bits - 1)) & 1) != 0) {
    value |= ~uint64_t{0} << bits;
  }
  return value;
}

uint64_t reference(double x, int mode, const Destination& to, bool nan_big)
{
  const std::string type = to.type;
  if (type == "s64") return reference_int<int64_t>(x, mode, true);
  if (type == "u64") return reference_int<uint64_t>(x, mode, true);
  if (type == "s32") return reference_int<int32_t>(x, mode, nan_big);
  if (type == "u32") return reference_int<uint32_t>(x, mode, nan_big) & 0xffffffffull;
  if (type == "s16") return reference_int<int16_t>(x, mode, nan_big);
  if (type == "u16") return reference_int<uint16_t>(x, mode, nan_big) & 0xffffull;
  if (type == "s8") return reference_int<int8_t>(x, mode, nan_big);
  return reference_int<uint8_t>(x, mode, nan_big) & 0xffull;
}

float flushed(float x)
{
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

TEST(TranslateFloatToInt, EveryModeAndWidthMatchesTheReference)
{
  constexpr uint32_t k_blocks = 48;
  constexpr size_t k_inputs = k_blocks * 256;
  std::vector<std::byte> in(k_inputs * 16);
  std::vector<float> f32s(k_inputs);
  std::vector<double> f64s(k_inputs);
  Rng rng;
  for (size_t i = 0; i < k_inputs; ++i) {
    float xf = interesting_f32(rng);
    if ((i & 1) != 0) { // near integers and halves in every integer range
      const double base = std::ldexp(static_cast<double>(rng.next() >> 11), -static_cast<int>(rng.next() % 64));
      xf = static_cast<float>((rng.next() & 1) != 0 ? -base : base);
    }
    double xd = (i & 2) != 0 ? static_cast<double>(xf) : interesting_f64(rng);
    if ((i & 4) != 0) {
      xd = std::ldexp(std::round(std::ldexp(xd, 1)) + 0.0, -1);
    }
    f32s[i] = xf;
    f64s[i] = xd;
    std::memcpy(in.data() + 16 * i, &xf, 4);
    std::memcpy(in.data() + 16 * i + 8, &xd, 8);
  }
  std::vector<std::byte> out(k_inputs * k_slots * k_slot_bytes);
  ASSERT_TRUE(run_host_blocks(conversions_kernel(), k_blocks, out.data(), in.data()));
  int failures = 0;
  for (size_t i = 0; i < k_inputs; ++i) {
    const std::array<double, k_sources> sources = {f32s[i], flushed(f32s[i]), f64s[i]};
    for (int source = 0; source < k_sources; ++source) {
      for (int mode = 0; mode < 4; ++mode) {
        for (size_t d = 0; d < k_destinations.size(); ++d) {
          const Destination& to = k_destinations[d];
          const size_t at = (i * k_slots + static_cast<size_t>(slot(source, mode, static_cast<int>(d)))) * k_slot_bytes;
          const uint64_t got = read_slot(out.data() + at, to);
          const uint64_t want = reference(sources[static_cast<size_t>(source)], mode, to, source == 2);
          if (got != want && failures++ < 20) {
            ADD_FAILURE() << "cvt." << k_mode_names[static_cast<size_t>(mode)] << (source == 1 ? ".ftz." : ".")
                          << to.type << (source == 2 ? ".f64 " : ".f32 ") << std::hexfloat
                          << sources[static_cast<size_t>(source)] << std::hex << ": got " << got << ", want " << want;
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

} // namespace
} // namespace d4r::compiler::translate::test
