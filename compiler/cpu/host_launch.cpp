#include "compiler/cpu/launch_case.hpp"
// HostLaunch: a launch case's inputs and outputs as host memory for the CPU executor (buffers,
// d4r_host_image handles, the .param block with their addresses). Beside launch_case.cpp, which
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
  for (size_t i = 0; i < launch_case.params.size(); ++i) {
    const Param& param = launch_case.params[i];
    if (!param.is_struct) {
      const uint64_t bits = launch->place(param.arg);
      std::memcpy(launch->m_params.data() + slots[i].offset, &bits, static_cast<size_t>(slots[i].size));
      continue;
    }
    for (const Field& field : param.fields) {
      const uint64_t bits = launch->place(field.arg);
      const int64_t size = field.arg.kind == ArgKind::scalar ? element_size(field.arg.scalar.type) : 8;
      std::memcpy(launch->m_params.data() + slots[i].offset + field.offset, &bits, static_cast<size_t>(size));
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

std::span<const std::byte> HostLaunch::output_bytes(int64_t output_index) const
{
  const std::vector<std::byte>* bytes = m_outputs.at(static_cast<size_t>(output_index));
  return {bytes->data(), bytes->size()};
}

} // namespace d4r::compiler::cpu
