#pragma once
// `d4r-kernel warm FILE...`: reads every PTX module of the files (warm_inputs.hpp), uploads the
// ones the daemon lacks and a ptx recipe would translate, asks the daemon to warm them
// (daemon/warm_jobs.hpp) and follows its progress: a bar on a terminal, plain lines otherwise,
// one JSON event per line with --json. A second run does only what is missing: the daemon's
// cache answers for the rest (`already`).
//
// Ctrl-C (SIGINT) stops the wait: the client tells the daemon to cancel, which drops what has not
// started; the builds already running there (at most its --build-jobs) finish and are stored, so
// the next run finds them. Exit status: 0 when every kernel is ready, 1 when some failed, 5 when
// the daemon could not be asked, 6 when a file could not be read, 130 when interrupted.

#include "cli/commands.hpp"
#include "cli/warm_options.hpp"

namespace d4r::cli {

inline constexpr int k_exit_interrupted = 130;

[[nodiscard]] int run_warm(const GlobalOptions& global, const WarmCommand& cmd, Io& io);

} // namespace d4r::cli
