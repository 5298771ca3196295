// A game's D4R_PREFER_ACCURACY, in every spelling d4r users write, and the config file's
// PreferAccuracy, end to end: the real daemon (its own default set to the opposite, so only what
// the client sends can pick the set), and per case a fresh process of the C client
// (d4r-test-resolve, as ZLUDA's hook calls it) with that environment, which finds the socket by
// the shared rule ($XDG_RUNTIME_DIR/d4r-kerneld/socket). What the daemon served decides: the
// sha256 of the accuracy object of the release fixture, or of the fast one.

#include "daemon_process.hpp"
#include "tests/support/tool_run.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace d4r::testing {
namespace {

// d4r-test-resolve "" 8baeb925f177af87 d4r_test_layer, with this process's environment minus
// D4R_*, XDG_* and the names `env` sets, plus `env`.
ToolRun run_client(const std::vector<std::string>& env)
{
  const std::string tool = (std::filesystem::path(D4R_BINARY_DIR) / "tests" / "d4r-test-resolve").string();
  return run_tool({tool, "", "8baeb925f177af87", "d4r_test_layer", "3000"}, {env, {"D4R_", "XDG_"}});
}

class GameSettings : public ::testing::Test {
protected:
  // The daemon's own D4R_PREFER_ACCURACY: its default for requests that name no mode.
  void start(const std::string& daemon_prefers_accuracy,
             const std::vector<std::string>& daemon_flags = {})
  {
    DaemonOptions options(m_dir.path());
    options.extra_env = {"D4R_PREFER_ACCURACY=" + daemon_prefers_accuracy};
    options.extra_args = daemon_flags;
    m_daemon = std::make_unique<DaemonProcess>(options);
    ASSERT_TRUE(m_daemon->start()) << "d4r-kerneld did not start";
    m_fast_sha = sha256_hex_of_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco");
    m_accuracy_sha =
        sha256_hex_of_file(release_fixture() / "accuracy" / "gfx1101" / "d4r_test_layer.hsaco");
    ASSERT_NE(m_fast_sha, m_accuracy_sha);
  }

  // Which set the daemon served a client with `env` (plus the runtime dir and a config home).
  std::string served_set(std::vector<std::string> env)
  {
    env.push_back("XDG_RUNTIME_DIR=" + (m_dir.path() / "run").string());
    bool has_config_home = false;
    for (const std::string& entry : env) {
      has_config_home = has_config_home || entry.starts_with("XDG_CONFIG_HOME=");
    }
    if (!has_config_home) {
      env.push_back("XDG_CONFIG_HOME=" + (m_dir.path() / "no-config").string());
    }
    ToolRun run = run_client(env);
    m_last_output = run.output;
    if (run.exit_code != 0) {
      return "not ready (" + std::to_string(run.exit_code) + "): " + run.output;
    }
    if (run.output.find("sha256 " + m_accuracy_sha) != std::string::npos) {
      return "accuracy";
    }
    if (run.output.find("sha256 " + m_fast_sha) != std::string::npos) {
      return "fast";
    }
    return "unknown object: " + run.output;
  }

  std::filesystem::path write_config(const std::string& name, const std::string& text)
  {
    std::filesystem::path home = m_dir.path() / name;
    std::filesystem::create_directories(home / "d4r-kerneld");
    std::ofstream(home / "d4r-kerneld" / "config") << text;
    return home;
  }

  TempDir m_dir;
  std::unique_ptr<DaemonProcess> m_daemon;
  std::string m_fast_sha;
  std::string m_accuracy_sha;
  std::string m_last_output;
};

TEST_F(GameSettings, EveryOnSpellingGetsTheAccuracySet)
{
  start("0");
  for (const char* on : {"true", "ON", "yes", "1", "True", "YES"}) {
    EXPECT_EQ(served_set({std::string("D4R_PREFER_ACCURACY=") + on}), "accuracy")
        << "D4R_PREFER_ACCURACY=" << on;
  }
  EXPECT_EQ(served_set({}), "fast") << "the client's default is fast, whatever the daemon's";
}

TEST_F(GameSettings, EveryOffSpellingGetsTheFastSet)
{
  start("1");
  for (const char* off : {"0", "off", "false", "NO", "Off"}) {
    EXPECT_EQ(served_set({std::string("D4R_PREFER_ACCURACY=") + off}), "fast")
        << "D4R_PREFER_ACCURACY=" << off;
  }
}

TEST_F(GameSettings, AValueInNoSpellingIsSaidAndTheNextSourceServes)
{
  start("1");
  EXPECT_EQ(served_set({"D4R_PREFER_ACCURACY=maybe"}), "fast");
  EXPECT_NE(m_last_output.find("D4R_PREFER_ACCURACY=maybe: not a switch value"), std::string::npos)
      << m_last_output;
  std::filesystem::path home = write_config("cfg-on", "[Kernels]\nPreferAccuracy = true\n");
  EXPECT_EQ(served_set({"D4R_PREFER_ACCURACY=maybe", "XDG_CONFIG_HOME=" + home.string()}),
            "accuracy")
      << "the file serves under a variable it cannot read";
}

TEST_F(GameSettings, TheConfigFileUnderTheEnvironment)
{
  start("0");
  std::filesystem::path on = write_config("cfg-on", "; d4r.ini's section\n[Kernels]\n"
                                                    "PreferAccuracy = true\nNativeFp8 = true\n");
  EXPECT_EQ(served_set({"XDG_CONFIG_HOME=" + on.string()}), "accuracy");
  EXPECT_EQ(served_set({"XDG_CONFIG_HOME=" + on.string(), "D4R_PREFER_ACCURACY=0"}), "fast")
      << "the environment wins over the file";
  // Without XDG_CONFIG_HOME, ~/.config/d4r-kerneld/config.
  std::filesystem::path home = m_dir.path() / "home";
  std::filesystem::create_directories(home / ".config" / "d4r-kerneld");
  std::ofstream(home / ".config" / "d4r-kerneld" / "config") << "[kernels]\npreferaccuracy=on\n";
  std::vector<std::string> env = {"HOME=" + home.string(), "XDG_CONFIG_HOME="};
  EXPECT_EQ(served_set(env), "accuracy");
}

// The daemon's own flags over its environment: `--mode accuracy` with D4R_PREFER_ACCURACY=0 is
// the accuracy set for a request that names no mode (the CLI's resolve without --mode), and
// `d4r-kernel config --mode accuracy` in that environment says the same, from the flag.
TEST_F(GameSettings, TheDaemonsModeFlagWinsOverItsEnvironment)
{
  start("0", {"--mode", "accuracy"});
  const std::string cli = (std::filesystem::path(D4R_BINARY_DIR) / "cli" / "d4r-kernel").string();
  const ToolOptions env{{"D4R_PREFER_ACCURACY=0",
                             "XDG_CONFIG_HOME=" + (m_dir.path() / "no-config").string()},
                            {"D4R_"}};
  ToolRun resolve = run_tool({cli, "--socket", m_daemon->socket_path().string(), "resolve",
                              "--module-hash", "8baeb925f177af87", "--kernel", "d4r_test_layer"},
                             env);
  EXPECT_EQ(resolve.exit_code, 0) << resolve.output;
  EXPECT_NE(resolve.output.find(m_accuracy_sha), std::string::npos) << resolve.output;
  EXPECT_EQ(resolve.output.find(m_fast_sha), std::string::npos) << resolve.output;
  ToolRun fast = run_tool({cli, "--socket", m_daemon->socket_path().string(), "resolve",
                           "--module-hash", "8baeb925f177af87", "--kernel", "d4r_test_layer",
                           "--mode", "fast"},
                          env);
  EXPECT_NE(fast.output.find(m_fast_sha), std::string::npos) << "a request's mode wins: "
                                                             << fast.output;
  ToolRun config = run_tool({cli, "config", "--mode", "accuracy"}, env);
  EXPECT_EQ(config.exit_code, 0) << config.output;
  size_t line = config.output.find("\nPreferAccuracy ");
  ASSERT_NE(line, std::string::npos) << config.output;
  const std::string row = config.output.substr(line + 1, config.output.find('\n', line + 1) - line - 1);
  EXPECT_NE(row.find(" true "), std::string::npos) << row;
  EXPECT_NE(row.find(" flag "), std::string::npos) << row;
  EXPECT_TRUE(row.ends_with("--mode accuracy")) << row;
}

} // namespace
} // namespace d4r::testing
