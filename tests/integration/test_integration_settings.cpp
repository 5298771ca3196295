// A game's D4R_PREFER_ACCURACY, in every spelling d4r users write, and the config file's
// PreferAccuracy, end to end: the real daemon (its own default set to the opposite, so only what
// the client sends can pick the set), and per case a fresh process of the C client
// (d4r-test-resolve, as ZLUDA's hook calls it) with that environment, which finds the socket by
// the shared rule ($XDG_RUNTIME_DIR/d4r-kerneld/socket). What the daemon served decides: the
// sha256 of the accuracy object of the release fixture, or of the fast one.

#include "daemon_process.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

extern char** environ;

namespace d4r::testing {
namespace {

struct ClientRun {
  int exit_code = -1;
  std::string output; // stdout and stderr
};

// d4r-test-resolve "" 8baeb925f177af87 d4r_test_layer, with this process's environment minus
// D4R_*, XDG_* and the names `env` sets, plus `env`.
ClientRun run_client(const std::vector<std::string>& env)
{
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string_view name = text.substr(0, text.find('=') + 1);
    bool overridden = std::any_of(env.begin(), env.end(), [name](const std::string& mine) {
      return mine.starts_with(name);
    });
    if (!text.starts_with("D4R_") && !text.starts_with("XDG_") && !overridden) {
      entries.emplace_back(text);
    }
  }
  entries.insert(entries.end(), env.begin(), env.end());
  const std::string tool = (std::filesystem::path(D4R_BINARY_DIR) / "tests" / "d4r-test-resolve").string();
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    return {};
  }
  pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<char*> envp;
    for (std::string& entry : entries) {
      envp.push_back(entry.data());
    }
    envp.push_back(nullptr);
    const char* argv[] = {tool.c_str(), "", "8baeb925f177af87", "d4r_test_layer", "3000", nullptr};
    execve(tool.c_str(), const_cast<char* const*>(argv), envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  ClientRun run;
  char buffer[4096];
  ssize_t got = 0;
  while ((got = read(pipe_fds[0], buffer, sizeof(buffer))) > 0) {
    run.output.append(buffer, static_cast<size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class GameSettings : public ::testing::Test {
protected:
  // The daemon's own D4R_PREFER_ACCURACY: its default for requests that name no mode.
  void start(const std::string& daemon_prefers_accuracy)
  {
    DaemonOptions options(m_dir.path());
    options.extra_env = {"D4R_PREFER_ACCURACY=" + daemon_prefers_accuracy};
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
    ClientRun run = run_client(env);
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

} // namespace
} // namespace d4r::testing
