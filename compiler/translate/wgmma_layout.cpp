#include "compiler/translate/wgmma_layout.hpp"

namespace d4r::compiler::translate {

WgmmaDescriptor wgmma_descriptor(uint64_t bits)
{
  WgmmaDescriptor d;
  d.start = static_cast<uint32_t>(bits & 0x3fffU) << 4;
  d.lbo = static_cast<uint32_t>((bits >> 16) & 0x3fffU) << 4;
  d.sbo = static_cast<uint32_t>((bits >> 32) & 0x3fffU) << 4;
  d.base = static_cast<uint32_t>((bits >> 49) & 7U);
  d.mode = static_cast<uint32_t>((bits >> 62) & 3U);
  return d;
}

int wgmma_width_shift(uint32_t mode)
{
  return mode == 0 ? 4 : 8 - static_cast<int>(mode);
}

uint32_t wgmma_address(const WgmmaDescriptor& d, int mn, int k, int element_bytes, bool mn_major)
{
  int shift = wgmma_width_shift(d.mode);
  uint32_t width = 1U << shift;
  auto u = [](int v) { return static_cast<uint32_t>(v); };
  uint32_t off = 0;
  if (!mn_major) {
    uint32_t kb = u(k * element_bytes);
    uint32_t chunk = d.mode == 0 ? d.lbo : 16U;
    off = u(mn % 8) * width + u(mn / 8) * d.sbo + (kb / 16) * chunk + kb % 16;
  } else {
    uint32_t mb = u(mn * element_bytes);
    uint32_t mn_stride = d.mode == 0 ? d.sbo : d.lbo;
    uint32_t k_stride = d.mode == 0 ? d.lbo : d.sbo;
    off = (mb & (width - 1)) + (mb >> shift) * mn_stride + u(k % 8) * width + u(k / 8) * k_stride;
  }
  uint32_t address = (d.start + off) & 0x3ffffU;
  uint32_t mask = (width >> 4) - 1;
  return address ^ ((((address >> 7) - d.base) & mask) << 4);
}

WgmmaPos wgmma_d_position(int thread, int element)
{
  int warp = (thread >> 5) & 3;
  int lane = thread & 31;
  int g = lane >> 2;
  int t = lane & 3;
  return WgmmaPos{16 * warp + g + 8 * ((element >> 1) & 1), 8 * (element >> 2) + 2 * t + (element & 1)};
}

WgmmaPos wgmma_a_position(int thread, int reg, int sub, int bits)
{
  int warp = (thread >> 5) & 3;
  int lane = thread & 31;
  int per = 32 / bits;
  int q = 4 * (reg >> 1) + (lane & 3);
  return WgmmaPos{16 * warp + (lane >> 2) + 8 * (reg & 1), q * per + sub};
}

} // namespace d4r::compiler::translate
