// The native twins of the MMA corpus kernels (tests/ptx/wmma_twins.cuh), which
// d4r-bench-code-quality compiles as HIP to measure the translator against, compute what the PTX
// computes: their bodies run here with 32 host threads as one wave, the WMMA instruction modelled
// from the layouts of compiler/translate/mma_layout.hpp (the same tables the translator lowers
// with), and their outputs are compared with the PTX of mma_tile.sm_90.ptx run on the CPU
// executor (texture_layers' product: with the product the PTX fragment layout defines). Inputs are
// small integers, so every sum is exact in any order and the outputs must agree bit for bit.

#include "compiler/cpu/executor.hpp"
#include "compiler/translate/mma_layout.hpp"
#include "test_compiler_translate_support.hpp"
#include "tests/ptx/wmma_twins.cuh"
#include "tests/support/read_file.hpp"

#include <barrier>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

constexpr int k_lanes = 32;

// An f16 (or e4m3) code of a small integer |v| <= 8.
uint32_t small_code(int value, bool fp8)
{
  if (value == 0) {
    return 0;
  }
  const uint32_t sign = value < 0 ? 1U : 0U;
  const int n = std::abs(value);
  int e = 0;
  while ((2 << e) <= n) {
    ++e;
  }
  const uint32_t rest = static_cast<uint32_t>(n - (1 << e));
  return fp8 ? (sign << 7 | static_cast<uint32_t>(e + 7) << 3 | rest << (3 - e))
             : (sign << 15 | static_cast<uint32_t>(e + 15) << 10 | rest << (10 - e));
}

// Element values, decoded here independently of the twins' own e4m3 decoder.
float f16_value(uint32_t bits)
{
  const int exponent = static_cast<int>((bits >> 10) & 31);
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(bits & 1023), -24)
                                        : std::ldexp(static_cast<float>((bits & 1023) | 1024), exponent - 25);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

float e4m3_value(uint32_t bits)
{
  const int exponent = static_cast<int>((bits >> 3) & 15);
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(bits & 7), -9)
                                        : std::ldexp(static_cast<float>((bits & 7) | 8), exponent - 10);
  return (bits & 0x80) != 0 ? -magnitude : magnitude;
}

MmaLayout layout_of(WmmaTarget target)
{
  return target == WmmaTarget::gfx11 ? MmaLayout::gfx11 : MmaLayout::gfx12;
}

// One wave's shared state: the lanes' operands at each WMMA and the exchange slots.
struct WaveState {
  std::barrier<> rendezvous{k_lanes};
  float exchange[k_lanes] = {};
  uint32_t a[k_lanes][8] = {};
  uint32_t b[k_lanes][8] = {};
  WmmaAccum c[k_lanes] = {};
  int element_bits = 16;
  std::string conflicts; // elements two lanes gave different values (gfx11's repeated halves)
};

// D = A x B + C of the lanes' operands in `state`, for `lane`'s accumulator words.
WmmaAccum model_wmma(WaveState& state, WmmaTarget target, int lane)
{
  const int bits = state.element_bits;
  const MmaLayout layout = layout_of(target);
  float a[16][16];
  float b[16][16];
  bool a_set[16][16] = {};
  bool b_set[16][16] = {};
  auto place = [&](MmaOperand operand, float (&matrix)[16][16], bool (&set)[16][16], const uint32_t (*words)[8]) {
    const MmaLayoutSpec spec{layout, operand, bits};
    for (int l = 0; l < k_lanes; ++l) {
      for (int w = 0; w < mma_layout_words(spec); ++w) {
        for (int s = 0; s < 32 / bits; ++s) {
          const MatrixPos pos = mma_layout_position(spec, l, w, s);
          const uint32_t code = (words[l][w] >> (bits * s)) & ((1U << bits) - 1);
          const float value = bits == 8 ? e4m3_value(code) : f16_value(code);
          if (set[pos.row][pos.col] && matrix[pos.row][pos.col] != value && lane == 0) {
            state.conflicts += "lane " + std::to_string(l) + " element " + std::to_string(pos.row) + "," +
                               std::to_string(pos.col) + "; ";
          }
          matrix[pos.row][pos.col] = value;
          set[pos.row][pos.col] = true;
        }
      }
    }
  };
  place(MmaOperand::a, a, a_set, state.a);
  place(MmaOperand::b, b, b_set, state.b);
  const MmaLayoutSpec c_spec{layout, MmaOperand::c, 32};
  WmmaAccum d = {};
  for (int w = 0; w < 8; ++w) {
    const MatrixPos pos = mma_layout_position(c_spec, lane, w, 0);
    float sum = 0.0F;
    for (int k = 0; k < 16; ++k) {
      sum += a[pos.row][k] * b[k][pos.col];
    }
    d.d[w] = state.c[lane].d[w] + sum;
  }
  return d;
}

// The Wave of wmma_twins.cuh for one host thread.
template <WmmaTarget Target>
struct HostWave {
  static constexpr WmmaTarget target = Target;
  WaveState& state;
  unsigned id;

  unsigned lane() const { return id; }
  void barrier() { state.rendezvous.arrive_and_wait(); }
  void sync() { state.rendezvous.arrive_and_wait(); }
  float exchange(float value, unsigned from)
  {
    state.exchange[id] = value;
    state.rendezvous.arrive_and_wait();
    const float other = state.exchange[from];
    state.rendezvous.arrive_and_wait();
    return other;
  }
  float xor_quad(float value, int mask) { return exchange(value, id ^ static_cast<unsigned>(mask)); }
  float xor_16(float value) { return exchange(value, id ^ 16U); }
  WmmaAccum wmma(const uint32_t* a, const uint32_t* b, int words, const WmmaAccum& c, int element_bits)
  {
    std::memcpy(state.a[id], a, sizeof(uint32_t) * static_cast<size_t>(words));
    std::memcpy(state.b[id], b, sizeof(uint32_t) * static_cast<size_t>(words));
    state.c[id] = c;
    state.element_bits = element_bits;
    state.rendezvous.arrive_and_wait();
    const WmmaAccum d = model_wmma(state, Target, static_cast<int>(id));
    state.rendezvous.arrive_and_wait();
    return d;
  }
  WmmaAccum wmma_f16(const WmmaHalves& a, const WmmaHalves& b, const WmmaAccum& c)
  {
    return wmma(a.w, b.w, Target == WmmaTarget::gfx11 ? 8 : 4, c, 16);
  }
  WmmaAccum wmma_fp8(const WmmaBytes& a, const WmmaBytes& b, const WmmaAccum& c)
  {
    static_assert(Target == WmmaTarget::gfx12, "FP8 WMMA is gfx12's");
    return wmma(a.w, b.w, 2, c, 8);
  }
};

// Runs `body(wave)` on 32 threads, one per lane. Returns what the model found inconsistent.
template <WmmaTarget Target>
std::string run_wave(const std::function<void(HostWave<Target>&)>& body)
{
  WaveState state;
  std::vector<std::thread> lanes;
  for (unsigned lane = 0; lane < k_lanes; ++lane) {
    lanes.emplace_back([&state, lane, &body] {
      HostWave<Target> wave{state, lane};
      body(wave);
    });
  }
  for (std::thread& lane : lanes) {
    lane.join();
  }
  return state.conflicts;
}

// Launches `kernel` of mma_tile.sm_90.ptx on the CPU executor over `blocks` warps.
void run_ptx(const std::string& kernel, const std::vector<uint64_t>& pointers, uint32_t k_tiles,
             std::optional<float> dequant, uint32_t blocks)
{
  Expected<Translation> translation =
      translate_text(d4r::testing::read_file(fs::path(D4R_PTX_DIR) / "mma_tile.sm_90.ptx"), host_options());
  ASSERT_TRUE(translation) << translation.error().message;
  Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  ASSERT_TRUE(executor) << executor.error().message;
  const KernelSignature* signature = (*executor)->signature(kernel);
  ASSERT_NE(signature, nullptr);
  ASSERT_EQ(signature->params.size(), pointers.size() + (dequant ? 2 : 1));
  std::vector<std::byte> params(static_cast<size_t>(signature->param_bytes));
  for (size_t i = 0; i < pointers.size(); ++i) {
    std::memcpy(&params[static_cast<size_t>(signature->params[i].offset)], &pointers[i], 8);
  }
  std::memcpy(&params[static_cast<size_t>(signature->params[3].offset)], &k_tiles, 4);
  if (dequant) {
    std::memcpy(&params[static_cast<size_t>(signature->params[4].offset)], &*dequant, 4);
  }
  Expected<cpu::LaunchStats> stats =
      (*executor)->launch(kernel, cpu::LaunchShape{{blocks, 1, 1}, {32, 1, 1}, 0}, params);
  ASSERT_TRUE(stats) << stats.error().message;
}

void expect_same_bits(const std::vector<float>& twin, const std::vector<float>& ptx, const std::string& what)
{
  ASSERT_EQ(twin.size(), ptx.size());
  int differing = 0;
  for (size_t i = 0; i < twin.size(); ++i) {
    if (std::memcmp(&twin[i], &ptx[i], 4) != 0 && ++differing <= 8) {
      ADD_FAILURE() << what << ": out[" << i << "] twin " << twin[i] << ", PTX " << ptx[i];
    }
  }
  EXPECT_EQ(differing, 0) << what;
}

constexpr uint32_t k_blocks = 2;
constexpr int k_tiles = 3;

std::vector<uint32_t> random_words(size_t count, bool fp8, std::mt19937& random)
{
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<uint32_t> words(count);
  for (uint32_t& word : words) {
    word = 0;
    for (int s = 0; s < (fp8 ? 4 : 2); ++s) {
      word |= small_code(small(random), fp8) << ((fp8 ? 8 : 16) * s);
    }
  }
  return words;
}

template <WmmaTarget Target>
std::vector<float> gemm_f16_twin_output(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b)
{
  std::vector<float> out(k_blocks * 32 * 4, -1.0F);
  for (uint32_t block = 0; block < k_blocks; ++block) {
    uint32_t a_shared[128];
    uint32_t b_shared[64];
    const std::string conflicts = run_wave<Target>([&](HostWave<Target>& wave) {
      enc0_gemm_f16_twin(wave, a.data(), b.data(), out.data(), k_tiles,
                         block, a_shared, b_shared);
    });
    EXPECT_EQ(conflicts, "");
  }
  return out;
}

template <WmmaTarget Target>
std::vector<float> gemm_e4m3_twin_output(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                                         float dequant)
{
  std::vector<float> out(k_blocks * 8, -1.0F);
  for (uint32_t block = 0; block < k_blocks; ++block) {
    uint32_t a_shared[64];
    uint32_t b_shared[32];
    const std::string conflicts = run_wave<Target>([&](HostWave<Target>& wave) {
      enc0_gemm_e4m3_twin(wave, a.data(), b.data(), out.data(), k_tiles,
                          dequant, block, a_shared, b_shared);
    });
    EXPECT_EQ(conflicts, "");
  }
  return out;
}

// Every block of the kernels reads the same tiles and writes its own slice of out.
TEST(NativeMmaTwins, GemmF16ComputesWhatThePtxComputes)
{
  std::mt19937 random(7);
  const std::vector<uint32_t> a = random_words(k_tiles * 128, false, random);
  const std::vector<uint32_t> b = random_words(k_tiles * 64, false, random);
  std::vector<float> ptx(k_blocks * 32 * 4, -1.0F);
  run_ptx("enc0_gemm_f16", {reinterpret_cast<uint64_t>(a.data()), reinterpret_cast<uint64_t>(b.data()),
                            reinterpret_cast<uint64_t>(ptx.data())},
          k_tiles, std::nullopt, k_blocks);
  int positive = 0;
  for (float value : ptx) {
    positive += value > 0.0F ? 1 : 0;
  }
  EXPECT_GT(positive, 40) << "inputs that make most outputs zero would prove little";
  expect_same_bits(gemm_f16_twin_output<WmmaTarget::gfx11>(a, b), ptx, "gfx11");
  expect_same_bits(gemm_f16_twin_output<WmmaTarget::gfx12>(a, b), ptx, "gfx12");
}

TEST(NativeMmaTwins, GemmE4m3ComputesWhatThePtxComputes)
{
  std::mt19937 random(11);
  const std::vector<uint32_t> a = random_words(k_tiles * 64, true, random);
  const std::vector<uint32_t> b = random_words(k_tiles * 32, true, random);
  constexpr float k_dequant = 0.375F;
  std::vector<float> ptx(k_blocks * 8, -1.0F);
  run_ptx("enc0_gemm_e4m3", {reinterpret_cast<uint64_t>(a.data()), reinterpret_cast<uint64_t>(b.data()),
                             reinterpret_cast<uint64_t>(ptx.data())},
          k_tiles, k_dequant, k_blocks);
  int nonzero = 0;
  for (float value : ptx) {
    nonzero += value != 0.0F ? 1 : 0;
  }
  EXPECT_GT(nonzero, 8);
  expect_same_bits(gemm_e4m3_twin_output<WmmaTarget::gfx11>(a, b, k_dequant), ptx, "gfx11");
  expect_same_bits(gemm_e4m3_twin_output<WmmaTarget::gfx12>(a, b, k_dequant), ptx, "gfx12");
}

// gfx11 has no FP8 WMMA: its twin converts each e4m3 code to f16, which must be exact (every
// e4m3 value is an f16; subnormals included, which the integer inputs above never reach).
TEST(NativeMmaTwins, E4m3ToF16IsExactForEveryCode)
{
  for (uint32_t code = 0; code < 256; ++code) {
    const uint32_t half = twin_e4m3_to_f16_bits(code);
    if ((code & 0x7f) == 0x7f) {
      EXPECT_EQ(half & 0x7c00, 0x7c00U) << code; // a NaN
      EXPECT_NE(half & 0x3ff, 0U) << code;
      EXPECT_EQ(half & 0x8000, (code & 0x80) << 8) << code;
      continue;
    }
    EXPECT_EQ(f16_value(half), e4m3_value(code)) << "code " << code;
    EXPECT_EQ(half & 0x8000, (code & 0x80) << 8) << code;
  }
}

// texture_layers: the lanes' values hold f16 pairs; the PTX's product is defined by the mma.sync
// fragment layout (the lane's words a[j] = values[(k + j) % channels], b = weights[2k], [2k + 1]).
template <WmmaTarget Target>
float layer_twin_energy(const std::vector<std::vector<float>>& values, int channels,
                        const std::vector<uint32_t>& weights)
{
  float lane_energy[k_lanes] = {};
  uint32_t warp_tile[128];
  const std::string conflicts = run_wave<Target>([&](HostWave<Target>& wave) {
    lane_energy[wave.lane()] = layer_energy_twin(wave, values[wave.lane()].data(), channels, weights.data(), warp_tile);
  });
  EXPECT_EQ(conflicts, "");
  float energy = 0.0F;
  for (float part : lane_energy) {
    energy += part;
  }
  return energy;
}

TEST(NativeMmaTwins, LayerEnergyIsTheSumOfThePtxProductSquared)
{
  std::mt19937 random(5);
  std::uniform_int_distribution<int> small(-2, 2);
  for (int channels : {8, 16, 24, 32}) {
    SCOPED_TRACE("channels " + std::to_string(channels));
    std::vector<std::vector<float>> values(k_lanes, std::vector<float>(static_cast<size_t>(channels)));
    for (std::vector<float>& lane : values) {
      for (float& value : lane) {
        const uint32_t bits = small_code(small(random), false) | small_code(small(random), false) << 16;
        std::memcpy(&value, &bits, 4);
      }
    }
    std::vector<uint32_t> weights(static_cast<size_t>(channels / 8 * 2));
    for (uint32_t& word : weights) {
      word = small_code(small(random), false) | small_code(small(random), false) << 16;
    }
    float d[16][8] = {};
    const MmaLayoutSpec a_spec{MmaLayout::ptx, MmaOperand::a, 16};
    const MmaLayoutSpec b_spec{MmaLayout::ptx, MmaOperand::b, 16};
    for (int k = 0; k < channels / 8; ++k) {
      float a[16][16] = {};
      float b[16][8] = {};
      for (int lane = 0; lane < k_lanes; ++lane) {
        for (int j = 0; j < 4; ++j) {
          uint32_t bits;
          std::memcpy(&bits, &values[static_cast<size_t>(lane)][static_cast<size_t>((k + j) % channels)], 4);
          for (int s = 0; s < 2; ++s) {
            const MatrixPos pos = mma_layout_position(a_spec, lane, j, s);
            a[pos.row][pos.col] = f16_value((bits >> (16 * s)) & 0xffff);
          }
        }
        for (int j = 0; j < 2; ++j) {
          for (int s = 0; s < 2; ++s) {
            const MatrixPos pos = mma_layout_position(b_spec, lane, j, s);
            b[pos.row][pos.col] = f16_value((weights[static_cast<size_t>(k * 2 + j)] >> (16 * s)) & 0xffff);
          }
        }
      }
      for (int row = 0; row < 16; ++row) {
        for (int col = 0; col < 8; ++col) {
          for (int i = 0; i < 16; ++i) {
            d[row][col] += a[row][i] * b[i][col];
          }
        }
      }
    }
    float expected = 0.0F;
    for (const auto& row : d) {
      for (float value : row) {
        expected += value * value;
      }
    }
    EXPECT_GT(expected, 0.0F);
    EXPECT_EQ(layer_twin_energy<WmmaTarget::gfx11>(values, channels, weights), expected);
    EXPECT_EQ(layer_twin_energy<WmmaTarget::gfx12>(values, channels, weights), expected);
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
