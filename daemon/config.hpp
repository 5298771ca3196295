#pragma once
// The daemon's configuration: command-line flags over environment variables over the config file
// over defaults. The environment variables are the ones d4r users already set for the CUDA bridge,
// read with the client's and the CLI's code (util/settings.hpp, util/socket_path.hpp).

#include "daemon/client_limits.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace d4r::daemon {

struct DaemonConfig {
  std::filesystem::path socket_path;        // --socket, default $XDG_RUNTIME_DIR/d4r-kerneld/socket
  std::filesystem::path cache_dir;          // --cache-dir, default $XDG_CACHE_HOME/d4r-kerneld
  std::optional<std::filesystem::path> native_dir; // --native-dir, D4R_ZLUDA_NATIVE_DIR
  std::optional<std::string> gpu_arch;      // --gpu-arch, D4R_GPU_ARCH (when it starts with gfx)
  std::filesystem::path topology_root;      // --kfd-topology (tests point it at fixture trees)
  Mode default_mode = Mode::fast;           // D4R_PREFER_ACCURACY, else the file's PreferAccuracy
  bool fp8_native = true;                   // D4R_ZLUDA_WMMA_FP8_NATIVE
  bool native_swin_encoders = true;         // D4R_NATIVE_SWIN_ENCODERS
  int64_t max_ptx_bytes = 64LL << 20;       // --max-ptx-bytes
  int64_t cache_max_bytes = 4LL << 30;      // --cache-max-bytes (per mode)
  int64_t cache_trash_grace_seconds = 60;   // --cache-trash-grace-seconds: removed objects' files
  int64_t modules_max_bytes = 512LL << 20;  // --modules-max-bytes (uploaded PTX, both modes)
  int workers = 0;                          // --workers, 0: the number of cores
  bool foreground = false;                  // --foreground
  // On-demand builds (kernels/ recipes compiled by isolated workers).
  std::optional<std::filesystem::path> recipes_dir; // --recipes-dir, default: the installed recipes
  std::filesystem::path worker;             // --worker, default: found next to the daemon
  std::filesystem::path clang;              // --clang, default: ROCm's clang if present, else clang-19
  std::string backend;                      // --backend llvm|clang|comgr, default: per target
  int build_jobs = 0;                       // --build-jobs, 0: the number of cores
  int64_t build_cpu_seconds = 120;          // --build-cpu-seconds (per worker)
  int64_t build_wall_seconds = 300;         // --build-wall-seconds (per worker)
  int64_t build_memory_bytes = 4LL << 30;   // --build-memory (per worker address space)
  int64_t default_wait_ms = 40;             // --wait-ms: a Resolve's wait for a build when it names none
  // Bounds on what waits in memory (each past its bound is REJECTED with the reason, and counted).
  int64_t max_queued_requests = 1024;       // --max-queued-requests: requests waiting for a thread
  int64_t max_queued_builds = 256;          // --max-queued-builds: builds waiting for a worker
  int64_t upload_memory_bytes = 256LL << 20; // --upload-memory: PutModule bodies held at once
  // Bounds on the gRPC transport itself (server.cpp): what it holds before a handler runs.
  int64_t transport_memory_bytes = 128LL << 20; // --transport-memory: gRPC's resource quota
  int64_t max_connections = 256;            // --max-connections: served by gRPC at once
  int64_t max_streams = 64;                 // --max-streams: concurrent calls on one connection
  int64_t idle_connection_ms = 60'000;      // --idle-connection-ms: no call for so long: closed
  int64_t silent_connection_ms = 5'000;     // --silent-connection-ms: no first byte: closed
  std::string log_level = "info";           // --log-level
  // A build server for other machines (remote_server.hpp): TCP with TLS only, off by default.
  std::string listen;                       // --listen HOST:PORT
  std::filesystem::path tls_cert;           // --tls-cert: PEM certificate chain
  std::filesystem::path tls_key;            // --tls-key: PEM private key
  std::optional<std::filesystem::path> tls_client_ca; // --tls-client-ca: require client certs
  std::filesystem::path token_file;         // --token-file, default $XDG_STATE_HOME/d4r-kerneld/tokens
  ClientLimitSettings client_limits;        // --client-*: what one client may ask
  // Trust in remote results (trust/): the key this daemon signs with, the share it rebuilds.
  std::filesystem::path signing_key;        // --signing-key, default $XDG_STATE_HOME/d4r-kerneld/signing.key
  double verify_remote_sample = 0.05;       // --verify-remote-sample: remote results rebuilt here
  // A Redis server shared by build hosts (cache/remote/redis), asked after the local store: off
  // unless --redis is given. Checked by parse_endpoint here, so a bad spelling refuses to start.
  std::string redis;                        // --redis unix:/path | redis://IP:PORT
  int64_t redis_budget_ms = 50;             // --redis-budget-ms: one lookup or store, at most
  // Another daemon's store, asked after the local one (upstream_tier.hpp): off unless --upstream
  // is given, and then only with the key its results must be signed with and a token.
  std::string upstream;                      // --upstream HOST:PORT (TLS)
  std::optional<std::filesystem::path> upstream_ca; // --upstream-ca: PEM roots (default: system's)
  std::filesystem::path upstream_token_file; // --upstream-token-file: the token, on its first line
  std::string upstream_key;                  // --upstream-key ed25519:BASE64, the pinned key
  int64_t upstream_budget_ms = 250;          // --upstream-budget-ms: one fetch, at most
  int64_t upstream_build_ms = 60'000;        // --upstream-build-ms: one build there; 0: never
};

enum class ParseStatus { run, help, version };

struct ParsedConfig {
  ParseStatus status = ParseStatus::run;
  DaemonConfig config;
};

// `environment` maps names to values (tests pass their own); a flag always wins over a variable.
[[nodiscard]] Expected<ParsedConfig> parse_config(const std::vector<std::string>& args,
                                                  const std::vector<std::string>& environment);

[[nodiscard]] std::string usage_text();

// The default socket: $XDG_RUNTIME_DIR/d4r-kerneld/socket, else /run/user/<uid>/d4r-kerneld/socket.
[[nodiscard]] std::filesystem::path default_socket_path(const std::vector<std::string>& environment);

} // namespace d4r::daemon
