#include "compiler/cpu/launch_case.hpp"
// The image part of the golden-vector case format (tests/golden/README.md: `texture` and
// `surface` lines): options, geometry and the generated texels. Compiled by the NVIDIA recording
// tool too (tools/golden/record.sh), so both sides see the same images.

#include <charconv>

namespace d4r::compiler::cpu {

namespace {

bool parse_count(std::string_view text, int64_t lo, int64_t hi, int64_t* out)
{
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < lo || value > hi) {
    return false;
  }
  *out = value;
  return true;
}

bool parse_shape(std::string_view text, ImageShape* shape)
{
  struct Name {
    std::string_view name;
    ImageShape shape;
  };
  static constexpr Name k_names[] = {{"1d", ImageShape::d1},
                                     {"2d", ImageShape::d2},
                                     {"3d", ImageShape::d3},
                                     {"cube", ImageShape::cube},
                                     {"buffer", ImageShape::buffer}};
  for (const Name& name : k_names) {
    if (name.name == text) {
      *shape = name.shape;
      return true;
    }
  }
  return false;
}

} // namespace

ElementType image_element(d4r_host_image_format format)
{
  switch (format) {
  case d4r_image_u8:
    return ElementType::u8;
  case d4r_image_f16:
    return ElementType::f16;
  case d4r_image_f32:
    return ElementType::f32;
  case d4r_image_u32:
    return ElementType::u32;
  }
  D4R_UNREACHABLE("image format");
}

int64_t texel_bytes(const ImageSpec& image)
{
  return element_size(image_element(image.format)) * image.channels;
}

int64_t image_slices(const ImageSpec& image)
{
  const int64_t layers = image.layers > 0 ? image.layers : 1;
  const int64_t faces = image.shape == ImageShape::cube ? 6 : 1;
  const int64_t depth = image.shape == ImageShape::d3 ? image.depth : 1;
  return layers * faces * depth;
}

std::vector<std::byte> generate_image(const ImageSpec& image)
{
  return generate_fill(image.fill, image_element(image.format),
                       image.width * image.height * image_slices(image) * image.channels);
}

std::string apply_image_option(ImageSpec& image, std::string_view key, std::string_view value)
{
  if (key == "shape" && parse_shape(value, &image.shape)) {
    return {};
  }
  if (key == "depth" && parse_count(value, 1, 2048, &image.depth)) {
    return {};
  }
  if (key == "layers" && parse_count(value, 1, 2048, &image.layers)) {
    return {};
  }
  if (!image.texture) {
    return "a surface has no option `" + std::string(key) + "=" + std::string(value) + "`";
  }
  if (key == "filter" && (value == "point" || value == "linear")) {
    image.filter = value == "point" ? 0 : 1;
  } else if (key == "address" && (value == "clamp" || value == "wrap" || value == "mirror" || value == "border")) {
    image.address = value == "clamp" ? 0 : value == "wrap" ? 1 : value == "mirror" ? 2 : 3;
  } else if (key == "normalized" && (value == "0" || value == "1")) {
    image.normalized = value == "1";
  } else if (key == "read" && (value == "float" || value == "integer")) {
    image.read_integer = value == "integer";
  } else {
    return "bad texture option `" + std::string(key) + "=" + std::string(value) + "`";
  }
  return {};
}

std::string check_image(const ImageSpec& image)
{
  if (image.texture && (image.address == 1 || image.address == 2) && !image.normalized) {
    return "wrap and mirror need normalized=1 (as in CUDA)";
  }
  // CUDA filters only textures read as floats; a 32-bit integer format is always read as integers.
  const bool integer_texels = image.read_integer || image.format == d4r_image_u32;
  if (image.texture && integer_texels && image.filter == 1) {
    return "linear filtering needs float texels (not read=integer or u32)";
  }
  const bool one_row = image.shape == ImageShape::d1 || image.shape == ImageShape::buffer;
  if (one_row && image.height != 1) {
    return "a 1d or buffer image has height 1";
  }
  if ((image.shape == ImageShape::d3) != (image.depth > 0)) {
    return "depth=N goes with shape=3d, and shape=3d needs it";
  }
  if (image.layers > 0 && (image.shape == ImageShape::d3 || image.shape == ImageShape::buffer)) {
    return "a 3d or buffer image has no layers";
  }
  if (image.shape == ImageShape::cube && (image.width != image.height || !image.texture)) {
    return "a cube map is a texture of square faces";
  }
  if (image.shape == ImageShape::buffer &&
      (!image.texture || image.filter != 0 || image.address != 0 || image.normalized)) {
    return "a buffer texture has point sampling, no address mode, unnormalised coordinates";
  }
  return {};
}

d4r_host_image host_image_header(const ImageSpec& image)
{
  d4r_host_image header{};
  header.width = static_cast<uint32_t>(image.width);
  header.height = static_cast<uint32_t>(image.height);
  header.pitch = static_cast<uint32_t>(image.width * texel_bytes(image));
  header.format = image.format;
  header.channels = static_cast<uint32_t>(image.channels);
  header.filter = static_cast<uint32_t>(image.filter);
  header.address = static_cast<uint32_t>(image.address);
  header.normalized = image.normalized ? 1 : 0;
  header.layers = static_cast<uint32_t>(image.layers);
  header.depth = static_cast<uint32_t>(image.depth);
  switch (image.shape) {
  case ImageShape::d1: header.shape = d4r_shape_1d; break;
  case ImageShape::d2: header.shape = d4r_shape_2d; break;
  case ImageShape::d3: header.shape = d4r_shape_3d; break;
  case ImageShape::cube: header.shape = d4r_shape_cube; break;
  case ImageShape::buffer: header.shape = d4r_shape_buffer; break;
  }
  return header;
}

} // namespace d4r::compiler::cpu
