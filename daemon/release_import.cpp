// `d4r-kernel import DIR`: every object a release would serve, for every target and mode, copied
// into the cache after the same checks as a served object (manifest, launch-metadata contract,
// code-object target). Part of KernelCore; kept apart because it is a batch job, not a request.

#include "compiler/launch_meta.hpp"
#include "daemon/kernel_core.hpp"
#include "daemon/launch_record.hpp"
#include "daemon/object_checks.hpp"

#include <spdlog/spdlog.h>

#include <set>

namespace d4r::daemon {

namespace {

struct ImportContext {
  cache::Cache& cache;
  const release::ReleaseCatalog& catalog;
  ImportSummary& summary;
};

// The arch a folder's objects must be built for; "" for a flat set, whose objects name their own.
std::string folder_arch(const release::SelectedDirectory& directory)
{
  std::string folder = directory.folder_target;
  if (folder.ends_with("-fp8")) {
    folder.resize(folder.size() - 4);
  }
  return folder;
}

void import_candidate(ImportContext& context, Mode mode, const release::SelectedDirectory& directory,
                      const release::ImportCandidate& candidate)
{
  std::string where = candidate.object_path.string();
  if (candidate.authorised_by.empty()) {
    context.summary.problems.push_back(where + ": developer set, served on demand for any module hash");
    return;
  }
  Expected<std::vector<std::byte>> bytes = context.catalog.read_object(
      candidate.object_path, release::k_default_max_object_bytes, candidate.identity);
  if (!bytes) {
    context.summary.problems.push_back(bytes.error().message);
    return;
  }
  std::string arch = folder_arch(directory);
  Expected<compiler::LaunchMeta> meta = checked_launch_meta(*bytes, candidate.name, arch);
  if (!meta) {
    context.summary.problems.push_back(where + ": " + meta.error().message);
    return;
  }
  if (arch.empty()) {
    arch = processor_of(meta->amdhsa_target);
    if (!is_known_target(arch)) {
      context.summary.problems.push_back(where + ": code object is for '" + meta->amdhsa_target + "'");
      return;
    }
  }
  std::string target = directory.folder_target.empty() ? arch : directory.folder_target;
  std::string recipe = "release:" + to_hex(sha256(*bytes));
  std::string metadata = encoded_launch_record(*meta);
  for (const release::ManifestEntry& entry : candidate.authorised_by) {
    cache::CacheKey key{entry.module_hash, candidate.name, target, "", "prebuilt", recipe};
    Expected<std::optional<cache::Hit>> present = context.cache.lookup(mode, key);
    if (present && *present) {
      ++context.summary.already_present;
      continue;
    }
    Expected<cache::Hit> inserted = context.cache.insert(mode, key, *bytes, metadata, "release:" + where);
    if (!inserted) {
      context.summary.problems.push_back(inserted.error().message);
      continue;
    }
    ++context.summary.imported;
  }
}

} // namespace

Expected<ImportSummary> KernelCore::import_release(const std::filesystem::path& directory)
{
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec)) {
    return make_error(ErrorCode::invalid_argument,
                      "import: " + directory.string() + " is not a directory");
  }
  release::ReleaseCatalog catalog(directory);
  ImportSummary summary;
  ImportContext context{*m_cache, catalog, summary};
  std::set<std::string> seen; // a folder is imported once per mode
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    for (std::string_view arch : k_known_targets) {
      for (bool fp8 : {true, false}) {
        release::SelectionInputs inputs{directory, std::string(arch), fp8, mode};
        TRY_ASSIGN(release::ImportListing listing, catalog.enumerate(inputs));
        if (!listing.directory ||
            !seen.insert(std::string(to_string(mode)) + '|' + listing.directory->directory.string()).second) {
          continue;
        }
        summary.problems.insert(summary.problems.end(), listing.problems.begin(), listing.problems.end());
        for (const release::ImportCandidate& candidate : listing.candidates) {
          import_candidate(context, mode, *listing.directory, candidate);
        }
      }
    }
  }
  spdlog::info("import {}: {} imported, {} already present, {} problems", directory.string(),
               summary.imported, summary.already_present, summary.problems.size());
  return summary;
}

} // namespace d4r::daemon
