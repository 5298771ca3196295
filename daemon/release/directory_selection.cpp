#include "daemon/release/directory_selection.hpp"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sys/stat.h>

// The order below is the d4r bridge's d4r_select_native_source (../shared/reference/
// d4r-contract.md §2): every candidate is judged on its own, so in accuracy mode each folder that
// serves must carry its own marker; the build writes the marker into the folder it built, last.

namespace d4r::release {

namespace {

constexpr const char* k_manifest_file = "d4r-kernels.txt";
constexpr const char* k_accuracy_file = "d4r-accuracy.txt";

bool is_regular_file_at(const std::filesystem::path& path, FileProbes* probes)
{
  struct stat st {};
  const int result = ::stat(path.c_str(), &st);
  note_probe(probes, path.native(), true, result, result != 0 ? errno : 0, st);
  return result == 0 && S_ISREG(st.st_mode);
}

// The bridge reads the first line with fgets and compares it to "1\n": a marker "1" without its
// newline, "1\r\n" or " 1\n" does not count (the build writes exactly "1\n"). Reading it the same
// way keeps one directory meaning the same thing to the bridge and to us.
bool has_accuracy_marker(const std::filesystem::path& directory, FileProbes* probes)
{
  const std::filesystem::path marker = directory / k_accuracy_file;
  if (probes != nullptr) {
    // Taken before the read: a marker rewritten in between reads as changed at the next check.
    struct stat st {};
    const int result = ::stat(marker.c_str(), &st);
    note_probe(probes, marker.native(), true, result, result != 0 ? errno : 0, st);
  }
  std::ifstream file(marker, std::ios::binary);
  if (!file) {
    return false;
  }
  char first[2] = {};
  file.read(first, 2);
  return file.gcount() == 2 && first[0] == '1' && first[1] == '\n';
}

enum class Candidate { none, hash_checked, developer_set };

Candidate judge_candidate(const std::filesystem::path& directory, bool accuracy,
                          FileProbes* probes)
{
  if (accuracy && !has_accuracy_marker(directory, probes)) {
    return Candidate::none;
  }
  if (is_regular_file_at(directory / k_manifest_file, probes)) {
    return Candidate::hash_checked;
  }
  return accuracy ? Candidate::developer_set : Candidate::none;
}

// Whether `base` holds an entry named gfx* (a per-target release root). A base that does not exist
// has none; a base we cannot list is an io error, not a guess.
Expected<bool> has_target_entries(const std::filesystem::path& base, FileProbes* probes)
{
  if (probes != nullptr) {
    // A folder's mtime and ctime change when an entry is added, removed or renamed in it.
    struct stat st {};
    const int result = ::stat(base.c_str(), &st);
    note_probe(probes, base.native(), true, result, result != 0 ? errno : 0, st);
  }
  DIR* directory = ::opendir(base.c_str());
  if (directory == nullptr) {
    int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      return false;
    }
    return make_error(ErrorCode::io, "release: " + base.string() +
                                         ": cannot list the release root: " + std::strerror(error));
  }
  bool found = false;
  for (struct dirent* entry = ::readdir(directory); entry != nullptr;
       entry = ::readdir(directory)) {
    if (std::strncmp(entry->d_name, "gfx", 3) == 0) {
      found = true;
      break;
    }
  }
  ::closedir(directory);
  return found;
}

// The arch becomes a path component, so it is held to a target-like spelling first.
Expected<void> check_arch(std::string_view arch)
{
  for (char c : arch) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) {
      return make_error(ErrorCode::invalid_argument,
                        "release: gpu target '" + std::string(arch.substr(0, 32)) +
                            "' has a character outside [A-Za-z0-9]");
    }
  }
  return {};
}

std::optional<SelectedDirectory> make_selected(std::filesystem::path directory, Candidate kind,
                                               std::string folder_target)
{
  DirectoryKind directory_kind =
      kind == Candidate::hash_checked ? DirectoryKind::hash_checked : DirectoryKind::developer_set;
  return SelectedDirectory{std::move(directory), directory_kind, std::move(folder_target)};
}

} // namespace

Expected<std::optional<SelectedDirectory>> select_release_directory(const SelectionInputs& inputs,
                                                                    FileProbes* probes)
{
  TRY(check_arch(inputs.arch));
  const bool accuracy = inputs.mode == Mode::accuracy;
  // Step 1: a marked root is itself an accuracy release; otherwise accuracy lives in accuracy/.
  std::filesystem::path base = inputs.root;
  if (accuracy && !has_accuracy_marker(inputs.root, probes)) {
    base = inputs.root / "accuracy";
  }
  // Step 2: gfx12 with native FP8 prefers the -fp8 build.
  if (inputs.fp8_native && inputs.arch.starts_with("gfx12")) {
    std::string folder = inputs.arch + "-fp8";
    Candidate kind = judge_candidate(base / folder, accuracy, probes);
    if (kind != Candidate::none) {
      return make_selected(base / folder, kind, folder);
    }
  }
  // Step 3: the target's own folder.
  if (!inputs.arch.empty()) {
    Candidate kind = judge_candidate(base / inputs.arch, accuracy, probes);
    if (kind != Candidate::none) {
      return make_selected(base / inputs.arch, kind, inputs.arch);
    }
  }
  // Step 4: the base itself (a flat set).
  Candidate kind = judge_candidate(base, accuracy, probes);
  if (kind == Candidate::hash_checked) {
    return make_selected(base, kind, "");
  }
  TRY_ASSIGN(bool per_target, has_target_entries(base, probes));
  // Step 5: an unmanifested flat set is a developer set only when the base is not a per-target
  // release root. The bridge applies this guard in fast mode only; we apply it to a marked
  // accuracy base too, because a base with gfx* folders but none for this target holds, at its top
  // level, objects of no known target, and serving them would be serving the wrong thing. A
  // marked flat developer directory (the documented case) has no gfx* entry and still works.
  if (per_target) {
    return std::optional<SelectedDirectory>();
  }
  if (kind == Candidate::developer_set) {
    return make_selected(base, kind, "");
  }
  if (accuracy) {
    // Never fall back to fast binaries: an unmarked accuracy base serves nothing.
    return std::optional<SelectedDirectory>();
  }
  struct stat st {};
  const int result = ::stat(base.c_str(), &st);
  note_probe(probes, base.native(), true, result, result != 0 ? errno : 0, st);
  if (result != 0 || !S_ISDIR(st.st_mode)) {
    return std::optional<SelectedDirectory>();
  }
  return make_selected(base, Candidate::developer_set, "");
}

} // namespace d4r::release
