#pragma once
// The hook's own compiled modules (what ZLUDA compiles itself when no replacement serves a
// module), kept in the daemon's cache beside the replacements: the same per-mode stores, objects
// by SHA-256 with write-fsync-rename and a digest on every read, the same size cap and LRU
// eviction, shared by every game of the user. Free of gRPC: the handlers (compiled_service.cpp)
// convert, this decides.
//
// They live in a key namespace of their own, not a table: recipe k_compiled_recipe, kernel
// "zluda_<module sha256>", the compiler identity as toolchain, the canonical options as variant,
// module hash 0. A Resolve's key names a recipe's or a release's identity, never this recipe, so
// it never finds one, and no schema changes. The options and identity are opaque: a compiler update or another option is simply
// another key, and the old objects age out by LRU.

#include "cache/cache.hpp"
#include "daemon/counters.hpp"
#include "util/compiled_key.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace d4r::daemon {

inline constexpr const char* k_compiled_recipe = "zluda-compiled/1";

// What one mode's store holds of them, for Status (they share the store's cap and LRU with the
// replacements, so `max_bytes` is the store's).
struct CompiledStats {
  Mode mode = Mode::fast;
  int64_t entries = 0;
  int64_t bytes = 0; // distinct objects
  int64_t max_bytes = 0;
};

struct CompiledLookup {
  bool found = false;
  std::string reason; // when not found
  Mode mode = Mode::fast;
  Sha256 digest{};
  int64_t size = 0;
  std::filesystem::path object_path;   // set when the caller accepts a path
  std::vector<std::byte> object_bytes; // set otherwise (read and verified)
};

class CompiledStore {
public:
  CompiledStore(cache::Cache& cache, Counters& counters,
                int64_t max_object_bytes = k_max_compiled_bytes)
      : m_cache(cache), m_counters(counters), m_max_object_bytes(max_object_bytes)
  {
  }

  // resource_exhausted, with the sizes, for an object over the cap; invalid_argument for none.
  // Checked before the bytes are held for a request thread.
  [[nodiscard]] Expected<void> check_size(int64_t size) const;
  // Stores `object` (whose SHA-256 the caller claims is `claimed`: a mismatch is refused, never
  // stored) under the key; the bytes stored. Replaces what the key named before.
  [[nodiscard]] Expected<int64_t> store(const CompiledKey& key, std::span<const std::byte> object,
                                        const Sha256& claimed);
  // Not found on any trouble, with the reason. `damaged`: a client read the object of that digest,
  // which an answer named by path, and it did not match: it is verified again (a damaged object
  // is quarantined and its rows dropped, so it is never named again).
  [[nodiscard]] CompiledLookup lookup(const CompiledKey& key, bool accept_path,
                                      const std::optional<Sha256>& damaged);

  // Counted from the store's rows of k_compiled_recipe (a scan of the index: for Status, not for
  // a game's path).
  [[nodiscard]] Expected<CompiledStats> stats(Mode mode);

  [[nodiscard]] static cache::CacheKey cache_key_of(const CompiledKey& key);

private:
  cache::Cache& m_cache;
  Counters& m_counters;
  int64_t m_max_object_bytes;
};

} // namespace d4r::daemon
