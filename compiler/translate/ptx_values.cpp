#include "compiler/translate/ptx_values.hpp"

#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Type.h>

#include <charconv>
#include <cstdlib>
#include <string>

namespace d4r::compiler::translate {

namespace {

std::optional<uint64_t> parse_digits(std::string_view digits, int base)
{
  if (digits.empty()) {
    return std::nullopt;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

llvm::APFloat to_apfloat(const FloatLiteral& literal)
{
  if (literal.bits == 32) {
    return llvm::APFloat(llvm::APFloat::IEEEsingle(),
                         llvm::APInt(32, literal.raw & 0xffffffffU));
  }
  return llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, literal.raw));
}

} // namespace

std::optional<uint64_t> parse_integer(std::string_view text)
{
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) {
    text.remove_suffix(1);
  }
  std::optional<uint64_t> value;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    value = parse_digits(text.substr(2), 16);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    value = parse_digits(text.substr(2), 2);
  } else if (text.size() > 1 && text[0] == '0') {
    value = parse_digits(text.substr(1), 8);
  } else {
    value = parse_digits(text, 10);
  }
  if (value && negative) {
    value = ~*value + 1;
  }
  return value;
}

std::optional<FloatLiteral> parse_float(std::string_view text)
{
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  FloatLiteral literal;
  if (text.size() == 10 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F')) {
    std::optional<uint64_t> raw = parse_digits(text.substr(2), 16);
    if (!raw) {
      return std::nullopt;
    }
    literal.bits = 32;
    literal.raw = *raw ^ (negative ? 0x80000000U : 0U);
    return literal;
  }
  if (text.size() == 18 && text[0] == '0' && (text[1] == 'd' || text[1] == 'D')) {
    std::optional<uint64_t> raw = parse_digits(text.substr(2), 16);
    if (!raw) {
      return std::nullopt;
    }
    literal.raw = *raw ^ (negative ? 0x8000000000000000ULL : 0U);
    return literal;
  }
  std::string copy(text);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || copy.empty()) {
    return std::nullopt;
  }
  llvm::APFloat apfloat(negative ? -value : value);
  literal.raw = apfloat.bitcastToAPInt().getZExtValue();
  return literal;
}

llvm::Constant* float_constant(llvm::Type* type, const FloatLiteral& literal)
{
  llvm::APFloat value = to_apfloat(literal);
  bool lost = false;
  value.convert(type->getFltSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return llvm::ConstantFP::get(type->getContext(), value);
}

uint64_t half_bits(const FloatLiteral& literal, bool bf16)
{
  llvm::APFloat value = to_apfloat(literal);
  bool lost = false;
  value.convert(bf16 ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
  return value.bitcastToAPInt().getZExtValue();
}

} // namespace d4r::compiler::translate
