#pragma once
// Which folder of a d4r release root serves a request: the bridge's selection order
// (../shared/reference/d4r-contract.md §2), accuracy never falling back to fast binaries.

#include "daemon/release/file_probe.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace d4r::release {

struct SelectionInputs {
  std::filesystem::path root; // D4R_ZLUDA_NATIVE_DIR
  std::string arch;           // "gfx1201"
  bool fp8_native = true;     // D4R_ZLUDA_WMMA_FP8_NATIVE (d4r's NativeFp8 default is on)
  Mode mode = Mode::fast;
};

enum class DirectoryKind {
  hash_checked,  // has d4r-kernels.txt: serve only listed (name, hash) pairs
  developer_set, // no manifest: served unhashed, as the bridge hands it to ZLUDA
};

struct SelectedDirectory {
  std::filesystem::path directory;
  DirectoryKind kind = DirectoryKind::hash_checked;
  std::string folder_target; // "gfx1201-fp8", "gfx1201", or "" for a flat set
};

// nullopt: no candidate (ZLUDA compiles everything). io error only when the root itself cannot be
// read for a reason other than not existing. With `probes`, every stat the choice rests on is
// appended (file_probe.hpp).
[[nodiscard]] Expected<std::optional<SelectedDirectory>>
select_release_directory(const SelectionInputs& inputs, FileProbes* probes = nullptr);

} // namespace d4r::release
