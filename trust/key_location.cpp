#include "trust/key_location.hpp"

namespace d4r::trust {

std::optional<std::filesystem::path> default_signing_key_path(const EnvironmentMap& environment)
{
  std::optional<std::string> state = environment_value(environment, "XDG_STATE_HOME");
  if (state && std::filesystem::path(*state).is_absolute()) {
    return std::filesystem::path(*state) / "d4r-kerneld" / "signing.key";
  }
  if (std::optional<std::string> home = environment_value(environment, "HOME")) {
    return std::filesystem::path(*home) / ".local" / "state" / "d4r-kerneld" / "signing.key";
  }
  return std::nullopt;
}

} // namespace d4r::trust
