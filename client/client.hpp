#pragma once
// The client behind the C ABI: one gRPC channel to the daemon's Unix socket, the memo of READY
// answers, and the fail-open rules (every daemon problem becomes "not found" within the budget and
// is logged once). No exception handling here: the exports in c_api.cpp are the one place that
// catches.

#include "client/client_options.hpp"
#include "client/compiled_answer.hpp"
#include "client/compiled_sender.hpp"
#include "client/kernel_answer.hpp"
#include "util/compiled_key.hpp"
#include "util/digest.hpp"

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "d4r/kernel/v1/kernel.grpc.pb.h"

namespace d4r::client {

// What identifies a PTX module, computed in the game process.
struct ModuleIdentity {
  std::string_view text; // the PTX text inside the caller's image
  uint64_t hash = 0;     // FNV-1a 64, as manifests list it
  Sha256 sha256{};
  std::vector<std::string> entries;
};

struct ResolveResult {
  int outcome = D4RK_NOT_FOUND; // D4RK_READY, D4RK_NOT_FOUND, D4RK_PENDING or D4RK_REJECTED
  std::string reason;
  std::shared_ptr<const KernelAnswer> answer; // set on READY
};

// The hook's own compiled modules (client_compiled.cpp).
struct CompiledLookupResult {
  int outcome = D4RK_NOT_FOUND; // D4RK_READY or D4RK_NOT_FOUND
  std::string reason;
  std::unique_ptr<CompiledAnswer> answer; // set on READY
};

struct CompiledStoreResult {
  int outcome = D4RK_NOT_STORED; // D4RK_OK or D4RK_NOT_STORED
  std::string reason;
};

// Orders memo keys, and finds one by (hash, string_view) without building a string.
struct MemoKeyLess {
  using is_transparent = void;
  template <typename A, typename B> bool operator()(const A& a, const B& b) const
  {
    return std::pair<uint64_t, std::string_view>(a.first, a.second) <
           std::pair<uint64_t, std::string_view>(b.first, b.second);
  }
};

class Client {
public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Needs no daemon: the PTX text up to its first NUL (at most 64 MiB) and what it defines.
  [[nodiscard]] static ModuleIdentity identify(std::span<const std::byte> image);

  // Advisory: sends Prepare within the budget; when the daemon asks for the module (a recipe
  // could translate it), queues its upload on a thread of the client's own, outside the game's
  // budget. Problems are logged; an upload's never makes later calls fail open.
  void prepare(const ModuleIdentity& module);

  [[nodiscard]] ResolveResult resolve(uint64_t module_hash, std::string_view kernel_name);

  // Asked within the budget and the quiet window as resolve is; any trouble is NOT_FOUND. A
  // damaged object is reported in a second request (the daemon quarantines it).
  [[nodiscard]] CompiledLookupResult lookup_compiled(const CompiledKey& key);
  // The mode D4RK_MODE_FROM_ENVIRONMENT means for a compiled module's key: the client's.
  [[nodiscard]] Mode selection_mode() const { return m_options.selection.mode; }
  // wait: sent on this thread within the budget; else queued for m_compiled_sender. At most
  // k_max_compiled_bytes (the caller checks).
  [[nodiscard]] CompiledStoreResult store_compiled(const CompiledKey& key,
                                                   std::span<const std::byte> object, bool wait);

private:
  enum class Problem { transport, bad_reply, damaged_object, upload, compiled, rejected, count };

  [[nodiscard]] bool quiet() const;
  void note_rpc_failure(const std::string& what, bool deadline_exceeded);
  void log_once(Problem problem, const std::string& message);
  [[nodiscard]] std::shared_ptr<const KernelAnswer> memo_find(uint64_t module_hash,
                                                              std::string_view kernel_name);
  std::shared_ptr<const KernelAnswer> memo_insert(uint64_t module_hash,
                                                  std::string_view kernel_name,
                                                  std::shared_ptr<const KernelAnswer> answer);

  ClientOptions m_options;
  std::shared_ptr<grpc::Channel> m_channel;
  std::unique_ptr<d4r::kernel::v1::KernelService::Stub> m_stub;
  std::array<std::atomic<bool>, static_cast<size_t>(Problem::count)> m_logged{};
  // After a deadline passes the daemon is hung or overloaded: calls fail open at once until this
  // steady-clock time, so that a game loading hundreds of kernels does not pay the budget for each.
  std::atomic<int64_t> m_quiet_until_ms{0};
  std::mutex m_memo_mutex;
  std::map<std::pair<uint64_t, std::string>, std::shared_ptr<const KernelAnswer>, MemoKeyLess>
      m_memo;

  // Uploads, one at a time on m_uploader (started by the first); the destructor cancels the one
  // in flight and drops the rest, so that a game's exit never waits for the daemon.
  void upload_loop();
  std::mutex m_upload_mutex;
  std::condition_variable m_upload_ready;
  std::deque<d4r::kernel::v1::PutModuleRequest> m_upload_queue;
  grpc::ClientContext* m_upload_in_flight = nullptr;
  bool m_closing = false;
  std::thread m_uploader;

  // Started by the first store without D4RK_STORE_WAIT; last, so that it goes first (it uses
  // m_stub).
  std::mutex m_compiled_mutex;
  std::unique_ptr<CompiledSender> m_compiled_sender;
};

} // namespace d4r::client
