#include "util/environment.hpp"

#include <vector>

extern char** environ;

namespace d4r {

EnvironmentMap environment_from_entries(std::span<const std::string> entries)
{
  EnvironmentMap map;
  for (const std::string& entry : entries) {
    size_t equals = entry.find('=');
    if (equals != std::string::npos) {
      map.emplace(entry.substr(0, equals), entry.substr(equals + 1));
    }
  }
  return map;
}

EnvironmentMap environment_from_process()
{
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    entries.emplace_back(*entry);
  }
  return environment_from_entries(entries);
}

std::optional<std::string> environment_value(const EnvironmentMap& environment,
                                             std::string_view name)
{
  auto found = environment.find(name);
  if (found == environment.end() || found->second.empty()) {
    return std::nullopt;
  }
  return found->second;
}

} // namespace d4r
