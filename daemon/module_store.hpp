#pragma once
// PTX modules that clients uploaded, kept by SHA-256 under <cache root>/modules so that later
// builds (PTX rewrites, translation) can start without asking the game again. Modules are the
// same in both accuracy modes, so there is one folder; by-fnv/ maps the manifests' hash to the SHA-256. Writes are atomic (temp, fsync, rename).

#include "util/digest.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace d4r::daemon {

class ModuleStore {
public:
  ModuleStore(std::filesystem::path root, int64_t max_module_bytes);

  [[nodiscard]] bool contains(const Sha256& digest) const;
  // Checks the size limit and that the bytes hash to both digests before storing.
  [[nodiscard]] Expected<int64_t> put(uint64_t fnv1a64, const Sha256& digest, std::string_view ptx);
  [[nodiscard]] std::filesystem::path path_of(const Sha256& digest) const;
  // Before a build reads a stored module: a plain file (not a link) whose bytes still hash to the
  // digest its name gives. A damaged one is removed (so that a Prepare asks for it again) and is
  // not_found: a disk's fault, never remembered as the module's.
  [[nodiscard]] static Expected<void> verify(const std::filesystem::path& path);
  // The stored module whose FNV-1a 64 (the manifests' hash) is `fnv1a64`, if one was uploaded.
  // Two modules with one FNV hash: the later upload answers.
  // A module found is marked used (its mtime, at most once an hour) for collect().
  [[nodiscard]] std::optional<std::filesystem::path> find_by_fnv(uint64_t fnv1a64) const;

  struct Collected {
    int64_t files = 0;
    int64_t bytes = 0;
    int64_t kept_bytes = 0; // the modules left
  };
  // Removes the least recently used modules while all of them take more than max_total_bytes,
  // by-fnv entries whose module is gone, and temporary files older than stale_after (a write
  // that died). Off the request path: a resolve that needs a removed module asks for it again.
  [[nodiscard]] Collected collect(int64_t max_total_bytes, std::chrono::seconds stale_after) const;
  // Removes every module (a purge of both modes).
  [[nodiscard]] Collected remove_all() const;

private:
  std::filesystem::path m_root;
  int64_t m_max_module_bytes;
};

} // namespace d4r::daemon
