#pragma once
// The whole content of a file, for tests: an empty string when it cannot be read (the tests then
// fail on the content they expected).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace d4r::testing {

inline std::string read_file(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace d4r::testing
