#include "compiler/worker/toolchains.hpp"

namespace d4r::compiler {

namespace {

std::string escape(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

Expected<std::string> unescape(std::string_view text, int line)
{
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (next != '\\' && next != 'n') {
      return make_error(ErrorCode::invalid_argument,
                        "toolchains line " + std::to_string(line) + ": a bad escape");
    }
    out += next == 'n' ? '\n' : '\\';
    ++i;
  }
  return out;
}

} // namespace

std::string format_toolchains(const std::vector<TargetToolchain>& toolchains)
{
  std::string text;
  for (const TargetToolchain& toolchain : toolchains) {
    text += toolchain.target + ' ' + toolchain.backend + ' ' + escape(toolchain.fingerprint) + '\n';
  }
  return text;
}

Expected<std::vector<TargetToolchain>> parse_toolchains(std::string_view text)
{
  std::vector<TargetToolchain> toolchains;
  int number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    size_t first = line.find(' ');
    size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    if (second == std::string_view::npos || first == 0 || second == first + 1 ||
        second + 1 == line.size()) {
      return make_error(ErrorCode::invalid_argument,
                        "toolchains line " + std::to_string(number) +
                            ": expected TARGET BACKEND FINGERPRINT");
    }
    TargetToolchain toolchain;
    toolchain.target = std::string(line.substr(0, first));
    toolchain.backend = std::string(line.substr(first + 1, second - first - 1));
    TRY_ASSIGN(toolchain.fingerprint, unescape(line.substr(second + 1), number));
    toolchains.push_back(std::move(toolchain));
  }
  return toolchains;
}

} // namespace d4r::compiler
