#pragma once
// Where d4r-kerneld listens and where games connect: one rule for the client, the daemon and the
// CLI (the daemon's documented one, which d4r-kerneld.socket's ListenStream=%t/... also names).

#include "util/environment.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace d4r {

// For help texts and messages.
inline constexpr std::string_view k_socket_rule =
    "$XDG_RUNTIME_DIR/d4r-kerneld/socket, else /run/user/UID/d4r-kerneld/socket";

// $XDG_RUNTIME_DIR/d4r-kerneld/socket, else /run/user/<uid>/d4r-kerneld/socket. A relative
// XDG_RUNTIME_DIR is ignored as the XDG spec says: the daemon and a game run in different folders,
// so a relative path would name two sockets.
[[nodiscard]] std::string default_socket_path(const EnvironmentMap& environment, uint32_t uid);

} // namespace d4r
