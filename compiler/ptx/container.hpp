#pragma once
// Where PTX comes from: plain PTX text, a CUDA fatbin (PTX entries, optionally LZ4-compressed), or
// a binary such as a DLSS DLL with fatbins embedded anywhere in it. Each PTX module comes back
// with the identity the d4r manifests give it (FNV-1a 64 of the text without trailing NULs), its
// SHA-256 for content addressing and the `.entry` names it defines.
//
// The layout and the scan rule are those of ../shared/reference/d4r-contract.md, section 1. Every
// read is bounds-checked: a truncated, oversized or lying header is an ErrorCode::corrupt that
// names the offset in the input, never a read past the end.

#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace d4r::compiler::ptx {

inline constexpr uint32_t k_fatbin_magic = 0xBA55ED50;
inline constexpr uint16_t k_fatbin_version = 1;
inline constexpr int64_t k_fatbin_header_bytes = 16;
// The CUDA bridge accepts container headers up to this size (the scan accepts only 16).
inline constexpr int64_t k_max_fatbin_header_bytes = 4096;
inline constexpr int64_t k_fatbin_entry_header_bytes = 64;
inline constexpr uint16_t k_fatbin_kind_ptx = 1;
inline constexpr uint64_t k_fatbin_flag_lz4 = 0x2000;
// The largest decompressed PTX entry we accept (the bridge's limit).
inline constexpr int64_t k_max_decompressed_bytes = 256LL << 20;

struct PtxModule {
  std::string text; // after LZ4, trailing NULs removed
  uint64_t fnv1a64 = 0;
  Sha256 sha256{};
  std::vector<std::string> entries; // `.entry` names, in order of appearance
  int64_t container_offset = -1;    // where its fatbin entry starts in the input (-1: plain text)
  int64_t fatbin_offset = -1;       // where its fatbin starts in the input (-1: none)
  bool compressed = false;
};

// Every PTX entry of the fatbin that starts at fatbin[0]; entries of other kinds (cubins) are
// skipped. `base_offset` is where the fatbin sits in the original input, so that offsets and
// error messages refer to that input.
[[nodiscard]] Expected<std::vector<PtxModule>> read_fatbin(std::span<const std::byte> fatbin,
                                                           int64_t base_offset = 0);

struct FatbinHit {
  int64_t offset = 0;
  int64_t size = 0; // header plus files_size
};

// The DLL scan rule: the magic at any byte offset, accepted when version is 1, the header size 16
// and the whole container fits; the scan then resumes after the container (after the magic when
// rejected).
[[nodiscard]] std::vector<FatbinHit> scan_for_fatbins(std::span<const std::byte> image);

// Decides what `input` is: a fatbin (the magic at offset 0), a binary with embedded fatbins, or
// PTX text (hashed up to its first NUL, at most 64 MiB, as the bridge does for a non-fatbin
// image). A PE or ELF file without any fatbin, or an empty text, is ErrorCode::not_found.
[[nodiscard]] Expected<std::vector<PtxModule>> read_ptx_modules(std::span<const std::byte> input);

} // namespace d4r::compiler::ptx
