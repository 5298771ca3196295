#include "cli/json_writer.hpp"

#include <cassert>

namespace d4r::cli {

namespace {

constexpr char k_hex_digits[] = "0123456789abcdef";

void append_u00(std::string& out, unsigned char byte)
{
  out += "\\u00";
  out += k_hex_digits[byte >> 4];
  out += k_hex_digits[byte & 15];
}

bool is_continuation(unsigned char byte)
{
  return (byte & 0xc0) == 0x80;
}

// The length of the valid UTF-8 sequence of 2..4 bytes at text[i], or 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF are invalid, RFC 3629).
size_t utf8_sequence_length(std::string_view text, size_t i)
{
  auto at = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  unsigned char lead = at(0);
  size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                  : lead >= 0xe0 && lead <= 0xef ? 3
                  : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                 : 0;
  if (length == 0 || i + length > text.size()) {
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    if (!is_continuation(at(k))) {
      return 0;
    }
  }
  unsigned char second = at(1);
  bool overlong_or_surrogate = (lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) ||
                               (lead == 0xf0 && second < 0x90) || (lead == 0xf4 && second > 0x8f);
  return overlong_or_surrogate ? 0 : length;
}

void append_ascii(std::string& out, unsigned char byte)
{
  switch (byte) {
  case '"':
    out += "\\\"";
    return;
  case '\\':
    out += "\\\\";
    return;
  case '\b':
    out += "\\b";
    return;
  case '\f':
    out += "\\f";
    return;
  case '\n':
    out += "\\n";
    return;
  case '\r':
    out += "\\r";
    return;
  case '\t':
    out += "\\t";
    return;
  }
  if (byte < 0x20 || byte == 0x7f) {
    append_u00(out, byte);
    return;
  }
  out += static_cast<char>(byte);
}

} // namespace

std::string json_quote(std::string_view text)
{
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < text.size()) {
    unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      append_ascii(out, byte);
      ++i;
      continue;
    }
    size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      append_u00(out, byte);
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  out += '"';
  return out;
}

void JsonWriter::before_value()
{
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  assert((m_text.empty() || !m_open.empty()) && "a JSON document has one top-level value");
  if (!m_open.empty()) {
    if (m_open.back()) {
      m_text += ',';
    }
    m_open.back() = true;
  }
}

JsonWriter& JsonWriter::begin_object()
{
  before_value();
  m_text += '{';
  m_open.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_object()
{
  assert(!m_open.empty() && !m_after_key && "end_object without an open object");
  m_open.pop_back();
  m_text += '}';
  return *this;
}

JsonWriter& JsonWriter::begin_array()
{
  before_value();
  m_text += '[';
  m_open.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_array()
{
  assert(!m_open.empty() && !m_after_key && "end_array without an open array");
  m_open.pop_back();
  m_text += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name)
{
  assert(!m_open.empty() && !m_after_key && "key outside an object");
  before_value();
  m_text += json_quote(name);
  m_text += ':';
  m_after_key = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text)
{
  before_value();
  m_text += json_quote(text);
  return *this;
}

JsonWriter& JsonWriter::number(int64_t value)
{
  before_value();
  m_text += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::unsigned_number(uint64_t value)
{
  before_value();
  m_text += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value)
{
  before_value();
  m_text += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null()
{
  before_value();
  m_text += "null";
  return *this;
}

} // namespace d4r::cli
