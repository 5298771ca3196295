#include "client/game_name.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>

namespace d4r::client {

namespace {

std::string_view basename_of(std::string_view path, std::string_view separators)
{
  size_t slash = path.find_last_of(separators);
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool ends_with_exe(std::string_view name)
{
  if (name.size() < 5) {
    return false;
  }
  std::string tail(name.substr(name.size() - 4));
  for (char& c : tail) {
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return tail == ".exe";
}

// The length of the valid UTF-8 sequence at text[at], 0 if none (protobuf refuses a string field
// that is not UTF-8, which would turn every request into a transport error).
size_t utf8_length(std::string_view text, size_t at)
{
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
  if (length == 0 || at + length > text.size()) {
    return 0;
  }
  for (size_t i = 1; i < length; ++i) {
    if ((static_cast<unsigned char>(text[at + i]) & 0xc0) != 0x80) {
      return 0;
    }
  }
  return length;
}

// Valid UTF-8 with no control characters, at most k_max_game_bytes: '?' for what is not.
std::string clean(std::string_view name)
{
  std::string out;
  for (size_t at = 0; at < name.size();) {
    size_t length = utf8_length(name, at);
    const auto byte = static_cast<unsigned char>(name[at]);
    std::string_view piece = length == 0 || (length == 1 && (byte < 0x20 || byte == 0x7f))
                                 ? std::string_view("?")
                                 : name.substr(at, length);
    if (out.size() + piece.size() > k_max_game_bytes) {
      break;
    }
    out += piece;
    at += length == 0 ? 1 : length;
  }
  return out;
}

std::string read_argv0()
{
  std::FILE* file = std::fopen("/proc/self/cmdline", "rb");
  if (file == nullptr) {
    return "";
  }
  std::array<char, 4096> buffer{};
  size_t got = std::fread(buffer.data(), 1, buffer.size() - 1, file);
  std::fclose(file);
  std::string text(buffer.data(), got);
  return text.substr(0, text.find('\0'));
}

} // namespace

std::string game_name_from(std::string_view exe_path, std::string_view argv0)
{
  std::string_view exe = basename_of(exe_path, "/");
  // wine, wine64, wine-preloader, wine64-preloader: the loader of a Windows program.
  if (exe.starts_with("wine")) {
    std::string_view windows = basename_of(argv0, "\\/");
    if (ends_with_exe(windows)) {
      return clean(windows);
    }
  }
  return clean(exe);
}

const std::string& this_game()
{
  static const std::string game = [] {
    std::array<char, 4096> exe{};
    ssize_t length = ::readlink("/proc/self/exe", exe.data(), exe.size() - 1);
    std::string_view path = length > 0 ? std::string_view(exe.data(), static_cast<size_t>(length))
                                       : std::string_view();
    return game_name_from(path, read_argv0());
  }();
  return game;
}

} // namespace d4r::client
