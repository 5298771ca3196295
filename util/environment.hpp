#pragma once
// A process environment as a map, so that the client, the daemon and the CLI read variables the
// same way and tests hand in their own: an empty value counts as unset (what d4r's bridge does).

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace d4r {

using EnvironmentMap = std::map<std::string, std::string, std::less<>>;

// "NAME=value" entries; an entry without '=' is skipped, the first of a repeated name wins (as
// getenv finds it).
[[nodiscard]] EnvironmentMap environment_from_entries(std::span<const std::string> entries);
// This process's environment (environ).
[[nodiscard]] EnvironmentMap environment_from_process();
// The value of `name`; nullopt when unset or empty.
[[nodiscard]] std::optional<std::string> environment_value(const EnvironmentMap& environment,
                                                           std::string_view name);

} // namespace d4r
