#pragma once
// The command line of d4r-kernel, parsed into plain structs before anything talks to the daemon:
// every check that can be made locally (hash, kernel name, target, mode, numbers) is made here, so
// a typo is a usage error (exit 2) and never a round trip.

#include "cli/warm_options.hpp"
#include "cli/config_options.hpp"
#include "cli/release_options.hpp"
#include "cli/key_command.hpp"
#include "cli/token_command.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

namespace d4r::cli {

inline constexpr int64_t k_default_timeout_ms = 5000;
inline constexpr int64_t k_max_timeout_ms = 3'600'000;
inline constexpr int64_t k_max_wait_ms = 600'000;
inline constexpr int64_t k_default_build_wait_ms = 300'000; // `build` waits for the compile

struct GlobalOptions {
  std::string socket; // resolved: --socket, else D4R_KERNELD_SOCKET, else the default path
  bool json = false;
  int64_t timeout_ms = k_default_timeout_ms;
  bool socket_given = false;  // --socket was on the line (`config` says where the socket came from)
  bool timeout_given = false; // --timeout-ms was on the line (import has a longer default)
};

struct HelpCommand {
  std::string topic; // a command name; empty: the global help
};

struct VersionCommand {};

struct StatusCommand {};

struct MetricsCommand {}; // cli/metrics.hpp

struct ResolveCommand {
  uint64_t module_hash = 0;
  std::string kernel;
  std::optional<Mode> mode; // unset: the daemon's default
  std::string target;       // empty: the daemon's detected GPU
  bool fp8_native = true;
  bool native_swin_encoders = true;
  int64_t wait_ms = 0; // 0: the daemon's default wait budget
  std::string out_path;
  bool build = false; // `build`: the recipe's object for any module (no --module-hash)
};

struct ImportCommand {
  std::string directory; // absolute; empty: the daemon's configured native dir
};

struct ListCommand {
  std::optional<Mode> mode; // unset: every mode
};

struct PurgeCommand {
  std::optional<Mode> mode; // unset: every mode
  bool yes = false;
  int64_t older_than_ms = 0; // --older-than: only entries not used for so long (0: all)
  bool force = false;        // --force: pinned entries too
};

// `ptx inspect FILE [--max-decompressed SIZE]`: read locally, the daemon is not asked.
struct PtxInspectCommand {
  std::string path;
  std::optional<int64_t> max_decompressed; // unset: the container reader's default (1 GiB)
};

// `ptx rewrite --recipe R FILE [--module HASH] [--target T] [-o OUT]`: local as well.
struct PtxRewriteCommand {
  std::string path;
  std::string recipe_path;
  std::optional<uint64_t> module_hash; // required when FILE holds several modules
  std::string target;                  // empty: the recipe's first target
  std::string out_path;                // empty: stdout
};

// `ptx translate FILE --target T [--kernel NAME] [--recipe R] [--module HASH] [--emit-llvm]
// [-o OUT]`: the daemon's "rewrite, then translate" build, run locally.
struct PtxTranslateCommand {
  std::string path;
  std::string target;                  // a gfx target, or "host" (with --emit-llvm)
  std::string kernel;                  // empty: every entry
  std::string recipe_path;             // optional: its passes run first
  std::optional<uint64_t> module_hash; // required when FILE holds several modules
  Mode mode = Mode::fast;              // the set to build for, as the daemon's default
  bool emit_llvm = false;              // LLVM IR text instead of a code object
  std::string out_path;                // required for a code object; IR: stdout when empty
};

// `ptx run FILE --kernel NAME --inputs DIR|CASE [--out DIR]`: the CPU executor.
struct PtxRunCommand {
  std::string path;
  std::string kernel;
  std::string inputs;   // a launch case file, or a folder holding launch.case
  std::string out_dir;  // empty: print a summary only
  std::optional<uint64_t> module_hash;
  Mode mode = Mode::fast;
};

// `doctor [--cache-dir DIR] [--native-dir DIR] [--kfd-topology DIR] [--kfd-device PATH]
// [--worker PATH]`: local checks (cli/doctor.hpp); the paths as the daemon's flags of those names.
struct DoctorCommand {
  std::string cache_dir;
  std::string native_dir;
  std::string kfd_topology;
  std::string kfd_device; // empty: /dev/kfd
  std::string worker;
};

using Command =
    std::variant<HelpCommand, VersionCommand, StatusCommand, ResolveCommand, ImportCommand,
                 ListCommand, PurgeCommand, PtxInspectCommand, PtxRewriteCommand,
                 PtxTranslateCommand, PtxRunCommand, ConfigCommand, DoctorCommand, MetricsCommand,
                 WarmCommand, ExportCommand, PinCommand, TokenCommand, KeyCommand>;

struct ParsedCommand {
  GlobalOptions global;
  Command command;
};

// What the parser reads from the process environment, passed in so tests can set it.
struct Environment {
  std::string kerneld_socket;  // D4R_KERNELD_SOCKET
  std::string xdg_runtime_dir; // XDG_RUNTIME_DIR
  uint32_t uid = 0;
};

[[nodiscard]] Environment environment_from_process();

// The daemon's and games' rule (util/socket_path.hpp): $XDG_RUNTIME_DIR/d4r-kerneld/socket, or
// /run/user/<uid>/d4r-kerneld/socket when it is unset or not absolute (the XDG spec says to ignore
// a relative value).
[[nodiscard]] std::string default_socket_path(const Environment& env);

// Parses the arguments after argv[0]. Global options may appear anywhere, before or after the
// command name; `--name value` and `--name=value` are both accepted; `--` ends the options.
[[nodiscard]] Expected<ParsedCommand> parse_command_line(std::span<const std::string> args,
                                                         const Environment& env);

} // namespace d4r::cli
