#include "daemon/config.hpp"

#include "cache/remote/redis/endpoint.hpp"
#include "trust/key_location.hpp"
#include "trust/public_key.hpp"
#include "trust/rebuild_sample.hpp"
#include "util/environment.hpp"
#include "util/host_port.hpp"
#include "util/settings.hpp"
#include "util/socket_path.hpp"
#include "util/tokens.hpp"
#include "util/variables.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <string_view>

namespace d4r::daemon {

namespace {

using Environment = EnvironmentMap;

// What the transport needs beside one largest upload: the message's framing and other calls.
constexpr int64_t k_transport_headroom = 4LL << 20;

Environment to_map(const std::vector<std::string>& environment)
{
  return environment_from_entries(environment);
}

std::optional<std::string> lookup(const Environment& env, std::string_view name)
{
  return environment_value(env, name);
}

Expected<int64_t> parse_size(std::string_view flag, std::string_view text)
{
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  int64_t scale = 1;
  std::string_view suffix(end, text.data() + text.size() - end);
  if (suffix == "K" || suffix == "KiB") {
    scale = 1LL << 10;
  } else if (suffix == "M" || suffix == "MiB") {
    scale = 1LL << 20;
  } else if (suffix == "G" || suffix == "GiB") {
    scale = 1LL << 30;
  } else if (!suffix.empty()) {
    ec = std::errc::invalid_argument;
  }
  if (ec != std::errc() || value <= 0 || value > (INT64_MAX / scale)) {
    return make_error(ErrorCode::invalid_argument,
                      std::string(flag) + ": '" + std::string(text) +
                          "' is not a positive size (e.g. 64M, 2G)");
  }
  return value * scale;
}

Expected<void> apply_environment(const Environment& env, DaemonConfig& config)
{
  if (std::optional<std::string> cache = lookup(env, "XDG_CACHE_HOME")) {
    config.cache_dir = std::filesystem::path(*cache) / "d4r-kerneld";
  } else if (std::optional<std::string> home = lookup(env, "HOME")) {
    config.cache_dir = std::filesystem::path(*home) / ".cache" / "d4r-kerneld";
  }
  if (std::optional<std::string> native = lookup(env, k_env_native_dir)) {
    config.native_dir = *native;
  }
  config.gpu_arch = gpu_arch_from_environment(env);
  return {};
}

// The switches as games and `d4r-kernel config` read them (util/settings.hpp): the flags over the
// environment over the config file. A value in no known spelling refuses to start, loudly, rather
// than serve another set (even under a flag, as `d4r-kernel config` then exits 1 too).
Expected<void> apply_switches(const Environment& env, const SwitchFlags& flags, DaemonConfig& config)
{
  Settings settings = read_settings(flags, env);
  if (!settings.problems.empty()) {
    return make_error(ErrorCode::invalid_argument, settings.problems.front());
  }
  config.default_mode = settings.at(Switch::prefer_accuracy).value ? Mode::accuracy : Mode::fast;
  config.fp8_native = settings.at(Switch::native_fp8).value;
  config.native_swin_encoders = settings.at(Switch::native_swin_encoders).value;
  return {};
}

struct FlagCursor {
  const std::vector<std::string>& args;
  size_t index = 0;
  SwitchFlags switches{}; // --mode, --no-fp8, ...: applied over the environment once all are read

  // "--flag value" or "--flag=value".
  Expected<std::string> value_of(std::string_view flag)
  {
    const std::string& arg = args[index];
    if (arg.size() > flag.size() && arg[flag.size()] == '=') {
      return arg.substr(flag.size() + 1);
    }
    if (index + 1 >= args.size()) {
      return make_error(ErrorCode::invalid_argument, std::string(flag) + " needs a value");
    }
    return args[++index];
  }
};

bool matches(std::string_view arg, std::string_view flag)
{
  return arg == flag || (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=');
}

// A size or count where 0 means "no limit".
Expected<int64_t> parse_size_or_off(std::string_view flag, std::string_view text)
{
  return text == "0" ? Expected<int64_t>(0) : parse_size(flag, text);
}

// What one client of the build server may ask (client_limits.hpp); false: not one of them.
Expected<bool> apply_client_limit_flag(FlagCursor& cursor, ClientLimitSettings& limits)
{
  std::string_view arg = cursor.args[cursor.index];
  if (matches(arg, "--client-rate")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--client-rate"));
    TRY_ASSIGN(int64_t rate, parse_size_or_off("--client-rate", text));
    limits.calls_per_second = static_cast<double>(std::min<int64_t>(rate, 1'000'000));
  } else if (matches(arg, "--client-max-module")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--client-max-module"));
    TRY_ASSIGN(limits.max_module_bytes, parse_size("--client-max-module", text));
  } else if (matches(arg, "--client-upload-per-hour")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--client-upload-per-hour"));
    TRY_ASSIGN(limits.upload_bytes_per_hour, parse_size_or_off("--client-upload-per-hour", text));
  } else if (matches(arg, "--client-max-builds")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--client-max-builds"));
    TRY_ASSIGN(limits.max_builds, parse_size_or_off("--client-max-builds", text));
  } else if (matches(arg, "--client-max-wait-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--client-max-wait-ms"));
    TRY_ASSIGN(int64_t wait, parse_size("--client-max-wait-ms", text));
    limits.max_wait_ms = static_cast<uint32_t>(std::min<int64_t>(wait, UINT32_MAX));
  } else {
    return false;
  }
  return true;
}

// The build server's flags (--listen and what TLS and tokens need); false: not one of them.
Expected<bool> apply_remote_flag(FlagCursor& cursor, DaemonConfig& config)
{
  std::string_view arg = cursor.args[cursor.index];
  TRY_ASSIGN(bool limit, apply_client_limit_flag(cursor, config.client_limits));
  if (limit) {
    return true;
  }
  if (matches(arg, "--listen")) {
    TRY_ASSIGN(config.listen, cursor.value_of("--listen"));
  } else if (matches(arg, "--tls-cert")) {
    TRY_ASSIGN(config.tls_cert, cursor.value_of("--tls-cert"));
  } else if (matches(arg, "--tls-key")) {
    TRY_ASSIGN(config.tls_key, cursor.value_of("--tls-key"));
  } else if (matches(arg, "--tls-client-ca")) {
    TRY_ASSIGN(config.tls_client_ca, cursor.value_of("--tls-client-ca"));
  } else if (matches(arg, "--token-file")) {
    TRY_ASSIGN(config.token_file, cursor.value_of("--token-file"));
  } else if (matches(arg, "--redis")) {
    TRY_ASSIGN(config.redis, cursor.value_of("--redis"));
    Expected<cache::redis::RedisEndpoint> endpoint = cache::redis::parse_endpoint(config.redis);
    if (!endpoint) {
      return make_error(ErrorCode::invalid_argument, "--redis: " + endpoint.error().message);
    }
  } else if (matches(arg, "--redis-budget-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--redis-budget-ms"));
    TRY_ASSIGN(config.redis_budget_ms, parse_size("--redis-budget-ms", text));
  } else if (matches(arg, "--upstream")) {
    TRY_ASSIGN(config.upstream, cursor.value_of("--upstream"));
    TRY(split_host_port(config.upstream, "--upstream"));
  } else if (matches(arg, "--upstream-ca")) {
    TRY_ASSIGN(config.upstream_ca, cursor.value_of("--upstream-ca"));
  } else if (matches(arg, "--upstream-token-file")) {
    TRY_ASSIGN(config.upstream_token_file, cursor.value_of("--upstream-token-file"));
  } else if (matches(arg, "--upstream-key")) {
    TRY_ASSIGN(config.upstream_key, cursor.value_of("--upstream-key"));
    Expected<trust::PublicKey> key = trust::parse_public_key(config.upstream_key);
    if (!key) {
      return make_error(ErrorCode::invalid_argument, "--upstream-key: " + key.error().message);
    }
  } else if (matches(arg, "--upstream-budget-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--upstream-budget-ms"));
    TRY_ASSIGN(config.upstream_budget_ms, parse_size("--upstream-budget-ms", text));
  } else if (matches(arg, "--upstream-build-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--upstream-build-ms"));
    TRY_ASSIGN(config.upstream_build_ms, parse_size_or_off("--upstream-build-ms", text));
  } else {
    return false;
  }
  return true;
}

// There is no plain-text TCP: a token sent in clear would be anyone's on the path.
Expected<void> check_remote_flags(DaemonConfig& config, const Environment& env)
{
  bool tls_given = !config.tls_cert.empty() || !config.tls_key.empty() || config.tls_client_ca;
  if (config.listen.empty()) {
    if (tls_given) {
      return make_error(ErrorCode::invalid_argument, "--tls-cert, --tls-key and --tls-client-ca "
                                                     "need --listen HOST:PORT");
    }
    return {};
  }
  if (config.tls_cert.empty() || config.tls_key.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "--listen needs --tls-cert FILE and --tls-key FILE: TCP is served over TLS "
                      "only");
  }
  if (config.token_file.empty()) {
    TRY_ASSIGN(config.token_file, default_token_file(env));
  }
  std::error_code ec;
  config.tls_cert = std::filesystem::absolute(config.tls_cert, ec);
  config.tls_key = std::filesystem::absolute(config.tls_key, ec);
  config.token_file = std::filesystem::absolute(config.token_file, ec);
  return {};
}

// An upstream's results are native code that cannot be checked by looking at it: without the
// key they must be signed with, and a token for the server, the daemon does not start.
Expected<void> check_upstream_flags(DaemonConfig& config)
{
  bool given = config.upstream_ca || !config.upstream_token_file.empty() || !config.upstream_key.empty();
  if (config.upstream.empty()) {
    if (given) {
      return make_error(ErrorCode::invalid_argument, "--upstream-ca, --upstream-token-file and "
                                                     "--upstream-key need --upstream HOST:PORT");
    }
    return {};
  }
  if (config.upstream_key.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "--upstream needs --upstream-key ed25519:KEY, the key its results are signed "
                      "with (`d4r-kernel key show` on the server prints it): unsigned code is "
                      "never taken");
  }
  if (config.upstream_token_file.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "--upstream needs --upstream-token-file FILE holding this machine's token "
                      "(`d4r-kernel token add NAME` on the server makes one)");
  }
  std::error_code ec;
  config.upstream_token_file = std::filesystem::absolute(config.upstream_token_file, ec);
  if (config.upstream_ca) {
    config.upstream_ca = std::filesystem::absolute(*config.upstream_ca, ec);
  }
  return {};
}

Expected<bool> apply_flag(FlagCursor& cursor, ParsedConfig& parsed)
{
  DaemonConfig& config = parsed.config;
  std::string_view arg = cursor.args[cursor.index];
  if (arg == "--help" || arg == "-h") {
    parsed.status = ParseStatus::help;
  } else if (arg == "--version") {
    parsed.status = ParseStatus::version;
  } else if (arg == "--foreground") {
    config.foreground = true;
  } else if (matches(arg, "--socket")) {
    TRY_ASSIGN(config.socket_path, cursor.value_of("--socket"));
  } else if (matches(arg, "--cache-dir")) {
    TRY_ASSIGN(config.cache_dir, cursor.value_of("--cache-dir"));
  } else if (matches(arg, "--native-dir")) {
    TRY_ASSIGN(config.native_dir, cursor.value_of("--native-dir"));
  } else if (matches(arg, "--gpu-arch")) {
    TRY_ASSIGN(std::string arch, cursor.value_of("--gpu-arch"));
    TRY(validate_target(arch));
    config.gpu_arch = arch;
  } else if (matches(arg, "--mode")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--mode"));
    Expected<Mode> mode = parse_mode(text);
    if (!mode) {
      return make_error(ErrorCode::invalid_argument,
                        "--mode " + text.substr(0, 64) + ": expected fast or accuracy");
    }
    apply_mode_flag(*mode == Mode::accuracy, cursor.switches);
  } else if (apply_switch_flag(arg, cursor.switches)) {
    // --no-fp8, --fp8, --no-swin-encoders, --swin-encoders
  } else if (matches(arg, "--kfd-topology")) {
    TRY_ASSIGN(config.topology_root, cursor.value_of("--kfd-topology"));
  } else if (matches(arg, "--max-ptx-bytes")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--max-ptx-bytes"));
    TRY_ASSIGN(config.max_ptx_bytes, parse_size("--max-ptx-bytes", text));
  } else if (matches(arg, "--cache-max-bytes")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--cache-max-bytes"));
    TRY_ASSIGN(config.cache_max_bytes, parse_size("--cache-max-bytes", text));
  } else if (matches(arg, "--cache-trash-grace-seconds")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--cache-trash-grace-seconds"));
    // 0 is allowed: removed objects' files go at once (and a client may then fail open).
    TRY_ASSIGN(config.cache_trash_grace_seconds,
               text == "0" ? Expected<int64_t>(0)
                           : parse_size("--cache-trash-grace-seconds", text));
    config.cache_trash_grace_seconds = config.cache_trash_grace_seconds > 86400
                                           ? 86400
                                           : config.cache_trash_grace_seconds;
  } else if (matches(arg, "--modules-max-bytes")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--modules-max-bytes"));
    TRY_ASSIGN(config.modules_max_bytes, parse_size("--modules-max-bytes", text));
  } else if (matches(arg, "--workers")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--workers"));
    TRY_ASSIGN(int64_t workers, parse_size("--workers", text));
    config.workers = static_cast<int>(std::min<int64_t>(workers, 256));
  } else if (matches(arg, "--recipes-dir")) {
    TRY_ASSIGN(config.recipes_dir, cursor.value_of("--recipes-dir"));
  } else if (matches(arg, "--worker")) {
    TRY_ASSIGN(config.worker, cursor.value_of("--worker"));
  } else if (matches(arg, "--clang")) {
    TRY_ASSIGN(config.clang, cursor.value_of("--clang"));
  } else if (matches(arg, "--backend")) {
    TRY_ASSIGN(config.backend, cursor.value_of("--backend"));
    if (config.backend != "llvm" && config.backend != "clang" && config.backend != "comgr") {
      return make_error(ErrorCode::invalid_argument,
                        "--backend " + config.backend + ": expected llvm, clang or comgr");
    }
  } else if (matches(arg, "--build-jobs")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--build-jobs"));
    TRY_ASSIGN(int64_t jobs, parse_size("--build-jobs", text));
    config.build_jobs = static_cast<int>(std::min<int64_t>(jobs, 256));
  } else if (matches(arg, "--build-cpu-seconds")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--build-cpu-seconds"));
    TRY_ASSIGN(config.build_cpu_seconds, parse_size("--build-cpu-seconds", text));
  } else if (matches(arg, "--build-wall-seconds")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--build-wall-seconds"));
    TRY_ASSIGN(config.build_wall_seconds, parse_size("--build-wall-seconds", text));
  } else if (matches(arg, "--build-memory")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--build-memory"));
    TRY_ASSIGN(config.build_memory_bytes, parse_size("--build-memory", text));
  } else if (matches(arg, "--wait-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--wait-ms"));
    TRY_ASSIGN(config.default_wait_ms, parse_size("--wait-ms", text));
  } else if (matches(arg, "--max-queued-requests")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--max-queued-requests"));
    TRY_ASSIGN(config.max_queued_requests, parse_size("--max-queued-requests", text));
  } else if (matches(arg, "--max-queued-builds")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--max-queued-builds"));
    TRY_ASSIGN(config.max_queued_builds, parse_size("--max-queued-builds", text));
  } else if (matches(arg, "--upload-memory")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--upload-memory"));
    TRY_ASSIGN(config.upload_memory_bytes, parse_size("--upload-memory", text));
  } else if (matches(arg, "--transport-memory")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--transport-memory"));
    TRY_ASSIGN(config.transport_memory_bytes, parse_size("--transport-memory", text));
  } else if (matches(arg, "--max-connections")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--max-connections"));
    TRY_ASSIGN(config.max_connections, parse_size("--max-connections", text));
  } else if (matches(arg, "--max-streams")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--max-streams"));
    TRY_ASSIGN(config.max_streams, parse_size("--max-streams", text));
    config.max_streams = std::min<int64_t>(config.max_streams, INT32_MAX);
  } else if (matches(arg, "--idle-connection-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--idle-connection-ms"));
    TRY_ASSIGN(config.idle_connection_ms, parse_size("--idle-connection-ms", text));
    config.idle_connection_ms = std::min<int64_t>(config.idle_connection_ms, INT32_MAX);
  } else if (matches(arg, "--silent-connection-ms")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--silent-connection-ms"));
    TRY_ASSIGN(config.silent_connection_ms, parse_size("--silent-connection-ms", text));
  } else if (matches(arg, "--log-level")) {
    TRY_ASSIGN(config.log_level, cursor.value_of("--log-level"));
  } else if (matches(arg, "--signing-key")) {
    TRY_ASSIGN(config.signing_key, cursor.value_of("--signing-key"));
  } else if (matches(arg, "--verify-remote-sample")) {
    TRY_ASSIGN(std::string text, cursor.value_of("--verify-remote-sample"));
    TRY_ASSIGN(config.verify_remote_sample, trust::parse_sample_rate(text));
  } else {
    TRY_ASSIGN(bool remote, apply_remote_flag(cursor, config));
    if (!remote) {
      return make_error(ErrorCode::invalid_argument,
                        "unknown option '" + std::string(arg) + "' (see --help)");
    }
  }
  return true;
}

} // namespace

std::filesystem::path default_socket_path(const std::vector<std::string>& environment)
{
  return d4r::default_socket_path(to_map(environment), static_cast<uint32_t>(getuid()));
}

Expected<ParsedConfig> parse_config(const std::vector<std::string>& args,
                                    const std::vector<std::string>& environment)
{
  ParsedConfig parsed;
  parsed.config.topology_root = "/sys/class/kfd/kfd/topology/nodes";
  // ROCm's clang where the user has it (it knows the newest targets first), else Debian's clang-19.
  std::error_code exists_error;
  parsed.config.clang = std::filesystem::exists("/opt/rocm/llvm/bin/clang++", exists_error)
                            ? "/opt/rocm/llvm/bin/clang++"
                            : "/usr/lib/llvm-19/bin/clang++";
  if (std::filesystem::is_directory(D4R_DEFAULT_RECIPES_DIR, exists_error)) {
    parsed.config.recipes_dir = D4R_DEFAULT_RECIPES_DIR;
  }
  TRY(apply_environment(to_map(environment), parsed.config));
  parsed.config.socket_path = default_socket_path(environment);
  FlagCursor cursor{args};
  for (cursor.index = 0; cursor.index < args.size(); ++cursor.index) {
    TRY(apply_flag(cursor, parsed));
  }
  TRY(apply_switches(to_map(environment), cursor.switches, parsed.config));
  DaemonConfig& config = parsed.config;
  if (config.cache_dir.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "no cache directory: set --cache-dir, XDG_CACHE_HOME or HOME");
  }
  TRY(check_remote_flags(config, to_map(environment)));
  TRY(check_upstream_flags(config));
  // A quota smaller than the largest upload would abandon every upload of that size.
  if (config.transport_memory_bytes < config.max_ptx_bytes + k_transport_headroom) {
    return make_error(ErrorCode::invalid_argument,
                      "--transport-memory " + std::to_string(config.transport_memory_bytes >> 20) +
                          " MiB must exceed --max-ptx-bytes by " +
                          std::to_string(k_transport_headroom >> 20) +
                          " MiB, or the largest module could never arrive");
  }
  // Paths are made absolute once, so logs, status and cache sources name them unambiguously.
  std::error_code ec;
  config.cache_dir = std::filesystem::absolute(config.cache_dir, ec);
  config.socket_path = std::filesystem::absolute(config.socket_path, ec);
  if (config.native_dir) {
    config.native_dir = std::filesystem::absolute(*config.native_dir, ec);
  }
  if (config.recipes_dir) {
    config.recipes_dir = std::filesystem::absolute(*config.recipes_dir, ec);
  }
  // Only a path: the key is read or made when a result is first signed (daemon/result_signer).
  if (config.signing_key.empty()) {
    config.signing_key =
        trust::default_signing_key_path(to_map(environment)).value_or(std::filesystem::path());
  }
  if (!config.signing_key.empty()) {
    config.signing_key = std::filesystem::absolute(config.signing_key, ec);
  }
  return parsed;
}

std::string usage_text()
{
  return R"(usage: d4r-kerneld [options]

Serves native kernel replacements for ZLUDA's override hook over gRPC on a Unix socket.
Under systemd it takes its socket from d4r-kerneld.socket and reports READY/STOPPING.

options:
  --foreground            run attached to the terminal, logging to stderr (the default
                          when not started by systemd)
  --socket PATH           Unix socket (default $XDG_RUNTIME_DIR/d4r-kerneld/socket, else
                          /run/user/UID/d4r-kerneld/socket: where games connect)
  --cache-dir DIR         cache root (default $XDG_CACHE_HOME/d4r-kerneld)
  --native-dir DIR        d4r release directory to serve (env D4R_ZLUDA_NATIVE_DIR)
  --gpu-arch gfxNNNN      GPU target instead of KFD detection (env D4R_GPU_ARCH)
  --mode fast|accuracy    the set for requests that name none (over D4R_PREFER_ACCURACY)
  --no-fp8, --fp8         do (not) use the <gfx12>-fp8 folders (over D4R_ZLUDA_WMMA_FP8_NATIVE)
  --no-swin-encoders, --swin-encoders  do (not) serve rrlite_enc1_4x4 / rrlite_enc2_4x4 (over
                          D4R_NATIVE_SWIN_ENCODERS)
  --kfd-topology DIR      KFD topology nodes (default /sys/class/kfd/kfd/topology/nodes)
  --max-ptx-bytes SIZE    largest PTX module accepted by PutModule (default 64M)
  --cache-max-bytes SIZE  size cap of each accuracy mode's store (default 4G)
  --cache-trash-grace-seconds N  how long the file of a removed object (purge, eviction) stays
                          for clients just told of it (default 60, counted in the cap; 0: none)
  --modules-max-bytes SIZE  size cap of the PTX modules clients uploaded (default 512M); an
                          hourly sweep removes the least recently used beyond it, and leftovers
                          (temp files, dead builds' folders, old quarantine and failures)
  --workers N             request threads (default: twice the cores, at least 8)
  --max-queued-requests N requests waiting for a request thread, at most (default 1024);
                          past it a Resolve is REJECTED "request queue full"
  --upload-memory SIZE    PutModule bodies held in memory at once, at most (default 256M);
                          past it an upload is refused "upload memory"
  --transport-memory SIZE what gRPC may hold for calls it is still receiving, at most
                          (default 128M, gRPC's resource quota; more than --max-ptx-bytes);
                          past it gRPC abandons a call with RESOURCE_EXHAUSTED while it arrives
  --max-connections N     connections served at once, at most (default 256); past it the
                          longest idle is sent away, or, none idle for 1 s, the new one's calls
                          end with RESOURCE_EXHAUSTED; as many more may wait for their first byte
  --max-streams N         concurrent calls on one connection (default 64; a client queues more)
  --idle-connection-ms N  a connection with no call for so long is sent away (default 60000;
                          the client reconnects when it needs to)
  --silent-connection-ms N  a connection that sends nothing for so long is closed before gRPC
                          sees it (default 5000)
  --log-level LEVEL       trace, debug, info, warn, error (default info)

on-demand builds (native sources of kernels/, compiled in isolated worker processes):
  --recipes-dir DIR       recipes to serve (default: the installed kernels/recipes)
  --worker PATH           d4r-kernel-worker (default: found next to d4r-kerneld)
  --clang PATH            clang driver for HIP (default: /opt/rocm/llvm/bin/clang++ if
                          present, else /usr/lib/llvm-19/bin/clang++)
  --backend NAME          llvm, clang or comgr (default: comgr for the ISAs it knows, else llvm)
  --build-jobs N          concurrent builds (default: the number of cores)
  --build-cpu-seconds N   CPU limit of one worker (default 120)
  --build-wall-seconds N  wall-clock limit of one worker (default 300)
  --build-memory SIZE     address-space limit of one worker (default 4G)
  --wait-ms N             how long a Resolve that names no budget waits for a build (default 40)
  --max-queued-builds N   builds waiting for a worker, at most (default 256; background
                          warm-ups three quarters of it); past it REJECTED "build queue full"

a build server for other machines (off unless --listen is given; TLS only, a token per call):
  --listen HOST:PORT      also serve gRPC on TCP (e.g. 0.0.0.0:7467; port 0: any free one),
                          beside the Unix socket; Resolve, Build, Prepare, PutModule,
                          LookupCompiled and FetchObject (another daemon's --upstream) only,
                          code objects always sent as bytes
  --tls-cert FILE         the server's PEM certificate (chain); required with --listen
  --tls-key FILE          its PEM private key (keep it 0600); required with --listen
  --tls-client-ca FILE    require client certificates signed by this PEM CA (mutual TLS)
  --client-rate N         calls a second one client may make (default 200, a second's worth
                          at once; 0: no limit)
  --client-max-module SIZE  the largest PTX module one client may upload (default 16M)
  --client-upload-per-hour SIZE  what one client may upload in an hour (default 1G; 0: no limit)
  --client-max-builds N   Resolve and Build calls one client may have in flight (default 4;
                          0: no limit); past a limit Resolve and Build are REJECTED with the
                          limit's reason, other calls RESOURCE_EXHAUSTED, counted per client
  --client-max-wait-ms N  the longest one call may wait for a build (default 60000; a longer
                          wait is shortened: the build goes on, the client asks again)
  --token-file FILE       the clients' token hashes (default $XDG_STATE_HOME/d4r-kerneld/tokens,
                          else ~/.local/state/d4r-kerneld/tokens; `d4r-kernel token add NAME`),
                          read again whenever it changes
  --signing-key FILE      the Ed25519 key results for other machines are signed with, made on
                          first use (default $XDG_STATE_HOME/d4r-kerneld/signing.key, else
                          ~/.local/state/d4r-kerneld/signing.key; mode 0600). Clients pin its
                          public key: `d4r-kernel key show`
  --verify-remote-sample RATE  the share of the objects an upstream or Redis serves (0 to 1,
                          or N%) built here too, in the background, and compared byte for byte
                          (default 0.05); a difference distrusts that tier until a restart
  --redis ENDPOINT        share built kernels with other hosts through this Redis server
                          (unix:/run/redis/redis.sock or redis://IP:PORT, an address, not a
                          host name; off by default): asked after the local store, before a
                          build, and given every new build; when it is down or slow the daemon
                          builds locally
  --redis-budget-ms N     the most one Redis lookup or store may take (default 50)
  --upstream HOST:PORT    ask this build server (another d4r-kerneld's --listen, over TLS) for
                          what the local store lacks, before building; its objects are kept
                          here. Off by default; when it is down, slow or refuses, the daemon
                          builds locally and leaves it alone for a while
  --upstream-ca FILE      the PEM CA its certificate must chain to (default: the system's)
  --upstream-token-file FILE  the token this machine was given (`d4r-kernel token add NAME` on
                          the server), on the file's first line; keep it 0600
  --upstream-key ed25519:KEY  the server's public key (`d4r-kernel key show` there): an object
                          it did not sign with this key is refused. Required with --upstream
  --upstream-budget-ms N  the most one fetch from it may take (default 250)
  --upstream-build-ms N   what it lacks too, it is asked to build (the game's module sent if it
                          lacks that) before this machine builds, waiting at most this long
                          (default 60000; 0: never asked to build); a build there is fetched
                          and checked as any of its objects
  --version               print the version and exit
  -h, --help              print this help and exit

environment (as d4r's CUDA bridge reads it; each request may override it; the flags above win
over it), over the [Kernels]
keys of $XDG_CONFIG_HOME/d4r-kerneld/config (else ~/.config/d4r-kerneld/config, d4r.ini's syntax);
switches take 1/true/on/yes or 0/false/off/no in any case, anything else refuses to start:
  D4R_PREFER_ACCURACY=1         PreferAccuracy = true       default to the accuracy set
  D4R_ZLUDA_WMMA_FP8_NATIVE=0   NativeFp8 = false           do not use the <gfx12>-fp8 folders
  D4R_NATIVE_SWIN_ENCODERS=0    NativeSwinEncoders = false  do not serve rrlite_enc1_4x4 /
                                                            rrlite_enc2_4x4
)";
}

} // namespace d4r::daemon
