// `d4r-kernel doctor` against a real d4r-kerneld (a healthy setup: the daemon serving, its units in
// a temporary XDG_CONFIG_HOME, a release copied from the fixture, the worker of the build) and
// against setups broken the ways users break them: each must show the right line, and the exit
// status must be 1 exactly when a line says FAIL.

#include "cache/schema.hpp"
#include "cli/doctor.hpp"
#include "cli/options.hpp"
#include "daemon_process.hpp"
#include "tests/support/tool_run.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace d4r::testing {
namespace {

namespace fs = std::filesystem;
using cli::CheckLevel;
using cli::CheckResult;

void write_file(const fs::path& path, const std::string& text)
{
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Every file below `root` with the sha256 of its bytes.
std::map<std::string, std::string> snapshot(const fs::path& root)
{
  std::map<std::string, std::string> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    files[fs::relative(entry.path(), root).string()] =
        entry.is_regular_file() ? sha256_hex_of_file(entry.path()) : std::string("<dir>");
  }
  return files;
}

class DoctorTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    // The process environment is what the client library reads (a game's view): no D4R_* from the
    // shell running the tests.
    for (const char* name : {"D4R_PREFER_ACCURACY", "D4R_ZLUDA_WMMA_FP8_NATIVE",
                             "D4R_NATIVE_SWIN_ENCODERS", "D4R_GPU_ARCH", "D4R_PREFER_ACURACY",
                             "d4r_prefer_accuracy"}) {
      unsetenv(name);
    }
    m_home = m_dir.path() / "home";
    m_release = m_dir.path() / "release";
    fs::copy(release_fixture(), m_release, fs::copy_options::recursive);
    // The fixture lists one object it does not ship (for the release tests); a healthy release
    // ships everything it lists.
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(m_release)) {
      if (entry.path().filename() == "d4r-kernels.txt") {
        std::string text = read_file(entry.path());
        write_file(entry.path(), std::regex_replace(text, std::regex("d4r_not_shipped[^\n]*\n"), ""));
      }
    }
    install_units();
    m_inputs.environment = {"HOME=" + m_home.string(),
                            "XDG_RUNTIME_DIR=" + (m_dir.path() / "run").string(),
                            "XDG_CONFIG_HOME=" + (m_home / ".config").string()};
    m_inputs.cli_environment.xdg_runtime_dir = (m_dir.path() / "run").string();
    m_inputs.cli_environment.uid = static_cast<uint32_t>(getuid());
    m_inputs.socket = cli::default_socket_path(m_inputs.cli_environment);
    m_inputs.command.kfd_topology = (fs::path(D4R_TEST_SOURCE_DIR) / "fixtures/kfd/one_gpu").string();
    m_inputs.command.kfd_device = "/dev/null"; // a character device you can read and write
    m_inputs.command.worker = (fs::path(D4R_BINARY_DIR) / "compiler/d4r-kernel-worker").string();
    m_inputs.command.cache_dir = (m_dir.path() / "cache").string();
    m_inputs.command.native_dir = m_release.string();
    m_inputs.system_unit_dirs = {};
  }

  void install_units()
  {
    fs::path units = m_home / ".config/systemd/user";
    write_file(units / "d4r-kerneld.socket",
               read_file(fs::path(D4R_TEST_SOURCE_DIR) / "../systemd/d4r-kerneld.socket"));
    write_file(units / "d4r-kerneld.service", "[Service]\nType=notify\nExecStart=" +
                                                  daemon_binary().string() + "\n");
    fs::create_directories(units / "sockets.target.wants");
    fs::create_symlink("../d4r-kerneld.socket", units / "sockets.target.wants/d4r-kerneld.socket");
  }

  bool start_daemon()
  {
    DaemonOptions options(m_dir.path());
    options.native_dir = m_release;
    m_daemon = std::make_unique<DaemonProcess>(options);
    return m_daemon->start();
  }

  // D4R variables go both into the doctor's environment and the process's (the client's view).
  void set_variable(const std::string& name, const std::string& value)
  {
    setenv(name.c_str(), value.c_str(), 1);
    m_inputs.environment.push_back(name + "=" + value);
  }

  int run(bool json = false)
  {
    std::ostringstream out;
    int code = cli::run_doctor(m_inputs, json, out);
    m_output = out.str();
    return code;
  }

  // The first line of `level` in `area` whose text contains `needle`; "" when none.
  std::string line(CheckLevel level, const std::string& area, const std::string& needle) const
  {
    std::string level_text = cli::to_string(level);
    level_text.resize(4, ' ');
    std::istringstream lines(m_output);
    std::string text;
    while (std::getline(lines, text)) {
      if (text.starts_with(level_text + "  " + area + ": ") && text.find(needle) != std::string::npos) {
        return text;
      }
    }
    return "";
  }

  bool has_fail() const { return m_output.find("\nFAIL  ") != std::string::npos || m_output.starts_with("FAIL"); }

  TempDir m_dir;
  fs::path m_home;
  fs::path m_release;
  cli::DoctorInputs m_inputs;
  std::unique_ptr<DaemonProcess> m_daemon;
  std::string m_output;
};

TEST_F(DoctorTest, HealthySetupIsAllOkAndExitsZero)
{
  ASSERT_TRUE(start_daemon());
  EXPECT_EQ(run(), 0) << m_output;
  EXPECT_FALSE(has_fail()) << m_output;
  EXPECT_NE(line(CheckLevel::ok, "socket", ": a socket, yours, mode rw-------"), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "daemon", "d4r-kerneld " D4R_TEST_VERSION " answers (pid " +
                                               std::to_string(m_daemon->pid())),
            "")
      << m_output;
  EXPECT_NE(line(CheckLevel::ok, "gpu", "node 1 gfx1101 (gfx_target_version 110001, 108 SIMDs); "
                                        "the daemon picks node 1"),
            "")
      << m_output;
  EXPECT_NE(line(CheckLevel::ok, "gpu", "target gfx1101"), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "toolchain", "gfx1101 builds with "), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "units", "d4r-kerneld.socket enabled"), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "units", "d4r-kerneld.service installed"), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "release fast", "/gfx1101 (manifest d4r-kernels.txt): "), "")
      << m_output;
  EXPECT_NE(line(CheckLevel::ok, "release accuracy", "/accuracy/gfx1101 (manifest"), "")
      << m_output;
  EXPECT_NE(line(CheckLevel::ok, "cache fast", "index ok (schema "), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "cache accuracy", "index ok (schema "), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "env", "a game started here asks for mode fast"), "") << m_output;
  // No warnings either: every line of a healthy setup is ok (comgr aside, which this machine may lack).
  std::istringstream lines(m_output);
  for (std::string text; std::getline(lines, text);) {
    if (text.starts_with("warn") && text.find("toolchain:") == std::string::npos) {
      ADD_FAILURE() << text;
    }
  }
}

TEST_F(DoctorTest, JsonIsOneDocumentThatPythonParses)
{
  ASSERT_TRUE(start_daemon());
  EXPECT_EQ(run(true), 0);
  fs::path file = m_dir.path() / "doctor.json";
  write_file(file, m_output);
  ToolRun check = run_tool(
      {"/usr/bin/python3", "-c",
       "import json, sys; d = json.load(open(sys.argv[1])); "
       "assert d['fail'] == 0 and d['exit_code'] == 0 and d['ok'] > 10, d; "
       "assert all(c['level'] in ('ok', 'warn', 'FAIL') and c['area'] and c['what'] "
       "for c in d['checks']); "
       "assert any(c['area'] == 'daemon' and c['level'] == 'ok' for c in d['checks'])",
       file.string()});
  EXPECT_EQ(check.exit_code, 0) << check.output << m_output;
}

TEST_F(DoctorTest, SocketMissingFails)
{
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "socket", ": missing (no daemon listens)"), "") << m_output;
  EXPECT_NE(m_output.find("systemctl --user enable --now d4r-kerneld.socket"), std::string::npos);
  EXPECT_EQ(m_output.find("daemon: "), std::string::npos) << "no RPC without a socket";
}

TEST_F(DoctorTest, SocketPathThatIsARegularFileFails)
{
  write_file(m_inputs.socket, "not a socket");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "socket", ": a regular file, not a socket  \u2014 remove it"), "")
      << m_output;
}

TEST_F(DoctorTest, ASocketNobodyServesFailsWithinTheDeadline)
{
  // A socket file left behind by a dead daemon: bound, never listened on.
  fs::create_directories(fs::path(m_inputs.socket).parent_path());
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", m_inputs.socket.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  chmod(m_inputs.socket.c_str(), 0600);
  m_inputs.rpc_timeout_ms = 500;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run(), 1);
  auto took = std::chrono::steady_clock::now() - start;
  close(fd);
  EXPECT_NE(line(CheckLevel::fail, "daemon", "d4r-kerneld at " + m_inputs.socket), "") << m_output;
  EXPECT_LT(took, std::chrono::seconds(5)) << "the RPC is bounded";
}

TEST_F(DoctorTest, CacheDirThatIsAFileFails)
{
  write_file(m_dir.path() / "cache", "a file where the cache should be");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "cache", "/cache: not a directory"), "") << m_output;
  fs::remove(m_dir.path() / "cache");
  write_file(m_dir.path() / "cache/accuracy", "a file where a store should be");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "cache accuracy", "/cache/accuracy: not a directory"), "")
      << m_output;
}

TEST_F(DoctorTest, ReadOnlyCacheDirFails)
{
  if (geteuid() == 0) {
    GTEST_SKIP() << "root writes anywhere: the mode check cannot fail as root";
  }
  fs::create_directories(m_dir.path() / "cache/fast");
  fs::permissions(m_dir.path() / "cache", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "cache", "/cache: not writable by you"), "") << m_output;
}

TEST_F(DoctorTest, CorruptIndexFailsAndIsLeftAlone)
{
  fs::path index = m_dir.path() / "cache/fast/index.sqlite";
  write_file(index, std::string(8192, 'x'));
  std::map<std::string, std::string> before = snapshot(m_dir.path() / "cache");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "cache fast", "index.sqlite"), "") << m_output;
  EXPECT_EQ(snapshot(m_dir.path() / "cache"), before) << "the doctor never repairs the cache";
}

TEST_F(DoctorTest, IndexWithDamagedPagesFailsQuickCheck)
{
  ASSERT_TRUE(start_daemon());
  ASSERT_EQ(m_daemon->stop(), 0);
  fs::path index = m_dir.path() / "cache/accuracy/index.sqlite";
  std::string bytes = read_file(index);
  ASSERT_GT(bytes.size(), 8192U);
  // Page 2 onwards (the tables' b-trees) overwritten; the header on page 1 still says SQLite.
  for (size_t i = 4096; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(0xa5 ^ (i * 31));
  }
  write_file(index, bytes);
  std::map<std::string, std::string> before = snapshot(m_dir.path() / "cache");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "cache accuracy", "index.sqlite"), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "cache fast", "index ok"), "") << m_output;
  EXPECT_EQ(snapshot(m_dir.path() / "cache"), before);
}

TEST_F(DoctorTest, ReadsAHealthyCacheWithoutWritingIt)
{
  ASSERT_TRUE(start_daemon());
  ASSERT_EQ(m_daemon->stop(), 0);
  std::map<std::string, std::string> before = snapshot(m_dir.path() / "cache");
  ASSERT_FALSE(before.empty());
  (void)run();
  EXPECT_NE(line(CheckLevel::ok, "cache fast", "0 entries, 0 B of 4.0 GiB, index ok (schema " +
                                 std::to_string(d4r::cache::k_schema_version) + ")"),
            "")
      << m_output;
  EXPECT_EQ(snapshot(m_dir.path() / "cache"), before);
}

TEST_F(DoctorTest, MisspeltAndMisreadVariablesWarn)
{
  ASSERT_TRUE(start_daemon());
  set_variable("D4R_PREFER_ACURACY", "1");
  set_variable("d4r_prefer_accuracy", "1");
  set_variable("D4R_PREFER_ACCURACY", "true");
  set_variable("D4R_ZLUDA_WMMA_FP8_NATIVE", "maybe");
  EXPECT_EQ(run(), 0) << m_output; // warnings only
  EXPECT_NE(line(CheckLevel::warn, "env", "D4R_PREFER_ACURACY: no d4r program reads it  \u2014 did "
                                          "you mean D4R_PREFER_ACCURACY?"),
            "")
      << m_output;
  EXPECT_NE(line(CheckLevel::warn, "env", "d4r_prefer_accuracy: names are case-sensitive"), "")
      << m_output;
  // One parser (util/settings.hpp) for games and the daemon: `true` is accuracy for both.
  EXPECT_NE(line(CheckLevel::ok, "env", "D4R_PREFER_ACCURACY=true: accuracy (game and daemon agree)"),
            "")
      << m_output;
  EXPECT_NE(line(CheckLevel::warn, "env", "D4R_ZLUDA_WMMA_FP8_NATIVE=maybe: not a switch value"), "")
      << m_output;
  set_variable("D4R_PREFER_ACCURACY", "1");
  unsetenv("D4R_ZLUDA_WMMA_FP8_NATIVE");
  std::erase(m_inputs.environment, "D4R_PREFER_ACCURACY=true");
  std::erase(m_inputs.environment, "D4R_ZLUDA_WMMA_FP8_NATIVE=maybe");
  EXPECT_EQ(run(), 0);
  EXPECT_NE(line(CheckLevel::ok, "env", "D4R_PREFER_ACCURACY=1: accuracy (game and daemon agree)"), "")
      << m_output;
  EXPECT_NE(line(CheckLevel::ok, "env", "asks for mode accuracy"), "") << m_output;
}

TEST_F(DoctorTest, TheConfigFileIsReadAsGamesAndTheDaemonReadIt)
{
  write_file(m_home / ".config/d4r-kerneld/config",
             "[Kernels]\nPreferAccuracy = yes\nIgnoreDenormals = true\n");
  ASSERT_TRUE(start_daemon());
  EXPECT_EQ(run(), 0) << m_output;
  EXPECT_NE(line(CheckLevel::ok, "config file", "d4r-kerneld and games accept it"), "") << m_output;
  EXPECT_NE(line(CheckLevel::ok, "config file", "IgnoreDenormals is not read"), "") << m_output;
  write_file(m_home / ".config/d4r-kerneld/config", "[Kernels]\nNativeFp8 = sometimes\n");
  EXPECT_EQ(run(), 1) << m_output;
  EXPECT_NE(line(CheckLevel::fail, "config file", ":2: NativeFp8 = sometimes: not a switch value"),
            "")
      << m_output;
}

TEST_F(DoctorTest, AnEnvFileTheDaemonRefusesFails)
{
  write_file(m_home / ".config/d4r-kerneld/env", "# settings\nD4R_PREFER_ACCURACY=maybe\n");
  ASSERT_TRUE(start_daemon());
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "env file", "d4r-kerneld refuses to start: "
                                               "D4R_PREFER_ACCURACY=maybe"),
            "")
      << m_output;
}

TEST_F(DoctorTest, DamagedManifestFailsAndABadLineWarns)
{
  ASSERT_TRUE(start_daemon());
  fs::path manifest = m_release / "gfx1101/d4r-kernels.txt";
  std::string good = read_file(manifest);
  write_file(manifest, good + "this line is no manifest line\n");
  EXPECT_EQ(run(), 0) << m_output;
  EXPECT_NE(line(CheckLevel::warn, "release fast", "d4r-kernels.txt: line "), "") << m_output;
  write_file(manifest, std::string("\x7f" "ELF\x01\x02 garbage, not a manifest\n", 32));
  EXPECT_EQ(run(), 1) << m_output;
  EXPECT_NE(line(CheckLevel::fail, "release fast", "/gfx1101 (manifest d4r-kernels.txt): 0 objects"),
            "")
      << m_output;
}

TEST_F(DoctorTest, AccuracyFolderWithoutItsMarkerWarns)
{
  ASSERT_TRUE(start_daemon());
  // Every folder that serves accuracy carries its own marker: take them all away, as a copy that
  // stopped before the build's last step would.
  for (const char* marker : {"accuracy/d4r-accuracy.txt", "accuracy/gfx1101/d4r-accuracy.txt",
                             "accuracy/gfx1201/d4r-accuracy.txt"}) {
    fs::remove(m_release / marker);
  }
  EXPECT_EQ(run(), 0) << m_output;
  EXPECT_NE(line(CheckLevel::warn, "release accuracy", "lacks its d4r-accuracy.txt marker"), "")
      << m_output;
}

TEST_F(DoctorTest, GpuProblems)
{
  ASSERT_TRUE(start_daemon());
  m_inputs.command.kfd_topology = (fs::path(D4R_TEST_SOURCE_DIR) / "fixtures/kfd/apu_plus_dgpu").string();
  EXPECT_EQ(run(), 0);
  EXPECT_NE(line(CheckLevel::ok, "gpu", "node 1 gfx1036 (gfx_target_version 100306, 4 SIMDs), node 2 "
                                        "gfx1201 (gfx_target_version 120001, 128 SIMDs); the daemon "
                                        "picks node 2"),
            "")
      << m_output;
  // The daemon was started with gfx1101 (--gpu-arch): what it serves wins, and the difference shows.
  EXPECT_NE(line(CheckLevel::warn, "gpu", "the running daemon serves gfx1101, this machine's "
                                          "detection gives gfx1201"),
            "")
      << m_output;
  m_inputs.command.kfd_topology = (fs::path(D4R_TEST_SOURCE_DIR) / "fixtures/kfd/none").string();
  m_inputs.command.kfd_device = (m_dir.path() / "no-kfd").string();
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "gpu", "/no-kfd: missing"), "") << m_output;
  EXPECT_NE(line(CheckLevel::fail, "gpu", "no GPU node"), "") << m_output;
}

TEST_F(DoctorTest, UnitsNotEnabledWarnAndABadExecStartFails)
{
  ASSERT_TRUE(start_daemon());
  fs::path units = m_home / ".config/systemd/user";
  fs::remove(units / "sockets.target.wants/d4r-kerneld.socket");
  EXPECT_EQ(run(), 0);
  EXPECT_NE(line(CheckLevel::warn, "units", "d4r-kerneld.socket is not enabled"), "") << m_output;
  write_file(units / "d4r-kerneld.service", "[Service]\nExecStart=/nowhere/d4r-kerneld --foreground\n");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(line(CheckLevel::fail, "units", "ExecStart=/nowhere/d4r-kerneld is not an executable"), "")
      << m_output;
  fs::remove_all(units);
  EXPECT_EQ(run(), 0);
  EXPECT_NE(line(CheckLevel::warn, "units", "d4r-kerneld.socket: not installed"), "") << m_output;
}

TEST_F(DoctorTest, TheToolRunsDoctorWithHelpAndJson)
{
  fs::path tool = fs::path(D4R_BINARY_DIR) / "cli/d4r-kernel";
  fs::path out = m_dir.path() / "out";
  const ToolOptions stdout_only{{}, {}, true};
  ToolRun help = run_tool({tool.string(), "doctor", "--help"}, stdout_only);
  ASSERT_EQ(help.exit_code, 0) << help.errors;
  EXPECT_NE(help.output.find("usage: d4r-kernel doctor"), std::string::npos);
  // No daemon at this socket: FAIL lines, exit status 1, still one JSON document.
  ToolRun json = run_tool({tool.string(), "--json", "--socket", (m_dir.path() / "none.sock").string(),
                           "doctor", "--kfd-device", "/dev/null"},
                          {{"HOME=" + m_home.string()}, {}, true});
  EXPECT_EQ(json.exit_code, 1) << json.output << json.errors;
  write_file(out, json.output);
  ToolRun parse = run_tool({"/usr/bin/python3", "-c",
                            "import json, sys; d = json.load(open(sys.argv[1])); "
                            "assert d['exit_code'] == 1 and d['fail'] >= 1",
                            out.string()});
  EXPECT_EQ(parse.exit_code, 0) << parse.output << json.output;
}

} // namespace
} // namespace d4r::testing
