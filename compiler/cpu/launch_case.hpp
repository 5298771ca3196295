#pragma once
// A golden-vector launch case (tests/golden/README.md is the format's specification): which PTX
// kernel to launch with which grid, and every .param in order: global buffers (inputs generated
// from a seed, outputs pre-filled with 0xCD bytes), scalars, by-value structs, and images (textures
// and surfaces). Read here, by the NVIDIA driver-API tool that records the expected outputs
// (tools/golden/) and by the tests and `ptx run` that check the CPU executor against them, so that
// both sides generate bit-identical inputs from one piece of code.
//
// Depends only on util/ and the standard library (plus host_abi.hpp's plain C image struct), so the
// recording tool can compile this file without LLVM.

#include "compiler/translate/host_abi.hpp"
#include "util/error.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler::cpu {

enum class ElementType { u8, s8, u16, s16, u32, s32, u64, s64, f16, bf16, f32, f64 };

[[nodiscard]] int64_t element_size(ElementType type);
[[nodiscard]] bool is_float(ElementType type);
[[nodiscard]] const char* to_string(ElementType type);

enum class FillKind { cd_bytes, random, floats, range, ints, iota, constant, list };

// How the elements of a buffer or image start out (README: "Fills").
struct Fill {
  FillKind kind = FillKind::cd_bytes;
  uint64_t seed = 0;
  uint64_t and_mask = ~uint64_t{0}; // random: bits & and_mask | or_mask
  uint64_t or_mask = 0;
  double lo = 0;                    // range, ints
  double hi = 0;
  uint64_t start = 0;               // iota: bits = start + i * step
  uint64_t step = 1;
  std::vector<uint64_t> values;     // constant (one), list: element bits
  int64_t repeat = 1;               // list: element i = values[(i / repeat) % size]
};

enum class Direction { in, out, inout };

struct BufferSpec {
  Direction direction = Direction::in;
  ElementType type = ElementType::u32;
  int64_t count = 0;
  Fill fill;
};

// The geometry of an image (README: `shape=`): a 1D, 2D or 3D array, a cube map (six square faces),
// or a texture over linear memory (tex1Dfetch: CU_RESOURCE_TYPE_LINEAR, width texels).
enum class ImageShape { d1, d2, d3, cube, buffer };

struct ImageSpec {
  bool texture = false;             // false: a surface (always an output)
  d4r_host_image_format format = d4r_image_u8;
  int channels = 1;                 // 1, 2 or 4
  int64_t width = 0;
  int64_t height = 0;               // 1 for 1d and buffer
  ImageShape shape = ImageShape::d2;
  int64_t depth = 0;                // 3d: its slices (0 otherwise)
  int filter = 0;                   // 0 point, 1 linear (textures)
  int address = 0;                  // 0 clamp, 1 wrap, 2 mirror, 3 border (textures)
  bool normalized = false;          // textures
  int64_t layers = 0;               // 0 not layered; N: N layers (1d, 2d) or N cubes (cube)
  bool read_integer = false;        // textures: u8 texels read as integers, not unorm floats
  Fill fill;
};

struct ScalarSpec {
  ElementType type = ElementType::u32;
  uint64_t bits = 0;
};

// A `param = tensormap` (README): a tile-mode CUtensorMap over the memory of another param (a
// buffer), 128 bytes aligned to 64 in the .param block. Each side encodes it its own way:
// cuTensorMapEncodeTiled on the GPU, compiler/translate/tensor_map_layout.hpp on the host
// (host_tensor_map). The enumerations use tensormap.replace's numbers, which are CUDA's too for
// interleave, swizzle, L2 promotion and the fill.
struct TensorMapSpec {
  int64_t buffer_param = -1;          // index into LaunchCase::params
  ElementType type = ElementType::f32; // u8 u16 u32 s32 u64 s64 f16 bf16 f32 f64
  int rank = 0;
  std::array<uint64_t, 5> dims{1, 1, 1, 1, 1};
  std::array<uint64_t, 4> strides{};  // bytes between indices of dimensions 1..rank-1
  std::array<uint32_t, 5> box{1, 1, 1, 1, 1};
  std::array<uint32_t, 5> element_strides{1, 1, 1, 1, 1};
  int interleave = 0;                 // 0 none, 1 16B, 2 32B
  int swizzle = 0;                    // 0 none, 1 32B, 2 64B, 3 128B
  int l2_promotion = 0;               // 0 none, 1 64B, 2 128B, 3 256B
  int fill = 0;                       // 0 zeros, 1 NaN (NAN_REQUEST_ZERO_FMA)
  // An im2col map (channels= and pixels= given; cuTensorMapEncodeIm2col, rank 3-5, no box=):
  // pixelBoxLowerCorner / pixelBoxUpperCorner of the rank - 2 spatial dimensions (W, H, D),
  // channelsPerPixel and pixelsPerColumn.
  bool im2col = false;
  std::array<int32_t, 3> lower{};
  std::array<int32_t, 3> upper{};
  uint32_t channels = 0;
  uint32_t pixels = 0;
};

enum class ArgKind { scalar, buffer, image, tensor_map };

struct Arg {
  ArgKind kind = ArgKind::scalar;
  ScalarSpec scalar;
  BufferSpec buffer;
  ImageSpec image;
  TensorMapSpec tensor_map;
  int64_t output_index = -1;        // out/inout buffers and surfaces: their N in outN.bin
};

struct Field {
  int64_t offset = 0;
  Arg arg;
};

struct Param {
  bool is_struct = false;
  Arg arg;                          // when !is_struct
  int64_t struct_size = 0;          // when is_struct
  int64_t struct_align = 1;
  std::vector<Field> fields;
};

enum class CompareKind { exact, ulp, none };

struct Compare {
  CompareKind kind = CompareKind::exact;
  int64_t ulp = 0;
};

// One compared output (buffers out/inout and surfaces, in the order they appear).
struct OutputInfo {
  ElementType type = ElementType::u8; // element type (images: the format's element)
  int64_t bytes = 0;
  Compare compare;
  std::string what;                   // "buffer out f32 512", "surface f16x4 24x20"
};

// A module-scope variable (`.global` / `.const`, any linkage) that the host writes before the
// launch, as a game does with cuModuleGetGlobal + cuMemcpyHtoD (cudaMemcpyToSymbol): COUNT
// elements of TYPE from the variable's first byte; the rest of it keeps its initial value.
struct GlobalSpec {
  std::string name;
  ElementType type = ElementType::u32;
  int64_t count = 0;
  Fill fill;
};

// A `texref = NAME FORMAT WIDTH HEIGHT [options] FILL` line: a texture (as `param = texture`) that
// the host binds to the module's .texref variable NAME before the launch: cuModuleGetTexRef +
// cuTexRefSetArray on the GPU; on the host the variable holds the image's handle (the model the
// translator follows: a .texref is a 64-bit module variable holding a texture object).
struct TexrefSpec {
  std::string name;
  ImageSpec image;
};

// What the launch must do: complete (outputs are compared), or trap (the GPU fails the launch; the
// outputs are undefined and not compared).
enum class Expect { complete, trap };

struct LaunchCase {
  std::string name;
  std::string ptx;                    // repo-relative path
  std::string kernel;
  Expect expect = Expect::complete;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamic_shared = 0;
  std::vector<Param> params;
  std::vector<OutputInfo> outputs;
  std::vector<GlobalSpec> globals;    // written before every launch, in order
  std::vector<TexrefSpec> texrefs;    // bound before every launch
};

// Parses a case file's text; `name` (the file's stem) names the case in messages.
[[nodiscard]] Expected<LaunchCase> parse_launch_case(std::string_view text, std::string_view name);
[[nodiscard]] Expected<LaunchCase> read_launch_case(const std::filesystem::path& path);

// The initial bytes of `count` elements of `type` (little-endian).
[[nodiscard]] std::vector<std::byte> generate_fill(const Fill& fill, ElementType type, int64_t count);

// Image geometry: the element type of a format, bytes per texel, and the packed data (rows of
// width * texel bytes, no padding).
// launch_image.cpp:
[[nodiscard]] ElementType image_element(d4r_host_image_format format);
[[nodiscard]] int64_t texel_bytes(const ImageSpec& image);
// The 2D slices of width x height texels the image holds, one after another: depth slices of a 3D
// image, faces (6 a cube) times layers.
[[nodiscard]] int64_t image_slices(const ImageSpec& image);
[[nodiscard]] std::vector<std::byte> generate_image(const ImageSpec& image);
// One `key=value` option of a texture or surface line, applied; what is wrong, or empty.
[[nodiscard]] std::string apply_image_option(ImageSpec& image, std::string_view key, std::string_view value);
// The checks of an image line once its options are read; what is wrong, or empty.
[[nodiscard]] std::string check_image(const ImageSpec& image);
// The host image header of a spec (data left null: the caller owns the texels).
[[nodiscard]] d4r_host_image host_image_header(const ImageSpec& image);

// Our tensor-map layout (compiler/translate/tensor_map_layout.hpp) of a spec over the memory at
// `address`, as the client writes it for a translated kernel.
[[nodiscard]] std::array<std::byte, 128> host_tensor_map(const TensorMapSpec& spec, uint64_t address);

// The .param block: offset, size and alignment of each param (PTX layout: natural alignment for
// scalars, 8 for buffers and image handles, the declared alignment for structs, 128 bytes aligned
// to 64 for tensor maps).
struct ParamSlot {
  int64_t offset = 0;
  int64_t size = 0;
  int64_t align = 1;
};
[[nodiscard]] std::vector<ParamSlot> param_layout(const LaunchCase& launch_case, int64_t* total_bytes);

// Bit-exact or tolerant comparison of one output; the error names the case, the output, how many
// elements differ and the first few differences.
[[nodiscard]] Expected<void> compare_output(const LaunchCase& launch_case, int64_t output_index,
                                            std::span<const std::byte> expected,
                                            std::span<const std::byte> actual);

// Everything a host launch needs, owned: buffers, images (d4r_host_image handles) and the .param
// block with their host addresses patched in. Outputs are read back with output_bytes().
class HostLaunch {
public:
  [[nodiscard]] static std::unique_ptr<HostLaunch> create(const LaunchCase& launch_case);
  [[nodiscard]] std::span<const std::byte> params() const { return m_params; }
  [[nodiscard]] std::span<const std::byte> output_bytes(int64_t output_index) const;
  // The handle of the case's texrefs[index] (a d4r_host_image), for its module variable.
  [[nodiscard]] uint64_t texref_handle(size_t index) const { return m_texrefs.at(index); }

private:
  struct Image {
    d4r_host_image header{};
    std::vector<std::byte> data;
  };
  std::vector<std::unique_ptr<std::vector<std::byte>>> m_buffers;
  std::vector<std::unique_ptr<Image>> m_images;
  std::vector<const std::vector<std::byte>*> m_outputs; // by output index
  std::vector<std::byte> m_params;
  std::vector<uint64_t> m_texrefs;
  uint64_t place(const Arg& arg);
};

} // namespace d4r::compiler::cpu
