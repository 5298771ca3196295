// d4r-golden: records golden vectors on an NVIDIA GPU through the CUDA driver API.
//
//   d4r-golden CASE.case... --root REPO --out DIR [--repeat N]
//
// For each case file (tests/golden/README.md): loads the PTX text with cuModuleLoadDataEx (the JIT
// log is printed when that fails), builds the inputs with the same code the host tests use
// (compiler/cpu/launch_case.cpp), launches, synchronises, copies every output back and writes it to
// DIR/<case>.out<N>.bin. With --repeat N (default 2) the launch runs N times on fresh allocations
// and an output that changes between runs is reported as nondeterministic (exit status 3), since a
// golden vector must be reproducible. An output still all 0xCD after the launch is reported too
// (a kernel that did not write where the case expects).
// A case with `expect = trap` must fail its launch: it runs once, and the driver's error is written
// to DIR/<case>.trap instead of outputs. A failed launch leaves the context unusable, so such a case
// must be the last (record.sh runs one case per process).
//
// Not part of the CMake build (CI has no cuda.h); tools/golden/record.sh builds and runs it.

#include "compiler/cpu/launch_case.hpp"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using d4r::compiler::cpu::Arg;
using d4r::compiler::cpu::ArgKind;
using d4r::compiler::cpu::Direction;
using d4r::compiler::cpu::Field;
using d4r::compiler::cpu::Fill;
using d4r::compiler::cpu::GlobalSpec;
using d4r::compiler::cpu::ImageSpec;
using d4r::compiler::cpu::LaunchCase;
using d4r::compiler::cpu::Param;
using d4r::compiler::cpu::ParamSlot;
using d4r::compiler::cpu::TensorMapSpec;
using d4r::compiler::cpu::TexrefSpec;

std::string cuda_error(CUresult result, const char* what)
{
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  return std::string(what) + ": " + (name ? name : "?") + " (" + (text ? text : "?") + ")";
}

#define CU_CHECK(call_)                                                                            \
  do {                                                                                             \
    const CUresult cu_result_ = (call_);                                                           \
    if (cu_result_ != CUDA_SUCCESS) {                                                              \
      m_error = cuda_error(cu_result_, #call_);                                                    \
      return false;                                                                                \
    }                                                                                              \
  } while (false)

struct DeviceOutput {
  bool is_image = false;
  CUdeviceptr pointer = 0;
  CUarray array = nullptr;
  int64_t bytes = 0;
  int64_t row_bytes = 0;
  int64_t rows = 0;
  int64_t slices = 1;
};

// One launch of one case: device resources, released in the destructor.
class DeviceLaunch {
public:
  DeviceLaunch(const LaunchCase& launch_case, CUmodule module) : m_case(launch_case), m_module(module) {}
  ~DeviceLaunch();
  bool run(std::vector<std::vector<std::byte>>& outputs);
  const std::string& error() const { return m_error; }
  // Whether run() failed in the launch or the synchronisation (the kernel's fault), rather than in
  // setting the launch up.
  bool launch_failed() const { return m_launch_failed; }

private:
  const LaunchCase& m_case;
  CUmodule m_module;
  std::string m_error;
  bool m_launch_failed = false;
  std::vector<CUdeviceptr> m_buffers;
  std::vector<CUarray> m_arrays;
  std::vector<CUtexObject> m_textures;
  std::vector<CUsurfObject> m_surfaces;
  std::vector<DeviceOutput> m_outputs;
  bool place(const Arg& arg, uint64_t* bits);
  bool place_buffer(const Arg& arg, uint64_t* bits);
  bool place_image(const Arg& arg, uint64_t* bits);
  bool place_linear_texture(const Arg& arg, uint64_t* bits);
  bool make_array(const ImageSpec& spec, CUarray* out);
  bool bind_texrefs();
  bool read_back(std::vector<std::vector<std::byte>>& outputs);
  bool write_globals();
  bool encode_tensor_map(const TensorMapSpec& spec, uint64_t address, std::vector<std::byte>& bytes);
};

DeviceLaunch::~DeviceLaunch()
{
  for (CUtexObject texture : m_textures) {
    cuTexObjectDestroy(texture);
  }
  for (CUsurfObject surface : m_surfaces) {
    cuSurfObjectDestroy(surface);
  }
  for (CUarray array : m_arrays) {
    cuArrayDestroy(array);
  }
  for (CUdeviceptr buffer : m_buffers) {
    cuMemFree(buffer);
  }
}

bool DeviceLaunch::place(const Arg& arg, uint64_t* bits)
{
  if (arg.kind == ArgKind::scalar) {
    *bits = arg.scalar.bits;
    return true;
  }
  return arg.kind == ArgKind::buffer ? place_buffer(arg, bits) : place_image(arg, bits);
}

bool DeviceLaunch::place_buffer(const Arg& arg, uint64_t* bits)
{
  const std::vector<std::byte> data = d4r::compiler::cpu::generate_fill(
      arg.buffer.direction == Direction::out ? Fill{} : arg.buffer.fill, arg.buffer.type, arg.buffer.count);
  CUdeviceptr pointer = 0;
  CU_CHECK(cuMemAlloc(&pointer, data.empty() ? 16 : data.size()));
  m_buffers.push_back(pointer);
  if (!data.empty()) {
    CU_CHECK(cuMemcpyHtoD(pointer, data.data(), data.size()));
  }
  if (arg.output_index >= 0) {
    DeviceOutput& output = m_outputs.at(static_cast<size_t>(arg.output_index));
    output.pointer = pointer;
    output.bytes = static_cast<int64_t>(data.size());
  }
  *bits = pointer;
  return true;
}

CUarray_format array_format(d4r_host_image_format format)
{
  switch (format) {
  case d4r_image_u8:
    return CU_AD_FORMAT_UNSIGNED_INT8;
  case d4r_image_f16:
    return CU_AD_FORMAT_HALF;
  case d4r_image_f32:
    return CU_AD_FORMAT_FLOAT;
  case d4r_image_u32:
    return CU_AD_FORMAT_UNSIGNED_INT32;
  }
  return CU_AD_FORMAT_UNSIGNED_INT8;
}

// The CUDA array of an image spec: Height 0 for a 1D array, Depth the 3D slices, the layers (a
// layered array) or 6 faces per cube (CUDA_ARRAY3D_CUBEMAP, layered for several cubes).
CUDA_ARRAY3D_DESCRIPTOR array_descriptor(const ImageSpec& spec)
{
  using d4r::compiler::cpu::ImageShape;
  CUDA_ARRAY3D_DESCRIPTOR descriptor{};
  descriptor.Width = static_cast<size_t>(spec.width);
  descriptor.Height = spec.shape == ImageShape::d1 ? 0 : static_cast<size_t>(spec.height);
  const bool stacked = spec.shape == ImageShape::d3 || spec.shape == ImageShape::cube || spec.layers > 0;
  descriptor.Depth = stacked ? static_cast<size_t>(d4r::compiler::cpu::image_slices(spec)) : 0;
  descriptor.Format = array_format(spec.format);
  descriptor.NumChannels = static_cast<unsigned>(spec.channels);
  descriptor.Flags = (spec.texture ? 0 : CUDA_ARRAY3D_SURFACE_LDST) | (spec.layers > 0 ? CUDA_ARRAY3D_LAYERED : 0) |
                     (spec.shape == ImageShape::cube ? CUDA_ARRAY3D_CUBEMAP : 0);
  return descriptor;
}

// A texture over linear memory (shape=buffer, tex1Dfetch): the texels in a plain allocation.
bool DeviceLaunch::place_linear_texture(const Arg& arg, uint64_t* bits)
{
  const ImageSpec& spec = arg.image;
  const std::vector<std::byte> data = d4r::compiler::cpu::generate_image(spec);
  CUdeviceptr pointer = 0;
  CU_CHECK(cuMemAlloc(&pointer, data.size()));
  m_buffers.push_back(pointer);
  CU_CHECK(cuMemcpyHtoD(pointer, data.data(), data.size()));
  CUDA_RESOURCE_DESC resource{};
  resource.resType = CU_RESOURCE_TYPE_LINEAR;
  resource.res.linear.devPtr = pointer;
  resource.res.linear.format = array_format(spec.format);
  resource.res.linear.numChannels = static_cast<unsigned>(spec.channels);
  resource.res.linear.sizeInBytes = data.size();
  CUDA_TEXTURE_DESC texture_desc{};
  texture_desc.filterMode = CU_TR_FILTER_MODE_POINT;
  texture_desc.flags = spec.read_integer ? CU_TRSF_READ_AS_INTEGER : 0;
  CUtexObject texture = 0;
  CU_CHECK(cuTexObjectCreate(&texture, &resource, &texture_desc, nullptr));
  m_textures.push_back(texture);
  *bits = texture;
  return true;
}

// The CUDA array of an image spec, filled with its texels (released with the launch).
bool DeviceLaunch::make_array(const ImageSpec& spec, CUarray* out)
{
  const CUDA_ARRAY3D_DESCRIPTOR descriptor = array_descriptor(spec);
  CUarray array = nullptr;
  CU_CHECK(cuArray3DCreate(&array, &descriptor));
  m_arrays.push_back(array);
  const std::vector<std::byte> data = d4r::compiler::cpu::generate_image(spec);
  const int64_t row_bytes = spec.width * d4r::compiler::cpu::texel_bytes(spec);
  const int64_t slices = d4r::compiler::cpu::image_slices(spec);
  CUDA_MEMCPY3D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = data.data();
  copy.srcPitch = static_cast<size_t>(row_bytes);
  copy.srcHeight = static_cast<size_t>(spec.height);
  copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  copy.dstArray = array;
  copy.WidthInBytes = static_cast<size_t>(row_bytes);
  copy.Height = static_cast<size_t>(spec.height);
  copy.Depth = static_cast<size_t>(slices);
  CU_CHECK(cuMemcpy3D(&copy));
  *out = array;
  return true;
}

const CUaddress_mode k_address_modes[] = {CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_WRAP,
                                          CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};

// `texref` lines: the module's texture reference (cuModuleGetTexRef by its PTX name) bound to a
// CUDA array of the spec with its format, filter, address mode and flags, as code written for
// texture references binds one. These calls are deprecated (CUDA 12 removed texture references
// from the runtime API) but the driver API keeps them, and they are what such code calls.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
bool DeviceLaunch::bind_texrefs()
{
  for (const TexrefSpec& texref : m_case.texrefs) {
    const ImageSpec& spec = texref.image;
    CUarray array = nullptr;
    if (!make_array(spec, &array)) {
      return false;
    }
    CUtexref ref = nullptr;
    CU_CHECK(cuModuleGetTexRef(&ref, m_module, texref.name.c_str()));
    CU_CHECK(cuTexRefSetArray(ref, array, CU_TRSA_OVERRIDE_FORMAT));
    CU_CHECK(cuTexRefSetFormat(ref, array_format(spec.format), spec.channels));
    for (int dim = 0; dim < 3; ++dim) {
      CU_CHECK(cuTexRefSetAddressMode(ref, dim, k_address_modes[spec.address]));
    }
    CU_CHECK(cuTexRefSetFilterMode(ref, spec.filter == 0 ? CU_TR_FILTER_MODE_POINT : CU_TR_FILTER_MODE_LINEAR));
    CU_CHECK(cuTexRefSetFlags(ref, (spec.normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
                                       (spec.read_integer ? CU_TRSF_READ_AS_INTEGER : 0)));
    std::printf("%s: texref %s bound to a %lldx%lld array\n", m_case.name.c_str(), texref.name.c_str(),
                static_cast<long long>(spec.width), static_cast<long long>(spec.height));
  }
  return true;
}
#pragma GCC diagnostic pop

bool DeviceLaunch::place_image(const Arg& arg, uint64_t* bits)
{
  const ImageSpec& spec = arg.image;
  if (spec.shape == d4r::compiler::cpu::ImageShape::buffer) {
    return place_linear_texture(arg, bits);
  }
  CUarray array = nullptr;
  if (!make_array(spec, &array)) {
    return false;
  }
  const int64_t bytes = static_cast<int64_t>(d4r::compiler::cpu::generate_image(spec).size());
  const int64_t row_bytes = spec.width * d4r::compiler::cpu::texel_bytes(spec);
  const int64_t slices = d4r::compiler::cpu::image_slices(spec);
  CUDA_RESOURCE_DESC resource{};
  resource.resType = CU_RESOURCE_TYPE_ARRAY;
  resource.res.array.hArray = array;
  if (!spec.texture) {
    CUsurfObject surface = 0;
    CU_CHECK(cuSurfObjectCreate(&surface, &resource));
    m_surfaces.push_back(surface);
    DeviceOutput& output = m_outputs.at(static_cast<size_t>(arg.output_index));
    output.is_image = true;
    output.array = array;
    output.bytes = bytes;
    output.row_bytes = row_bytes;
    output.rows = spec.height;
    output.slices = slices;
    *bits = surface;
    return true;
  }
  CUDA_TEXTURE_DESC texture_desc{};
  for (CUaddress_mode& mode : texture_desc.addressMode) {
    mode = k_address_modes[spec.address];
  }
  texture_desc.filterMode = spec.filter == 0 ? CU_TR_FILTER_MODE_POINT : CU_TR_FILTER_MODE_LINEAR;
  texture_desc.flags = (spec.normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
                      (spec.read_integer ? CU_TRSF_READ_AS_INTEGER : 0);
  CUtexObject texture = 0;
  CU_CHECK(cuTexObjectCreate(&texture, &resource, &texture_desc, nullptr));
  m_textures.push_back(texture);
  *bits = texture;
  return true;
}

CUtensorMapDataType tensor_map_type(d4r::compiler::cpu::ElementType type)
{
  using d4r::compiler::cpu::ElementType;
  switch (type) {
  case ElementType::u8:
  case ElementType::s8:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case ElementType::u16:
  case ElementType::s16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case ElementType::u32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case ElementType::s32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case ElementType::u64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  case ElementType::s64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case ElementType::f16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case ElementType::bf16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case ElementType::f32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case ElementType::f64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

// A `param = tensormap` line as the driver encodes it (NVIDIA's opaque 128 bytes), over the device
// memory of the buffer param it names. The case's enumerations are CUDA's numbers.
bool DeviceLaunch::encode_tensor_map(const TensorMapSpec& spec, uint64_t address, std::vector<std::byte>& bytes)
{
  CUtensorMap map{};
  cuuint64_t dims[5];
  cuuint64_t strides[4];
  cuuint32_t box[5];
  cuuint32_t element_strides[5];
  for (size_t i = 0; i < 5; ++i) {
    dims[i] = spec.dims[i];
    box[i] = spec.box[i];
    element_strides[i] = spec.element_strides[i];
  }
  for (size_t i = 0; i < 4; ++i) {
    strides[i] = spec.strides[i];
  }
  if (spec.im2col) {
    int lower[3];
    int upper[3];
    for (size_t i = 0; i < 3; ++i) {
      lower[i] = spec.lower[i];
      upper[i] = spec.upper[i];
    }
    CU_CHECK(cuTensorMapEncodeIm2col(&map, tensor_map_type(spec.type), static_cast<cuuint32_t>(spec.rank),
                                     reinterpret_cast<void*>(static_cast<uintptr_t>(address)), dims, strides, lower,
                                     upper, spec.channels, spec.pixels, element_strides,
                                     static_cast<CUtensorMapInterleave>(spec.interleave),
                                     static_cast<CUtensorMapSwizzle>(spec.swizzle),
                                     static_cast<CUtensorMapL2promotion>(spec.l2_promotion),
                                     static_cast<CUtensorMapFloatOOBfill>(spec.fill)));
    bytes.assign(sizeof(map), std::byte{0});
    std::memcpy(bytes.data(), &map, sizeof(map));
    return true;
  }
  CU_CHECK(cuTensorMapEncodeTiled(&map, tensor_map_type(spec.type), static_cast<cuuint32_t>(spec.rank),
                                  reinterpret_cast<void*>(static_cast<uintptr_t>(address)), dims, strides, box,
                                  element_strides, static_cast<CUtensorMapInterleave>(spec.interleave),
                                  static_cast<CUtensorMapSwizzle>(spec.swizzle),
                                  static_cast<CUtensorMapL2promotion>(spec.l2_promotion),
                                  static_cast<CUtensorMapFloatOOBfill>(spec.fill)));
  static_assert(sizeof(map) == 128, "a CUtensorMap is 128 bytes");
  bytes.assign(sizeof(map), std::byte{0});
  std::memcpy(bytes.data(), &map, sizeof(map));
  return true;
}

// `global` lines: the module variable as the game's host code finds it (cuModuleGetGlobal by its
// PTX name, whatever its linkage) and writes it (cuMemcpyHtoD), before every launch.
bool DeviceLaunch::write_globals()
{
  for (const GlobalSpec& spec : m_case.globals) {
    CUdeviceptr pointer = 0;
    size_t size = 0;
    const CUresult found = cuModuleGetGlobal(&pointer, &size, m_module, spec.name.c_str());
    if (found != CUDA_SUCCESS) {
      m_error = cuda_error(found, ("cuModuleGetGlobal(" + spec.name + ")").c_str());
      return false;
    }
    const std::vector<std::byte> data = d4r::compiler::cpu::generate_fill(spec.fill, spec.type, spec.count);
    if (data.size() > size) {
      m_error = "global " + spec.name + " is " + std::to_string(size) + " bytes, the case writes " +
                std::to_string(data.size());
      return false;
    }
    CU_CHECK(cuMemcpyHtoD(pointer, data.data(), data.size()));
    std::printf("%s: global %s at 0x%llx, %zu bytes, %zu written\n", m_case.name.c_str(), spec.name.c_str(),
                static_cast<unsigned long long>(pointer), size, data.size());
  }
  return true;
}

bool DeviceLaunch::run(std::vector<std::vector<std::byte>>& outputs)
{
  m_outputs.assign(m_case.outputs.size(), DeviceOutput{});
  if (!write_globals() || !bind_texrefs()) {
    return false;
  }
  int64_t total = 0;
  const std::vector<ParamSlot> slots = d4r::compiler::cpu::param_layout(m_case, &total);
  std::vector<std::vector<std::byte>> values(m_case.params.size());
  std::vector<void*> pointers;
  std::vector<uint64_t> placed(m_case.params.size(), 0);
  for (size_t i = 0; i < m_case.params.size(); ++i) {
    const Param& param = m_case.params[i];
    values[i].assign(static_cast<size_t>(slots[i].size), std::byte{0});
    pointers.push_back(values[i].data());
    if (!param.is_struct && param.arg.kind == ArgKind::tensor_map) {
      continue; // below, once the buffer it maps is allocated
    }
    if (!param.is_struct) {
      uint64_t bits = 0;
      if (!place(param.arg, &bits)) {
        return false;
      }
      std::memcpy(values[i].data(), &bits, values[i].size());
      placed[i] = bits;
    }
    for (const Field& field : param.fields) {
      uint64_t bits = 0;
      if (!place(field.arg, &bits)) {
        return false;
      }
      const int64_t size = field.arg.kind == ArgKind::scalar ? d4r::compiler::cpu::element_size(field.arg.scalar.type) : 8;
      std::memcpy(values[i].data() + field.offset, &bits, static_cast<size_t>(size));
    }
  }
  for (size_t i = 0; i < m_case.params.size(); ++i) {
    const Param& param = m_case.params[i];
    if (!param.is_struct && param.arg.kind == ArgKind::tensor_map) {
      const TensorMapSpec& spec = param.arg.tensor_map;
      if (!encode_tensor_map(spec, placed.at(static_cast<size_t>(spec.buffer_param)), values[i])) {
        return false;
      }
      pointers[i] = values[i].data();
    }
  }
  CUfunction function = nullptr;
  CU_CHECK(cuModuleGetFunction(&function, m_module, m_case.kernel.c_str()));
  if (m_case.dynamic_shared > 48 * 1024) {
    CU_CHECK(cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(m_case.dynamic_shared)));
  }
  m_launch_failed = true;
  CU_CHECK(cuLaunchKernel(function, m_case.grid[0], m_case.grid[1], m_case.grid[2], m_case.block[0],
                          m_case.block[1], m_case.block[2], m_case.dynamic_shared, nullptr, pointers.data(),
                          nullptr));
  CU_CHECK(cuCtxSynchronize());
  m_launch_failed = false;
  return read_back(outputs);
}

bool DeviceLaunch::read_back(std::vector<std::vector<std::byte>>& outputs)
{
  outputs.assign(m_outputs.size(), {});
  for (size_t i = 0; i < m_outputs.size(); ++i) {
    const DeviceOutput& output = m_outputs[i];
    outputs[i].assign(static_cast<size_t>(output.bytes), std::byte{0});
    if (output.bytes == 0) {
      continue;
    }
    if (!output.is_image) {
      CU_CHECK(cuMemcpyDtoH(outputs[i].data(), output.pointer, outputs[i].size()));
      continue;
    }
    CUDA_MEMCPY3D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = output.array;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = outputs[i].data();
    copy.dstPitch = static_cast<size_t>(output.row_bytes);
    copy.dstHeight = static_cast<size_t>(output.rows);
    copy.WidthInBytes = static_cast<size_t>(output.row_bytes);
    copy.Height = static_cast<size_t>(output.rows);
    copy.Depth = static_cast<size_t>(output.slices);
    CU_CHECK(cuMemcpy3D(&copy));
  }
  return true;
}

bool read_text(const std::string& path, std::string* text)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  std::ostringstream out;
  out << in.rdbuf();
  *text = out.str();
  return true;
}

bool load_module(const std::string& ptx, const std::string& label, CUmodule* module)
{
  static char info_log[16384];
  static char error_log[16384];
  info_log[0] = error_log[0] = 0;
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {info_log, reinterpret_cast<void*>(sizeof(info_log)), error_log,
                    reinterpret_cast<void*>(sizeof(error_log))};
  const CUresult result = cuModuleLoadDataEx(module, ptx.c_str(), 4, options, values);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s: %s\njit error log:\n%s\njit info log:\n%s\n", label.c_str(),
                 cuda_error(result, "cuModuleLoadDataEx").c_str(), error_log, info_log);
    return false;
  }
  return true;
}

bool all_cd(const std::vector<std::byte>& bytes)
{
  for (std::byte b : bytes) {
    if (b != std::byte{0xCD}) {
      return false;
    }
  }
  return !bytes.empty();
}

// An `expect = trap` case: one launch, which must fail; the driver's error goes to <case>.trap.
int record_trap(const LaunchCase& launch_case, CUmodule module, const std::string& out_dir)
{
  std::vector<std::vector<std::byte>> outputs;
  DeviceLaunch launch(launch_case, module);
  if (launch.run(outputs)) {
    std::fprintf(stderr, "golden case %s: expected the launch to trap, but it completed\n", launch_case.name.c_str());
    return 1;
  }
  if (!launch.launch_failed()) {
    std::fprintf(stderr, "golden case %s: %s\n", launch_case.name.c_str(), launch.error().c_str());
    return 1;
  }
  const std::string path = out_dir + "/" + launch_case.name + ".trap";
  std::ofstream out(path, std::ios::binary);
  out << launch.error() << "\n";
  if (!out) {
    std::fprintf(stderr, "golden case %s: cannot write %s\n", launch_case.name.c_str(), path.c_str());
    return 1;
  }
  std::printf("%s: trapped as expected: %s\n", launch_case.name.c_str(), launch.error().c_str());
  return 0;
}

// 0 ok, 1 failed, 3 nondeterministic.
int record(const std::string& case_path, const std::string& root, const std::string& out_dir, int repeat)
{
  d4r::Expected<LaunchCase> parsed = d4r::compiler::cpu::read_launch_case(case_path);
  if (!parsed) {
    std::fprintf(stderr, "%s\n", parsed.error().message.c_str());
    return 1;
  }
  const LaunchCase& launch_case = *parsed;
  std::string ptx;
  if (!read_text(root + "/" + launch_case.ptx, &ptx)) {
    std::fprintf(stderr, "golden case %s: cannot read %s\n", launch_case.name.c_str(), launch_case.ptx.c_str());
    return 1;
  }
  CUmodule module = nullptr;
  if (!load_module(ptx, "golden case " + launch_case.name + ": " + launch_case.ptx, &module)) {
    return 1;
  }
  if (launch_case.expect == d4r::compiler::cpu::Expect::trap) {
    return record_trap(launch_case, module, out_dir);
  }
  std::vector<std::vector<std::byte>> first;
  int status = 0;
  for (int run = 0; run < repeat; ++run) {
    std::vector<std::vector<std::byte>> outputs;
    DeviceLaunch launch(launch_case, module);
    if (!launch.run(outputs)) {
      std::fprintf(stderr, "golden case %s: %s\n", launch_case.name.c_str(), launch.error().c_str());
      return 1;
    }
    if (run == 0) {
      first = std::move(outputs);
      continue;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i] != first[i] && launch_case.outputs[i].compare.kind == d4r::compiler::cpu::CompareKind::exact) {
        std::fprintf(stderr, "golden case %s: out%zu differs between runs (nondeterministic)\n",
                     launch_case.name.c_str(), i);
        status = 3;
      }
    }
  }
  cuModuleUnload(module);
  std::string summary;
  for (size_t i = 0; i < first.size(); ++i) {
    const std::string path = out_dir + "/" + launch_case.name + ".out" + std::to_string(i) + ".bin";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(first[i].data()), static_cast<std::streamsize>(first[i].size()));
    if (!out) {
      std::fprintf(stderr, "golden case %s: cannot write %s\n", launch_case.name.c_str(), path.c_str());
      return 1;
    }
    if (all_cd(first[i])) {
      std::fprintf(stderr, "golden case %s: out%zu is still all 0xCD (suspicious)\n", launch_case.name.c_str(), i);
    }
    summary += " out" + std::to_string(i) + "=" + std::to_string(first[i].size()) + "B";
  }
  std::printf("%s: ok%s%s\n", launch_case.name.c_str(), summary.c_str(), status == 3 ? " (NONDETERMINISTIC)" : "");
  return status;
}

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::string> cases;
  std::string root = ".";
  std::string out_dir;
  int repeat = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--root" || arg == "--out" || arg == "--repeat") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--root") {
        root = value;
      } else if (arg == "--out") {
        out_dir = value;
      } else {
        repeat = std::max(1, std::atoi(value.c_str()));
      }
    } else {
      cases.push_back(arg);
    }
  }
  if (cases.empty() || out_dir.empty()) {
    std::fprintf(stderr, "usage: d4r-golden CASE.case... --root REPO --out DIR [--repeat N]\n");
    return 2;
  }
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUresult result = cuInit(0);
  if (result == CUDA_SUCCESS) {
    result = cuDeviceGet(&device, 0);
  }
  if (result == CUDA_SUCCESS) {
    result = cuDevicePrimaryCtxRetain(&context, device);
  }
  if (result == CUDA_SUCCESS) {
    result = cuCtxSetCurrent(context);
  }
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "d4r-golden: %s\n", cuda_error(result, "cuInit/context").c_str());
    return 1;
  }
  int status = 0;
  for (const std::string& path : cases) {
    const int case_status = record(path, root, out_dir, repeat);
    status = std::max(status, case_status);
  }
  cuDevicePrimaryCtxRelease(device);
  return status;
}
