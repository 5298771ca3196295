#include "util/config_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace d4r {

namespace {

std::string_view trim(std::string_view text)
{
  constexpr std::string_view k_blanks = " \t\r\n";
  size_t first = text.find_first_not_of(k_blanks);
  if (first == std::string_view::npos) {
    return {};
  }
  size_t last = text.find_last_not_of(k_blanks);
  return text.substr(first, last - first + 1);
}

// "true ; the tested path" -> "true": a comment after a blank, as people annotate d4r.ini.
std::string_view strip_trailing_comment(std::string_view value)
{
  for (size_t i = 1; i < value.size(); ++i) {
    if ((value[i] == ';' || value[i] == '#') && (value[i - 1] == ' ' || value[i - 1] == '\t')) {
      return trim(value.substr(0, i));
    }
  }
  return value;
}

std::string where(const std::filesystem::path& path, int64_t line)
{
  return path.string() + ":" + std::to_string(line);
}

} // namespace

std::optional<std::filesystem::path> config_file_path(const EnvironmentMap& environment)
{
  std::optional<std::string> config = environment_value(environment, "XDG_CONFIG_HOME");
  if (config && config->starts_with("/")) {
    return std::filesystem::path(*config) / "d4r-kerneld" / "config";
  }
  if (std::optional<std::string> home = environment_value(environment, "HOME")) {
    return std::filesystem::path(*home) / ".config" / "d4r-kerneld" / "config";
  }
  return std::nullopt;
}

ConfigFile parse_config_text(std::string_view text, const std::filesystem::path& path)
{
  ConfigFile file;
  file.path = path;
  file.present = true;
  std::string section;
  int64_t number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (line.empty() || line.starts_with(";") || line.starts_with("#")) {
      continue;
    }
    if (line.starts_with("[")) {
      if (!line.ends_with("]")) {
        file.problems.push_back(where(path, number) + ": a section line must end with ']'");
        continue;
      }
      section = std::string(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos || trim(line.substr(0, equals)).empty()) {
      file.problems.push_back(where(path, number) + ": '" + std::string(line.substr(0, 80)) +
                              "' is neither 'Key = value' nor '[Section]'");
      continue;
    }
    file.entries.push_back({section, std::string(trim(line.substr(0, equals))),
                            std::string(strip_trailing_comment(trim(line.substr(equals + 1)))),
                            number});
  }
  return file;
}

ConfigFile read_config_file(const std::filesystem::path& path)
{
  ConfigFile file;
  file.path = path;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return file;
  }
  file.present = true;
  if (std::filesystem::is_directory(path, error)) {
    file.problems.push_back(path.string() + ": a directory, not a config file");
    return file;
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    file.problems.push_back(path.string() + ": cannot be read: " + std::strerror(errno));
    return file;
  }
  std::string text(static_cast<size_t>(k_config_file_max_bytes) + 1, '\0');
  stream.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(stream.gcount()));
  if (std::ssize(text) > k_config_file_max_bytes) {
    file.problems.push_back(path.string() + ": larger than " +
                            std::to_string(k_config_file_max_bytes / 1024) +
                            " KiB, not read (is it the right file?)");
    return file;
  }
  return parse_config_text(text, path);
}

} // namespace d4r
