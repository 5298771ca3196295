// Surfaces on the host (translate/host_abi.hpp's d4r_host_image), fitted to the H200 goldens
// (sust_*, surface_*, img_surf_*, img_sured_*), and the txq / suq queries (img_txq_*, img_suq):
//   - suld.b / sust.b: x in bytes, y the row, `slice` the 3D slice or the layer. .zero drops an
//     out-of-range store (a load reads zeros), .clamp moves each coordinate into range on its own,
//     .trap fails the launch.
//   - sust.p: x in texels; each 32-bit component is converted to the format: f32 as is,
//     f16 rounded toward zero (so a finite value past 65504 stores 65504), u32 as is, and u8 as
//     the unsigned-integer format a CUDA UNSIGNED_INT8 array is: the component's bits read as a
//     u32 and clamped to 255 (the golden sust_p_* cases: every non-zero float stores 0xff;
//     img_sust_p_shapes_*: the f16 rounding). .b32 and .v2.b32 store their components and 0 in
//     the channels past them (the lowering passes zeros); .v4.b32 the same (img_sust_p_v4_f16),
//     where a NaN keeps its sign and top ten payload bits. An infinity stays one (exact toward
//     zero; not among the goldens' inputs).
//   - sured.p min/max compare unsigned, .b32 and .b64 (img_sured_p_minmax).
//   - sured: an atomic read-modify-write of the texel word (32 or 64 bits) the coordinates reach
//     under the same modes; .p reads x in texels. Blocks run on several host threads, so the word
//     is updated with a compare-and-swap loop.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#surface-instructions

#include "compiler/cpu/host_image_support.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <string>

namespace {

using namespace d4r::compiler::cpu::images;

std::string describe(const char* op, int64_t x, int64_t y, int64_t slice, const d4r_host_image& image)
{
  return std::string(op) + " out of range: x " + std::to_string(x) + ", y " + std::to_string(y) +
         (slice != 0 ? ", slice " + std::to_string(slice) : std::string()) + " (image " +
         std::to_string(image.width) + "x" + std::to_string(image.height) + "x" +
         std::to_string(slice_count(image)) + ", " + std::to_string(texel_bytes(image)) + " bytes a texel)";
}

// Resolves a byte-addressed access of `bytes` at (x, y, slice): the address, or null when it is
// dropped (.zero, an unknown mode, or an empty image).
uint8_t* surface_address(d4r_host_thread* thread, const d4r_host_image& image, int64_t x, int64_t y,
                         int64_t slice, int64_t bytes, uint32_t mode, const char* op)
{
  const int64_t row_bytes = int64_t{image.width} * texel_bytes(image);
  const int64_t slices = slice_count(image);
  const bool inside = x >= 0 && x + bytes <= row_bytes && y >= 0 && y < image.height && slice >= 0 &&
                      slice < slices;
  if (!inside && mode == static_cast<uint32_t>(Mode::trap)) {
    trap(thread, describe(op, x, y, slice, image));
  }
  if (!inside) {
    if (mode != static_cast<uint32_t>(Mode::clamp) || row_bytes < bytes || image.height == 0) {
      return nullptr;
    }
    x = std::clamp<int64_t>(x, 0, row_bytes - bytes);
    y = std::clamp<int64_t>(y, 0, int64_t{image.height} - 1);
    slice = std::clamp<int64_t>(slice, 0, slices - 1);
  }
  return image.data + slice * slice_bytes(image) + y * int64_t{image.pitch} + x;
}

// sust.p to a CUDA HALF channel: rounded toward zero (img_sust_p_shapes_*).
uint16_t half_toward_zero(uint32_t bits)
{
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    // A NaN keeps its sign and the top ten payload bits, signalling or not (img_sust_p_v4_f16);
    // one with none of them set (not seen on the H200) keeps the quiet bit.
    const uint32_t payload = (magnitude >> 13) & 0x3ffu;
    return static_cast<uint16_t>(sign | 0x7c00u | (payload != 0 ? payload : 0x200u));
  }
  if (magnitude == 0x7f800000u) {
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (magnitude >= 0x47800000u) { // 65536 and more: toward zero, the largest half
    return static_cast<uint16_t>(sign | 0x7bffu);
  }
  if (magnitude < 0x38800000u) { // below 2^-14: a subnormal half (or zero), truncated
    const double scaled = static_cast<double>(std::bit_cast<float>(magnitude)) * 16777216.0;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(scaled));
  }
  const uint32_t exponent = (magnitude >> 23) - 112;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((magnitude >> 13) & 0x3ffu));
}

// sust.p to a CUDA UNSIGNED_INT8 channel: the component's bits as a u32, clamped to 255.
uint8_t component_to_u8(uint32_t bits)
{
  return static_cast<uint8_t>(std::min<uint32_t>(bits, 255));
}

template <typename T>
T combine(uint32_t op, T old, T value)
{
  switch (op) {
  case d4r_sured_add:
    return static_cast<T>(old + value);
  case d4r_sured_min:
    return std::min(old, value);
  case d4r_sured_max:
    return std::max(old, value);
  case d4r_sured_and:
    return static_cast<T>(old & value);
  case d4r_sured_or:
    return static_cast<T>(old | value);
  }
  return old;
}

template <typename T>
void reduce(uint8_t* target, uint32_t op, uint64_t value)
{
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  std::atomic_ref<Bits> word(*reinterpret_cast<Bits*>(target));
  Bits old = word.load(std::memory_order_relaxed);
  for (;;) {
    const T result = combine<T>(op, static_cast<T>(static_cast<Bits>(old)), static_cast<T>(static_cast<Bits>(value)));
    if (word.compare_exchange_weak(old, static_cast<Bits>(result), std::memory_order_relaxed)) {
      return;
    }
  }
}

} // namespace

extern "C" void d4r_rt_sust_b(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y, int32_t slice,
                              const void* data, uint32_t bytes, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  uint8_t* target = surface_address(thread, image, x_bytes, y, slice, bytes, mode, "sust.b");
  if (target != nullptr) {
    std::memcpy(target, data, bytes);
  }
}

extern "C" void d4r_rt_suld_b(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y, int32_t slice,
                              void* data, uint32_t bytes, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  const uint8_t* source = surface_address(thread, image, x_bytes, y, slice, bytes, mode, "suld.b");
  if (source != nullptr) {
    std::memcpy(data, source, bytes);
  } else {
    std::memset(data, 0, bytes);
  }
}

extern "C" void d4r_rt_sust_p(d4r_host_thread* thread, uint64_t handle, int32_t x, int32_t y, int32_t slice,
                              const uint32_t* data4, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  const int64_t texel = texel_bytes(image);
  uint8_t* target = surface_address(thread, image, int64_t{x} * texel, y, slice, texel, mode, "sust.p");
  if (target == nullptr) {
    return;
  }
  for (uint32_t c = 0; c < image.channels && c < 4; ++c) {
    switch (image.format) {
    case d4r_image_u8:
      target[c] = component_to_u8(data4[c]);
      break;
    case d4r_image_f16: {
      const uint16_t h = half_toward_zero(data4[c]);
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

extern "C" void d4r_rt_sured(d4r_host_thread* thread, uint64_t handle, uint32_t op, uint32_t type,
                             uint32_t formatted, int32_t x, int32_t y, int32_t slice, uint64_t value, uint32_t mode)
{
  const d4r_host_image& image = image_of(handle);
  const bool wide = type == d4r_sured_u64 || type == d4r_sured_s64;
  const int64_t bytes = wide ? 8 : 4;
  const int64_t x_bytes = formatted != 0 ? int64_t{x} * texel_bytes(image) : x;
  uint8_t* target = surface_address(thread, image, x_bytes, y, slice, bytes, mode, "sured");
  if (target == nullptr) {
    return;
  }
  switch (type) {
  case d4r_sured_u32:
    reduce<uint32_t>(target, op, value);
    break;
  case d4r_sured_s32:
    reduce<int32_t>(target, op, value);
    break;
  case d4r_sured_u64:
    reduce<uint64_t>(target, op, value);
    break;
  case d4r_sured_s64:
    reduce<int64_t>(target, op, value);
    break;
  }
}

extern "C" uint32_t d4r_rt_image_query(d4r_host_thread* /*thread*/, uint64_t handle, uint32_t query,
                                       uint32_t /*surface*/)
{
  const d4r_host_image& image = image_of(handle);
  switch (query) {
  case d4r_query_width:
    return image.width;
  case d4r_query_height: // 0 for a 1D image (H200: img_suq_height)
    return image.shape == d4r_shape_1d || image.shape == d4r_shape_buffer ? 0 : image.height;
  case d4r_query_depth: // a 3D image's depth, else its layers (cubes), 0 unlayered (img_*_depth)
    return image.shape == d4r_shape_3d ? image.depth : image.layers;
  case d4r_query_channel_data_type: // lower_image.cpp rejects these two
  case d4r_query_channel_order:
    return 0;
  case d4r_query_normalized_coords:
    return image.normalized;
  case d4r_query_filter_mode:
    return image.filter;
  case d4r_query_addr_mode_0:
  case d4r_query_addr_mode_1:
  case d4r_query_addr_mode_2:
    return image.address;
  case d4r_query_array_size:
    return image.layers;
  case d4r_query_num_mipmap_levels:
    return 1;
  case d4r_query_num_samples:
    return 1;
  case d4r_query_memory_layout:
    return 0;
  }
  return 0;
}

extern "C" void d4r_rt_sust_b_2d(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y,
                                 const void* data, uint32_t bytes, uint32_t mode)
{
  d4r_rt_sust_b(thread, handle, x_bytes, y, 0, data, bytes, mode);
}

extern "C" void d4r_rt_suld_b_2d(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y, void* data,
                                 uint32_t bytes, uint32_t mode)
{
  d4r_rt_suld_b(thread, handle, x_bytes, y, 0, data, bytes, mode);
}

extern "C" void d4r_rt_sust_p_2d(d4r_host_thread* thread, uint64_t handle, int32_t x, int32_t y,
                                 const uint32_t* data4, uint32_t mode)
{
  d4r_rt_sust_p(thread, handle, x, y, 0, data4, mode);
}
