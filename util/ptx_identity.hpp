#pragma once
// How a PTX module is identified, exactly as the d4r manifests and the CUDA bridge do it
// (../shared/reference/d4r-contract.md, section 1): the FNV-1a 64 of the module text without its
// trailing NUL bytes, and the names that `.entry NAME(` declares.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r {

// The largest PTX text the bridge hashes when handed a non-fatbin image.
inline constexpr int64_t k_max_ptx_image_bytes = 64LL << 20;

// One fatbin PTX entry (after LZ4): hash of the bytes with all trailing NULs removed.
[[nodiscard]] uint64_t ptx_module_hash(std::string_view module_text);

// A module image handed to cuModuleLoadData that is not a fatbin: the PTX text up to its first NUL,
// at most k_max_ptx_image_bytes.
[[nodiscard]] std::string_view ptx_text_of_image(std::span<const std::byte> image);

// Every `.entry NAME(` in the text, in order of appearance, duplicates kept out. NAME is
// [A-Za-z0-9_$]+ followed by optional blanks and `(`; anything else is not an entry. There is no
// length limit: the bridge's scan stops at 127 bytes, but a C++ template kernel's mangled name runs
// to thousands, and a name that is too long for a later layer (kernel_identity.hpp's limit) must be refused
// there by name, not vanish from the list here.
[[nodiscard]] std::vector<std::string> scan_entry_names(std::string_view module_text);

} // namespace d4r
