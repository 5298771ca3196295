#pragma once
// The exit status of d4r-kernel: scripts branch on it, so each value has one meaning and the help
// text lists them.

#include "d4r/kernel/v1/kernel.pb.h"

namespace d4r::cli {

enum class ExitCode : int {
  success = 0,     // the command did what it was asked; resolve: READY
  not_found = 1,   // resolve: NOT_FOUND
  problems = 1,    // doctor: a check FAILed (the same status: each command has its own 1)
  usage = 2,       // bad command line, or purge on a non-terminal without --yes
  pending = 3,     // resolve: PENDING (still building when the wait budget ran out)
  rejected = 4,    // resolve: REJECTED
  daemon = 5,      // the daemon could not be reached, failed the call or sent a bad reply
  local_error = 6, // a local step failed: writing --out FILE, reading or decoding a ptx FILE
};

[[nodiscard]] constexpr int to_int(ExitCode code)
{
  return static_cast<int>(code);
}

// READY, NOT_FOUND, PENDING and REJECTED map to their own codes; anything else (unset, or a value
// from a newer daemon) is a reply this tool cannot act on.
[[nodiscard]] ExitCode exit_code_for(kernel::v1::ResolveReply::Outcome outcome);

} // namespace d4r::cli
