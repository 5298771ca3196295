#pragma once
// Runs one of our programs (d4r-kernel, d4r-test-resolve, d4r-test-compiled, ...) as a user or a
// game would, in a child process, and hands back its exit status and what it printed, stdout and
// stderr together in the order written. The tests that need a separate process (another client,
// the CLI binary as shipped) share this instead of each forking on its own.

#include <string>
#include <vector>

namespace d4r::testing {

struct ToolRun {
  int exit_code = -1;  // the exit status; -1 when it could not run or died of a signal
  std::string output;  // stdout, and stderr unless ToolOptions::separate_stderr
  std::string errors;  // stderr, with separate_stderr (a --json document stays parseable)
};

// The child's environment: this process's, less every name starting with one of `drop_prefixes`
// ("D4R_", "XDG_") and every name `set` assigns, plus `set` ("NAME=value").
struct ToolOptions {
  std::vector<std::string> set;
  std::vector<std::string> drop_prefixes;
  bool separate_stderr = false;
};

// `argv[0]` is the program's path; stdin is /dev/null, so a tool never waits on the terminal.
[[nodiscard]] ToolRun run_tool(const std::vector<std::string>& argv,
                               const ToolOptions& options = {});

} // namespace d4r::testing
