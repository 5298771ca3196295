#pragma once
// A read-only look at one accuracy mode's store for `d4r-kernel doctor`: the index opened for
// reading only (no migration, no journal switch, no damaged index set aside), SQLite's quick_check,
// and the sizes the index and the folders hold. Store::open would repair what it finds; the doctor
// must only report it.

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace d4r::cache {

struct StoreInspection {
  bool index_present = false;
  int64_t schema_version = 0;
  int64_t entries = 0;
  int64_t object_bytes = 0;       // distinct objects the index names
  int64_t trash_bytes = 0;        // objects waiting out their grace period
  int64_t files = 0;              // regular files under objects/
  int64_t file_bytes = 0;         // their sizes
  int64_t quarantined_files = 0;  // under quarantine/
  int64_t damaged_indexes = 0;    // set aside under damaged/
};

// `root` is <cache root>/<mode>. Errors: corrupt (the index is not a database or fails
// quick_check, naming SQLite's finding), rejected (a schema newer than this build), io.
[[nodiscard]] Expected<StoreInspection> inspect_store(const std::filesystem::path& root);

} // namespace d4r::cache
