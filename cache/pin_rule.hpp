#pragma once
// What `d4r-kernel pin` asks of the cache: a rule naming a kernel, a module hash or both. Every
// entry a rule matches is left alone by the size cap (eviction) and by purge unless the purge is
// forced; `unpin` removes the rule. Stored per accuracy mode, like the entries it keeps.

#include <cstdint>
#include <optional>
#include <string>

namespace d4r::cache {

struct PinRule {
  std::string kernel;                  // empty: any kernel of the module
  std::optional<uint64_t> module_hash; // unset: every module defining the kernel
  std::string label;                   // who asked (a game's name), for people; not matched
  int64_t created_unix_ms = 0;         // set by the store
};

// Which entries a purge removes: those last used before `unused_since_unix_ms` (unset: all), and
// pinned ones only when forced.
struct PurgeFilter {
  std::optional<int64_t> unused_since_unix_ms;
  bool force = false;
};

} // namespace d4r::cache
