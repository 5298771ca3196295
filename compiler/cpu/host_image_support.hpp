#pragma once
// What host_images.cpp (sampling) and host_surfaces.cpp (surface accesses, queries) share about a
// d4r_host_image (translate/host_abi.hpp): its geometry, texel formats, f16 conversion and traps.

#include "compiler/translate/host_abi.hpp"

#include <cstdint>
#include <string>

namespace d4r::compiler::cpu::images {

enum class Mode : uint32_t { zero = 0, clamp = 1, trap = 2 };

const d4r_host_image& image_of(uint64_t handle);
int64_t element_bytes(uint32_t format);
int64_t texel_bytes(const d4r_host_image& image);
// The 2D slices the image holds (3D slices, 6 faces per cube, layers), and the bytes of one.
int64_t slice_count(const d4r_host_image& image);
int64_t slice_bytes(const d4r_host_image& image);
float half_to_float(uint16_t h);
// f32 -> f16 bits, round to nearest even; NaN -> 0x7fff (NVIDIA's canonical f16 NaN).
uint16_t float_to_half(float f);
// Fails the launch (an out-of-range .trap access); never returns.
[[noreturn]] void trap(d4r_host_thread* thread, const std::string& reason);

} // namespace d4r::compiler::cpu::images
