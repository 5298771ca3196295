// Images on the host (translate/host_abi.hpp's d4r_host_image), with NVIDIA's observable
// behaviour, fitted bit for bit to the H200 golden vectors (tests/golden/cases/tex_*, sust_*):
//   - tex.2d: point sampling takes texel floor(x), floor(y). Normalised coordinates are scaled by
//     the size first (an f32 multiply). Address modes act on texel indices: clamp, wrap, mirror,
//     border (a texel outside reads as 0 in every channel). A channel the format lacks reads 0
//     (the f32x1 golden shows w = 0 too, not 1).
//   - tex.a2d: the layer index is unsigned, clamped to the last layer (a negative one reads the
//     last layer); each layer samples as tex.2d. Integer results (tex.v4.u32/s32 of a texture
//     read as integers) are the texel's channels zero-extended, point-sampled (tex_layered_*,
//     tex_integer_*).
//   - Linear filtering (CUDA C++ Programming Guide, "Texture Fetching": the fractions are 9-bit
//     fixed point with 8 fractional bits). The exact arithmetic, found by fitting every golden
//     result (tex_u8x4_linear_{clamp,border,fine}, tex_f16x4_linear_{clamp_random,wrap},
//     tex_f32x1_linear_mirror: 6 x 4096 values, all exact):
//       xb = x - 0.5 (f32); i = floor(xb); a = floor(frac(xb) * 256 + 0.5) (ties up; 256 carries
//       into i); the same for y -> j, b. The four weights are integers summing to 256:
//       w11 = (a * b + 128) >> 8, w10 = a - w11, w01 = b - w11, w00 = 256 - a - b + w11
//       (one rounded product, the rest exact, so a constant row or column filters exactly).
//     u8 (unorm) texels are widened to 16 bits (t * 257) and filtered in integers:
//       N = (sum w * t * 257 + 128) >> 8, result N / 65535 (f32 division).
//     f16 and f32 texels: per channel, the four values are aligned to the exponent of the
//       largest magnitude and truncated (toward zero) to 4 bits below its last mantissa bit
//       (14 fraction bits for f16, 27 for f32: block floating point); the weighted sum is then
//       exact, and rounded to the texel format (f16 or f32) to nearest, ties away from zero.
//     Point-sampled u8 reads as v / 255.
//     (Fitted with a standalone program over those goldens; they stay the reference.)
//   - sust.b / suld.b: x in bytes. .zero drops an out-of-range store (a load reads zeros),
//     .clamp moves the access to the nearest in-range position, .trap fails the launch.
//   - sust.p: x in elements; each 32-bit component is converted to the format: f32 as is,
//     f16 by round-to-nearest-even, u32 as is, and u8 as the unsigned-integer format a CUDA
//     UNSIGNED_INT8 array is: the component's bits read as a u32 and clamped to 255 (the golden
//     sust_p_* cases: every non-zero float stores 0xff).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#texture-instructions

#include "compiler/translate/host_abi.hpp"

#include "compiler/cpu/simt_block.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

using d4r::compiler::cpu::k_no_site;
using d4r::compiler::cpu::SimtBlock;

enum class Mode : uint32_t { zero = 0, clamp = 1, trap = 2 };

const d4r_host_image& image_of(uint64_t handle)
{
  assert(handle != 0 && "null image handle");
  return *reinterpret_cast<const d4r_host_image*>(static_cast<uintptr_t>(handle));
}

int64_t element_bytes(uint32_t format)
{
  switch (format) {
  case d4r_image_u8:
    return 1;
  case d4r_image_f16:
    return 2;
  case d4r_image_f32:
  case d4r_image_u32:
    return 4;
  }
  return 4;
}

int64_t texel_bytes(const d4r_host_image& image)
{
  return element_bytes(image.format) * image.channels;
}

float half_to_float(uint16_t h)
{
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    // Subnormal or zero: mantissa * 2^-24, exact in f32.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// f32 -> f16 bits, round to nearest even; NaN -> 0x7fff (NVIDIA's canonical f16 NaN).
uint16_t float_to_half(float f)
{
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    return 0x7fff;
  }
  if (magnitude >= 0x477ff000u) { // rounds to 65536 or more: infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (magnitude < 0x38800000u) { // below 2^-14: a subnormal f16 (or zero)
    // Exact: the value times 2^24 in double, then round to nearest even.
    const double scaled = static_cast<double>(std::bit_cast<float>(magnitude)) * 16777216.0;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  const uint32_t exponent = (magnitude >> 23) - 112;
  uint32_t result = (exponent << 10) | ((magnitude >> 13) & 0x3ffu);
  const uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (result & 1u) != 0)) {
    ++result; // a carry into the exponent is right, up to infinity
  }
  return static_cast<uint16_t>(sign | result);
}

// sust.p to a CUDA UNSIGNED_INT8 channel: the component's bits as a u32, clamped to 255.
uint8_t component_to_u8(uint32_t bits)
{
  return static_cast<uint8_t>(std::min<uint32_t>(bits, 255));
}

float read_channel(const uint8_t* texel, uint32_t format, uint32_t channel)
{
  switch (format) {
  case d4r_image_u8:
    return static_cast<float>(texel[channel]) / 255.0f;
  case d4r_image_f16: {
    uint16_t h = 0;
    std::memcpy(&h, texel + channel * 2, 2);
    return half_to_float(h);
  }
  case d4r_image_f32:
  case d4r_image_u32: {
    float f = 0;
    std::memcpy(&f, texel + channel * 4, 4);
    return f;
  }
  }
  return 0.0f;
}

// The texel index after the address mode; false for a border texel.
bool address(int64_t index, int64_t size, uint32_t mode, int64_t& out)
{
  switch (mode) {
  case 1: { // wrap
    out = ((index % size) + size) % size;
    return true;
  }
  case 2: { // mirror
    const int64_t period = 2 * size;
    const int64_t m = ((index % period) + period) % period;
    out = m < size ? m : period - 1 - m;
    return true;
  }
  case 3: // border
    out = index;
    return index >= 0 && index < size;
  default: // 0 clamp
    out = std::clamp<int64_t>(index, 0, size - 1);
    return true;
  }
}

// One texel after the address mode, per channel: its raw bits (the u8 byte, the f16, f32 or u32
// bits) and its value (u8 normalised; f16, f32 and u32 as f32); all zero for a border texel. A
// channel the format lacks reads 0.
struct Texel {
  std::array<uint32_t, 4> raw{};
  std::array<float, 4> value{}; // kept as f32: a signalling NaN must not be quieted
};

Texel fetch(const d4r_host_image& image, int64_t i, int64_t j)
{
  Texel out;
  int64_t x = 0;
  int64_t y = 0;
  if (!address(i, image.width, image.address, x) || !address(j, image.height, image.address, y)) {
    return out;
  }
  const uint8_t* texel = image.data + y * int64_t{image.pitch} + x * texel_bytes(image);
  const int64_t bytes = element_bytes(image.format);
  for (uint32_t c = 0; c < 4 && c < image.channels; ++c) {
    std::memcpy(&out.raw[c], texel + c * bytes, static_cast<size_t>(bytes)); // little-endian
    out.value[c] = read_channel(texel, image.format, c);
  }
  return out;
}

// floor(v) as an index, with NaN and huge values kept in a range every address mode handles.
int64_t floor_index(float v)
{
  if (std::isnan(v)) {
    return 0;
  }
  return static_cast<int64_t>(std::floor(std::clamp(v, -1.0e9f, 1.0e9f)));
}

// The texel index and 8-bit fraction (0..255) of a filter coordinate xb = x - 0.5.
int64_t filter_fraction(float v, int64_t& index)
{
  if (std::isnan(v)) {
    index = 0;
    return 0;
  }
  const double clamped = std::clamp(static_cast<double>(v), -1.0e9, 1.0e9);
  const double base = std::floor(clamped);
  index = static_cast<int64_t>(base);
  const auto fraction = static_cast<int64_t>(std::floor((clamped - base) * 256.0 + 0.5));
  if (fraction == 256) {
    ++index;
    return 0;
  }
  return fraction;
}

// The value nearest to `v` in f16 (`half`) or f32, ties away from zero.
float round_ties_away(double v, bool half)
{
  if (std::isnan(v) || std::isinf(v) || v == 0.0) {
    return static_cast<float>(v);
  }
  const int exponent = std::max(std::ilogb(v), half ? -14 : -126);
  const double ulp = std::ldexp(1.0, exponent - (half ? 10 : 23));
  const double units = std::fabs(v) / ulp; // exact: a power-of-two scale
  const double rounded = std::copysign(std::floor(units + 0.5) * ulp, v);
  if (half && std::fabs(rounded) > 65504.0) {
    return std::copysign(INFINITY, static_cast<float>(v));
  }
  return static_cast<float>(rounded); // exact for f32; f16 values are exact in f32
}

// One channel of the four texels, weighted (see the file comment).
float filter_channel(uint32_t format, const std::array<uint32_t, 4>& raw,
                     const std::array<double, 4>& values, const std::array<int64_t, 4>& weights)
{
  if (format == d4r_image_u8) {
    int64_t sum = 0;
    for (size_t k = 0; k < 4; ++k) {
      sum += weights[k] * static_cast<int64_t>(raw[k]) * 257;
    }
    return static_cast<float>((sum + 128) >> 8) / 65535.0f;
  }
  const bool half = format == d4r_image_f16;
  double largest = 0.0;
  for (double v : values) {
    largest = std::max(largest, std::fabs(v));
  }
  std::array<double, 4> aligned = values;
  if (largest > 0.0 && std::isfinite(largest)) {
    const double scale = std::ldexp(1.0, (half ? 14 : 27) - std::ilogb(largest));
    for (double& v : aligned) {
      v = std::trunc(v * scale) / scale;
    }
  }
  double sum = 0.0; // exact: at most 28 + 9 + 2 bits
  for (size_t k = 0; k < 4; ++k) {
    sum += static_cast<double>(weights[k]) * aligned[k];
  }
  return round_ties_away(sum / 256.0, half);
}

void trap(d4r_host_thread* thread, const std::string& reason)
{
  assert(thread != nullptr && thread->runtime != nullptr && ".trap outside a launch");
  static_cast<SimtBlock*>(thread->runtime)->trap(thread, k_no_site, reason);
}

std::string describe(const char* op, int64_t x, int64_t y, const d4r_host_image& image)
{
  return std::string(op) + " out of range: x " + std::to_string(x) + ", y " + std::to_string(y) +
         " (image " + std::to_string(image.width) + "x" + std::to_string(image.height) + ", " +
         std::to_string(texel_bytes(image)) + " bytes a texel)";
}

// Resolves a byte-addressed access of `bytes` at (x, y): the address, or null when it is dropped
// (.zero, an unknown mode, or an empty image).
uint8_t* surface_address(d4r_host_thread* thread, const d4r_host_image& image, int64_t x, int64_t y,
                         int64_t bytes, uint32_t mode, const char* op)
{
  const int64_t row_bytes = int64_t{image.width} * texel_bytes(image);
  const bool inside = x >= 0 && x + bytes <= row_bytes && y >= 0 && y < image.height;
  if (inside) {
    return image.data + y * int64_t{image.pitch} + x;
  }
  if (mode == static_cast<uint32_t>(Mode::trap)) {
    trap(thread, describe(op, x, y, image));
    return nullptr;
  }
  if (mode != static_cast<uint32_t>(Mode::clamp) || row_bytes < bytes || image.height == 0) {
    return nullptr;
  }
  x = std::clamp<int64_t>(x, 0, row_bytes - bytes);
  y = std::clamp<int64_t>(y, 0, int64_t{image.height} - 1);
  return image.data + y * int64_t{image.pitch} + x;
}

// One layer of a layered image as a 2D image. The index is unsigned and clamped to the last layer
// (golden cases tex_layered_*: a negative index reads the last layer, as a large one does).
d4r_host_image layer_of(const d4r_host_image& image, int32_t layer)
{
  d4r_host_image view = image;
  const int64_t last = image.layers > 0 ? int64_t{image.layers} - 1 : 0;
  const int64_t index = std::min<int64_t>(static_cast<uint32_t>(layer), last);
  view.data += index * int64_t{image.height} * int64_t{image.pitch};
  view.layers = 0;
  return view;
}

// tex.2d / tex.a2d with float results on one 2D image.
void sample_2d(const d4r_host_image& image, float x, float y, float* out4)
{
  if (image.width == 0 || image.height == 0) {
    out4[0] = out4[1] = out4[2] = out4[3] = 0.0f;
    return;
  }
  if (image.normalized != 0) {
    x *= static_cast<float>(image.width);
    y *= static_cast<float>(image.height);
  }
  if (image.filter == 0) {
    const Texel texel = fetch(image, floor_index(x), floor_index(y));
    for (size_t c = 0; c < 4; ++c) {
      out4[c] = texel.value[c];
    }
    return;
  }
  int64_t i = 0;
  int64_t j = 0;
  const int64_t a = filter_fraction(x - 0.5f, i);
  const int64_t b = filter_fraction(y - 0.5f, j);
  const int64_t w11 = (a * b + 128) >> 8;
  const std::array<int64_t, 4> weights = {256 - a - b + w11, a - w11, b - w11, w11};
  const std::array<Texel, 4> texels = {fetch(image, i, j), fetch(image, i + 1, j),
                                       fetch(image, i, j + 1), fetch(image, i + 1, j + 1)};
  for (size_t c = 0; c < 4; ++c) {
    if (c >= image.channels) {
      out4[c] = 0.0f;
      continue;
    }
    const std::array<uint32_t, 4> raw = {texels[0].raw[c], texels[1].raw[c], texels[2].raw[c],
                                         texels[3].raw[c]};
    const std::array<double, 4> values = {texels[0].value[c], texels[1].value[c],
                                          texels[2].value[c], texels[3].value[c]};
    out4[c] = filter_channel(image.format, raw, values, weights);
  }
}

} // namespace

extern "C" void d4r_rt_tex_2d_f32(d4r_host_thread* /*thread*/, uint64_t handle, float x, float y,
                                  float* out4)
{
  sample_2d(image_of(handle), x, y, out4);
}

extern "C" void d4r_rt_tex_a2d_f32(d4r_host_thread* /*thread*/, uint64_t handle, int32_t layer,
                                   float x, float y, float* out4)
{
  sample_2d(layer_of(image_of(handle), layer), x, y, out4);
}

extern "C" void d4r_rt_tex_int(d4r_host_thread* /*thread*/, uint64_t handle, int32_t layer, float x,
                               float y, uint32_t* out4)
{
  const d4r_host_image image = layer_of(image_of(handle), layer);
  if (image.width == 0 || image.height == 0) {
    out4[0] = out4[1] = out4[2] = out4[3] = 0;
    return;
  }
  if (image.normalized != 0) {
    x *= static_cast<float>(image.width);
    y *= static_cast<float>(image.height);
  }
  const Texel texel = fetch(image, floor_index(x), floor_index(y));
  for (size_t c = 0; c < 4; ++c) {
    out4[c] = texel.raw[c];
  }
}

extern "C" void d4r_rt_sust_b_2d(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes,
                                 int32_t y, const void* data, uint32_t bytes, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  uint8_t* target = surface_address(thread, image, x_bytes, y, bytes, mode, "sust.b.2d");
  if (target != nullptr) {
    std::memcpy(target, data, bytes);
  }
}

extern "C" void d4r_rt_suld_b_2d(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes,
                                 int32_t y, void* data, uint32_t bytes, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  const uint8_t* source = surface_address(thread, image, x_bytes, y, bytes, mode, "suld.b.2d");
  if (source != nullptr) {
    std::memcpy(data, source, bytes);
  } else {
    std::memset(data, 0, bytes);
  }
}

extern "C" void d4r_rt_sust_p_2d(d4r_host_thread* thread, uint64_t handle, int32_t x, int32_t y,
                                 const uint32_t* data4, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  const int64_t texel = texel_bytes(image);
  uint8_t* target = surface_address(thread, image, int64_t{x} * texel, y, texel, mode, "sust.p.2d");
  if (target == nullptr) {
    return;
  }
  for (uint32_t c = 0; c < image.channels && c < 4; ++c) {
    switch (image.format) {
    case d4r_image_u8:
      target[c] = component_to_u8(data4[c]);
      break;
    case d4r_image_f16: {
      const uint16_t h = float_to_half(std::bit_cast<float>(data4[c]));
      std::memcpy(target + c * 2, &h, 2);
      break;
    }
    case d4r_image_f32:
    case d4r_image_u32:
      std::memcpy(target + c * 4, &data4[c], 4);
      break;
    }
  }
}
