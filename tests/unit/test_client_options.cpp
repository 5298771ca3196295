// The selection a client sends, as the fake daemon sees it: the game's environment read the way
// d4r's CUDA bridge reads it, and options that override it.

#include "client/d4r_kernel_client.h"
#include "tests/unit/test_client_fake_daemon.hpp"

#include <gtest/gtest.h>

#include <cstddef>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace {

using d4r::test::FakeDaemon;
namespace pb = d4r::kernel::v1;

constexpr const char* k_variables[] = {"D4R_GPU_ARCH", "D4R_PREFER_ACCURACY",
                                       "D4R_ZLUDA_WMMA_FP8_NATIVE", "D4R_NATIVE_SWIN_ENCODERS",
                                       "XDG_CONFIG_HOME"};

class ClientSelection : public ::testing::Test {
protected:
  void SetUp() override
  {
    for (const char* name : k_variables) {
      if (const char* value = std::getenv(name)) {
        m_saved[name] = value;
      }
      unsetenv(name);
    }
    m_socket = d4r::test::fresh_temp_dir() + "/socket";
    // No config file of the user running the tests (util/config_file.hpp).
    setenv("XDG_CONFIG_HOME", (m_socket + ".no-config").c_str(), 1);
    m_daemon = std::make_unique<FakeDaemon>(m_socket);
    m_daemon->start();
  }

  void TearDown() override
  {
    m_daemon->stop();
    for (const char* name : k_variables) {
      unsetenv(name);
    }
    for (const auto& [name, value] : m_saved) {
      setenv(name.c_str(), value.c_str(), 1);
    }
  }

  // Creates a client (reading the environment as it is now), resolves once, and returns the
  // selection the daemon received.
  pb::Selection sent_selection(d4rk_options options)
  {
    options.socket_path = m_socket.c_str();
    options.budget_ms = 2000;
    d4rk_client* client = nullptr;
    EXPECT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
    d4rk_kernel* kernel = nullptr;
    EXPECT_EQ(d4rk_resolve(client, 3, "any_kernel", &kernel), D4RK_NOT_FOUND);
    d4rk_client_destroy(client);
    return m_daemon->service.resolve_request().selection();
  }

  pb::Selection sent_selection()
  {
    d4rk_options options;
    d4rk_options_init(&options);
    return sent_selection(options);
  }

  std::map<std::string, std::string> m_saved;
  std::string m_socket;
  std::unique_ptr<FakeDaemon> m_daemon;
};

TEST_F(ClientSelection, DefaultsWithAnEmptyEnvironment)
{
  pb::Selection selection = sent_selection();
  EXPECT_EQ(selection.target(), "");
  EXPECT_EQ(selection.mode(), pb::MODE_FAST);
  EXPECT_TRUE(selection.fp8_native());
  EXPECT_TRUE(selection.native_swin_encoders());
}

TEST_F(ClientSelection, EnvironmentAsTheBridgeReadsIt)
{
  setenv("D4R_GPU_ARCH", "gfx1201", 1);
  setenv("D4R_PREFER_ACCURACY", "1", 1);
  setenv("D4R_ZLUDA_WMMA_FP8_NATIVE", "0", 1);
  setenv("D4R_NATIVE_SWIN_ENCODERS", "0", 1);
  pb::Selection selection = sent_selection();
  EXPECT_EQ(selection.target(), "gfx1201");
  EXPECT_EQ(selection.mode(), pb::MODE_ACCURACY);
  EXPECT_FALSE(selection.fp8_native());
  EXPECT_FALSE(selection.native_swin_encoders());
}

TEST_F(ClientSelection, SwinSwitchWordsAndOtherValues)
{
  for (const char* off : {"false", "OFF", "Off", "0"}) {
    setenv("D4R_NATIVE_SWIN_ENCODERS", off, 1);
    EXPECT_FALSE(sent_selection().native_swin_encoders()) << off;
  }
  for (const char* on : {"1", "true", "yes", ""}) {
    setenv("D4R_NATIVE_SWIN_ENCODERS", on, 1);
    EXPECT_TRUE(sent_selection().native_swin_encoders()) << on;
  }
}

// Every switch takes the words the daemon takes (util/boolean_spelling.hpp): `yes` is accuracy.
TEST_F(ClientSelection, WordsSwitchModeAndFp8AsForTheDaemon)
{
  setenv("D4R_PREFER_ACCURACY", "yes", 1);
  setenv("D4R_ZLUDA_WMMA_FP8_NATIVE", "false", 1);
  setenv("D4R_GPU_ARCH", "sm_89", 1);
  pb::Selection selection = sent_selection();
  EXPECT_EQ(selection.mode(), pb::MODE_ACCURACY);
  EXPECT_FALSE(selection.fp8_native());
  EXPECT_EQ(selection.target(), "") << "an arch not starting with gfx is ignored";
}

TEST_F(ClientSelection, OptionsOverrideTheEnvironment)
{
  setenv("D4R_GPU_ARCH", "gfx1201", 1);
  setenv("D4R_PREFER_ACCURACY", "1", 1);
  setenv("D4R_ZLUDA_WMMA_FP8_NATIVE", "0", 1);
  d4rk_options options;
  d4rk_options_init(&options);
  options.target = "gfx1100";
  options.mode = D4RK_MODE_FAST;
  options.fp8_native = D4RK_SWITCH_ON;
  options.native_swin_encoders = D4RK_SWITCH_OFF;
  pb::Selection selection = sent_selection(options);
  EXPECT_EQ(selection.target(), "gfx1100");
  EXPECT_EQ(selection.mode(), pb::MODE_FAST);
  EXPECT_TRUE(selection.fp8_native());
  EXPECT_FALSE(selection.native_swin_encoders());
  options.target = "";
  EXPECT_EQ(sent_selection(options).target(), "") << "\"\" leaves the target to the daemon";
}

// D4RK_FLAG_MIRRORS_HOST_VARIABLES becomes the request's capability; it is off by default, and a
// caller built against a struct that ends before `flags` never claims it.
TEST_F(ClientSelection, MirrorsHostVariablesOnlyWithTheFlag)
{
  d4rk_options options;
  d4rk_options_init(&options);
  static_cast<void>(sent_selection(options));
  EXPECT_FALSE(m_daemon->service.resolve_request().mirrors_host_variables());
  options.flags = D4RK_FLAG_MIRRORS_HOST_VARIABLES;
  static_cast<void>(sent_selection(options));
  EXPECT_TRUE(m_daemon->service.resolve_request().mirrors_host_variables());
  options.flags = D4RK_FLAG_MIRRORS_HOST_VARIABLES | D4RK_FLAG_NO_MEMO;
  static_cast<void>(sent_selection(options));
  EXPECT_TRUE(m_daemon->service.resolve_request().mirrors_host_variables());
  options.struct_size = offsetof(d4rk_options, flags);
  static_cast<void>(sent_selection(options));
  EXPECT_FALSE(m_daemon->service.resolve_request().mirrors_host_variables());
}

} // namespace
