#include "util/boolean_spelling.hpp"

#include <algorithm>
#include <cctype>

namespace d4r {

namespace {

bool equals_ignoring_case(std::string_view text, std::string_view word)
{
  return text.size() == word.size() &&
         std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

} // namespace

std::optional<bool> parse_boolean(std::string_view text)
{
  for (std::string_view word : {"1", "true", "on", "yes"}) {
    if (equals_ignoring_case(text, word)) {
      return true;
    }
  }
  for (std::string_view word : {"0", "false", "off", "no"}) {
    if (equals_ignoring_case(text, word)) {
      return false;
    }
  }
  return std::nullopt;
}

} // namespace d4r
