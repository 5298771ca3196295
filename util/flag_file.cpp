#include "util/flag_file.hpp"

#include <fstream>
#include <sstream>

namespace d4r {

Expected<std::string> read_flag_file(std::string_view flag, const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return make_error(ErrorCode::io, std::string(flag) + " " + path.string() + ": cannot be read");
  }
  return text.str();
}

} // namespace d4r
