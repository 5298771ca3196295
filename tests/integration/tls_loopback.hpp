#pragma once
// What the tests of a build server on loopback TCP share: a CA with server and client
// certificates made by the openssl tool, a free port, and a wait for the daemon's TCP side.

#include <filesystem>

namespace d4r::testing {

// Whether the openssl tool is installed (the tests skip without it).
[[nodiscard]] bool openssl_installed();

// ca.crt/ca.key, server.crt/server.key (for 127.0.0.1 and localhost) and client.crt/client.key
// (CN deck) in `dir`, P-256 keys (quick to make).
[[nodiscard]] bool make_certificates(const std::filesystem::path& dir);

// A port of 127.0.0.1 nothing listened on a moment ago; -1 when none could be had.
[[nodiscard]] int free_port();

// The daemon answers on its Unix socket before its TCP side is up: waits (10 s at most) until a
// TCP connect to 127.0.0.1:`port` succeeds.
[[nodiscard]] bool wait_for_port(int port);

} // namespace d4r::testing
