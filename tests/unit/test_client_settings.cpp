// What a game's client sends for its environment and the user's config file, as the fake daemon
// receives it: every spelling of every switch, the config file under a temporary XDG_CONFIG_HOME,
// options > environment > file > default, a value in no known spelling logged and not read as
// false, and the default socket rule.

#include "client/d4r_kernel_client.h"
#include "tests/unit/test_client_fake_daemon.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using d4r::test::FakeDaemon;
namespace pb = d4r::kernel::v1;

constexpr const char* k_variables[] = {"D4R_GPU_ARCH",        "D4R_PREFER_ACCURACY",
                                       "D4R_ZLUDA_WMMA_FP8_NATIVE", "D4R_NATIVE_SWIN_ENCODERS",
                                       "XDG_CONFIG_HOME",     "XDG_RUNTIME_DIR"};

void collect_log(void* user_data, const char* message)
{
  static_cast<std::vector<std::string>*>(user_data)->push_back(message);
}

class ClientSettings : public ::testing::Test {
protected:
  void SetUp() override
  {
    for (const char* name : k_variables) {
      if (const char* value = std::getenv(name)) {
        m_saved[name] = value;
      }
      unsetenv(name);
    }
    m_dir = d4r::test::fresh_temp_dir();
    setenv("XDG_CONFIG_HOME", (m_dir + "/config").c_str(), 1);
    m_socket = m_dir + "/socket";
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
    std::filesystem::remove_all(m_dir);
  }

  void write_config(const std::string& text)
  {
    std::filesystem::create_directories(m_dir + "/config/d4r-kerneld");
    std::ofstream(m_dir + "/config/d4r-kerneld/config") << text;
  }

  // Creates a client as a game does (reading the environment and file now), resolves once, and
  // returns the selection the daemon received.
  pb::Selection sent(d4rk_options options)
  {
    options.socket_path = m_socket.c_str();
    options.budget_ms = 2000;
    options.log_fn = collect_log;
    options.log_user_data = &m_log;
    d4rk_client* client = nullptr;
    EXPECT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
    d4rk_kernel* kernel = nullptr;
    EXPECT_EQ(d4rk_resolve(client, 3, "any_kernel", &kernel), D4RK_NOT_FOUND);
    d4rk_client_destroy(client);
    return m_daemon->service.resolve_request().selection();
  }

  pb::Selection sent()
  {
    d4rk_options options;
    d4rk_options_init(&options);
    return sent(options);
  }

  std::map<std::string, std::string> m_saved;
  std::string m_dir;
  std::string m_socket;
  std::vector<std::string> m_log;
  std::unique_ptr<FakeDaemon> m_daemon;
};

TEST_F(ClientSettings, EverySpellingOfPreferAccuracy)
{
  for (const char* on : {"1", "true", "TRUE", "True", "on", "ON", "yes", "YES"}) {
    setenv("D4R_PREFER_ACCURACY", on, 1);
    EXPECT_EQ(sent().mode(), pb::MODE_ACCURACY) << on;
  }
  for (const char* off : {"0", "false", "FALSE", "off", "Off", "no", "NO"}) {
    setenv("D4R_PREFER_ACCURACY", off, 1);
    EXPECT_EQ(sent().mode(), pb::MODE_FAST) << off;
  }
  EXPECT_TRUE(m_log.empty()) << m_log.front();
}

TEST_F(ClientSettings, EverySpellingOfTheTwoFolderSwitches)
{
  for (const char* name : {"D4R_ZLUDA_WMMA_FP8_NATIVE", "D4R_NATIVE_SWIN_ENCODERS"}) {
    const bool fp8 = std::string(name) == "D4R_ZLUDA_WMMA_FP8_NATIVE";
    for (const char* off : {"0", "false", "False", "off", "OFF", "no", "No"}) {
      setenv(name, off, 1);
      pb::Selection selection = sent();
      EXPECT_FALSE(fp8 ? selection.fp8_native() : selection.native_swin_encoders())
          << name << "=" << off;
    }
    for (const char* on : {"1", "true", "on", "On", "yes"}) {
      setenv(name, on, 1);
      pb::Selection selection = sent();
      EXPECT_TRUE(fp8 ? selection.fp8_native() : selection.native_swin_encoders())
          << name << "=" << on;
    }
    unsetenv(name);
  }
}

TEST_F(ClientSettings, AnUnknownSpellingIsLoggedAndNotReadAsFalse)
{
  setenv("D4R_NATIVE_SWIN_ENCODERS", "maybe", 1);
  setenv("D4R_PREFER_ACCURACY", "enable", 1);
  write_config("[Kernels]\nPreferAccuracy = true\n");
  pb::Selection selection = sent();
  EXPECT_TRUE(selection.native_swin_encoders()) << "the default serves, not false";
  EXPECT_EQ(selection.mode(), pb::MODE_ACCURACY) << "the file serves under a bad variable";
  ASSERT_EQ(m_log.size(), 2u);
  EXPECT_EQ(m_log[0], "settings: D4R_PREFER_ACCURACY=enable: not a switch value (write "
                      "1/true/on/yes or 0/false/off/no); ignored");
  EXPECT_NE(m_log[1].find("D4R_NATIVE_SWIN_ENCODERS=maybe"), std::string::npos) << m_log[1];
}

TEST_F(ClientSettings, TheConfigFileAsD4rIniWritesIt)
{
  write_config("; copied from d4r.ini\n[Kernels]\nPreferAccuracy = true\nNativeFp8 = false\n"
               "NativeSwinEncoders = false\nIgnoreDenormals = true\n");
  pb::Selection selection = sent();
  EXPECT_EQ(selection.mode(), pb::MODE_ACCURACY);
  EXPECT_FALSE(selection.fp8_native());
  EXPECT_FALSE(selection.native_swin_encoders());
  EXPECT_TRUE(m_log.empty()) << "a key of d4r's own is no problem: " << m_log.front();
}

TEST_F(ClientSettings, HomeConfigWithoutXdgConfigHome)
{
  unsetenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::string saved_home = home ? home : "";
  setenv("HOME", (m_dir + "/home").c_str(), 1);
  std::filesystem::create_directories(m_dir + "/home/.config/d4r-kerneld");
  std::ofstream(m_dir + "/home/.config/d4r-kerneld/config") << "[Kernels]\nPreferAccuracy = on\n";
  EXPECT_EQ(sent().mode(), pb::MODE_ACCURACY);
  setenv("HOME", saved_home.c_str(), 1);
}

TEST_F(ClientSettings, OptionsOverEnvironmentOverFileOverDefault)
{
  write_config("[Kernels]\nPreferAccuracy = true\nNativeFp8 = off\n");
  EXPECT_EQ(sent().mode(), pb::MODE_ACCURACY) << "file over default";
  setenv("D4R_PREFER_ACCURACY", "off", 1);
  setenv("D4R_ZLUDA_WMMA_FP8_NATIVE", "on", 1);
  pb::Selection from_env = sent();
  EXPECT_EQ(from_env.mode(), pb::MODE_FAST) << "environment over file";
  EXPECT_TRUE(from_env.fp8_native()) << "environment over file";
  d4rk_options options;
  d4rk_options_init(&options);
  options.mode = D4RK_MODE_ACCURACY;
  options.fp8_native = D4RK_SWITCH_OFF;
  pb::Selection from_options = sent(options);
  EXPECT_EQ(from_options.mode(), pb::MODE_ACCURACY) << "options over environment";
  EXPECT_FALSE(from_options.fp8_native()) << "options over environment";
}

TEST_F(ClientSettings, DefaultSocketIsTheDaemonsRule)
{
  // No socket_path: the client connects to $XDG_RUNTIME_DIR/d4r-kerneld/socket.
  std::filesystem::create_directories(m_dir + "/run/d4r-kerneld");
  FakeDaemon at_rule(m_dir + "/run/d4r-kerneld/socket");
  at_rule.start();
  setenv("XDG_RUNTIME_DIR", (m_dir + "/run").c_str(), 1);
  d4rk_options options;
  d4rk_options_init(&options);
  options.budget_ms = 2000;
  d4rk_client* client = nullptr;
  ASSERT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, 3, "any_kernel", &kernel), D4RK_NOT_FOUND);
  d4rk_client_destroy(client);
  EXPECT_EQ(at_rule.service.resolve_calls.load(), 1);
  at_rule.stop();
}

} // namespace
