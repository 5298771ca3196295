#pragma once
// `d4r-kernel doctor`: local checks of what users get wrong, each a line `ok|warn|FAIL  what  —
// what to do`, using the daemon's own code for each answer (its configuration parser, KFD
// detection, toolchain probe, release readers, a read-only look at the cache, the client's reading
// of a game's environment), so that the doctor and the daemon never disagree. Nothing is written:
// the cache and the release are only read, and the one RPC (Status) has a bounded deadline.

#include "cli/options.hpp"

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace d4r::cli {

inline constexpr int64_t k_doctor_rpc_timeout_ms = 2000;

enum class CheckLevel { ok, warn, fail };

struct CheckResult {
  CheckLevel level = CheckLevel::ok;
  std::string area; // "gpu", "toolchain", "socket", "daemon", "units", "release", "cache", "env"
  std::string what;
  std::string todo; // empty for ok lines
};

struct DoctorInputs {
  DoctorCommand command;
  std::vector<std::string> environment; // "NAME=value", the process's: what a game started here gets
  std::string socket;                   // the CLI's socket (GlobalOptions::socket)
  Environment cli_environment;          // for the default socket rule (default_socket_path)
  int64_t rpc_timeout_ms = k_doctor_rpc_timeout_ms;
  std::filesystem::path self_executable; // d4r-kernel: the worker is looked for beside it
  // Where the user manager looks for units after ~/.config/systemd/user and
  // ~/.local/share/systemd/user (tests pass their own).
  std::vector<std::filesystem::path> system_unit_dirs = {
      "/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user"};
};

[[nodiscard]] const char* to_string(CheckLevel level);

[[nodiscard]] DoctorInputs doctor_inputs_from_process(const GlobalOptions& global,
                                                      const DoctorCommand& command);

[[nodiscard]] std::vector<CheckResult> run_doctor_checks(const DoctorInputs& inputs);

// Prints the lines (or, with `json`, one document) and returns the exit status: 0 when no check
// FAILed, 1 otherwise.
[[nodiscard]] int run_doctor(const DoctorInputs& inputs, bool json, std::ostream& out);

} // namespace d4r::cli
