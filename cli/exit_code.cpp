#include "cli/exit_code.hpp"

namespace d4r::cli {

ExitCode exit_code_for(kernel::v1::ResolveReply::Outcome outcome)
{
  using Reply = kernel::v1::ResolveReply;
  switch (outcome) {
  case Reply::READY:
    return ExitCode::success;
  case Reply::NOT_FOUND:
    return ExitCode::not_found;
  case Reply::PENDING:
    return ExitCode::pending;
  case Reply::REJECTED:
    return ExitCode::rejected;
  case Reply::OUTCOME_UNSPECIFIED:
  case kernel::v1::ResolveReply_Outcome_ResolveReply_Outcome_INT_MIN_SENTINEL_DO_NOT_USE_:
  case kernel::v1::ResolveReply_Outcome_ResolveReply_Outcome_INT_MAX_SENTINEL_DO_NOT_USE_:
    return ExitCode::daemon;
  }
  return ExitCode::daemon;
}

} // namespace d4r::cli
