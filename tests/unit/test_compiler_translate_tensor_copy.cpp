// The tensor-map copies (lower_tensor_copy.cpp, kernels/support/tensor_copy.c) and the golden
// format's tensor-map params (launch_case.cpp, host_launch.cpp): nvcc's PTX of
// tests/ptx/isa/tensor_copies.cu run on the CPU executor with maps in our layout
// (tensor_map_layout.hpp) and compared with a model of the box written here from the ISA's
// description (coordinates, element strides, out-of-bounds fill, the swizzle patterns as
// address-bit functions, rows padded to the swizzle span) and the H200's rules (no element stride
// along dimension 0, an innermost coordinate that is not a multiple of 16 bytes traps), the
// layout's fields at the documented offsets, tensormap.replace writing them, traps for maps the
// library cannot use, the forms that stay rejected, and every kernel translated and linked for
// AMDGPU (gfx1100, gfx1201).

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/ptx_build.hpp"
#include "compiler/translate/tensor_map_layout.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_repo = fs::path(D4R_TEST_SOURCE_DIR).parent_path();

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A case's launch on the executor; the outputs, or empty with a test failure (or, with
// `expect_trap`, the launch's error message as the only output).
struct CaseRun {
  cpu::LaunchCase launch_case;
  std::unique_ptr<cpu::HostLaunch> host;
  std::string error;
};

CaseRun run_case(const std::string& text)
{
  CaseRun run;
  Expected<cpu::LaunchCase> parsed = cpu::parse_launch_case(text, "tensor_copy_test");
  if (!parsed) {
    ADD_FAILURE() << parsed.error().message;
    return run;
  }
  run.launch_case = *parsed;
  PtxBuild build;
  build.entry = run.launch_case.kernel;
  std::string log;
  Expected<Translation> translation =
      translate_ptx(read_text(k_repo / run.launch_case.ptx), build, TargetKind::host, log);
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return run;
  }
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  if (!executor) {
    ADD_FAILURE() << executor.error().message;
    return run;
  }
  run.host = cpu::HostLaunch::create(run.launch_case);
  cpu::LaunchShape shape;
  shape.grid = run.launch_case.grid;
  shape.block = run.launch_case.block;
  Expected<cpu::LaunchStats> stats =
      (*executor)->launch(run.launch_case.kernel, shape, run.host->params());
  run.error = stats ? "" : stats.error().message;
  return run;
}

std::vector<uint8_t> bytes_of(std::span<const std::byte> span)
{
  std::vector<uint8_t> bytes(span.size());
  std::memcpy(bytes.data(), span.data(), span.size());
  return bytes;
}

// The map of a case as the model reads it.
struct Model {
  cpu::TensorMapSpec map;
  std::vector<uint8_t> tensor; // the bytes the map's buffer starts with
  int64_t size = 0;            // element bytes
  int64_t unit = 0;            // bytes of one box position: the element, or an interleave chunk
};

Model model_of(const cpu::LaunchCase& launch_case)
{
  Model model;
  model.map = launch_case.params[0].arg.tensor_map;
  const cpu::BufferSpec& buffer = launch_case.params[static_cast<size_t>(model.map.buffer_param)].arg.buffer;
  std::vector<std::byte> bytes = cpu::generate_fill(buffer.fill, buffer.type, buffer.count);
  model.tensor = bytes_of(bytes);
  model.size = cpu::element_size(model.map.type);
  model.unit = model.map.interleave == 0 ? model.size : int64_t{16} << (model.map.interleave - 1);
  return model;
}

std::vector<int32_t> ints_of(const cpu::Arg& arg)
{
  std::vector<std::byte> bytes = cpu::generate_fill(arg.buffer.fill, arg.buffer.type, arg.buffer.count);
  std::vector<int32_t> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// Elements of the box along dimension i: the TMA has no traversal stride along dimension 0
// (cuTensorMapEncodeTiled ignores elementStrides[0] without interleave).
int64_t step_of(const Model& m, int i)
{
  return i == 0 && m.map.interleave == 0 ? 1 : m.map.element_strides[static_cast<size_t>(i)];
}

// With interleave the H200 copies only the start along dimension rank - 2 (tma_interleave_*).
int64_t count_of(const Model& m, int i)
{
  if (m.map.interleave != 0 && i == m.map.rank - 2) {
    return 1;
  }
  return (m.map.box[static_cast<size_t>(i)] + step_of(m, i) - 1) / step_of(m, i);
}

// Bytes from one shared row of the box (dimension 0) to the next: a swizzled row takes the whole
// span, as the H200 lays out rows narrower than it (tma_load_2d_swizzle128_narrow).
int64_t row_pitch(const Model& m)
{
  return m.map.swizzle == 0 || m.map.interleave != 0 ? count_of(m, 0) * m.unit
                                                     : int64_t{16} << m.map.swizzle;
}

// Element e of the box at `start`: its byte in the (unswizzled) shared box and its byte in the
// tensor, or -1 outside the tensor.
int64_t tensor_offset(const Model& m, const int32_t* start, int64_t e, int64_t* shared)
{
  *shared = e / count_of(m, 0) * row_pitch(m) + e % count_of(m, 0) * m.unit;
  int64_t offset = 0;
  bool inside = true;
  for (int i = 0; i < m.map.rank; ++i) {
    const int64_t count = count_of(m, i);
    const int64_t index = start[i] + (e % count) * step_of(m, i);
    e /= count;
    inside = inside && index >= 0 && index < static_cast<int64_t>(m.map.dims[i]);
    offset += index * (i == 0 ? m.unit : static_cast<int64_t>(m.map.strides[i - 1]));
  }
  return inside ? offset : -1;
}

int64_t box_elements(const Model& m)
{
  int64_t count = 1;
  for (int i = 0; i < m.map.rank; ++i) {
    count *= count_of(m, i);
  }
  return count;
}

// `blocks` coordinate sets of `rank` numbers in [lo, hi] as a case's list, the first of each set
// rounded down to a multiple of 16 bytes (the H200 stops any other box with an illegal
// instruction: tma_trap_*_unaligned).
std::string aligned_coords(int rank, int blocks, int64_t size, int64_t lo, int64_t hi, uint32_t seed)
{
  std::string list = "list";
  uint32_t state = seed;
  const int64_t step = 16 / size;
  for (int k = 0; k < rank * blocks; ++k) {
    state = state * 1664525u + 1013904223u;
    int64_t value = lo + static_cast<int64_t>(state >> 8) % (hi - lo + 1);
    if (k % rank == 0) {
      value -= (value % step + step) % step;
    }
    list += " " + std::to_string(value);
  }
  return list;
}

// The swizzle as the CUDA programming guide tabulates it: 16-byte chunk c of the 128-byte row r
// (of the pattern's 8, 4 or 2 rows) lands in chunk c ^ (r mod rows), rows of `span` bytes.
int64_t swizzled(int64_t address, int mode)
{
  if (mode == 0) {
    return address;
  }
  const int64_t span = int64_t{16} << mode;        // 32, 64, 128 bytes of chunks
  const int64_t row = (address / 128) % (span / 16);
  const int64_t chunk = (address / 16) % (span / 16);
  return address - chunk * 16 + ((chunk ^ row) * 16);
}

// The load kernels' output for `blocks` boxes: the box, 64 bytes of 0xEE and the wait's flag.
std::vector<uint8_t> model_loads(const CaseRun& run)
{
  const Model m = model_of(run.launch_case);
  const std::vector<int32_t> coords = ints_of(run.launch_case.params[2].arg);
  const int64_t offset = static_cast<int64_t>(run.launch_case.params[4].arg.scalar.bits);
  const int64_t bytes = box_elements(m) * m.unit;
  // The NaN fill as the H200 wrote it into f32 elements (tma_replace): 0x7ff7 in every 16 bits.
  const uint64_t nan = m.map.fill == 1 ? 0x7ff77ff77ff77ff7ull : 0;
  std::vector<uint8_t> out;
  for (uint32_t block = 0; block < run.launch_case.grid[0]; ++block) {
    std::vector<uint8_t> tile(9216, 0xee);
    for (int64_t e = 0; e < box_elements(m); ++e) {
      int64_t shared = 0;
      const int64_t at = tensor_offset(m, coords.data() + block * m.map.rank, e, &shared);
      for (int64_t k = 0; k < m.unit; k += m.size) { // a 32-byte chunk's halves swizzle apart
        uint8_t* target = tile.data() + swizzled(offset + shared + k, m.map.swizzle);
        if (at >= 0) {
          std::memcpy(target, m.tensor.data() + at + k, static_cast<size_t>(m.size));
        } else {
          std::memcpy(target, &nan, static_cast<size_t>(m.size));
        }
      }
    }
    out.insert(out.end(), tile.begin() + offset, tile.begin() + offset + bytes + 64);
    out.insert(out.end(), {1, 0, 0, 0});
  }
  return out;
}

std::string load_case(const std::string& kernel, const std::string& map, const std::string& type,
                      int64_t count, int64_t bytes, int rank, int blocks, const std::string& coords,
                      int64_t offset = 0)
{
  return "ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = " + kernel + "\ngrid = " +
         std::to_string(blocks) + " 1 1\nblock = 32 1 1\nparam = tensormap global=1 " + map +
         "\nparam = buffer in " + type + " " + std::to_string(count) + " random seed=" +
         std::to_string(count) + "\nparam = buffer in s32 " + std::to_string(blocks * rank) + " " +
         coords + "\nparam = u32 " + std::to_string(bytes) + "\nparam = u32 " +
         std::to_string(offset) + "\nparam = buffer out u32 " +
         std::to_string((bytes / 4 + 17) * blocks) + "\n";
}

void expect_loads_as_modelled(const std::string& text)
{
  CaseRun run = run_case(text);
  ASSERT_TRUE(run.host != nullptr);
  ASSERT_EQ(run.error, "");
  const std::vector<uint8_t> want = model_loads(run);
  const std::vector<uint8_t> got = bytes_of(run.host->output_bytes(0));
  ASSERT_EQ(got.size(), want.size());
  int64_t differing = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    differing += got[i] != want[i] ? 1 : 0;
  }
  EXPECT_EQ(differing, 0) << text;
}

TEST(TranslateTensorCopy, LoadsPlainSwizzledStridedAndOutOfBounds)
{
  expect_loads_as_modelled(load_case("tma_load_2d", "type=f32 dims=40,24 strides=160 box=16,8",
                                     "f32", 960, 512, 2, 8, aligned_coords(2, 8, 4, -20, 44, 3)));
  expect_loads_as_modelled(load_case("tma_load_2d",
                                     "type=f32 dims=64,20 strides=256 box=32,8 swizzle=128B", "f32",
                                     1280, 1024, 2, 6, aligned_coords(2, 6, 4, -12, 60, 4)));
  expect_loads_as_modelled(load_case("tma_load_2d",
                                     "type=f32 dims=64,20 strides=256 box=32,8 swizzle=128B", "f32",
                                     1280, 1024, 2, 4, aligned_coords(2, 4, 4, -12, 60, 5), 384));
  expect_loads_as_modelled(load_case("tma_load_2d",
                                     "type=u16 dims=100,30 strides=208 box=32,16 swizzle=64B",
                                     "u16", 3120, 1024, 2, 6, aligned_coords(2, 6, 2, -30, 110, 6)));
  expect_loads_as_modelled(load_case("tma_load_2d", "type=u8 dims=70,33 strides=80 box=32,8 swizzle=32B",
                                     "u8", 2640, 256, 2, 6, aligned_coords(2, 6, 1, -30, 75, 7)));
  // Rows narrower than the swizzle span: 64-byte rows at a 128-byte pitch, 16-byte rows at 32.
  expect_loads_as_modelled(load_case("tma_load_2d",
                                     "type=f32 dims=40,24 strides=160 box=16,8 swizzle=128B", "f32",
                                     960, 512, 2, 6, aligned_coords(2, 6, 4, -20, 44, 11)));
  expect_loads_as_modelled(load_case("tma_load_2d", "type=u8 dims=70,33 strides=80 box=16,8 swizzle=32B",
                                     "u8", 2640, 128, 2, 6, aligned_coords(2, 6, 1, -30, 75, 12)));
  // elementstrides=2,1: the stride along dimension 0 is ignored, the box is 32x4 (512 bytes).
  expect_loads_as_modelled(load_case("tma_load_2d",
                                     "type=f32 dims=40,24 strides=160 box=32,4 elementstrides=2,1 oob=nan",
                                     "f32", 960, 512, 2, 6, aligned_coords(2, 6, 4, -20, 44, 8)));
  expect_loads_as_modelled(load_case("tma_load_2d",
                                     "type=f32 dims=40,24 strides=160 box=16,8 elementstrides=1,3",
                                     "f32", 960, 192, 2, 6, aligned_coords(2, 6, 4, -20, 44, 13)));
  expect_loads_as_modelled(load_case("tma_load_1d", "type=u32 dims=1000 box=64", "u32", 1000, 256,
                                     1, 8, aligned_coords(1, 8, 4, -80, 1050, 9)));
  expect_loads_as_modelled(load_case("tma_load_5d",
                                     "type=u8 dims=32,4,3,3,2 strides=32,128,384,1152 box=16,2,2,2,2",
                                     "u8", 2304, 256, 5, 8, aligned_coords(5, 8, 1, -3, 33, 10)));
}

// Interleaved maps as the H200 copies them (kernels/support/tensor_copy.c): a chunk of 16 or 32
// bytes per index of dimension 0, rows running on past dimension 1's end, only the start along
// dimension rank - 2. The tensors' buffers are four times the tensor, so such rows stay inside.
TEST(TranslateTensorCopy, InterleavedLoadsAsModelled)
{
  expect_loads_as_modelled(load_case("tma_load_3d",
                                     "type=f16 dims=8,12,5 strides=16,192 box=8,3,2 interleave=16B",
                                     "f16", 1920, 256, 3, 8, "list 0 0 0 0 5 1 0 11 3 0 -2 1 3 2 4 -1 1 1 7 12 0 0 0 5"));
  expect_loads_as_modelled(load_case("tma_load_3d",
                                     "type=f32 dims=8,6,5 strides=32,192 box=8,4,3 elementstrides=2,1,2 "
                                     "interleave=16B oob=nan",
                                     "f32", 960, 128, 3, 6, "list 0 0 0 6 1 1 7 5 4 -1 0 0 2 6 2 3 -1 3"));
  expect_loads_as_modelled(load_case("tma_load_4d",
                                     "type=u8 dims=16,6,5,4 strides=16,96,480 box=16,3,2,3 interleave=16B",
                                     "u8", 7680, 2304, 4, 5,
                                     "list 0 0 0 0 0 4 3 1 0 -1 2 0 8 0 4 3 0 2 5 0"));
  expect_loads_as_modelled(load_case("tma_load_5d",
                                     "type=f16 dims=8,4,3,5,2 strides=16,64,192,960 box=8,2,3,4,2 "
                                     "interleave=16B swizzle=128B",
                                     "f16", 3840, 1536, 5, 4, "list 0 0 0 0 0 0 1 1 2 1 0 0 0 5 0 0 3 2 1 1"));
  expect_loads_as_modelled(load_case("tma_load_3d",
                                     "type=f16 dims=16,12,5 strides=32,384 box=8,3,2 interleave=32B swizzle=32B",
                                     "f16", 3840, 512, 3, 5, "list 0 0 0 0 5 1 12 0 0 4 11 3 0 -1 0"));
  // A swizzled interleaved row narrower than the span was never measured: it traps.
  CaseRun narrow = run_case(load_case("tma_load_3d",
                                      "type=f16 dims=8,12,5 strides=16,192 box=8,3,2 elementstrides=4,1,1 "
                                      "interleave=16B swizzle=128B",
                                      "f16", 1920, 64, 3, 1, "list 0 0 0"));
  EXPECT_NE(narrow.error.find("trap"), std::string::npos) << narrow.error;
}

TEST(TranslateTensorCopy, SwizzleModelIsTheAddressBitPattern)
{
  // The model's table form against the bit form tensor_copy.c uses: bits 4.. xor bits 7...
  for (int mode = 1; mode <= 3; ++mode) {
    const int64_t mask = mode == 1 ? 0x10 : mode == 2 ? 0x30 : 0x70;
    for (int64_t address = 0; address < 4096; address += 4) {
      EXPECT_EQ(swizzled(address, mode), address ^ ((address >> 3) & mask)) << mode << " " << address;
    }
  }
}

// tma_store_2d / tma_reduce_2d: the tensor after `steps` boxes, modelled.
std::vector<uint8_t> model_stores(const CaseRun& run, bool reduce)
{
  Model m = model_of(run.launch_case);
  const std::vector<int32_t> coords = ints_of(run.launch_case.params[4].arg);
  const std::vector<int32_t> box = ints_of(run.launch_case.params[2].arg);
  const std::vector<int32_t> ops = reduce ? ints_of(run.launch_case.params[5].arg) : std::vector<int32_t>{};
  const uint64_t steps = run.launch_case.params[reduce ? 6 : 5].arg.scalar.bits;
  for (uint64_t k = 0; k < steps; ++k) {
    for (int64_t e = 0; e < box_elements(m); ++e) {
      int64_t shared = 0;
      const int64_t at = tensor_offset(m, coords.data() + k * 2, e, &shared);
      if (at < 0) {
        continue;
      }
      uint32_t value = 0;
      std::memcpy(&value, reinterpret_cast<const uint8_t*>(box.data()) + swizzled(shared, m.map.swizzle), 4);
      uint32_t old = 0;
      std::memcpy(&old, m.tensor.data() + at, 4);
      const uint32_t op = reduce ? static_cast<uint32_t>(ops[k]) : 8;
      const uint32_t results[] = {old + value,
                                  std::min(old, value),
                                  std::max(old, value),
                                  old >= value ? 0 : old + 1,
                                  (old == 0 || old > value) ? value : old - 1,
                                  old & value,
                                  old | value,
                                  old ^ value,
                                  value};
      std::memcpy(m.tensor.data() + at, &results[op], 4);
    }
  }
  return m.tensor;
}

TEST(TranslateTensorCopy, StoresAndReductionsWriteOnlyInsideTheTensor)
{
  const std::string head = "ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nblock = 64 1 1\n";
  const std::string store = head +
                            "kernel = tma_store_2d\n"
                            "param = tensormap global=1 type=u32 dims=40,24 strides=160 box=32,8 swizzle=128B\n"
                            "param = buffer inout u32 960 random seed=1\n"
                            "param = buffer in u32 256 random seed=2\n"
                            "param = u32 1024\n"
                            "param = buffer in s32 12 " + aligned_coords(2, 6, 4, 0, 38, 3) + "\n"
                            "param = u32 6\n";
  CaseRun stored = run_case(store);
  ASSERT_TRUE(stored.host != nullptr);
  ASSERT_EQ(stored.error, "");
  EXPECT_EQ(bytes_of(stored.host->output_bytes(0)), model_stores(stored, false));

  const std::string reduce = head +
                             "kernel = tma_reduce_2d\n"
                             "param = tensormap global=1 type=u32 dims=40,24 strides=160 box=16,8\n"
                             "param = buffer inout u32 960 random seed=4\n"
                             "param = buffer in u32 128 random seed=5 and=0xff\n"
                             "param = u32 512\n"
                             "param = buffer in s32 32 " + aligned_coords(2, 16, 4, 0, 34, 6) + "\n"
                             "param = buffer in u32 16 list 0 1 2 3 4 5 6 7\n"
                             "param = u32 16\n";
  CaseRun reduced = run_case(reduce);
  ASSERT_TRUE(reduced.host != nullptr);
  ASSERT_EQ(reduced.error, "");
  EXPECT_EQ(bytes_of(reduced.host->output_bytes(0)), model_stores(reduced, true));
}

TEST(TranslateTensorCopy, HostMapLayoutFields)
{
  cpu::TensorMapSpec spec;
  spec.type = cpu::ElementType::bf16;
  spec.rank = 3;
  spec.dims = {40, 24, 7, 1, 1};
  spec.strides = {80, 1920, 0, 0};
  spec.box = {32, 8, 2, 1, 1};
  spec.element_strides = {1, 2, 1, 1, 1};
  spec.swizzle = 3;
  spec.fill = 1;
  spec.l2_promotion = 2;
  const std::array<std::byte, 128> map = cpu::host_tensor_map(spec, 0x123456789abcdef0ull);
  const auto u8 = [&](int offset) { return static_cast<uint32_t>(map[static_cast<size_t>(offset)]); };
  const auto u32 = [&](int offset) {
    uint32_t value = 0;
    std::memcpy(&value, map.data() + offset, 4);
    return value;
  };
  const auto u64 = [&](int offset) {
    uint64_t value = 0;
    std::memcpy(&value, map.data() + offset, 8);
    return value;
  };
  EXPECT_EQ(u64(0), 0x123456789abcdef0ull);
  EXPECT_EQ(u64(8), 80u);
  EXPECT_EQ(u64(16), 1920u);
  EXPECT_EQ(u32(40), 40u);
  EXPECT_EQ(u32(48), 7u);
  EXPECT_EQ(u32(60), 0x314d5444u);
  EXPECT_EQ(u32(64), 32u);
  EXPECT_EQ(u32(88), 2u);
  EXPECT_EQ(u8(104), 3u);
  EXPECT_EQ(u8(105), 10u); // bf16 in tensormap.replace's numbering (CUDA's is 9)
  EXPECT_EQ(u8(107), 3u);
  EXPECT_EQ(u8(108), 2u);
  EXPECT_EQ(u8(109), 1u);
  EXPECT_EQ(u8(111), 0u);
}

TEST(TranslateTensorCopy, CaseLinesAreChecked)
{
  const std::string head = "ptx = x.ptx\nkernel = k\n";
  const auto problem = [&](const std::string& lines) {
    Expected<cpu::LaunchCase> parsed = cpu::parse_launch_case(head + lines, "t");
    return parsed ? std::string() : parsed.error().message;
  };
  const std::string buffer = "param = buffer in f32 960 const 0\n";
  EXPECT_EQ(problem("param = tensormap global=1 type=f32 dims=40,24 strides=160 box=16,8\n" + buffer), "");
  Expected<cpu::LaunchCase> parsed = cpu::parse_launch_case(
      head + "param = u32 1\nparam = tensormap global=2 type=f32 dims=40,24 strides=160 box=16,8\n" + buffer,
      "t");
  ASSERT_TRUE(parsed.has_value());
  int64_t total = 0;
  const std::vector<cpu::ParamSlot> slots = cpu::param_layout(*parsed, &total);
  EXPECT_EQ(slots[1].offset, 64);
  EXPECT_EQ(slots[1].size, 128);
  EXPECT_EQ(slots[2].offset, 192);
  EXPECT_NE(problem("param = tensormap global=1 type=s8 dims=40 box=16\n" + buffer), "");
  EXPECT_NE(problem("param = tensormap global=1 type=f32 dims=40,24 strides=170 box=16,8\n" + buffer).find("multiples of 16"),
            std::string::npos);
  EXPECT_NE(problem("param = tensormap global=1 type=f32 dims=40,25 strides=160 box=16,8\n" + buffer).find("past its buffer"),
            std::string::npos);
  EXPECT_NE(problem("param = tensormap global=0 type=f32 dims=40 box=16\n" + buffer).find("not a buffer"),
            std::string::npos);
  EXPECT_NE(problem("param = tensormap global=1 type=f32 box=16\n" + buffer), "");
  EXPECT_NE(problem("param = tensormap global=1 type=f32 dims=40 box=300\n" + buffer), "");
  EXPECT_NE(problem("param = tensormap global=1 type=f32 dims=40 box=16 swizzle=16B\n" + buffer), "");
  EXPECT_NE(problem("param = struct 128 64\nfield = 0 tensormap global=1 type=f32 dims=4 box=4\n" + buffer), "");
}

// A hand-written kernel: the map param copied to global memory, fields replaced there, then a
// 1D load through it; out: the box (16 words) and the replaced map's bytes (32 words).
const std::string k_replace =
    ".version 8.3\n.target sm_90a\n.address_size 64\n"
    ".visible .entry k(.param .align 64 .b8 map[128], .param .u64 data, .param .u64 gmap,"
    " .param .u64 out)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<12>;\n"
    "  .shared .align 1024 .b8 tile[1024];\n  .shared .align 8 .b64 bar;\n"
    "  ld.param.u64 %rd1, [data];\n  ld.param.u64 %rd2, [gmap];\n  ld.param.u64 %rd3, [out];\n"
    "  mov.u32 %r1, 0;\n"
    "COPY:\n  mul.wide.u32 %rd4, %r1, 8;\n  mov.b64 %rd5, map;\n  cvta.param.u64 %rd5, %rd5;\n"
    "  add.s64 %rd6, %rd5, %rd4;\n  ld.u64 %rd7, [%rd6];\n  add.s64 %rd8, %rd2, %rd4;\n"
    "  st.global.u64 [%rd8], %rd7;\n  add.u32 %r1, %r1, 1;\n  setp.lt.u32 %p1, %r1, 16;\n"
    "  @%p1 bra COPY;\n"
    "  add.s64 %rd9, %rd1, 64;\n"
    "  tensormap.replace.tile.global_address.global.b1024.b64 [%rd2], %rd9;\n"
    "  tensormap.replace.tile.global_dim.global.b1024.b32 [%rd2], 0, 20;\n"
    "  tensormap.replace.tile.box_dim.global.b1024.b32 [%rd2], 0, 16;\n"
    "  tensormap.replace.tile.rank.global.b1024.b32 [%rd2], 0;\n"
    "  tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd2], 1;\n"
    "  tensormap.replace.tile.elemtype.global.b1024.b32 [%rd2], 7;\n"
    "  tensormap.replace.tile.global_stride.global.b1024.b64 [%rd2], 3, 4096;\n"
    "  tensormap.replace.tile.element_stride.global.b1024.b32 [%rd2], 4, 3;\n"
    "  fence.proxy.tensormap::generic.release.gpu;\n"
    "  fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;\n"
    "  mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;\n"
    "  mov.u32 %r2, 12;\n"
    "  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
    "[tile], [%rd2, {%r2}], [bar];\n"
    "WAIT:\n  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n  @!%p1 bra WAIT;\n"
    "  mov.u32 %r3, 0;\n"
    "DUMP:\n  mul.wide.u32 %rd4, %r3, 4;\n  mov.u32 %r4, tile;\n  cvt.u32.u64 %r5, %rd4;\n"
    "  add.u32 %r4, %r4, %r5;\n  ld.shared.u32 %r6, [%r4];\n  add.s64 %rd10, %rd3, %rd4;\n"
    "  st.global.u32 [%rd10], %r6;\n  add.u32 %r3, %r3, 1;\n  setp.lt.u32 %p1, %r3, 16;\n"
    "  @%p1 bra DUMP;\n  ret;\n}\n";

TEST(TranslateTensorCopy, ReplaceWritesOurLayoutAndTheCopyReadsIt)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(k_replace);
  ASSERT_TRUE(executor != nullptr);
  std::vector<uint32_t> data(64);
  for (uint32_t i = 0; i < data.size(); ++i) {
    data[i] = 1000 + i;
  }
  cpu::TensorMapSpec spec; // 8 u32 over `data`, to be replaced
  spec.type = cpu::ElementType::u32;
  spec.rank = 2;
  spec.dims = {8, 2, 1, 1, 1};
  spec.strides = {32, 0, 0, 0};
  spec.box = {8, 2, 1, 1, 1};
  alignas(64) std::array<uint8_t, 128> gmap{};
  std::vector<uint32_t> out(16, 0xcdcdcdcd);
  std::vector<std::byte> params(152);
  const std::array<std::byte, 128> map = cpu::host_tensor_map(spec, reinterpret_cast<uint64_t>(data.data()));
  std::memcpy(params.data(), map.data(), 128);
  void* pointers[] = {data.data(), gmap.data(), out.data()};
  std::memcpy(params.data() + 128, pointers, sizeof(pointers));
  Expected<cpu::LaunchStats> stats = executor->launch("k", cpu::LaunchShape{{1, 1, 1}, {1, 1, 1}, 0}, params);
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  // The box: 16 f32 from index 12 of a 20-element tensor at data + 16 words; 8 NaN past its end.
  for (uint32_t i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i], i < 8 ? 1000 + 16 + 12 + i : 0x7ff77ff7u) << i;
  }
  d4r_tensor_map replaced{};
  std::memcpy(&replaced, gmap.data(), sizeof(replaced));
  EXPECT_EQ(replaced.global_address, reinterpret_cast<uint64_t>(data.data() + 16));
  EXPECT_EQ(replaced.rank, 1);
  EXPECT_EQ(replaced.global_dim[0], 20u);
  EXPECT_EQ(replaced.global_dim[1], 2u); // untouched
  EXPECT_EQ(replaced.box_dim[0], 16u);
  EXPECT_EQ(replaced.global_stride[0], 32u);
  EXPECT_EQ(replaced.global_stride[3], 4096u);
  EXPECT_EQ(replaced.element_stride[4], 3u);
  EXPECT_EQ(replaced.element_type, D4R_TMAP_F32);
  EXPECT_EQ(replaced.fill, D4R_TMAP_FILL_NAN);
}

TEST(TranslateTensorCopy, MapsTheLibraryCannotUseTrap)
{
  const std::string lines = "ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = tma_load_1d\n"
                            "block = 32 1 1\nparam = tensormap global=1 type=u32 dims=100 box=16\n"
                            "param = buffer in u32 100 random seed=1\nparam = buffer in s32 1 const 0\n"
                            "param = u32 64\nparam = u32 0\nparam = buffer out u32 33\n";
  CaseRun good = run_case(lines);
  EXPECT_EQ(good.error, "");
  // The rank-2 kernel given a rank-1 map: trap, not a guess.
  std::string mismatched = lines;
  mismatched.replace(mismatched.find("tma_load_1d"), 11, "tma_load_2d");
  mismatched.replace(mismatched.find("s32 1 const"), 11, "s32 2 const");
  CaseRun bad = run_case(mismatched);
  EXPECT_NE(bad.error.find("trap"), std::string::npos) << bad.error;
  // A reduction the element type lacks (inc on s32).
  const std::string reduce = "ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = tma_reduce_2d\n"
                             "block = 32 1 1\nparam = tensormap global=1 type=s32 dims=16,2 strides=64 box=16,2\n"
                             "param = buffer inout s32 32 random seed=1\nparam = buffer in u32 32 random seed=2\n"
                             "param = u32 128\nparam = buffer in s32 2 const 0\n"
                             "param = buffer in u32 1 const 3\nparam = u32 1\n";
  CaseRun lacking = run_case(reduce);
  EXPECT_NE(lacking.error.find("trap"), std::string::npos) << lacking.error;
  // A swizzled row wider than the span (cuTensorMapEncodeTiled refuses the map).
  std::string wide = lines;
  wide.replace(wide.find("box=16"), 6, "box=64 swizzle=128B");
  wide.replace(wide.find("u32 64\n"), 7, "u32 256\n");
  wide.replace(wide.find("u32 33"), 6, "u32 81");
  CaseRun too_wide = run_case(wide);
  EXPECT_NE(too_wide.error.find("trap"), std::string::npos) << too_wide.error;
  // and/or/xor on s64 stop the H200 (tma_trap_reduce_2d_s64_*); min does not.
  std::string s64 = reduce;
  s64.replace(s64.find("type=s32"), 8, "type=s64");
  s64.replace(s64.find("strides=64"), 10, "strides=128");
  s64.replace(s64.find("inout s32 32"), 12, "inout s64 32");
  s64.replace(s64.find("u32 32 random"), 6, "u32 64");
  s64.replace(s64.find("u32 128\n"), 8, "u32 256\n");
  std::string s64_and = s64;
  s64_and.replace(s64_and.find("const 3"), 7, "const 5");
  EXPECT_NE(run_case(s64_and).error.find("trap"), std::string::npos);
  std::string s64_min = s64;
  s64_min.replace(s64_min.find("const 3"), 7, "const 1");
  EXPECT_EQ(run_case(s64_min).error, "");
}

TEST(TranslateTensorCopy, StoresWriteWholeChunksOfTheRow)
{
  // Rows of 30 u16 (60 bytes) at a 64-byte stride: a store writes elements 30 and 31 too, the
  // rest of the row's last 16-byte chunk (tma_diag_chunk_store), and nothing past it.
  CaseRun run = run_case("ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = tma_store_2d\nblock = 32 1 1\n"
                         "param = tensormap global=1 type=u16 dims=30,2 strides=64 box=16,2\n"
                         "param = buffer inout u16 64 const 7\nparam = buffer in u32 16 const 0x00010001\n"
                         "param = u32 64\nparam = buffer in s32 2 list 16 0\nparam = u32 1\n");
  ASSERT_TRUE(run.host != nullptr);
  ASSERT_EQ(run.error, "");
  std::vector<uint16_t> tensor(64);
  std::memcpy(tensor.data(), run.host->output_bytes(0).data(), 128);
  for (int row = 0; row < 2; ++row) {
    for (int x = 0; x < 32; ++x) {
      EXPECT_EQ(tensor[static_cast<size_t>(row * 32 + x)], x >= 16 ? 1 : 7) << row << " " << x;
    }
  }
}

TEST(TranslateTensorCopy, BoxesThatStopTheH200Trap)
{
  // Loads, stores and reductions whose box starts 4 or 8 bytes past a 16-byte multiple stop the
  // H200 with an illegal instruction (tma_trap_*_unaligned), wholly inside the tensor or not; 16
  // bytes (and a load's -16) do not.
  const auto load = [](int32_t x) {
    return run_case("ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = tma_load_1d\n"
                    "block = 32 1 1\nparam = tensormap global=1 type=u32 dims=100 box=16\n"
                    "param = buffer in u32 100 random seed=1\nparam = buffer in s32 1 const " +
                    std::to_string(x) +
                    "\nparam = u32 64\nparam = u32 0\nparam = buffer out u32 33\n")
        .error;
  };
  EXPECT_EQ(load(4), "");
  EXPECT_EQ(load(-4), "");
  for (const int32_t x : {1, 2, 3, -2, 98}) {
    EXPECT_NE(load(x).find("trap"), std::string::npos) << x;
  }
  const auto store = [](const std::string& kernel, const std::string& extra, int32_t x) {
    return run_case("ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = " + kernel +
                    "\nblock = 32 1 1\nparam = tensormap global=1 type=u32 dims=32,2 strides=128 box=16,2\n"
                    "param = buffer inout u32 64 random seed=1\nparam = buffer in u32 32 random seed=2\n"
                    "param = u32 128\nparam = buffer in s32 2 list " + std::to_string(x) + " 0\n" +
                    extra + "param = u32 1\n")
        .error;
  };
  EXPECT_EQ(store("tma_store_2d", "", 8), "");
  EXPECT_EQ(store("tma_store_2d", "", 28), ""); // partly past the high end: fine
  EXPECT_NE(store("tma_store_2d", "", 2).find("trap"), std::string::npos);
  EXPECT_NE(store("tma_store_2d", "", -1).find("trap"), std::string::npos);
  EXPECT_EQ(store("tma_reduce_2d", "param = buffer in u32 1 const 0\n", 4), "");
  EXPECT_NE(store("tma_reduce_2d", "param = buffer in u32 1 const 0\n", 6).find("trap"), std::string::npos);
  // A store or reduction box at a negative coordinate stops the H200 too, aligned or not
  // (tma_trap_{store,reduce}_*_negative), in any dimension; a load's does not.
  EXPECT_NE(store("tma_store_2d", "", -4).find("trap"), std::string::npos);
  EXPECT_NE(store("tma_store_2d", "", -16).find("trap"), std::string::npos);
  EXPECT_NE(store("tma_reduce_2d", "param = buffer in u32 1 const 0\n", -4).find("trap"), std::string::npos);
  std::string below = "ptx = tests/ptx/isa/tensor_copies.sm_90.ptx\nkernel = tma_store_2d\nblock = 32 1 1\n"
                      "param = tensormap global=1 type=u32 dims=32,2 strides=128 box=16,2\n"
                      "param = buffer inout u32 64 random seed=1\nparam = buffer in u32 32 random seed=2\n"
                      "param = u32 128\nparam = buffer in s32 2 list 0 -1\nparam = u32 1\n";
  EXPECT_NE(run_case(below).error.find("trap"), std::string::npos);
}

void expect_error(const std::string& body, const std::string& message)
{
  const std::string text = ".version 8.3\n.target sm_90a\n.address_size 64\n"
                           ".visible .entry k(.param .align 64 .b8 map[128])\n{\n"
                           "  .reg .b16 %rs<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
                           "  .shared .align 128 .b8 buf[1024];\n  .shared .align 8 .b64 bar;\n" +
                           body + "\n  ret;\n}\n";
  for (const TranslateOptions& options : {host_options(), amdgpu_options("gfx1201")}) {
    Expected<Translation> translation = translate_text(text, options);
    ASSERT_FALSE(translation.has_value()) << body;
    EXPECT_NE(translation.error().message.find(message), std::string::npos)
        << body << ": " << translation.error().message;
  }
}

TEST(TranslateTensorCopy, RejectedForms)
{
  expect_error("  cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes "
               "[buf], [map, {%r1, %r2, %r3}], [bar], {%rs1, %rs2};",
               "unsupported: cp"); // sm_100's; .im2col itself: test_compiler_translate_tensor_copy_im2col
  expect_error("  cp.async.bulk.tensor.1d.global.shared::cluster.bulk_group [map, {%r1}], [buf];",
               "unsupported: cp");
  expect_error("  cp.async.bulk.tensor.1d.shared::cta.global.tile.bulk_group [buf], [map, {%r1}];",
               "unsupported: cp");
  expect_error("  cp.reduce.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [map, {%r1}], [buf];",
               "unsupported: cp");
  expect_error("  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[buf], [map, {%r1}], [bar];",
               "2 coordinates");
  expect_error("  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [buf], %r1, 16;", "ordinal");
  expect_error("  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [buf], 5, 16;", "ordinal");
  expect_error("  tensormap.replace.tile.global_address.shared::cta.b1024.b32 [buf], %r1;",
               "unsupported: tensormap");
  expect_error("  tensormap.replace.im2col.rank.shared::cta.b1024.b32 [buf], 1;",
               "unsupported: tensormap");
  expect_error("  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync."
               "aligned [%rd1], [buf], 64;",
               "128 bytes");
}

TEST(TranslateTensorCopy, EveryKernelLinksForAmdgpu)
{
  const std::string sm90 = read_text(k_repo / "tests/ptx/isa/tensor_copies.sm_90.ptx");
  const std::string sm90a = read_text(k_repo / "tests/ptx/isa/tensor_copies.sm_90a.ptx");
  // One target per module (each takes a while: the reduction's eight operations per type).
  const std::pair<const char*, const std::string*> builds[] = {{"gfx1100", &sm90}, {"gfx1201", &sm90a}};
  for (const auto& [target, text] : builds) {
    Expected<Translation> translation = translate_text(*text, amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << target << ": " << translation.error().message;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    ASSERT_TRUE(object.has_value()) << target << ": " << object.error().message;
    EXPECT_GT(object->size(), 1000u);
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
