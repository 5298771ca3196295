#include "cli/exit_code.hpp"

#include <gtest/gtest.h>

namespace d4r::cli {
namespace {

using Reply = kernel::v1::ResolveReply;

TEST(CliExitCode, OutcomesMapToTheDocumentedStatuses)
{
  EXPECT_EQ(to_int(exit_code_for(Reply::READY)), 0);
  EXPECT_EQ(to_int(exit_code_for(Reply::NOT_FOUND)), 1);
  EXPECT_EQ(to_int(exit_code_for(Reply::PENDING)), 3);
  EXPECT_EQ(to_int(exit_code_for(Reply::REJECTED)), 4);
}

TEST(CliExitCode, UnsetOrUnknownOutcomesAreDaemonErrors)
{
  EXPECT_EQ(to_int(exit_code_for(Reply::OUTCOME_UNSPECIFIED)), 5);
  EXPECT_EQ(to_int(exit_code_for(static_cast<Reply::Outcome>(17))), 5);
}

TEST(CliExitCode, FixedValues)
{
  EXPECT_EQ(to_int(ExitCode::usage), 2);
  EXPECT_EQ(to_int(ExitCode::daemon), 5);
  EXPECT_EQ(to_int(ExitCode::local_error), 6);
}

} // namespace
} // namespace d4r::cli
