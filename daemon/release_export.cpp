#include "daemon/release_export.hpp"

#include "cache/file_ops.hpp"
#include "daemon/object_checks.hpp"
#include "util/digest.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r::daemon {

namespace {

constexpr const char* k_manifest_file = "d4r-kernels.txt";
constexpr const char* k_accuracy_file = "d4r-accuracy.txt";
constexpr const char* k_object_suffix = ".hsaco";
// The bridge reads a manifest name with "%127s": a longer one would never match there.
constexpr size_t k_max_manifest_name = 127;

// One object of one folder: the entry whose bytes are written and every hash it is listed for.
struct Chosen {
  cache::Entry entry;
  std::set<uint64_t> hashes;
};

struct Folder {
  Mode mode = Mode::fast;
  std::string target; // "gfx1201-fp8"
  std::map<std::string, Chosen> objects; // by kernel name: sorted, as the manifest lists them
};

Error io_error(const std::string& verb, const std::filesystem::path& path, int error)
{
  return Error{ErrorCode::io, "export: cannot " + verb + " " + path.string() + ": " +
                                  std::strerror(error)};
}

// A new file (never through a link, never over one), fsynced before it is closed.
Expected<void> write_new_file(const std::filesystem::path& path, std::span<const std::byte> bytes)
{
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    return std::unexpected(io_error("create", path, errno));
  }
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      return std::unexpected(io_error("write", path, error));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    return std::unexpected(io_error("sync", path, error));
  }
  if (::close(fd) != 0) {
    return std::unexpected(io_error("close", path, errno));
  }
  return {};
}

Expected<void> write_new_file(const std::filesystem::path& path, std::string_view text)
{
  return write_new_file(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

Expected<void> make_folder(const std::filesystem::path& path)
{
  if (::mkdir(path.c_str(), 0755) != 0) {
    return std::unexpected(io_error("create folder", path, errno));
  }
  return {};
}

Expected<void> sync_folder(const std::filesystem::path& path)
{
  Expected<void> synced = cache::files::sync_directory(path);
  if (!synced) {
    return make_error(ErrorCode::io, "export: " + synced.error().message);
  }
  return {};
}

// DIR must be absolute, in an existing folder, and not there yet (or an empty folder, which the
// final rename replaces).
Expected<void> check_destination(const std::filesystem::path& directory)
{
  if (!directory.is_absolute() || directory.filename().empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "export: '" + directory.string() + "' is not an absolute folder path");
  }
  struct stat st {};
  if (::stat(directory.parent_path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return make_error(ErrorCode::invalid_argument,
                      "export: " + directory.parent_path().string() + " is not a folder");
  }
  if (::lstat(directory.c_str(), &st) != 0) {
    return errno == ENOENT ? Expected<void>{}
                           : std::unexpected(io_error("look at", directory, errno));
  }
  std::error_code ec;
  if (!S_ISDIR(st.st_mode) || !std::filesystem::is_empty(directory, ec) || ec) {
    return make_error(ErrorCode::invalid_argument,
                      "export: " + directory.string() +
                          " exists and is not an empty folder (an export never writes into or "
                          "over a release)");
  }
  return {};
}

std::string temp_prefix(const std::filesystem::path& directory)
{
  return "." + directory.filename().string() + ".export-";
}

// Siblings an earlier, interrupted export left (`.NAME.export-PID-N`), whose process is gone.
void remove_stale_siblings(const std::filesystem::path& directory)
{
  const std::string prefix = temp_prefix(directory);
  std::error_code ec;
  for (const auto& sibling : std::filesystem::directory_iterator(directory.parent_path(), ec)) {
    const std::string name = sibling.path().filename().string();
    if (!name.starts_with(prefix)) {
      continue;
    }
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) {
      continue; // another export still running (or a pid we may not signal)
    }
    std::error_code ignored;
    std::filesystem::remove_all(sibling.path(), ignored);
  }
}

bool target_selected(const ExportOptions& options, const std::string& target)
{
  if (options.targets.empty()) {
    return true;
  }
  return std::any_of(options.targets.begin(), options.targets.end(), [&](const std::string& wanted) {
    return target == wanted || target == wanted + "-fp8";
  });
}

std::string folder_label(Mode mode, const std::string& target)
{
  return mode == Mode::accuracy ? "accuracy/" + target : target;
}

std::string arch_of(const std::string& target)
{
  return target.ends_with("-fp8") ? target.substr(0, target.size() - 4) : target;
}

std::string describe(Mode mode, const cache::Entry& entry)
{
  return folder_label(mode, entry.key.target) + "/" + entry.key.kernel + " (" +
         to_hex(entry.digest).substr(0, 12) + ", " + entry.source + ")";
}

// The object of one (folder, kernel): of several distinct objects, the one used last (a release
// holds one file per name). The others are problems.
void choose(Folder& folder, const std::string& kernel, std::vector<cache::Entry> entries,
            const ExportHashes& hashes_of, ExportSummary& summary)
{
  std::map<Sha256, int64_t> last_use;
  for (const cache::Entry& entry : entries) {
    last_use[entry.digest] = std::max(last_use[entry.digest], entry.last_used_unix_ms);
  }
  auto newest = std::max_element(last_use.begin(), last_use.end(), [](const auto& a, const auto& b) {
    return a.second < b.second;
  });
  Chosen chosen;
  for (cache::Entry& entry : entries) {
    if (entry.digest != newest->first) {
      summary.problems.push_back(describe(folder.mode, entry) +
                                 ": another object of this name, used later, is exported");
      continue;
    }
    std::vector<uint64_t> hashes =
        entry.key.module_hash != 0 ? std::vector<uint64_t>{entry.key.module_hash} : hashes_of(entry);
    if (hashes.empty()) {
      summary.problems.push_back(describe(folder.mode, entry) +
                                 ": no module hash authorises it (its recipe is gone)");
      continue;
    }
    chosen.hashes.insert(hashes.begin(), hashes.end());
    chosen.entry = std::move(entry);
  }
  if (!chosen.hashes.empty()) {
    folder.objects.emplace(kernel, std::move(chosen));
  }
}

// Why an entry cannot be a release object at all, or empty.
std::string unexportable(const cache::Entry& entry)
{
  if (!entry.key.variant.empty()) {
    return "built with switches a release folder cannot say (" + entry.key.variant + ")";
  }
  if (!is_known_target(arch_of(entry.key.target))) {
    return "target '" + entry.key.target + "' is not a release folder";
  }
  if (entry.key.kernel.size() > k_max_manifest_name) {
    return "a name of " + std::to_string(entry.key.kernel.size()) +
           " characters cannot be listed (d4r's manifest reader takes at most 127)";
  }
  return {};
}

Expected<std::vector<Folder>> gather(cache::Cache& cache, const ExportOptions& options,
                                     const ExportHashes& hashes_of, ExportSummary& summary)
{
  std::vector<Folder> folders;
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    if (options.mode && *options.mode != mode) {
      continue;
    }
    TRY_ASSIGN(std::vector<cache::Entry> entries, cache.list(mode));
    std::map<std::string, std::map<std::string, std::vector<cache::Entry>>> by_target;
    for (cache::Entry& entry : entries) {
      if (!target_selected(options, entry.key.target)) {
        continue;
      }
      if (std::string why = unexportable(entry); !why.empty()) {
        summary.problems.push_back(describe(mode, entry) + ": " + why);
        continue;
      }
      by_target[entry.key.target][entry.key.kernel].push_back(std::move(entry));
    }
    for (auto& [target, kernels] : by_target) {
      Folder folder{mode, target, {}};
      for (auto& [kernel, list] : kernels) {
        choose(folder, kernel, std::move(list), hashes_of, summary);
      }
      if (!folder.objects.empty()) {
        folders.push_back(std::move(folder));
      }
    }
  }
  return folders;
}

// Objects first, then the folder's manifest; the marker comes later (write_tree).
Expected<void> write_folder(cache::Cache& cache, const ExportOptions& options, const Folder& folder,
                            const std::filesystem::path& path, ExportSummary& summary)
{
  TRY(make_folder(path));
  std::vector<std::pair<std::string, std::vector<uint64_t>>> listed;
  for (const auto& [kernel, chosen] : folder.objects) {
    Expected<std::vector<std::byte>> bytes = cache.read_entry(folder.mode, chosen.entry);
    if (!bytes) {
      summary.problems.push_back(describe(folder.mode, chosen.entry) + ": " + bytes.error().message);
      continue;
    }
    // What import and serving will check: refused here rather than exported and refused there.
    Expected<compiler::LaunchMeta> meta = checked_launch_meta(*bytes, kernel, arch_of(folder.target));
    if (!meta) {
      summary.problems.push_back(describe(folder.mode, chosen.entry) + ": " + meta.error().message);
      continue;
    }
    const std::filesystem::path object = path / (kernel + k_object_suffix);
    TRY(write_new_file(object, std::span<const std::byte>(*bytes)));
    ++summary.objects;
    if (options.after_object_for_testing) {
      options.after_object_for_testing(object);
    }
    listed.emplace_back(kernel, std::vector<uint64_t>(chosen.hashes.begin(), chosen.hashes.end()));
    summary.manifest_lines += static_cast<int64_t>(chosen.hashes.size());
  }
  if (listed.empty()) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return {};
  }
  TRY(write_new_file(path / k_manifest_file, manifest_text(listed)));
  summary.folders.push_back(folder_label(folder.mode, folder.target));
  return {};
}

Expected<void> write_tree(cache::Cache& cache, const ExportOptions& options,
                          const std::vector<Folder>& folders, const std::filesystem::path& root,
                          ExportSummary& summary)
{
  const std::filesystem::path accuracy = root / "accuracy";
  std::vector<std::filesystem::path> written;
  for (const Folder& folder : folders) {
    const std::filesystem::path base = folder.mode == Mode::accuracy ? accuracy : root;
    if (folder.mode == Mode::accuracy && ::mkdir(accuracy.c_str(), 0755) != 0 && errno != EEXIST) {
      return std::unexpected(io_error("create folder", accuracy, errno));
    }
    TRY(write_folder(cache, options, folder, base / folder.target, summary));
    std::error_code ec;
    if (std::filesystem::exists(base / folder.target, ec)) {
      written.push_back(base / folder.target);
    }
  }
  // Last, after every object and manifest of the export: the marker that makes an accuracy
  // folder a complete accuracy build to the bridge and to our reader (exactly "1\n").
  for (const std::filesystem::path& path : written) {
    if (path.parent_path() == accuracy) {
      TRY(write_new_file(path / k_accuracy_file, std::string_view("1\n")));
    }
  }
  for (const std::filesystem::path& path : written) {
    TRY(sync_folder(path));
  }
  std::error_code ec;
  if (std::filesystem::exists(accuracy, ec)) {
    TRY(sync_folder(accuracy));
  }
  return sync_folder(root);
}

} // namespace

std::string manifest_text(const std::vector<std::pair<std::string, std::vector<uint64_t>>>& listed)
{
  std::map<std::string, std::set<uint64_t>> sorted;
  for (const auto& [name, hashes] : listed) {
    sorted[name].insert(hashes.begin(), hashes.end());
  }
  std::string text =
      "# d4r native kernel manifest, written by d4r-kernel export from the d4r-kerneld cache\n"
      "# NAME HASH ORIGIN: HASH is the FNV-1a 64 of the PTX module; ORIGIN the library it\n"
      "# comes from (sr: super resolution, rr: ray reconstruction, for cuda_dldn_engine_*)\n";
  for (const auto& [name, hashes] : sorted) {
    const char* origin = is_ray_reconstruction_kernel(name) ? "rr" : "sr";
    for (uint64_t hash : hashes) {
      text += name + " " + hash_to_hex(hash) + " " + origin + "\n";
    }
  }
  return text;
}

Expected<ExportSummary> export_release(cache::Cache& cache, const ExportOptions& options,
                                       const ExportHashes& hashes_of)
{
  TRY(check_destination(options.directory));
  ExportSummary summary;
  summary.directory = options.directory;
  TRY_ASSIGN(std::vector<Folder> folders, gather(cache, options, hashes_of, summary));
  if (folders.empty()) {
    return make_error(ErrorCode::not_found,
                      "export: the cache holds no object to export for the targets and modes asked");
  }
  remove_stale_siblings(options.directory);
  static std::atomic<int64_t> s_sequence{0};
  const std::filesystem::path temp =
      options.directory.parent_path() /
      (temp_prefix(options.directory) + std::to_string(::getpid()) + "-" +
       std::to_string(s_sequence.fetch_add(1)));
  TRY(make_folder(temp));
  Expected<void> written = write_tree(cache, options, folders, temp, summary);
  if (written && summary.objects == 0) {
    written = make_error(ErrorCode::not_found, "export: no object passed its checks");
  }
  if (written && ::rename(temp.c_str(), options.directory.c_str()) != 0) {
    written = std::unexpected(io_error("rename " + temp.string() + " to", options.directory, errno));
  }
  if (!written) {
    std::error_code ignored;
    std::filesystem::remove_all(temp, ignored);
    return std::unexpected(written.error());
  }
  TRY(sync_folder(options.directory.parent_path()));
  std::sort(summary.folders.begin(), summary.folders.end());
  return summary;
}

} // namespace d4r::daemon
