// Images on the host (compiler/cpu/host_images.cpp): tex.2d point and linear filtering with
// NVIDIA's 1/256 weights, address modes, formats, sust.b/suld.b byte addressing with .zero and
// .clamp, sust.p conversions, and .trap failing a launch. The expected values are worked out here
// from the rules, not read back from the implementation.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/translate/host_abi.hpp"
#include "tests/unit/test_compiler_cpu_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace d4r::compiler::cpu {
namespace {

using testing::executor_from_ir;
using testing::params;
using testing::signature;

struct Image {
  std::vector<uint8_t> bytes;
  d4r_host_image desc{};
  uint64_t handle() { return reinterpret_cast<uint64_t>(&desc); }
};

Image make_image(uint32_t width, uint32_t height, uint32_t format, uint32_t channels,
                 int64_t element_bytes, uint32_t padding = 0)
{
  Image image;
  const auto pitch = static_cast<uint32_t>(width * channels * element_bytes + padding);
  image.bytes.assign(size_t{pitch} * height, 0);
  image.desc = d4r_host_image{nullptr, width, height, pitch, format, channels, 0, 0, 0, 0, 0, d4r_shape_2d};
  image.desc.data = image.bytes.data();
  return image;
}

Image float_image(uint32_t width, uint32_t height, const std::vector<float>& values)
{
  Image image = make_image(width, height, d4r_image_f32, 1, 4, 8);
  for (uint32_t y = 0; y < height; ++y) {
    std::memcpy(image.bytes.data() + size_t{y} * image.desc.pitch, values.data() + size_t{y} * width,
                width * 4);
  }
  return image;
}

std::array<float, 4> tex(Image& image, float x, float y)
{
  d4r_host_thread thread{};
  std::array<float, 4> out{-7, -7, -7, -7};
  d4r_rt_tex_2d_f32(&thread, image.handle(), x, y, out.data());
  return out;
}

TEST(CpuImages, PointSamplingTakesTheTexelUnderTheCoordinate)
{
  Image image = make_image(4, 4, d4r_image_u8, 1, 1);
  for (size_t i = 0; i < 16; ++i) {
    image.bytes[i] = static_cast<uint8_t>(i * 10);
  }
  const std::array<float, 4> t = tex(image, 1.99f, 2.0f); // texel (1, 2) = 90
  EXPECT_EQ(t[0], 90.0f / 255.0f);
  EXPECT_EQ(t[1], 0.0f);
  EXPECT_EQ(t[2], 0.0f);
  EXPECT_EQ(t[3], 0.0f) << "a missing channel reads 0, alpha too (tex_f32x1_* goldens)";
  image.desc.normalized = 1;
  EXPECT_EQ(tex(image, 0.76f, 0.26f)[0], 70.0f / 255.0f); // (3.04, 1.04) -> texel (3, 1)
}

TEST(CpuImages, LinearWeightsAreQuantisedTo1Over256)
{
  Image image = float_image(2, 1, {0.0f, 1.0f});
  image.desc.filter = 1;
  // x - 0.5 = 0.3: alpha = round(0.3 * 256) / 256 = 77/256 (unquantised would give 0.3).
  EXPECT_EQ(tex(image, 0.8f, 0.5f)[0], 77.0f / 256.0f);
  // 0.998 * 256 = 255.49 -> 255/256; 0.999 * 256 = 255.74 -> 256/256 = 1 (9 bits hold 1.0).
  EXPECT_EQ(tex(image, 1.498f, 0.5f)[0], 255.0f / 256.0f);
  EXPECT_EQ(tex(image, 1.499f, 0.5f)[0], 1.0f);
  // Below the first texel centre: clamp addressing reads texel 0 on both sides.
  EXPECT_EQ(tex(image, 0.2f, 0.5f)[0], 0.0f);
}

TEST(CpuImages, BilinearFilterOfFourTexels)
{
  Image image = float_image(2, 2, {10.0f, 20.0f, 30.0f, 40.0f});
  image.desc.filter = 1;
  // alpha 0.25, beta 0.75: 0.75*0.25*10 + 0.25*0.25*20 + 0.75*0.75*30 + 0.25*0.75*40 = 27.5
  EXPECT_EQ(tex(image, 0.75f, 1.25f)[0], 27.5f);
  // alpha = round(0.1 * 256) / 256 = 26/256, beta 0: 10 + 10 * 26/256 = 11.015625 (not 11).
  EXPECT_EQ(tex(image, 0.6f, 0.5f)[0], 11.015625f);
  // Normalised coordinates: (0.375, 0.625) * 2 = (0.75, 1.25), as above.
  image.desc.normalized = 1;
  EXPECT_EQ(tex(image, 0.375f, 0.625f)[0], 27.5f);
}

TEST(CpuImages, AddressModes)
{
  Image image = float_image(4, 1, {0.0f, 1.0f, 2.0f, 3.0f});
  image.desc.normalized = 1;
  const std::array<float, 3> xs = {1.1f, -0.2f, 1.3f}; // texels 4, -1, 5
  image.desc.address = 0;                              // clamp
  EXPECT_EQ(tex(image, xs[0], 0.5f)[0], 3.0f);
  EXPECT_EQ(tex(image, xs[1], 0.5f)[0], 0.0f);
  image.desc.address = 1; // wrap
  EXPECT_EQ(tex(image, xs[0], 0.5f)[0], 0.0f);
  EXPECT_EQ(tex(image, xs[1], 0.5f)[0], 3.0f);
  EXPECT_EQ(tex(image, xs[2], 0.5f)[0], 1.0f);
  image.desc.address = 2; // mirror
  EXPECT_EQ(tex(image, xs[0], 0.5f)[0], 3.0f);
  EXPECT_EQ(tex(image, xs[1], 0.5f)[0], 0.0f);
  EXPECT_EQ(tex(image, xs[2], 0.5f)[0], 2.0f);
  image.desc.address = 3; // border: every channel 0, alpha too
  EXPECT_EQ(tex(image, xs[0], 0.5f), (std::array<float, 4>{0, 0, 0, 0}));
  EXPECT_EQ(tex(image, 0.6f, 0.5f), (std::array<float, 4>{2, 0, 0, 0}));
  // Linear across the border: texel 3 (3.0) and the border (0) at alpha 0.5.
  image.desc.filter = 1;
  image.desc.normalized = 0;
  EXPECT_EQ(tex(image, 4.0f, 0.5f)[0], 1.5f);
}

TEST(CpuImages, FormatsAndChannels)
{
  Image h = make_image(1, 1, d4r_image_f16, 2, 2);
  const std::array<uint16_t, 2> halves = {0x3c00, 0xc000}; // 1.0, -2.0
  std::memcpy(h.bytes.data(), halves.data(), 4);
  EXPECT_EQ(tex(h, 0.5f, 0.5f), (std::array<float, 4>{1.0f, -2.0f, 0.0f, 0.0f}));

  Image u = make_image(1, 1, d4r_image_u8, 4, 1);
  u.bytes = {0, 128, 255, 51};
  u.desc.data = u.bytes.data();
  EXPECT_EQ(tex(u, 0.5f, 0.5f), (std::array<float, 4>{0.0f, 128.0f / 255.0f, 1.0f, 0.2f}));

  Image f = make_image(1, 1, d4r_image_f32, 4, 4);
  const std::array<float, 4> values = {1.5f, -0.0f, 1e30f, -3.0f};
  std::memcpy(f.bytes.data(), values.data(), 16);
  EXPECT_EQ(tex(f, 0.5f, 0.5f), values);
}

TEST(CpuImages, SurfaceByteStoresZeroDropsAndClampMoves)
{
  Image image = make_image(4, 2, d4r_image_u32, 1, 4); // 16 bytes a row
  d4r_host_thread thread{};
  const uint32_t word = 0xdeadbeef;
  for (const std::array<int32_t, 2> xy :
       {std::array<int32_t, 2>{16, 0}, {-4, 0}, {0, 2}, {0, -1}, {13, 1}}) {
    d4r_rt_sust_b_2d(&thread, image.handle(), xy[0], xy[1], &word, 4, 0);
  }
  EXPECT_EQ(image.bytes, std::vector<uint8_t>(32, 0)) << ".zero wrote out of range";
  d4r_rt_sust_b_2d(&thread, image.handle(), 12, 1, &word, 4, 0);
  uint32_t stored = 0;
  std::memcpy(&stored, image.bytes.data() + 16 + 12, 4);
  EXPECT_EQ(stored, word);
  // x is in bytes: a 2-byte store at byte 6 of row 0.
  const uint16_t half = 0x1234;
  d4r_rt_sust_b_2d(&thread, image.handle(), 6, 0, &half, 2, 0);
  EXPECT_EQ(image.bytes[6], 0x34);
  EXPECT_EQ(image.bytes[7], 0x12);

  // .clamp: (40, 9) -> (12, 1); (-8, -3) -> (0, 0).
  image.bytes.assign(32, 0);
  const uint32_t a = 0x11111111;
  const uint32_t b = 0x22222222;
  d4r_rt_sust_b_2d(&thread, image.handle(), 40, 9, &a, 4, 1);
  d4r_rt_sust_b_2d(&thread, image.handle(), -8, -3, &b, 4, 1);
  std::memcpy(&stored, image.bytes.data() + 28, 4);
  EXPECT_EQ(stored, a);
  std::memcpy(&stored, image.bytes.data(), 4);
  EXPECT_EQ(stored, b);

  // suld.b: .zero reads zeros out of range, .clamp reads the edge.
  uint32_t loaded = 7;
  d4r_rt_suld_b_2d(&thread, image.handle(), 16, 0, &loaded, 4, 0);
  EXPECT_EQ(loaded, 0u);
  d4r_rt_suld_b_2d(&thread, image.handle(), 100, 100, &loaded, 4, 1);
  EXPECT_EQ(loaded, a);
  d4r_rt_suld_b_2d(&thread, image.handle(), 0, 0, &loaded, 4, 0);
  EXPECT_EQ(loaded, b);

  // An unknown mode drops an out-of-range store; an empty image drops even .clamp.
  const std::vector<uint8_t> before = image.bytes;
  d4r_rt_sust_b_2d(&thread, image.handle(), 16, 0, &a, 4, 7);
  Image empty = make_image(0, 0, d4r_image_u32, 1, 4);
  d4r_rt_sust_b_2d(&thread, empty.handle(), 0, 0, &a, 4, 1);
  d4r_rt_suld_b_2d(&thread, empty.handle(), 3, 3, &loaded, 4, 1);
  EXPECT_EQ(loaded, 0u);
  EXPECT_EQ(image.bytes, before);
  EXPECT_EQ(tex(empty, 0.5f, 0.5f), (std::array<float, 4>{0, 0, 0, 0}));
}

TEST(CpuImages, FormattedStoresConvert)
{
  d4r_host_thread thread{};
  // An 8-bit surface is an unsigned-integer format on NVIDIA (CUDA_ARRAY of UNSIGNED_INT8, as the
  // sust_p_* goldens show): each 32-bit component is stored as min(bits, 255), floats included.
  Image u = make_image(2, 1, d4r_image_u8, 4, 1);
  const std::array<uint32_t, 4> ints = {7, 255, 256, 0x3f000000}; // the last: 0.5f's bits
  std::array<uint32_t, 4> data = ints;
  d4r_rt_sust_p_2d(&thread, u.handle(), 1, 0, data.data(), 0); // x in elements
  EXPECT_EQ(u.bytes, (std::vector<uint8_t>{0, 0, 0, 0, 7, 255, 255, 255}));
  data = {0, 1, 254, 3};
  d4r_rt_sust_p_2d(&thread, u.handle(), 0, 0, data.data(), 0);
  d4r_rt_sust_p_2d(&thread, u.handle(), 2, 0, data.data(), 0); // out of range: dropped
  EXPECT_EQ(u.bytes, (std::vector<uint8_t>{0, 1, 254, 3, 7, 255, 255, 255}));

  // f16, rounded toward zero as the H200 stores it (img_sust_p_shapes_*), one component per image.
  Image h = make_image(1, 1, d4r_image_f16, 1, 2);
  auto half_of = [&](float f) {
    std::array<uint32_t, 4> d{std::bit_cast<uint32_t>(f), 0, 0, 0};
    d4r_rt_sust_p_2d(&thread, h.handle(), 0, 0, d.data(), 0);
    uint16_t bits = 0;
    std::memcpy(&bits, h.bytes.data(), 2);
    return bits;
  };
  EXPECT_EQ(half_of(1.0f), 0x3c00);
  EXPECT_EQ(half_of(-0.0f), 0x8000);
  EXPECT_EQ(half_of(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(half_of(1.0f + 3 * 0x1p-11f), 0x3c01);
  EXPECT_EQ(half_of(1.0f + 0x1p-10f - 0x1p-23f), 0x3c00); // just below the next half
  EXPECT_EQ(half_of(-(1.0f + 0x1p-10f - 0x1p-23f)), 0xbc00);
  EXPECT_EQ(half_of(65519.0f), 0x7bff);
  EXPECT_EQ(half_of(65535.0f), 0x7bff);
  EXPECT_EQ(half_of(-1e10f), 0xfbff) << "a finite value past the range stores the largest half";
  EXPECT_EQ(half_of(0x1p-24f), 0x0001);
  EXPECT_EQ(half_of(0x1p-25f), 0x0000);
  EXPECT_EQ(half_of(3 * 0x1p-25f), 0x0001);
  EXPECT_EQ(half_of(-3 * 0x1p-25f), 0x8001);
  EXPECT_EQ(half_of(0x1p-14f - 0x1p-25f), 0x03ff); // stays subnormal
  EXPECT_EQ(half_of(INFINITY), 0x7c00);
  EXPECT_EQ(half_of(std::bit_cast<float>(0xffc4e78fu)), 0xfe27) << "sign and top payload bits";
  EXPECT_EQ(half_of(std::bit_cast<float>(0x7fb5e898u)), 0x7daf) << "a signalling NaN is not quieted";

  Image f = make_image(1, 1, d4r_image_f32, 2, 4);
  std::array<uint32_t, 4> raw{0x7fc00001u, 0x3f800000u, 5, 6};
  d4r_rt_sust_p_2d(&thread, f.handle(), 0, 0, raw.data(), 0);
  std::array<uint32_t, 2> stored{};
  std::memcpy(stored.data(), f.bytes.data(), 8);
  EXPECT_EQ(stored, (std::array<uint32_t, 2>{0x7fc00001u, 0x3f800000u}));
}

// Through the JIT: tex and sust from a kernel; an out-of-range .trap store fails the launch.
const char* k_image_ir = R"(
define void @sample(ptr %params, ptr %t) {
  %ph = load i64, ptr %params
  %pout = getelementptr i8, ptr %params, i64 8
  %out = load ptr, ptr %pout
  call void @d4r_rt_tex_2d_f32(ptr %t, i64 %ph, float 0.75, float 1.25, ptr %out)
  ret void
}
define void @store(ptr %params, ptr %t) {
  %ph = load i64, ptr %params
  %tx = load i32, ptr %t
  %v = alloca i32
  store i32 %tx, ptr %v
  %x = mul i32 %tx, 4
  call void @d4r_rt_sust_b_2d(ptr %t, i64 %ph, i32 %x, i32 0, ptr %v, i32 4, i32 2)
  ret void
}
)";


// sured: the texel word (x in bytes for .b, in texels for .p) combined with the value, per type;
// .zero drops an access past the edge; the slice picks a layer of a layered surface.
TEST(CpuImages, SurfaceReductionsCombineTheTexelWord)
{
  Image image = make_image(2, 1, d4r_image_u32, 1, 4);
  image.bytes.assign(16, 0); // two layers of 2 texels
  image.desc.data = image.bytes.data();
  image.desc.layers = 2;
  d4r_host_thread thread{};
  auto word = [&](size_t i) {
    uint32_t v = 0;
    std::memcpy(&v, image.bytes.data() + 4 * i, 4);
    return v;
  };
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u32, 0, 4, 0, 1, 5, 0);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u32, 1, 1, 0, 1, 7, 0); // .p: texel 1
  EXPECT_EQ(word(3), 12u);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_min, d4r_sured_s32, 0, 0, 0, 0, 0xfffffff0u, 0);
  EXPECT_EQ(word(0), 0xfffffff0u) << "signed min of 0 and -16";
  d4r_rt_sured(&thread, image.handle(), d4r_sured_min, d4r_sured_u32, 0, 0, 0, 0, 3, 0);
  EXPECT_EQ(word(0), 3u) << "unsigned min";
  d4r_rt_sured(&thread, image.handle(), d4r_sured_max, d4r_sured_s32, 0, 0, 0, 0, 0x80000000u, 0);
  EXPECT_EQ(word(0), 3u);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_or, d4r_sured_u32, 0, 4, 0, 0, 0xf0, 0);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_and, d4r_sured_u32, 0, 4, 0, 0, 0x3c, 0);
  EXPECT_EQ(word(1), 0x30u);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u32, 0, 8, 0, 0, 1, 0);  // past the row
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u32, 0, 0, 0, 2, 1, 0);  // past the layers
  EXPECT_EQ(word(0) + word(1) + word(2) + word(3), 3u + 0x30u + 12u);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u32, 0, 8, 0, 5, 1, 1);  // .clamp
  EXPECT_EQ(word(3), 13u);
  // 64-bit words.
  std::fill(image.bytes.begin(), image.bytes.end(), uint8_t{0});
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u64, 0, 0, 0, 1, 0xffffffffull, 0);
  d4r_rt_sured(&thread, image.handle(), d4r_sured_add, d4r_sured_u64, 0, 0, 0, 1, 1, 0);
  EXPECT_EQ(word(2), 0u);
  EXPECT_EQ(word(3), 1u) << "the carry reaches the high word";
  d4r_rt_sured(&thread, image.handle(), d4r_sured_min, d4r_sured_s64, 0, 0, 0, 0, ~0ull, 0);
  EXPECT_EQ(word(0), 0xffffffffu);
  EXPECT_EQ(word(1), 0xffffffffu);
}

// A buffer texture (tex1Dfetch) reads 0 past either end; integer coordinates on a 1D array read
// 0 everywhere and on a 2D one 0 outside, whatever the address mode (goldens img_tex_int_coords*);
// a 3D point sample takes floor(z) as the slice; offsets are 4-bit signed fields.
TEST(CpuImages, FetchesByGeometry)
{
  Image image = make_image(3, 1, d4r_image_u32, 1, 4);
  for (uint32_t i = 0; i < 3; ++i) {
    std::memcpy(image.bytes.data() + 4 * i, &i, 4);
    image.bytes[4 * i] = static_cast<uint8_t>(10 + i);
  }
  d4r_host_thread thread{};
  auto fetch = [&](int32_t x) {
    d4r_host_tex_request request{d4r_geom_1d, d4r_tex_integer_coords | d4r_tex_integer_result, 0, -1,
                                 {static_cast<uint32_t>(x), 0, 0}, {0, 0, 0}};
    std::array<uint32_t, 4> out{7, 7, 7, 7};
    d4r_rt_tex(&thread, image.handle(), &request, out.data());
    return out[0];
  };
  image.desc.shape = d4r_shape_1d;
  EXPECT_EQ(fetch(1), 0u);
  image.desc.shape = d4r_shape_2d;
  d4r_host_tex_request at{d4r_geom_2d, d4r_tex_integer_coords | d4r_tex_integer_result, 0, -1, {2, 0, 0}, {0, 0, 0}};
  std::array<uint32_t, 4> texel{};
  d4r_rt_tex(&thread, image.handle(), &at, texel.data());
  EXPECT_EQ(texel[0], 12u);
  at.coords[0] = 3;
  d4r_rt_tex(&thread, image.handle(), &at, texel.data());
  EXPECT_EQ(texel[0], 0u) << "no clamp for integer coordinates";
  image.desc.shape = d4r_shape_buffer;
  EXPECT_EQ(fetch(-1), 0u);
  EXPECT_EQ(fetch(1), 11u);
  EXPECT_EQ(fetch(3), 0u);

  Image volume = make_image(1, 1, d4r_image_u32, 1, 4);
  volume.bytes.assign(12, 0);
  volume.desc.data = volume.bytes.data();
  volume.bytes[4] = 5;
  volume.bytes[8] = 9;
  volume.desc.shape = d4r_shape_3d;
  volume.desc.depth = 3;
  d4r_host_tex_request request{d4r_geom_3d, d4r_tex_integer_result, 0, -1,
                               {std::bit_cast<uint32_t>(0.5f), std::bit_cast<uint32_t>(0.5f),
                                std::bit_cast<uint32_t>(1.75f)},
                               {0, 0, 0}};
  std::array<uint32_t, 4> out{};
  d4r_rt_tex(&thread, volume.handle(), &request, out.data());
  EXPECT_EQ(out[0], 5u);
  request.offsets[2] = 1;
  d4r_rt_tex(&thread, volume.handle(), &request, out.data());
  EXPECT_EQ(out[0], 9u) << "an offset moves the texel index";
  request.offsets[2] = 15; // -1 as a 4-bit field
  d4r_rt_tex(&thread, volume.handle(), &request, out.data());
  EXPECT_EQ(out[0], 0u);
}


// 3D linear filtering (img_tex_3d_f16x4_linear): z's fraction splits 256 exactly into the two
// slices, x's fraction splits each slice, y's each column, every split rounded; with clamp a
// coordinate before the first texel centre has fraction 0. One-hot texels read the weights back.
TEST(CpuImages, TrilinearWeightsSplitZThenXThenY)
{
  Image volume = make_image(2, 2, d4r_image_f32, 1, 4);
  volume.bytes.assign(32, 0);
  volume.desc.data = volume.bytes.data();
  volume.desc.shape = d4r_shape_3d;
  volume.desc.depth = 2;
  volume.desc.filter = 1;
  d4r_host_thread thread{};
  auto weight = [&](size_t texel, float x, float y, float z) {
    volume.bytes.assign(32, 0);
    const float one = 1.0f;
    std::memcpy(volume.bytes.data() + 4 * texel, &one, 4);
    d4r_host_tex_request request{d4r_geom_3d, 0, 0, -1,
                                 {std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(y),
                                  std::bit_cast<uint32_t>(z)},
                                 {0, 0, 0}};
    std::array<uint32_t, 4> out{};
    d4r_rt_tex(&thread, volume.handle(), &request, out.data());
    return std::bit_cast<float>(out[0]) * 256.0f;
  };
  // Fractions a = 247, b = 196, c = 190 (texel index bit 0 x, bit 1 y, bit 2 z). A 2D plane split
  // by c would give texel 0 weight 1 and texel 4 weight 1.
  const float x = 0.5f + 247.0f / 256.0f;
  const float y = 0.5f + 196.0f / 256.0f;
  const float z = 0.5f + 190.0f / 256.0f;
  const std::array<float, 8> expected = {0, 15, 2, 49, 2, 43, 5, 140};
  for (size_t texel = 0; texel < 8; ++texel) {
    EXPECT_EQ(weight(texel, x, y, z), expected[texel]) << "texel " << texel;
  }
  // x = 0.2 is before the first centre: fraction 0, so slice z = 1 (190) splits by b alone:
  // (190 * 196 + 128) >> 8 = 145 on y = 1 (146 if x's fraction 179 split it first).
  EXPECT_EQ(weight(6, 0.2f, y, z) + weight(7, 0.2f, y, z), 145.0f);
}

// The case format's image geometry (tests/golden/README.md: shape=, depth=, layers=): slices, the
// bytes of a surface output, the host header, and the combinations it refuses.
TEST(CpuImages, CaseImagesOfEveryShape)
{
  const std::string text = "ptx = x.ptx\nkernel = k\n"
                           "param = texture f16x4 4 4 shape=cube layers=3 range 0 1 seed=1\n"
                           "param = surface u32x2 5 4 shape=3d depth=3\n"
                           "param = surface u8x1 9 1 shape=1d layers=2\n"
                           "param = texture f32x1 64 1 shape=buffer floats seed=2\n";
  Expected<LaunchCase> parsed = parse_launch_case(text, "shapes");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const std::vector<Param>& params = parsed->params;
  EXPECT_EQ(image_slices(params[0].arg.image), 18);
  EXPECT_EQ(generate_image(params[0].arg.image).size(), size_t{4 * 4 * 18 * 8});
  ASSERT_EQ(parsed->outputs.size(), 2u);
  EXPECT_EQ(parsed->outputs[0].bytes, 5 * 4 * 3 * 8);
  EXPECT_EQ(parsed->outputs[1].bytes, 9 * 2);
  const d4r_host_image cube = host_image_header(params[0].arg.image);
  EXPECT_EQ(cube.shape, d4r_shape_cube);
  EXPECT_EQ(cube.layers, 3u);
  const d4r_host_image volume = host_image_header(params[1].arg.image);
  EXPECT_EQ(volume.shape, d4r_shape_3d);
  EXPECT_EQ(volume.depth, 3u);
  EXPECT_EQ(host_image_header(params[3].arg.image).shape, d4r_shape_buffer);
  for (const char* bad : {"param = texture u8x1 4 2 shape=1d const 0\n", "param = texture u8x1 4 4 shape=3d const 0\n",
                          "param = texture u8x1 4 3 shape=cube const 0\n", "param = surface u8x1 4 4 shape=cube\n",
                          "param = texture u8x1 4 1 shape=buffer filter=linear const 0\n",
                          "param = texture u8x1 4 4 depth=2 const 0\n", "param = surface u8x1 4 4 filter=linear\n"}) {
    EXPECT_FALSE(parse_launch_case(std::string("ptx = x.ptx\nkernel = k\n") + bad, "bad")) << bad;
  }
}

TEST(CpuImages, KernelsSampleAndTrapOutOfRange)
{
  std::unique_ptr<Executor> executor =
      executor_from_ir(k_image_ir, {signature("sample", 16), signature("store", 8)});
  ASSERT_TRUE(executor);
  Image image = float_image(2, 2, {10.0f, 20.0f, 30.0f, 40.0f});
  image.desc.filter = 1;
  std::array<float, 4> out{};
  ASSERT_TRUE(executor->launch("sample", LaunchShape{}, params(image.handle(), out.data())));
  EXPECT_EQ(out, (std::array<float, 4>{27.5f, 0.0f, 0.0f, 0.0f}));

  Image surface = make_image(4, 1, d4r_image_u32, 1, 4);
  ASSERT_TRUE(executor->launch("store", LaunchShape{{1, 1, 1}, {4, 1, 1}, 0},
                               params(surface.handle())));
  EXPECT_EQ(surface.bytes[12], 3);
  Expected<LaunchStats> r =
      executor->launch("store", LaunchShape{{1, 1, 1}, {5, 1, 1}, 0}, params(surface.handle()));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("trap: block (0,0,0) thread (4,0,0): sust.b out of range"),
            std::string::npos)
      << r.error().message;
}

} // namespace
} // namespace d4r::compiler::cpu
