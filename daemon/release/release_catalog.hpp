#pragma once
// What the daemon asks of a d4r release root, per request: which folder serves, whether this
// (kernel, module hash) may be served from it, and which file to read. Thread-safe.

#include "daemon/release/authorization.hpp"
#include "daemon/release/directory_selection.hpp"
#include "daemon/release/file_probe.hpp"
#include "daemon/release/manifest.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace d4r::release {

inline constexpr int64_t k_default_max_object_bytes = int64_t{256} << 20;

struct CatalogAnswer {
  std::optional<SelectedDirectory> directory; // nullopt: no folder serves this target and mode
  Authorization authorization;                // not_listed with a reason when no folder serves
  // Set only when allowed: <directory>/<kernel>.hsaco and its identity ("size:mtime_ns:inode"),
  // to pass back to read_object so that a file replaced in between is not served.
  std::filesystem::path object_path;
  std::string object_identity;
  // Every stat the answer rests on (selection, manifest, object): while probes_still_hold says
  // they read the same, find would give this answer again.
  FileProbes probes;
};

struct ImportCandidate {
  std::string name;
  std::filesystem::path object_path;
  std::string identity;
  // The manifest lines that can authorise it (with a recorded RR split, only those of its own
  // library); empty only for a developer set (served for any hash).
  std::vector<ManifestEntry> authorised_by;
};

struct ImportListing {
  std::optional<SelectedDirectory> directory;
  std::vector<ImportCandidate> candidates; // sorted by name
  // Missing, unreadable or non-regular objects, dangling symlinks, bad names, manifest problems.
  std::vector<std::string> problems;
};

class ReleaseCatalog {
public:
  explicit ReleaseCatalog(std::filesystem::path root);

  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }

  // inputs.root is ignored: the catalog's root is used. The kernel name is validated before it
  // becomes a path (invalid_argument). Errors: io when the root or the manifest cannot be read,
  // or the allowed kernel's file is a dangling symlink or unreadable; not_found when a
  // hash-checked folder's manifest lists it but the file is missing ("release:
  // gfx1101/x.hsaco: manifest lists it but the file is missing"); rejected when it is not a
  // regular file. A developer set without the file answers not_listed (partial sets are normal).
  [[nodiscard]] Expected<CatalogAnswer> find(const SelectionInputs& inputs,
                                             const AuthorizationInputs& authorization) const;

  // Reads a regular file (following symlinks) of at most max_bytes. With `expected_identity`
  // (from find), a file replaced since is refused. EACCES and the like are io errors naming it.
  [[nodiscard]] Expected<std::vector<std::byte>>
  read_object(const std::filesystem::path& path, int64_t max_bytes = k_default_max_object_bytes,
              std::string_view expected_identity = {}) const;

  // Everything the selected folder would serve, for `d4r-kernel import`, with its problems.
  [[nodiscard]] Expected<ImportListing> enumerate(const SelectionInputs& inputs) const;

private:
  struct MemoEntry {
    int64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    std::shared_ptr<const Manifest> manifest;
  };

  [[nodiscard]] Expected<std::shared_ptr<const Manifest>>
  manifest_of(const std::filesystem::path& directory, FileProbes* probes = nullptr) const;
  [[nodiscard]] Expected<std::optional<SelectedDirectory>>
  select(const SelectionInputs& inputs, FileProbes* probes = nullptr) const;
  [[nodiscard]] std::string label_of(const std::filesystem::path& path) const;
  void enumerate_manifest(const SelectedDirectory& selected, const Manifest& manifest,
                          ImportListing& listing) const;
  void enumerate_developer_set(const SelectedDirectory& selected, ImportListing& listing) const;

  const std::filesystem::path m_root;
  // The one lock: guards m_manifests only. Files are read and parsed outside it, so a slow disk
  // never holds up other requests; two threads reloading one manifest at once both parse it and
  // the last insert wins, which is harmless because both parsed the same file state.
  mutable std::mutex m_mutex;
  mutable std::map<std::filesystem::path, MemoEntry> m_manifests;
};

} // namespace d4r::release
