#pragma once
// Private to the doctor: what the checks share, and one function per area (one .cpp each).

#include "cli/doctor.hpp"
#include "daemon/config.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <optional>
#include <string>
#include <vector>

namespace d4r::cli::doctor {

struct Context {
  const DoctorInputs& inputs;
  // What d4r-kerneld would run with, given the doctor's path flags and this environment
  // (daemon::parse_config); the error when the environment makes it refuse to start (the config
  // then comes from the environment without the D4R_* switches, for the paths).
  daemon::DaemonConfig config;
  std::string config_error;
  std::optional<kernel::v1::StatusReply> status; // the running daemon's answer, when it gave one
  std::string arch; // the target that is served: the daemon's, else the detected or overriding one
  std::vector<CheckResult> results;

  void ok(const std::string& area, std::string what);
  void warn(const std::string& area, std::string what, std::string todo);
  void fail(const std::string& area, std::string what, std::string todo);
};

void check_gpu(Context& context);
void check_toolchains(Context& context);
void check_socket(Context& context);
void check_daemon(Context& context);
void check_units(Context& context);
void check_release(Context& context);
void check_cache(Context& context);
void check_environment(Context& context);

// The value of NAME in "NAME=value" strings; nullopt when unset.
[[nodiscard]] std::optional<std::string> lookup(const std::vector<std::string>& environment,
                                                std::string_view name);
// "rwx------" style text of a mode's permission bits.
[[nodiscard]] std::string permission_text(unsigned mode);

} // namespace d4r::cli::doctor
