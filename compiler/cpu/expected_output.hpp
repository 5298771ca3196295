#pragma once
// The bytes an NVIDIA GPU wrote for a golden case's output (tests/golden/README.md): either
// <case>.outN.bin or, for large outputs, <case>.outN.bin.zst (one ZSTD frame that states its
// size: `zstd -19` writes it), which keeps exhaustive scans small in the repository.

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace d4r::compiler::cpu {

// Output `index` of `case_name` recorded in `directory`; ErrorCode::not_found when neither file
// exists, ErrorCode::corrupt when the compressed one does not decode to the size it states.
[[nodiscard]] Expected<std::vector<std::byte>> read_expected_output(const std::filesystem::path& directory,
                                                                    const std::string& case_name, int64_t index);

// Whether output `index` of `case_name` was recorded in `directory` (either form).
[[nodiscard]] bool has_expected_output(const std::filesystem::path& directory, const std::string& case_name,
                                       int64_t index);

} // namespace d4r::compiler::cpu
