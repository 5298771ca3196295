#pragma once
// Why each request ended the way it did, counted without locks. The names are what `d4r-kernel
// status` and the e2e tests read ("not_found.hash_mismatch").

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace d4r::daemon {

enum class Counter {
  resolve_ready,
  not_found_no_release_dir,
  not_found_no_folder,
  not_found_not_listed,
  not_found_hash_mismatch,
  not_found_switched_off,
  not_found_missing_object,
  not_found_error,
  not_found_no_recipe,
  not_found_build_failed,
  not_found_no_module, // a ptx recipe's module was never uploaded
  not_found_host_variables, // the object has host variables the client does not mirror
  not_found_tensor_maps,    // the object reads our tensor maps; the client writes NVIDIA's
  rejected_wrong_origin,
  rejected_broken_contract,
  rejected_invalid_request,
  rejected_request_queue_full, // the request pool's queue held --max-queued-requests
  rejected_build_queue_full,   // the build queue held --max-queued-builds
  rejected_upload_memory,      // the uploads held in memory would pass --upload-memory
  rejected_transport_memory,   // gRPC abandoned a call it was receiving: --transport-memory spent
  rejected_connection_limit,   // a connection closed at once: --max-connections served already
  closed_silent_connection,    // a connection that sent nothing within --silent-connection-ms
  closed_idle_for_memory,      // gRPC sent an idle connection away to free transport memory
  closed_idle_for_connection,  // the longest-idle connection sent away: --max-connections were served
  warmup_dropped,              // a Prepare's warm-up not queued: the request queue was full
  pending,
  cache_corrupt_object,
  cache_index_replaced, // SQLite found an index damaged while running: set aside, a fresh one
  client_damage_report, // a client read an object named by path that did not match its digest
  prepare,
  put_module,
  put_module_rejected,
  peer_refused,
  connections,
  compiled_hit,           // LookupCompiled answered with the hook's own compiled module
  compiled_miss,          // LookupCompiled: none stored for the key (or it could not be read)
  compiled_stored,        // StoreCompiled: stored
  compiled_rejected,      // StoreCompiled refused: over the size cap, bytes not their sha256
  compiled_damage_report, // a client read a compiled module named by path that failed its digest
  upstream_served,        // FetchObject: a stored object handed, signed, to another daemon
  count_ // keep last
};

[[nodiscard]] const char* to_string(Counter counter);

class Counters {
public:
  void add(Counter counter, int64_t amount = 1)
  {
    m_values[static_cast<size_t>(counter)].fetch_add(amount, std::memory_order_relaxed);
  }
  [[nodiscard]] int64_t get(Counter counter) const
  {
    return m_values[static_cast<size_t>(counter)].load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::map<std::string, int64_t> snapshot() const;

private:
  std::array<std::atomic<int64_t>, static_cast<size_t>(Counter::count_)> m_values{};
};

} // namespace d4r::daemon
