#include "compiler/cpu/launch_case.hpp"

#include "compiler/translate/tensor_map_layout.hpp"
// HostLaunch: a launch case's inputs and outputs as host memory for the CPU executor (buffers,
// d4r_host_image handles, tensor maps in our layout, the .param block with their addresses). Beside launch_case.cpp, which
// the GPU recording tool compiles too, because only the host needs it.

#include <cstring>
#include <memory>
#include <vector>

namespace d4r::compiler::cpu {

std::unique_ptr<HostLaunch> HostLaunch::create(const LaunchCase& launch_case)
{
  std::unique_ptr<HostLaunch> launch(new HostLaunch());
  launch->m_outputs.resize(launch_case.outputs.size());
  int64_t total = 0;
  const std::vector<ParamSlot> slots = param_layout(launch_case, &total);
  launch->m_params.assign(static_cast<size_t>(total), std::byte{0});
  std::vector<uint64_t> placed(launch_case.params.size(), 0);
  for (size_t i = 0; i < launch_case.params.size(); ++i) {
    const Param& param = launch_case.params[i];
    if (!param.is_struct && param.arg.kind == ArgKind::tensor_map) {
      continue; // below, once the buffer it maps has its address
    }
    if (!param.is_struct) {
      placed[i] = launch->place(param.arg);
      std::memcpy(launch->m_params.data() + slots[i].offset, &placed[i], static_cast<size_t>(slots[i].size));
      continue;
    }
    for (const Field& field : param.fields) {
      const uint64_t bits = launch->place(field.arg);
      const int64_t size = field.arg.kind == ArgKind::scalar ? element_size(field.arg.scalar.type) : 8;
      std::memcpy(launch->m_params.data() + slots[i].offset + field.offset, &bits, static_cast<size_t>(size));
    }
  }
  for (const TexrefSpec& texref : launch_case.texrefs) {
    Arg arg;
    arg.kind = ArgKind::image;
    arg.image = texref.image;
    launch->m_texrefs.push_back(launch->place(arg));
  }
  for (size_t i = 0; i < launch_case.params.size(); ++i) {
    const Param& param = launch_case.params[i];
    if (!param.is_struct && param.arg.kind == ArgKind::tensor_map) {
      const TensorMapSpec& spec = param.arg.tensor_map;
      const std::array<std::byte, 128> map = host_tensor_map(spec, placed.at(static_cast<size_t>(spec.buffer_param)));
      std::memcpy(launch->m_params.data() + slots[i].offset, map.data(), map.size());
    }
  }
  return launch;
}

uint64_t HostLaunch::place(const Arg& arg)
{
  if (arg.kind == ArgKind::scalar) {
    return arg.scalar.bits;
  }
  if (arg.kind == ArgKind::buffer) {
    const BufferSpec& spec = arg.buffer;
    m_buffers.push_back(std::make_unique<std::vector<std::byte>>(generate_fill(
        spec.direction == Direction::out ? Fill{} : spec.fill, spec.type, spec.count)));
    if (arg.output_index >= 0) {
      m_outputs[static_cast<size_t>(arg.output_index)] = m_buffers.back().get();
    }
    return reinterpret_cast<uint64_t>(m_buffers.back()->data());
  }
  const ImageSpec& spec = arg.image;
  std::unique_ptr<Image> image = std::make_unique<Image>();
  image->data = generate_image(spec);
  image->header = host_image_header(spec);
  image->header.data = reinterpret_cast<uint8_t*>(image->data.data());
  if (arg.output_index >= 0) {
    m_outputs[static_cast<size_t>(arg.output_index)] = &image->data;
  }
  m_images.push_back(std::move(image));
  return reinterpret_cast<uint64_t>(&m_images.back()->header);
}

std::array<std::byte, 128> host_tensor_map(const TensorMapSpec& spec, uint64_t address)
{
  d4r_tensor_map map{};
  map.global_address = address;
  map.magic = D4R_TENSOR_MAP_MAGIC;
  for (size_t i = 0; i < 5; ++i) {
    map.global_dim[i] = static_cast<uint32_t>(spec.dims[i]);
    map.box_dim[i] = spec.box[i];
    map.element_stride[i] = spec.element_strides[i];
  }
  for (size_t i = 0; i < 4; ++i) {
    map.global_stride[i] = spec.strides[i];
  }
  map.rank = static_cast<uint8_t>(spec.rank);
  static constexpr struct {
    ElementType type;
    uint8_t code;
  } k_codes[] = {{ElementType::u8, D4R_TMAP_U8},   {ElementType::u16, D4R_TMAP_U16}, {ElementType::u32, D4R_TMAP_U32},
                 {ElementType::s32, D4R_TMAP_S32}, {ElementType::u64, D4R_TMAP_U64}, {ElementType::s64, D4R_TMAP_S64},
                 {ElementType::f16, D4R_TMAP_F16}, {ElementType::f32, D4R_TMAP_F32}, {ElementType::f64, D4R_TMAP_F64},
                 {ElementType::bf16, D4R_TMAP_BF16}};
  for (const auto& entry : k_codes) {
    map.element_type = entry.type == spec.type ? entry.code : map.element_type;
  }
  map.interleave = static_cast<uint8_t>(spec.interleave);
  map.swizzle = static_cast<uint8_t>(spec.swizzle);
  map.l2_promotion = static_cast<uint8_t>(spec.l2_promotion);
  map.fill = static_cast<uint8_t>(spec.fill);
  map.mode = spec.im2col ? D4R_TMAP_MODE_IM2COL : D4R_TMAP_MODE_TILE;
  if (spec.im2col) { // what ZLUDA's cuTensorMapEncodeIm2col writes: no box, the pixel box instead
    for (size_t i = 0; i < 5; ++i) {
      map.box_dim[i] = 1;
    }
    for (size_t i = 0; i < 3; ++i) {
      map.lower_corner[i] = static_cast<int16_t>(spec.lower[i]);
      map.upper_corner[i] = static_cast<int16_t>(spec.upper[i]);
    }
    map.channels_per_pixel = static_cast<uint16_t>(spec.channels);
    map.pixels_per_column = static_cast<uint16_t>(spec.pixels);
  }
  std::array<std::byte, 128> bytes{};
  std::memcpy(bytes.data(), &map, sizeof(map));
  return bytes;
}

std::span<const std::byte> HostLaunch::output_bytes(int64_t output_index) const
{
  const std::vector<std::byte>* bytes = m_outputs.at(static_cast<size_t>(output_index));
  return {bytes->data(), bytes->size()};
}

} // namespace d4r::compiler::cpu
