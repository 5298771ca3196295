#pragma once
// A d4r release manifest, `d4r-kernels.txt`: `#` comments, then `NAME HASH` lines (HASH: 16 hex
// digits), one line per distinct hash. An optional third column records which library the hash was
// taken from (`sr` super resolution, `rr` ray reconstruction); the old bridge's sscanf parser
// ignores it, so such manifests stay readable by every d4r version.

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::release {

enum class HashOrigin { unrecorded, super_resolution, ray_reconstruction };

struct ManifestEntry {
  std::string name;
  uint64_t module_hash = 0;
  HashOrigin origin = HashOrigin::unrecorded;
  int line = 0;
};

struct Manifest {
  std::vector<ManifestEntry> entries;
  // True when any line records an origin: then the RR split applies to every name.
  bool records_origin = false;
  // Lines that were skipped, each "line N: why", for logs and `d4r-kernel import`.
  std::vector<std::string> problems;
};

// Never fails on a bad line (it is skipped and noted, as the bridge skips it).
[[nodiscard]] Manifest parse_manifest(std::string_view text);
// io error when the file cannot be read; over 16 MiB is resource_exhausted.
[[nodiscard]] Expected<Manifest> read_manifest(const std::filesystem::path& path);

} // namespace d4r::release
