#include "compiler/msgpack_reader.hpp"

#include <bit>
#include <algorithm>
#include <string>
#include <utility>

namespace d4r::compiler::msgpack {

namespace {

std::unexpected<Error> corrupt(std::string message)
{
  return make_error(ErrorCode::corrupt, "msgpack: " + std::move(message));
}

class Decoder {
public:
  explicit Decoder(std::span<const std::byte> bytes) : m_bytes(bytes) {}
  Expected<Value> value(int depth);

private:
  [[nodiscard]] size_t left() const { return m_bytes.size() - m_at; }
  Expected<uint64_t> big_endian(size_t width);
  Expected<std::string_view> take(uint64_t size);
  Expected<Value> sized(Kind kind, size_t width);
  Expected<Value> extension(size_t payload, size_t width);
  Expected<Value> container(Kind kind, uint64_t count, int depth);
  Expected<Value> integer(uint8_t format);

  std::span<const std::byte> m_bytes;
  size_t m_at = 0;
};

Expected<uint64_t> Decoder::big_endian(size_t width)
{
  if (left() < width) {
    return corrupt("the input ends inside a value");
  }
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value = (value << 8) | std::to_integer<uint64_t>(m_bytes[m_at + i]);
  }
  m_at += width;
  return value;
}

Expected<std::string_view> Decoder::take(uint64_t size)
{
  if (size > left()) {
    return corrupt("a string or payload of " + std::to_string(size) + " bytes overruns the input");
  }
  std::string_view text(reinterpret_cast<const char*>(m_bytes.data() + m_at), size);
  m_at += size;
  return text;
}

// str, bin: a length of `width` bytes, then the bytes.
Expected<Value> Decoder::sized(Kind kind, size_t width)
{
  TRY_ASSIGN(uint64_t size, big_endian(width));
  Value value;
  value.kind = kind;
  TRY_ASSIGN(value.text, take(size));
  return value;
}

// fixext (payload > 0: its size) or ext (a length of `width` bytes); a type byte either way.
Expected<Value> Decoder::extension(size_t payload, size_t width)
{
  uint64_t size = payload;
  if (width > 0) {
    TRY_ASSIGN(size, big_endian(width));
  }
  TRY(big_endian(1)); // the type
  Value value;
  value.kind = Kind::extension;
  TRY_ASSIGN(value.text, take(size));
  return value;
}

Expected<Value> Decoder::container(Kind kind, uint64_t count, int depth)
{
  if (depth >= k_max_depth) {
    return corrupt("nested deeper than " + std::to_string(k_max_depth) + " levels");
  }
  uint64_t objects = kind == Kind::map ? 2 * count : count;
  if (objects > left()) { // every object takes a byte at least
    return corrupt("a container of " + std::to_string(count) + " entries overruns the input");
  }
  Value value;
  value.kind = kind;
  value.items.reserve(std::min<uint64_t>(objects, 64)); // a damaged count costs no big block
  for (uint64_t i = 0; i < objects; ++i) {
    TRY_ASSIGN(Value item, this->value(depth + 1));
    value.items.push_back(std::move(item));
  }
  return value;
}

// 0xca-0xd3: float 32/64, uint 8-64, int 8-64.
Expected<Value> Decoder::integer(uint8_t format)
{
  Value value;
  if (format == 0xca || format == 0xcb) {
    value.kind = Kind::floating;
    if (format == 0xca) {
      TRY_ASSIGN(uint64_t bits, big_endian(4));
      value.float_value = std::bit_cast<float>(static_cast<uint32_t>(bits));
    } else {
      TRY_ASSIGN(uint64_t bits, big_endian(8));
      value.float_value = std::bit_cast<double>(bits);
    }
    return value;
  }
  const bool is_signed = format >= 0xd0;
  const size_t width = size_t{1} << (is_signed ? format - 0xd0 : format - 0xcc);
  TRY_ASSIGN(uint64_t bits, big_endian(width));
  if (!is_signed) {
    value.kind = Kind::unsigned_int;
    value.unsigned_value = bits;
    return value;
  }
  value.kind = Kind::signed_int;
  const int shift = static_cast<int>(64 - 8 * width); // sign-extend from `width` bytes
  value.signed_value = static_cast<int64_t>(bits << shift) >> shift;
  return value;
}

Expected<Value> Decoder::value(int depth)
{
  TRY_ASSIGN(uint64_t first, big_endian(1));
  const auto format = static_cast<uint8_t>(first);
  Value value;
  if (format <= 0x7f) {
    value.kind = Kind::unsigned_int;
    value.unsigned_value = format;
    return value;
  }
  if (format >= 0xe0) {
    value.kind = Kind::signed_int;
    value.signed_value = static_cast<int8_t>(format);
    return value;
  }
  if (format <= 0x8f) {
    return container(Kind::map, format & 0x0f, depth);
  }
  if (format <= 0x9f) {
    return container(Kind::array, format & 0x0f, depth);
  }
  if (format <= 0xbf) {
    value.kind = Kind::string;
    TRY_ASSIGN(value.text, take(format & 0x1f));
    return value;
  }
  switch (format) {
  case 0xc0:
    return value; // nil
  case 0xc2:
  case 0xc3:
    value.kind = Kind::boolean;
    value.unsigned_value = format - 0xc2;
    return value;
  case 0xc4:
  case 0xc5:
  case 0xc6:
    return sized(Kind::binary, size_t{1} << (format - 0xc4));
  case 0xc7:
  case 0xc8:
  case 0xc9:
    return extension(0, size_t{1} << (format - 0xc7));
  case 0xd4:
  case 0xd5:
  case 0xd6:
  case 0xd7:
  case 0xd8:
    return extension(size_t{1} << (format - 0xd4), 0);
  case 0xd9:
  case 0xda:
  case 0xdb:
    return sized(Kind::string, size_t{1} << (format - 0xd9));
  case 0xdc:
  case 0xdd: {
    TRY_ASSIGN(uint64_t count, big_endian(format == 0xdc ? 2 : 4));
    return container(Kind::array, count, depth);
  }
  case 0xde:
  case 0xdf: {
    TRY_ASSIGN(uint64_t count, big_endian(format == 0xde ? 2 : 4));
    return container(Kind::map, count, depth);
  }
  case 0xc1:
    return corrupt("byte 0xc1 is never used");
  default:
    return integer(format); // 0xca-0xd3
  }
}

} // namespace

const Value* Value::find(std::string_view key) const
{
  if (kind != Kind::map) {
    return nullptr;
  }
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].kind == Kind::string && items[i].text == key) {
      return &items[i + 1];
    }
  }
  return nullptr;
}

bool Value::is_non_negative_integer() const
{
  return kind == Kind::unsigned_int || (kind == Kind::signed_int && signed_value >= 0);
}

uint64_t Value::as_unsigned() const
{
  return kind == Kind::signed_int ? static_cast<uint64_t>(signed_value) : unsigned_value;
}

Expected<Value> decode(std::span<const std::byte> bytes)
{
  Decoder decoder(bytes);
  return decoder.value(0);
}

} // namespace d4r::compiler::msgpack
