#pragma once
// `d4r-kernel export DIR`: the cache's objects written as a d4r release directory, so that a
// machine that warmed can hand its kernels to another (which serves DIR as its --native-dir and
// imports it). The layout is the one daemon/release/ reads and d4r's bridge selects from
// (../shared/reference/d4r-contract.md §1-2): DIR/<target>/ for the fast set and
// DIR/accuracy/<target>/ for the accuracy set, gfx12 `-fp8` builds in <arch>-fp8/, each folder
// with its NAME.hsaco files and a d4r-kernels.txt listing `NAME HASH sr|rr` (the RR split: a
// cuda_dldn_engine_* name only with hashes of the ray reconstruction library), and each accuracy
// folder with its d4r-accuracy.txt marker.
//
// Written as the build writes a release, so that nothing half-written is ever taken for a
// release: everything goes into a temporary sibling `.NAME.export-PID-N/` (objects, then each
// folder's manifest, then the accuracy markers last, every file fsynced), which is renamed to DIR
// only when complete. An interrupted export leaves at most that hidden sibling, never DIR, and the
// next export removes siblings whose process is gone.

#include "cache/cache.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace d4r::daemon {

struct ExportOptions {
  std::filesystem::path directory; // absolute; must not exist, or be an empty folder
  // Folder targets to export ("gfx1201" also takes "gfx1201-fp8"; "gfx1201-fp8" only that one);
  // empty: every target in the cache.
  std::vector<std::string> targets;
  std::optional<Mode> mode; // unset: both
  // For tests: called after each object file is written and synced (a kill there is an export
  // interrupted half-way).
  std::function<void(const std::filesystem::path&)> after_object_for_testing;
};

struct ExportSummary {
  std::filesystem::path directory;
  int64_t objects = 0;        // NAME.hsaco files written
  int64_t manifest_lines = 0; // (name, hash) pairs listed
  std::vector<std::string> folders; // "gfx1201-fp8", "accuracy/gfx1101", sorted
  std::vector<std::string> problems; // entries left out, and why
};

// The module hashes an entry's object may be listed for. An entry built from a recipe's source
// is keyed with module hash 0 (build_service.cpp: every module the recipe lists shares it); the
// daemon answers with the recipe's list. Empty: the entry is left out (a problem line).
using ExportHashes = std::function<std::vector<uint64_t>(const cache::Entry& entry)>;

// Every object the options select, checked as import checks them (digest, launch-metadata
// contract, code-object target). not_found when nothing is left to export; invalid_argument for a
// DIR that is not absolute, is not empty, or whose parent is missing; io for a failed write
// (after which DIR does not exist).
[[nodiscard]] Expected<ExportSummary> export_release(cache::Cache& cache,
                                                     const ExportOptions& options,
                                                     const ExportHashes& hashes_of);

// `d4r-kernels.txt` for (name, hashes) pairs: `#` header lines, then `NAME HASH ORIGIN` sorted by
// name and, within a name, by hash; ORIGIN `rr` for cuda_dldn_engine_* names, else `sr`.
[[nodiscard]] std::string manifest_text(
    const std::vector<std::pair<std::string, std::vector<uint64_t>>>& listed);

} // namespace d4r::daemon
