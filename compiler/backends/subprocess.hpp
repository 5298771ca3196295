#pragma once
// Runs a tool (the clang driver) as a child process: posix_spawn, no shell, stdin from /dev/null,
// stdout and stderr together into a log file, then waits for it.

#include "util/error.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace d4r::compiler {

struct ProcessResult {
  int exit_code = 0;  // meaningful when signal == 0
  int signal = 0;     // the signal that ended the child, 0 if it exited
  std::string output; // stdout and stderr, interleaved as written
};

// Runs argv[0] (a path, not searched in PATH) with `argv`, its output going through `log_path`.
// Errors: unavailable when the program does not exist or cannot be started; io when the log
// cannot be written or read.
[[nodiscard]] Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                                  const std::filesystem::path& log_path);

} // namespace d4r::compiler
