#pragma once
// The generator's private parts: its random numbers and input values (ptxgen_values.cpp).

#include "tests/random/ptxgen.hpp"

#include <cstddef>
#include <cstdint>

namespace d4r::ptxgen {

// splitmix64: the same numbers from a seed on every machine and standard library.
class Rng {
public:
  explicit Rng(uint64_t seed) : m_state(seed) {}
  uint64_t next()
  {
    uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0. The modulo bias is irrelevant here.
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  bool chance(uint64_t num, uint64_t den) { return next() % den < num; }

private:
  uint64_t m_state;
};

enum class ValueClass { int16, int32, int64, f16, bf16, f32, f64, bits };

[[nodiscard]] uint64_t int_value(Rng& rng, int bits);
[[nodiscard]] uint64_t f32_value(Rng& rng);
[[nodiscard]] uint64_t f64_value(Rng& rng);
[[nodiscard]] uint64_t f16_value(Rng& rng);
[[nodiscard]] uint64_t bf16_value(Rng& rng);
[[nodiscard]] uint64_t input_word(Rng& rng, ValueClass value_class);

} // namespace d4r::ptxgen
