#include "daemon/release/release_catalog.hpp"

#include "daemon/release/release_file.hpp"
#include "util/kernel_identity.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <dirent.h>
#include <set>

namespace d4r::release {

namespace {

constexpr const char* k_manifest_file = "d4r-kernels.txt";
constexpr const char* k_object_suffix = ".hsaco";

CatalogAnswer no_directory(const SelectionInputs& inputs)
{
  CatalogAnswer answer;
  answer.authorization.verdict = Verdict::not_listed;
  answer.authorization.reason = "release: no " + std::string(to_string(inputs.mode)) +
                                " folder for " + (inputs.arch.empty() ? "?" : inputs.arch) +
                                " under " + inputs.root.string();
  return answer;
}

// Names of the entries of `directory` ending in .hsaco, sorted; an io error when it cannot be
// listed.
Expected<std::vector<std::string>> list_objects(const std::filesystem::path& directory)
{
  DIR* handle = ::opendir(directory.c_str());
  if (handle == nullptr) {
    return make_error(ErrorCode::io, "release: " + directory.string() +
                                         ": cannot list: " + errno_message(errno));
  }
  std::vector<std::string> names;
  for (struct dirent* entry = ::readdir(handle); entry != nullptr; entry = ::readdir(handle)) {
    std::string_view name = entry->d_name;
    if (name.ends_with(k_object_suffix) && name.size() > std::string_view(k_object_suffix).size()) {
      names.emplace_back(name);
    }
  }
  ::closedir(handle);
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace

ReleaseCatalog::ReleaseCatalog(std::filesystem::path root) : m_root(std::move(root)) {}

std::string ReleaseCatalog::label_of(const std::filesystem::path& path) const
{
  std::filesystem::path relative = path.lexically_relative(m_root);
  if (relative.empty() || relative.native().starts_with("..")) {
    return path.string();
  }
  return relative.string();
}

Expected<std::optional<SelectedDirectory>>
ReleaseCatalog::select(const SelectionInputs& inputs, FileProbes* probes) const
{
  SelectionInputs rooted = inputs;
  rooted.root = m_root;
  return select_release_directory(rooted, probes);
}

Expected<std::shared_ptr<const Manifest>>
ReleaseCatalog::manifest_of(const std::filesystem::path& directory, FileProbes* probes) const
{
  const std::filesystem::path path = directory / k_manifest_file;
  TRY_ASSIGN(FileIdentity identity, identify_regular_file(path, label_of(path), {}, probes));
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto found = m_manifests.find(directory);
    if (found != m_manifests.end() && found->second.size == identity.size &&
        found->second.mtime_ns == identity.mtime_ns && found->second.inode == identity.inode) {
      return found->second.manifest;
    }
  }
  // Parsed outside the lock; the identity taken before the read means a file changed during it
  // is read again next time rather than kept stale.
  TRY_ASSIGN(Manifest parsed, read_manifest(path));
  auto manifest = std::make_shared<const Manifest>(std::move(parsed));
  std::lock_guard<std::mutex> lock(m_mutex);
  m_manifests[directory] = MemoEntry{identity.size, identity.mtime_ns, identity.inode, manifest};
  return manifest;
}

Expected<CatalogAnswer> ReleaseCatalog::find(const SelectionInputs& inputs,
                                             const AuthorizationInputs& authorization) const
{
  TRY(validate_kernel_name(authorization.kernel));
  FileProbes probes;
  TRY_ASSIGN(std::optional<SelectedDirectory> selected, select(inputs, &probes));
  if (!selected) {
    SelectionInputs rooted = inputs;
    rooted.root = m_root;
    return no_directory(rooted);
  }
  CatalogAnswer answer;
  answer.directory = selected;
  std::shared_ptr<const Manifest> manifest;
  if (selected->kind == DirectoryKind::hash_checked) {
    TRY_ASSIGN(manifest, manifest_of(selected->directory, &probes));
  }
  answer.authorization = authorize(selected->kind, manifest.get(), authorization);
  if (answer.authorization.verdict != Verdict::allowed) {
    return answer;
  }
  if (authorization.kernel.size() + std::string_view(k_object_suffix).size() > NAME_MAX) {
    // No file system holds a file of that name, so no release has the object.
    answer.authorization = Authorization{
        Verdict::not_listed, "release: kernel name of " + std::to_string(authorization.kernel.size()) +
                                 " bytes: no release object file can have it"};
    return answer;
  }
  const std::filesystem::path object =
      selected->directory / (std::string(authorization.kernel) + k_object_suffix);
  const bool developer = selected->kind == DirectoryKind::developer_set;
  Expected<FileIdentity> identity = identify_regular_file(
      object, label_of(object),
      developer ? "not in the developer set" : "manifest lists it but the file is missing",
      &probes);
  if (!identity && developer && identity.error().code == ErrorCode::not_found) {
    // A partial developer set is normal: the kernel is simply not part of it.
    answer.authorization = Authorization{Verdict::not_listed, identity.error().message};
    return answer;
  }
  if (!identity) {
    return std::unexpected(identity.error());
  }
  answer.object_path = object;
  answer.object_identity = identity->to_string();
  answer.probes = std::move(probes);
  return answer;
}

Expected<std::vector<std::byte>> ReleaseCatalog::read_object(const std::filesystem::path& path,
                                                             int64_t max_bytes,
                                                             std::string_view expected_identity) const
{
  // The identity is checked on the opened descriptor: what is read is what was checked.
  return read_regular_file<std::vector<std::byte>>(path, max_bytes, label_of(path),
                                                   expected_identity);
}

} // namespace d4r::release

namespace d4r::release {

namespace {

// The file's identity when it can be served, else a problem line.
Expected<FileIdentity> check_object(const std::filesystem::path& path, const std::string& label,
                                    std::string_view missing)
{
  TRY_ASSIGN(FileIdentity identity, identify_regular_file(path, label, missing));
  TRY(check_readable(path, label));
  return identity;
}

} // namespace

void ReleaseCatalog::enumerate_manifest(const SelectedDirectory& selected,
                                        const Manifest& manifest, ImportListing& listing) const
{
  const std::string manifest_label = label_of(selected.directory / k_manifest_file);
  for (const std::string& problem : manifest.problems) {
    listing.problems.push_back("release: " + manifest_label + ": " + problem);
  }
  // Only lines that can authorise their name are offered: with a recorded RR split, a line from
  // the other library is a problem, never a cache key.
  std::map<std::string, std::vector<ManifestEntry>> by_name;
  for (const ManifestEntry& entry : manifest.entries) {
    if (!entry_can_authorise(manifest, entry)) {
      listing.problems.push_back("release: " + manifest_label + ": line " +
                                 std::to_string(entry.line) + ": " + wrong_origin_reason(entry));
      continue;
    }
    by_name[entry.name].push_back(entry);
  }
  for (auto& [name, entries] : by_name) {
    const std::filesystem::path object = selected.directory / (name + k_object_suffix);
    Expected<FileIdentity> identity =
        check_object(object, label_of(object), "manifest lists it but the file is missing");
    if (!identity) {
      listing.problems.push_back(identity.error().message);
      continue;
    }
    listing.candidates.push_back(
        ImportCandidate{name, object, identity->to_string(), std::move(entries)});
  }
}

void ReleaseCatalog::enumerate_developer_set(const SelectedDirectory& selected,
                                             ImportListing& listing) const
{
  Expected<std::vector<std::string>> files = list_objects(selected.directory);
  if (!files) {
    listing.problems.push_back(files.error().message);
    return;
  }
  for (const std::string& file : *files) {
    const std::filesystem::path object = selected.directory / file;
    const std::string name = file.substr(0, file.size() - std::string_view(k_object_suffix).size());
    if (Expected<void> valid = validate_kernel_name(name); !valid) {
      listing.problems.push_back("release: " + label_of(object) + ": " + valid.error().message);
      continue;
    }
    Expected<FileIdentity> identity = check_object(object, label_of(object), {});
    if (!identity) {
      listing.problems.push_back(identity.error().message);
      continue;
    }
    listing.candidates.push_back(ImportCandidate{name, object, identity->to_string(), {}});
  }
}

Expected<ImportListing> ReleaseCatalog::enumerate(const SelectionInputs& inputs) const
{
  ImportListing listing;
  TRY_ASSIGN(listing.directory, select(inputs));
  if (!listing.directory) {
    return listing;
  }
  const SelectedDirectory& selected = *listing.directory;
  switch (selected.kind) {
  case DirectoryKind::hash_checked: {
    TRY_ASSIGN(std::shared_ptr<const Manifest> manifest, manifest_of(selected.directory));
    enumerate_manifest(selected, *manifest, listing);
    break;
  }
  case DirectoryKind::developer_set:
    enumerate_developer_set(selected, listing);
    break;
  }
  return listing;
}

} // namespace d4r::release
