#pragma once
// Where the daemon keeps its signing key when the configuration names no other place: its state
// folder in the XDG base directory spec's sense (data that outlives restarts and belongs to this
// machine, not to a cache a purge may empty): $XDG_STATE_HOME/d4r-kerneld/signing.key, else
// ~/.local/state/d4r-kerneld/signing.key. The daemon and `d4r-kernel key show` both ask here, so
// that the key a user pins is the key the daemon signs with.

#include "util/environment.hpp"

#include <filesystem>
#include <optional>

namespace d4r::trust {

// nullopt when neither an absolute XDG_STATE_HOME nor HOME is set (the spec says a relative
// XDG_STATE_HOME is ignored).
[[nodiscard]] std::optional<std::filesystem::path>
default_signing_key_path(const EnvironmentMap& environment);

} // namespace d4r::trust
