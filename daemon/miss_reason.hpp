#pragma once
// Why a Resolve missed, in one enum: every answer that is not READY straight from the store gets
// one reason, per accuracy mode, for `d4r-kernel status` and the metrics scrape. The cache-side
// reasons (new, evicted, stale, corrupt) say why the store had no object for a key that is built
// or imported now; the others say why nothing was served. MissClassifier tells the cache-side ones
// apart: the store keeps no record of what it evicted, so this process remembers which keys it
// saw present (bounded), and looks in the store's index for the kernel under other fingerprints.

#include "cache/cache.hpp"
#include "daemon/counters.hpp"
#include "util/kernel_identity.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::daemon {

enum class MissReason {
  new_kernel,       // "new": no object for this kernel in the store, and none that this daemon saw
  evicted,          // this very key was in the store (seen by this daemon) and is gone: the size
                    // cap, a purge by another process, a row dropped
  stale_toolchain,  // the store holds the kernel built by another toolchain (clang, comgr update)
  stale_translator, // the store holds the kernel from other recipe inputs: the translator's
                    // fingerprint, the recipe's sources or version, or another release object
  corrupt,          // the stored object or its row failed a check: quarantined and rebuilt
  unlisted_hash,    // no manifest or recipe lists the module's hash for the kernel
  rejected,         // a bounds or contract check refused the object, or the module's origin may not
                    // authorise the kernel, or the request was malformed
  unsupported_instruction, // our translator does not implement an instruction of the module
  build_failed,     // the build failed (now, or before: the negative cache)
  host_variables,   // the object has module variables the client does not mirror
  tensor_maps,      // the object reads our tensor maps, the client writes NVIDIA's
  no_replacement,   // nothing serves the kernel: no release folder, no recipe, switched off
  no_module,        // a ptx recipe's module was never uploaded
  busy,             // a queue or memory limit refused the request
  in_flight,        // another request for it was still being answered when the budget ran out
  error,            // anything else (a read error, a missing object)
  count_            // keep last
};

inline constexpr size_t k_miss_reasons = static_cast<size_t>(MissReason::count_);

[[nodiscard]] const char* to_string(MissReason reason);

// The reason of an answer that is not a hit. `cache_miss` is what the store's miss was classified
// as, when the answer came from a build or an import; it names READY and PENDING answers, the
// counter names the rest. A build failure whose reason is the translator's "unsupported: ..." is
// an unsupported instruction.
[[nodiscard]] MissReason miss_reason_of(Counter counter, std::string_view reason,
                                        std::optional<MissReason> cache_miss);

class MissClassifier {
public:
  // The store answered this key, or took its object: a later miss of it is an eviction.
  void note_present(Mode mode, const cache::CacheKey& key);
  // Why the store has no object for `key`, decided once per key until it is present again (a
  // request that waits for the build asks again and hears the same). Reads the store's index
  // (Cache::list) the first time, outside any lock of the classifier.
  [[nodiscard]] MissReason classify(Mode mode, const cache::CacheKey& key, cache::Cache& cache);
  // The store's object for `key` failed its digest and was quarantined with its rows: the miss
  // that follows (the rebuild, and whoever waits for it) is a corrupt one.
  void note_corrupt(Mode mode, const cache::CacheKey& key);
  // After a purge: what was there is gone on purpose, so later misses are new.
  void forget(std::optional<Mode> mode);

private:
  // Keys remembered per mode at most; past it the oldest half is forgotten (its misses read as
  // new or stale, not evicted).
  static constexpr size_t k_max_remembered = 65536;

  mutable std::mutex m_mutex;
  // kernel|module|target -> the key last seen present, with a sequence for forgetting the oldest.
  struct Present {
    cache::CacheKey key;
    uint64_t sequence = 0;
  };
  std::array<std::map<std::string, Present>, 2> m_present;
  std::array<std::map<std::string, MissReason>, 2> m_decided; // full key text -> reason
  void decide(Mode mode, const std::string& text, MissReason reason); // with m_mutex held
  uint64_t m_sequence = 0;
};

} // namespace d4r::daemon
