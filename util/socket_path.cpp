#include "util/socket_path.hpp"

#include <filesystem>

namespace d4r {

std::string default_socket_path(const EnvironmentMap& environment, uint32_t uid)
{
  std::optional<std::string> runtime = environment_value(environment, "XDG_RUNTIME_DIR");
  if (runtime && runtime->starts_with("/")) {
    return (std::filesystem::path(*runtime) / "d4r-kerneld" / "socket").string();
  }
  return "/run/user/" + std::to_string(uid) + "/d4r-kerneld/socket";
}

} // namespace d4r
