#include "util/socket_path.hpp"

#include <gtest/gtest.h>

namespace d4r {
namespace {

TEST(SocketPath, RuntimeDirElseRunUser)
{
  EXPECT_EQ(default_socket_path(environment_from_entries(std::vector<std::string>{
                                    "XDG_RUNTIME_DIR=/run/user/1000"}),
                                1000),
            "/run/user/1000/d4r-kerneld/socket");
  EXPECT_EQ(default_socket_path(environment_from_entries(std::vector<std::string>{
                                    "XDG_RUNTIME_DIR=/tmp/rt"}),
                                5),
            "/tmp/rt/d4r-kerneld/socket");
  EXPECT_EQ(default_socket_path({}, 77), "/run/user/77/d4r-kerneld/socket");
}

TEST(SocketPath, EmptyOrRelativeRuntimeDirIsIgnored)
{
  for (const char* entry : {"XDG_RUNTIME_DIR=", "XDG_RUNTIME_DIR=relative/dir", "XDG_RUNTIME_DIR=."}) {
    EXPECT_EQ(default_socket_path(environment_from_entries(std::vector<std::string>{entry}), 42),
              "/run/user/42/d4r-kerneld/socket")
        << entry;
  }
}

TEST(Environment, EntriesAndProcess)
{
  EnvironmentMap map = environment_from_entries(
      std::vector<std::string>{"A=1", "B=", "NOEQUALS", "C=x=y", "A=2"});
  EXPECT_EQ(environment_value(map, "A"), "1") << "the first of a name wins, as getenv finds it";
  EXPECT_EQ(environment_value(map, "B"), std::nullopt) << "empty counts as unset";
  EXPECT_EQ(environment_value(map, "C"), "x=y");
  EXPECT_EQ(environment_value(map, "NOEQUALS"), std::nullopt);
  setenv("D4R_TEST_ENVIRONMENT_PROBE", "seen", 1);
  EXPECT_EQ(environment_value(environment_from_process(), "D4R_TEST_ENVIRONMENT_PROBE"), "seen");
  unsetenv("D4R_TEST_ENVIRONMENT_PROBE");
  EXPECT_EQ(environment_value(environment_from_process(), "D4R_TEST_ENVIRONMENT_PROBE"),
            std::nullopt);
}

} // namespace
} // namespace d4r
