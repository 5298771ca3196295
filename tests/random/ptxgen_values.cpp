// Input values for generated programs: edge-heavy per class (integers at their limits and at
// shift/bit-field boundaries; floats at ±0, ±inf, NaNs with payloads and signs, denormals, the
// largest finite, rounding ties, integer-conversion limits), and plain random bits.

#include "tests/random/ptxgen_internal.hpp"

#include <cstring>

namespace d4r::ptxgen {

namespace {

uint64_t f32_bits(float value)
{
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return bits;
}

uint64_t f64_bits(double value)
{
  uint64_t bits = 0;
  std::memcpy(&bits, &value, 8);
  return bits;
}

} // namespace

uint64_t int_value(Rng& rng, int bits)
{
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t min = uint64_t{1} << (bits - 1);
  const uint64_t k_edges[] = {0, 1, mask, 2, min, min - 1, min + 1, mask - 1, 0x7f, 0x80, 0xff, 0x100,
                              0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
                              0x100000000ULL, 31, 32, 33, 63, 64, 65, 15, 16, 24, 8};
  switch (rng.below(4)) {
  case 0:
    return k_edges[rng.below(std::size(k_edges))] & mask;
  case 1: // small, either sign
    return (static_cast<uint64_t>(static_cast<int64_t>(rng.below(81)) - 40)) & mask;
  case 2: // one bit or all bits below one
    return (rng.chance(1, 2) ? uint64_t{1} << rng.below(bits) : (uint64_t{1} << rng.below(bits)) - 1) & mask;
  default:
    return rng.next() & mask;
  }
}

uint64_t f32_value(Rng& rng)
{
  static const uint64_t k_edges[] = {
      0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
      0x7fffffff, 0x7fa00001, 0xff812345, 0x7fc12345, 0x00000001, 0x807fffff, 0x007fffff, 0x00800000,
      0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f000000, 0x3fc00000, 0x40200000, 0xc0200000, 0x4f000000,
      0xcf000000, 0x4f800000, 0x5f000000, 0xdf000000, 0x477fe000, 0x477ff000, 0x47800000, 0x3f7fffff,
      0x33800000, 0x38800000, 0x387fc000, 0x43800000, 0xc3000000, 0x437f0000, 0x4effffff, 0x3effffff};
  switch (rng.below(4)) {
  case 0:
  case 1:
    return k_edges[rng.below(std::size(k_edges))];
  case 2: { // a modest number with a random fraction
    const double magnitude = static_cast<double>(rng.below(2000)) / 8.0 - 125.0;
    return f32_bits(static_cast<float>(magnitude + static_cast<double>(rng.below(1000)) / 999.0));
  }
  default:
    return rng.next() & 0xffffffff;
  }
}

uint64_t f64_value(Rng& rng)
{
  static const uint64_t k_edges[] = {
      0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
      0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
      0x7ff4000000000001, 0x7ff8000000012345, 0xfff0000000000001, 0x0000000000000001,
      0x000fffffffffffff, 0x8010000000000000, 0x7fefffffffffffff, 0x3fe0000000000000,
      0x4004000000000000, 0xc004000000000000, 0x41e0000000000000, 0xc1e0000000000000,
      0x41efffffffe00000, 0x43e0000000000000, 0xc3e0000000000000, 0x47efffffe0000000,
      0x47efffffffffffff, 0x3810000000000000, 0x36a0000000000000, 0x380fffffffffffff,
      0x41dfffffffc00000, 0x3fefffffffffffff};
  switch (rng.below(4)) {
  case 0:
  case 1:
    return k_edges[rng.below(std::size(k_edges))];
  case 2: {
    const double magnitude = static_cast<double>(rng.below(4000)) / 16.0 - 125.0;
    return f64_bits(magnitude + static_cast<double>(rng.below(100000)) / 99999.0);
  }
  default:
    return rng.next();
  }
}

uint64_t f16_value(Rng& rng)
{
  static const uint64_t k_edges[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe00,
                                     0x7d01, 0x7fff, 0x0001, 0x83ff, 0x03ff, 0x0400, 0x7bff, 0xfbff,
                                     0x3800, 0x3e00, 0x4100, 0xc100, 0x5bff, 0x3bff, 0x0200, 0x1400};
  switch (rng.below(3)) {
  case 0:
  case 1:
    return k_edges[rng.below(std::size(k_edges))];
  default:
    return rng.next() & 0xffff;
  }
}

uint64_t bf16_value(Rng& rng)
{
  static const uint64_t k_edges[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0xffc0,
                                     0x7fa1, 0x7fff, 0x0001, 0x807f, 0x007f, 0x0080, 0x7f7f, 0xff7f,
                                     0x3f00, 0x3fc0, 0x4020, 0xc020, 0x4380, 0x3f7f};
  switch (rng.below(3)) {
  case 0:
  case 1:
    return k_edges[rng.below(std::size(k_edges))];
  default:
    return rng.next() & 0xffff;
  }
}

uint64_t input_word(Rng& rng, ValueClass value_class)
{
  switch (value_class) {
  case ValueClass::int16:
    return int_value(rng, 16);
  case ValueClass::int32:
    return int_value(rng, 32);
  case ValueClass::int64:
    return int_value(rng, 64);
  case ValueClass::f16:
    return f16_value(rng) | (f16_value(rng) << 16);
  case ValueClass::bf16:
    return bf16_value(rng) | (bf16_value(rng) << 16);
  case ValueClass::f32:
    return f32_value(rng);
  case ValueClass::f64:
    return f64_value(rng);
  case ValueClass::bits:
    return rng.next();
  }
  return 0;
}

} // namespace d4r::ptxgen
