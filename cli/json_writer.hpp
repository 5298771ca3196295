#pragma once
// A small streaming JSON writer for `--json` output. Our own rather than protobuf's JSON mapping
// because that mapping prints a module hash as a decimal string and a sha256 as base64, where every
// other tool (manifests, sha256sum, the human output) uses hex, and because a reply carries fields
// (the code object bytes) that must be left out.
//
// Strings are written byte-exact where they are valid UTF-8; a byte that is not part of a valid
// UTF-8 sequence is written as \u00XX so that the document stays valid whatever a path contains.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::cli {

// `text` as a quoted JSON string.
[[nodiscard]] std::string json_quote(std::string_view text);

class JsonWriter {
public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The next value is this member of the enclosing object.
  JsonWriter& key(std::string_view name);
  JsonWriter& string(std::string_view text);
  JsonWriter& number(int64_t value);
  JsonWriter& unsigned_number(uint64_t value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();

  // The document so far; complete once every object and array is closed.
  [[nodiscard]] const std::string& text() const { return m_text; }
  [[nodiscard]] bool complete() const { return m_open.empty() && !m_text.empty(); }

private:
  void before_value();

  std::string m_text;
  std::vector<bool> m_open; // per open container: true once it holds a member
  bool m_after_key = false;
};

} // namespace d4r::cli
