#pragma once
// The real d4r-kerneld, started as a child process on a temporary socket and cache for one test.
// Free of protobuf on purpose: tests that use the C client must not link a second copy of the
// generated protocol (libd4r_kernel_client.so carries its own), so counters are read through the
// small d4r-test-counters tool.

#include "tests/support/read_file.hpp"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace d4r::testing {

// A fresh folder under the test temp dir, removed at destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

struct DaemonOptions {
  explicit DaemonOptions(std::filesystem::path work) : work_dir(std::move(work)) {}

  std::filesystem::path work_dir;           // socket in work_dir/run, cache in work_dir/cache
  std::optional<std::filesystem::path> native_dir; // default: the release fixture
  std::string gpu_arch = "gfx1101";
  std::optional<std::filesystem::path> recipes_dir; // unset: no recipes (no on-demand builds)
  std::vector<std::string> extra_args;
  std::vector<std::string> extra_env;       // "NAME=value"
  std::optional<std::filesystem::path> log_file; // the daemon's stderr (its log); unset: inherited
};

class DaemonProcess {
public:
  explicit DaemonProcess(DaemonOptions options);
  ~DaemonProcess(); // SIGTERM, then SIGKILL if it does not stop

  // Starts the daemon and waits until its socket accepts connections (up to 10 s).
  [[nodiscard]] bool start();
  // SIGTERM and wait; the exit status (or -1 when it had to be killed).
  int stop();
  void send_signal(int signal) const;

  [[nodiscard]] const std::filesystem::path& socket_path() const { return m_socket; }
  [[nodiscard]] const std::filesystem::path& cache_dir() const { return m_cache; }
  [[nodiscard]] pid_t pid() const { return m_pid; }
  // The daemon's counters ("ready", "peer_refused", ...) through the Status RPC.
  [[nodiscard]] int64_t counter(const std::string& name) const;

private:
  DaemonOptions m_options;
  std::filesystem::path m_socket;
  std::filesystem::path m_cache;
  pid_t m_pid = -1;
};

// Paths of the build: the daemon binary and the release fixture laid out by kernels/.
[[nodiscard]] std::filesystem::path daemon_binary();
[[nodiscard]] std::filesystem::path release_fixture();
[[nodiscard]] std::filesystem::path shipped_recipes(); // kernels/recipes of the source tree
[[nodiscard]] std::string sha256_hex_of_file(const std::filesystem::path& path);

inline constexpr uint64_t k_sr_module_hash = 0x8baeb925f177af87ULL; // tests/ptx/sr_module.ptx
inline constexpr uint64_t k_rr_module_hash = 0x26332c9543501ce9ULL; // tests/ptx/rr_module.ptx

} // namespace d4r::testing
