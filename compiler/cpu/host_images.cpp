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
//       largest magnitude among those of non-zero weight (img_tex_grad_cube showed a texel of
//       weight 0 does not count) and truncated (toward zero) to 4 bits below its last mantissa bit
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
//   - Other geometries (goldens img_tex_*): 1D samples one row with weights (256 - a, a); 3D
//     takes the eight texels around the point with weights split hierarchically: z's fraction c
//     splits 256 into the slices (256 - c, c) exactly, x's fraction each slice total T into
//     C1 = (T * a + 128) >> 8 and T - C1, y's fraction each of those the same way; f16/f32 texels
//     are aligned per z slice (four texels), and with clamp a coordinate past the first or last
//     texel centre has fraction 0 (img_tex_3d_f16x4_linear, all 256 samples: the clamp rule and
//     the order z, x, y only show in 3D). a1d and acube clamp their layer as a2d does.
//     A cube direction picks the face of its largest component (z before y before x on ties) and
//     the face coordinates (sc / |ma| + 1) / 2, as CUDA's cube map table lists them; each face is
//     then sampled as a 2D texture with normalised coordinates and clamp (filtering does not cross
//     face edges here).
//   - Integer coordinates (.s32) are texel indices, point-sampled, with no address mode and no
//     normalisation: a texel outside reads 0; on a 1D array (not a buffer texture) every read is
//     0 (img_tex_int_coords*). Offsets are 4-bit signed (-8..7, larger ones wrap) and added to
//     the texel index, after normalised coordinates are scaled (img_tex_offset_*).
//   - A buffer texture (tex1Dfetch) reads 0 past its end. tld4 returns the channel of the four
//     texels the bilinear footprint takes, in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
//     f16x2 results are the f32 results rounded to f16 (nearest even).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#texture-instructions

#include "compiler/cpu/host_image_support.hpp"

#include "compiler/cpu/simt_block.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace d4r::compiler::cpu::images {

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

int64_t slice_count(const d4r_host_image& image)
{
  const int64_t layers = image.layers > 0 ? image.layers : 1;
  if (image.shape == d4r_shape_3d) {
    return std::max<int64_t>(image.depth, 1);
  }
  return image.shape == d4r_shape_cube ? 6 * layers : layers;
}

int64_t slice_bytes(const d4r_host_image& image)
{
  return int64_t{image.height} * int64_t{image.pitch};
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

void trap(d4r_host_thread* thread, const std::string& reason)
{
  assert(thread != nullptr && thread->runtime != nullptr && ".trap outside a launch");
  static_cast<SimtBlock*>(thread->runtime)->trap(thread, k_no_site, reason);
}

} // namespace d4r::compiler::cpu::images

namespace {

using namespace d4r::compiler::cpu::images;

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

// A 1D, 2D or 3D grid of texels to sample: one layer (face) of an image, `dims` axes of it.
struct Grid {
  const d4r_host_image* image = nullptr;
  const uint8_t* data = nullptr; // the first texel of the layer
  int dims = 2;
  std::array<int64_t, 3> size{1, 1, 1};
  uint32_t address = 0;
  bool buffer = false;           // a linear-memory texture: 0 past the end, no address mode
};

Texel fetch(const Grid& grid, const std::array<int64_t, 3>& index)
{
  Texel out;
  std::array<int64_t, 3> at{0, 0, 0};
  for (int d = 0; d < grid.dims; ++d) {
    const size_t axis = static_cast<size_t>(d);
    if (grid.buffer) {
      if (index[axis] < 0 || index[axis] >= grid.size[axis]) {
        return out;
      }
      at[axis] = index[axis];
    } else if (!address(index[axis], grid.size[axis], grid.address, at[axis])) {
      return out;
    }
  }
  const d4r_host_image& image = *grid.image;
  const uint8_t* texel = grid.data + at[2] * slice_bytes(image) + at[1] * int64_t{image.pitch} +
                         at[0] * texel_bytes(image);
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

// One channel of `count` texels, weighted (see the file comment). f16 and f32 texels are aligned
// per group of `group` texels (a 3D filter aligns each z slice by itself).
float filter_channel(uint32_t format, const Texel* texels, const int64_t* weights, size_t count,
                     size_t channel, size_t group)
{
  if (format == d4r_image_u8) {
    int64_t sum = 0;
    for (size_t k = 0; k < count; ++k) {
      sum += weights[k] * static_cast<int64_t>(texels[k].raw[channel]) * 257;
    }
    return static_cast<float>((sum + 128) >> 8) / 65535.0f;
  }
  const bool half = format == d4r_image_f16;
  double sum = 0.0; // exact: at most 28 + 9 + 3 bits, and two groups of one exponent range
  for (size_t first = 0; first < count; first += group) {
    double largest = 0.0;
    for (size_t k = first; k < first + group; ++k) {
      // A texel of weight 0 takes no part in the alignment (img_tex_grad_cube: one f32 sample).
      if (weights[k] != 0) {
        largest = std::max(largest, std::fabs(static_cast<double>(texels[k].value[channel])));
      }
    }
    const double scale = largest > 0.0 && std::isfinite(largest)
                             ? std::ldexp(1.0, (half ? 14 : 27) - std::ilogb(largest))
                             : 0.0;
    for (size_t k = first; k < first + group; ++k) {
      const double v = texels[k].value[channel];
      sum += static_cast<double>(weights[k]) * (scale != 0.0 ? std::trunc(v * scale) / scale : v);
    }
  }
  return round_ties_away(sum / 256.0, half);
}

// The eight 3D weights (index bit 0 x, bit 1 y, bit 2 z), integers summing to 256: the z
// fraction c splits 256 exactly into the slices (256 - c, c); each slice's total T is split by
// x's fraction a, C1 = (T * a + 128) >> 8, and each column by y's fraction b the same way
// (img_tex_3d_f16x4_linear: all 256 samples).
std::array<int64_t, 8> weights_3d(int64_t a, int64_t b, int64_t c)
{
  std::array<int64_t, 8> weights{};
  for (size_t z = 0; z < 2; ++z) {
    const int64_t total = z == 1 ? c : 256 - c;
    const int64_t column1 = (total * a + 128) >> 8;
    const int64_t column0 = total - column1;
    const int64_t upper1 = (column1 * b + 128) >> 8;
    const int64_t upper0 = (column0 * b + 128) >> 8;
    weights[4 * z + 0] = column0 - upper0;
    weights[4 * z + 1] = column1 - upper1;
    weights[4 * z + 2] = upper0;
    weights[4 * z + 3] = upper1;
  }
  return weights;
}

// The point-sampled texel index of each axis (coordinates already scaled to texels).
std::array<int64_t, 3> point_index(const Grid& grid, const std::array<float, 3>& x,
                                   const std::array<int32_t, 3>& offsets)
{
  std::array<int64_t, 3> index{0, 0, 0};
  for (size_t d = 0; d < static_cast<size_t>(grid.dims); ++d) {
    index[d] = floor_index(x[d]) + offsets[d];
  }
  return index;
}

// Linear filtering over 2, 4 or 8 texels (file comment); out4 gets the channels.
void filter(const Grid& grid, const std::array<float, 3>& x, const std::array<int32_t, 3>& offsets,
            float* out4)
{
  std::array<int64_t, 3> base{0, 0, 0};
  std::array<int64_t, 3> fraction{0, 0, 0};
  for (size_t d = 0; d < static_cast<size_t>(grid.dims); ++d) {
    fraction[d] = filter_fraction(x[d] - 0.5f, base[d]);
    base[d] += offsets[d];
    // Clamp acts on the coordinate: past the first or last texel centre the fraction is 0 (both
    // texels of the axis are the edge texel). Only 3D weights can tell (img_tex_3d_f16x4_linear);
    // 1D and 2D weights of two equal texels add up to the same either way.
    if (grid.address == 0 && !grid.buffer && (base[d] < 0 || base[d] >= grid.size[d] - 1)) {
      fraction[d] = 0;
    }
  }
  const int64_t a = fraction[0];
  const int64_t b = grid.dims >= 2 ? fraction[1] : 0;
  const int64_t w11 = (a * b + 128) >> 8;
  const std::array<int64_t, 4> plane = {256 - a - b + w11, a - w11, b - w11, w11};
  const std::array<int64_t, 8> weights =
      grid.dims == 3 ? weights_3d(a, b, fraction[2])
                     : std::array<int64_t, 8>{plane[0], plane[1], plane[2], plane[3], 0, 0, 0, 0};
  std::array<Texel, 8> texels{};
  const size_t count = size_t{1} << grid.dims;
  for (size_t k = 0; k < count; ++k) {
    texels[k] = fetch(grid, {base[0] + int64_t(k & 1), base[1] + int64_t((k >> 1) & 1),
                             base[2] + int64_t((k >> 2) & 1)});
  }
  const size_t group = std::min<size_t>(count, 4); // a 3D filter aligns each z slice by itself
  for (size_t c = 0; c < 4; ++c) {
    out4[c] = c < grid.image->channels
                  ? filter_channel(grid.image->format, texels.data(), weights.data(), count, c, group)
                  : 0.0f;
  }
}

// A layer index as NVIDIA reads it: unsigned, clamped to the last layer (goldens tex_layered_*).
int64_t clamp_layer(const d4r_host_image& image, int32_t layer)
{
  const int64_t last = image.layers > 0 ? int64_t{image.layers} - 1 : 0;
  return std::min<int64_t>(static_cast<uint32_t>(layer), last);
}

// The grid an instruction of `geometry` samples, at `layer` (and cube `face`).
Grid grid_of(const d4r_host_image& image, uint32_t geometry, int32_t layer, int64_t face)
{
  Grid grid;
  grid.image = &image;
  grid.data = image.data;
  grid.address = image.address;
  grid.buffer = image.shape == d4r_shape_buffer;
  grid.size = {image.width, image.height, std::max<int64_t>(image.depth, 1)};
  switch (geometry) {
  case d4r_geom_1d:
  case d4r_geom_a1d:
    grid.dims = 1;
    break;
  case d4r_geom_3d:
    grid.dims = 3;
    break;
  case d4r_geom_cube:
  case d4r_geom_acube:
    grid.address = 0; // clamp within the face
    break;
  default:
    break;
  }
  const bool layered = geometry == d4r_geom_a1d || geometry == d4r_geom_a2d || geometry == d4r_geom_acube;
  const bool cube = geometry == d4r_geom_cube || geometry == d4r_geom_acube;
  const int64_t index = (layered ? clamp_layer(image, layer) : 0) * (cube ? 6 : 1) + face;
  grid.data += index * slice_bytes(image);
  return grid;
}

struct CubeFace {
  int64_t face = 0;
  float s = 0.0f; // normalised face coordinates
  float t = 0.0f;
};

// The face a direction points at and the coordinates on it (CUDA's cube map table).
CubeFace cube_face(float x, float y, float z)
{
  const float ax = std::fabs(x);
  const float ay = std::fabs(y);
  const float az = std::fabs(z);
  float sc = 0.0f;
  float tc = 0.0f;
  float ma = 0.0f;
  CubeFace out;
  if (az >= ax && az >= ay) {
    out.face = z >= 0.0f ? 4 : 5;
    sc = z >= 0.0f ? x : -x;
    tc = -y;
    ma = az;
  } else if (ay >= ax) {
    out.face = y >= 0.0f ? 2 : 3;
    sc = x;
    tc = y >= 0.0f ? z : -z;
    ma = ay;
  } else {
    out.face = x >= 0.0f ? 0 : 1;
    sc = x >= 0.0f ? -z : z;
    tc = -y;
    ma = ax;
  }
  out.s = (sc / ma + 1.0f) * 0.5f;
  out.t = (tc / ma + 1.0f) * 0.5f;
  return out;
}

// tld4: channel `channel` of the four texels of the bilinear footprint.
void gather(const Grid& grid, const std::array<float, 3>& x, const std::array<int32_t, 3>& offsets,
            size_t channel, bool integer, uint32_t* out4)
{
  int64_t i = 0;
  int64_t j = 0;
  filter_fraction(x[0] - 0.5f, i);
  filter_fraction(x[1] - 0.5f, j);
  i += offsets[0];
  j += offsets[1];
  const std::array<std::array<int64_t, 2>, 4> order = {{{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}}};
  for (size_t k = 0; k < 4; ++k) {
    const Texel texel = fetch(grid, {order[k][0], order[k][1], 0});
    out4[k] = integer ? texel.raw[channel] : std::bit_cast<uint32_t>(texel.value[channel]);
  }
}

void sample(const d4r_host_image& image, const d4r_host_tex_request& request, uint32_t* out4)
{
  std::array<float, 3> x{};
  int64_t face = 0;
  const bool integer_coords = (request.flags & d4r_tex_integer_coords) != 0;
  for (size_t d = 0; d < 3; ++d) {
    x[d] = integer_coords ? static_cast<float>(static_cast<int32_t>(request.coords[d]))
                          : std::bit_cast<float>(request.coords[d]);
  }
  const bool cube = request.geometry == d4r_geom_cube || request.geometry == d4r_geom_acube;
  bool normalized = image.normalized != 0 && !integer_coords;
  if (cube) {
    const CubeFace on = cube_face(x[0], x[1], x[2]);
    face = on.face;
    x = {on.s, on.t, 0.0f};
    normalized = true;
  }
  const Grid grid = grid_of(image, request.geometry, request.layer, face);
  if (normalized) {
    for (size_t d = 0; d < static_cast<size_t>(grid.dims); ++d) {
      x[d] *= static_cast<float>(grid.size[d]);
    }
  }
  // Texel offsets are 4-bit signed fields (-8..7): larger ones wrap (img_tex_offset_*).
  std::array<int32_t, 3> offsets{};
  for (size_t d = 0; d < 3; ++d) {
    offsets[d] = ((request.offsets[d] + 8) & 15) - 8;
  }
  const bool integer_result = (request.flags & d4r_tex_integer_result) != 0;
  if (request.gather >= 0) {
    gather(grid, x, offsets, static_cast<size_t>(request.gather), integer_result, out4);
    return;
  }
  if (image.filter == 1 && !integer_coords && !integer_result && !grid.buffer) {
    std::array<float, 4> values{};
    filter(grid, x, offsets, values.data());
    std::memcpy(out4, values.data(), sizeof(values));
    return;
  }
  std::array<int64_t, 3> index = integer_coords ? std::array<int64_t, 3>{static_cast<int32_t>(request.coords[0]),
                                                                         static_cast<int32_t>(request.coords[1]),
                                                                         static_cast<int32_t>(request.coords[2])}
                                                : point_index(grid, x, offsets);
  Grid target = grid;
  if (integer_coords) {
    // Texel indices: no address mode, a texel outside reads 0; a 1D array read so is a buffer
    // fetch of a texture that is not one, 0 everywhere (img_tex_int_coords*).
    for (size_t d = 0; d < 3; ++d) {
      index[d] += offsets[d];
    }
    if (grid.dims == 1 && !grid.buffer) {
      std::memset(out4, 0, 4 * sizeof(uint32_t));
      return;
    }
    target.buffer = true;
  }
  const Texel texel = fetch(target, index);
  for (size_t c = 0; c < 4; ++c) {
    out4[c] = integer_result ? texel.raw[c] : std::bit_cast<uint32_t>(texel.value[c]);
  }
}

} // namespace

extern "C" void d4r_rt_tex(d4r_host_thread* /*thread*/, uint64_t handle, const d4r_host_tex_request* request,
                           uint32_t* out4)
{
  const d4r_host_image& image = image_of(handle);
  if (image.width == 0 || image.height == 0) {
    out4[0] = out4[1] = out4[2] = out4[3] = 0;
    return;
  }
  std::array<uint32_t, 4> words{};
  sample(image, *request, words.data());
  if ((request->flags & d4r_tex_half_result) != 0) {
    for (size_t k = 0; k < 2; ++k) {
      const uint32_t lo = float_to_half(std::bit_cast<float>(words[2 * k]));
      const uint32_t hi = float_to_half(std::bit_cast<float>(words[2 * k + 1]));
      out4[k] = lo | (hi << 16);
    }
    out4[2] = out4[3] = 0;
    return;
  }
  std::memcpy(out4, words.data(), sizeof(words));
}

namespace {

d4r_host_tex_request request_2d(uint32_t geometry, int32_t layer, float x, float y, uint32_t flags)
{
  d4r_host_tex_request request{};
  request.geometry = geometry;
  request.flags = flags;
  request.layer = layer;
  request.gather = -1;
  request.coords[0] = std::bit_cast<uint32_t>(x);
  request.coords[1] = std::bit_cast<uint32_t>(y);
  return request;
}

} // namespace

extern "C" void d4r_rt_tex_2d_f32(d4r_host_thread* thread, uint64_t handle, float x, float y, float* out4)
{
  const d4r_host_tex_request request = request_2d(d4r_geom_2d, 0, x, y, 0);
  d4r_rt_tex(thread, handle, &request, reinterpret_cast<uint32_t*>(out4));
}

extern "C" void d4r_rt_tex_a2d_f32(d4r_host_thread* thread, uint64_t handle, int32_t layer, float x, float y,
                                   float* out4)
{
  const d4r_host_tex_request request = request_2d(d4r_geom_a2d, layer, x, y, 0);
  d4r_rt_tex(thread, handle, &request, reinterpret_cast<uint32_t*>(out4));
}

extern "C" void d4r_rt_tex_int(d4r_host_thread* thread, uint64_t handle, int32_t layer, float x, float y,
                               uint32_t* out4)
{
  const d4r_host_image& image = image_of(handle);
  const uint32_t geometry = image.layers > 0 ? d4r_geom_a2d : d4r_geom_2d;
  const d4r_host_tex_request request = request_2d(geometry, layer, x, y, d4r_tex_integer_result);
  d4r_rt_tex(thread, handle, &request, out4);
}
