#include "util/ptx_identity.hpp"

#include "util/digest.hpp"

#include <algorithm>
#include <cstring>

namespace d4r {

namespace {

bool is_name_char(char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

bool is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

} // namespace

uint64_t ptx_module_hash(std::string_view module_text)
{
  size_t end = module_text.find_last_not_of('\0');
  module_text = end == std::string_view::npos ? std::string_view() : module_text.substr(0, end + 1);
  return fnv1a64(module_text);
}

std::string_view ptx_text_of_image(std::span<const std::byte> image)
{
  size_t limit = std::min<size_t>(image.size(), static_cast<size_t>(k_max_ptx_image_bytes));
  const char* text = reinterpret_cast<const char*>(image.data());
  const void* nul = std::memchr(text, 0, limit);
  size_t length = nul ? static_cast<size_t>(static_cast<const char*>(nul) - text) : limit;
  return {text, length};
}

std::vector<std::string> scan_entry_names(std::string_view text)
{
  static constexpr std::string_view k_keyword = ".entry";
  std::vector<std::string> names;
  for (size_t at = text.find(k_keyword); at != std::string_view::npos;
       at = text.find(k_keyword, at + 1)) {
    size_t pos = at + k_keyword.size();
    if (pos >= text.size() || !is_blank(text[pos])) {
      continue;
    }
    while (pos < text.size() && is_blank(text[pos])) {
      ++pos;
    }
    size_t name_begin = pos;
    while (pos < text.size() && is_name_char(text[pos])) {
      ++pos;
    }
    size_t name_length = pos - name_begin;
    if (name_length == 0) {
      continue;
    }
    while (pos < text.size() && is_blank(text[pos])) {
      ++pos;
    }
    if (pos >= text.size() || text[pos] != '(') {
      continue;
    }
    std::string name(text.substr(name_begin, name_length));
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

} // namespace d4r
