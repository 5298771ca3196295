#pragma once
// PTX immediates as written (PTX ISA "Constants"): integers in decimal, hex (0x), octal (leading
// 0) or binary (0b), with an optional U suffix and sign; floating-point constants as exact bit
// patterns (0fXXXXXXXX single, 0dXXXXXXXXXXXXXXXX double) or decimal literals (double).

#include <cstdint>
#include <optional>
#include <string_view>

namespace llvm {
class Constant;
class Type;
} // namespace llvm

namespace d4r::compiler::translate {

struct FloatLiteral {
  int bits = 64;     // 32 for 0f, 64 for 0d and decimal literals
  uint64_t raw = 0;  // the bit pattern
};

// Two's complement for negative values; nullopt when `text` is not an integer.
[[nodiscard]] std::optional<uint64_t> parse_integer(std::string_view text);
[[nodiscard]] std::optional<FloatLiteral> parse_float(std::string_view text);
// The literal as a constant of the float or double `type` (exact when the widths match, rounded to
// nearest otherwise).
[[nodiscard]] llvm::Constant* float_constant(llvm::Type* type, const FloatLiteral& literal);
// The literal rounded to nearest f16 (or bf16) bits.
[[nodiscard]] uint64_t half_bits(const FloatLiteral& literal, bool bf16);

} // namespace d4r::compiler::translate
