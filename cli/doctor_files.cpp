// The doctor's file checks: the release directory through the daemon's own readers (its folder
// selection, manifest parser and import listing, daemon/release/), and the cache through a
// read-only inspection (cache/inspect.hpp) that never repairs, migrates or writes.

#include "cli/doctor_checks.hpp"

#include "cache/inspect.hpp"
#include "cli/output.hpp"
#include "daemon/release/release_catalog.hpp"

#include <unistd.h>

namespace d4r::cli::doctor {

namespace {

std::optional<std::filesystem::path> release_root(const Context& context)
{
  if (!context.inputs.command.native_dir.empty()) {
    return context.config.native_dir;
  }
  if (context.status && !context.status->native_dir().empty()) {
    return std::filesystem::path(context.status->native_dir());
  }
  return context.config.native_dir;
}

std::string problems_text(const std::vector<std::string>& problems)
{
  std::string text = problems.front();
  if (problems.size() > 1) {
    text += " (and " + std::to_string(problems.size() - 1) + " more problems)";
  }
  return text;
}

void check_no_folder(Context& context, const std::filesystem::path& root, Mode mode)
{
  const std::string area = std::string("release ") + to_string(mode);
  std::error_code ec;
  if (mode == Mode::fast) {
    context.warn(area, "no folder of " + root.string() + " serves " + context.arch,
                 "the release has no " + context.arch + " folder (nor -fp8): ZLUDA or on-demand "
                 "builds make these kernels; get the release built for your GPU");
    return;
  }
  if (std::filesystem::is_directory(root / "accuracy", ec)) {
    context.warn(area, (root / "accuracy").string() + " serves nothing for " + context.arch +
                           ": a folder lacks its d4r-accuracy.txt marker (first line 1)",
                 "the release build writes the marker last, so a marker missing is an "
                 "interrupted build or copy: copy the release again");
    return;
  }
  context.ok(area, "no accuracy release in " + root.string() + " (fast kernels only)");
}

void check_release_mode(Context& context, const release::ReleaseCatalog& catalog, Mode mode)
{
  const std::string area = std::string("release ") + to_string(mode);
  release::SelectionInputs inputs{catalog.root(), context.arch, context.config.fp8_native, mode};
  Expected<release::ImportListing> listing = catalog.enumerate(inputs);
  if (!listing) {
    context.fail(area, listing.error().message, "fix the file it names (permissions, a dangling "
                                                "link), or copy the release again");
    return;
  }
  if (!listing->directory) {
    check_no_folder(context, catalog.root(), mode);
    return;
  }
  const release::SelectedDirectory& selected = *listing->directory;
  std::string what = selected.directory.string() + " (" +
                     (selected.kind == release::DirectoryKind::hash_checked
                          ? "manifest d4r-kernels.txt"
                          : "developer set, no manifest") +
                     "): " + std::to_string(listing->candidates.size()) + " objects";
  if (listing->problems.empty()) {
    context.ok(area, what);
  } else if (listing->candidates.empty()) {
    context.fail(area, what + "; " + problems_text(listing->problems),
                 "the release serves nothing: copy it again (or rebuild it)");
  } else {
    context.warn(area, what + "; " + problems_text(listing->problems),
                 "those kernels are not served from the release: copy it again");
  }
}

} // namespace

void check_release(Context& context)
{
  std::optional<std::filesystem::path> root = release_root(context);
  if (!root || root->empty()) {
    context.warn("release", "no release directory (D4R_ZLUDA_NATIVE_DIR is unset)",
                 "set D4R_ZLUDA_NATIVE_DIR=/path/to/release in ~/.config/d4r-kerneld/env, or "
                 "rely on on-demand builds");
    return;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(*root, ec)) {
    context.fail("release", root->string() + ": not a directory (" +
                                (std::filesystem::exists(*root, ec) ? "a file" : "missing") + ")",
                 "point D4R_ZLUDA_NATIVE_DIR (or --native-dir) at the release's root folder");
    return;
  }
  if (context.arch.empty()) {
    context.warn("release", root->string() + ": not checked, the GPU target is unknown",
                 "see the gpu lines");
    return;
  }
  release::ReleaseCatalog catalog(*root);
  check_release_mode(context, catalog, Mode::fast);
  check_release_mode(context, catalog, Mode::accuracy);
}

namespace {

std::filesystem::path cache_root(const Context& context)
{
  if (context.inputs.command.cache_dir.empty() && context.status &&
      context.status->stores_size() > 0 && !context.status->stores(0).path().empty()) {
    return std::filesystem::path(context.status->stores(0).path()).parent_path();
  }
  return context.config.cache_dir;
}

int64_t cap_of(const Context& context, Mode mode)
{
  if (context.status && context.inputs.command.cache_dir.empty()) {
    for (const kernel::v1::StoreStats& store : context.status->stores()) {
      bool same = (store.mode() == kernel::v1::MODE_ACCURACY) == (mode == Mode::accuracy);
      if (same && store.max_bytes() > 0) {
        return store.max_bytes();
      }
    }
  }
  return context.config.cache_max_bytes;
}

// False (with a FAIL line) when `folder` is there but not a folder the daemon can write.
bool writable_folder(Context& context, const std::string& area, const std::filesystem::path& folder)
{
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    context.fail(area, folder.string() + ": not a directory",
                 "move it away (mv " + folder.string() + " " + folder.string() +
                     ".old); the daemon makes a fresh one");
    return false;
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    context.fail(area, folder.string() + ": not writable by you",
                 "chown -R $USER " + folder.string() + " && chmod u+rwx " + folder.string());
    return false;
  }
  return true;
}

void report_store(Context& context, Mode mode, const cache::StoreInspection& store)
{
  const std::string area = std::string("cache ") + to_string(mode);
  const int64_t cap = cap_of(context, mode);
  if (!store.index_present) {
    context.ok(area, "no index yet (" + std::to_string(store.files) + " object files)");
  } else {
    std::string what = std::to_string(store.entries) + " entries, " +
                       format_bytes(store.object_bytes + store.trash_bytes) + " of " +
                       format_bytes(cap) + ", index ok (schema " +
                       std::to_string(store.schema_version) + ")";
    if (store.object_bytes + store.trash_bytes > cap) {
      context.warn(area, what, "over the cap: the daemon evicts at its next insert; raise "
                               "--cache-max-bytes if it thrashes");
    } else {
      context.ok(area, what);
    }
  }
  if (store.quarantined_files > 0) {
    context.warn(area, std::to_string(store.quarantined_files) +
                           " objects failed their sha256 and were quarantined",
                 "a disk or file system problem? check dmesg; they are rebuilt on demand");
  }
  if (store.damaged_indexes > 0) {
    context.warn(area, std::to_string(store.damaged_indexes) +
                           " damaged index files were set aside (damaged/)",
                 "a disk problem or a crash; remove damaged/ once you have looked");
  }
}

} // namespace

void check_cache(Context& context)
{
  const std::filesystem::path root = cache_root(context);
  std::error_code ec;
  if (root.empty() || !std::filesystem::exists(root, ec)) {
    context.ok("cache", (root.empty() ? std::string("(no cache dir)") : root.string()) +
                            ": not there yet; the daemon makes it at its first start");
    return;
  }
  if (!writable_folder(context, "cache", root)) {
    return;
  }
  context.ok("cache", root.string() + ": a directory you can write");
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    const std::string area = std::string("cache ") + to_string(mode);
    const std::filesystem::path store = root / to_string(mode);
    if (!std::filesystem::exists(store, ec)) {
      context.ok(area, "not created yet");
      continue;
    }
    if (!writable_folder(context, area, store)) {
      continue;
    }
    Expected<cache::StoreInspection> inspected = cache::inspect_store(store);
    if (!inspected && inspected.error().code == ErrorCode::rejected) {
      context.fail(area, inspected.error().message,
                   "a newer d4r-kerneld wrote it: upgrade d4r-kerneld and d4r-kernel");
      continue;
    }
    if (!inspected) {
      context.fail(area, inspected.error().message,
                   "the daemon sets a damaged index aside and starts a fresh one at its next "
                   "start (kernels are built again); or d4r-kernel purge --mode " +
                       std::string(to_string(mode)));
      continue;
    }
    report_store(context, mode, *inspected);
  }
}

} // namespace d4r::cli::doctor
