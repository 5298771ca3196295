#pragma once
// Runs a parsed d4r-kernel command against the daemon: one RPC, a check of what came back, and the
// output as a table or one JSON document. Streams and stdin come in through Io so that tests run
// commands against a fake server and read what they print.

#include "cli/options.hpp"

#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace d4r::cli {

inline constexpr int64_t k_import_timeout_ms = 600'000;

struct Io {
  std::ostream& out;
  std::ostream& err;
  bool stdin_is_tty = false;
  std::function<std::optional<std::string>()> read_line; // one line of stdin; nullopt at its end
};

// The process exit status (cli/exit_code.hpp).
[[nodiscard]] int run_command(const ParsedCommand& parsed, Io& io);

// Prints a command-line error (and, with --json, an error document) and returns the usage status.
[[nodiscard]] int report_usage_error(const Error& error, bool json, Io& io);

} // namespace d4r::cli
