#pragma once
// Where PTX comes from: plain PTX text, a CUDA fatbin, or a binary such as a DLSS DLL (a PE) with
// fatbins embedded anywhere in it. Each PTX module comes back with the identity the d4r manifests
// give it (FNV-1a 64 of the text without trailing NULs), its SHA-256 for content addressing and the
// `.entry` names it defines.
//
// The container layout and the DLL scan rule are those of ../shared/reference/d4r-contract.md,
// section 1, widened to what nvcc 13's fatbinary writes (learned from fatbins this machine's nvcc
// made from our own CUDA, tests/fixtures/fatbin/): entry headers of any size from 64 bytes up (PTX
// entries are 80), PTX compressed with LZ4 (flag 0x2000, `--compress-mode=speed`, the block padded
// with zero bytes) or ZSTD (flag 0x8000, the default), several architectures per fatbin, and ELF
// (cubin) entries, which are listed but never decompressed or read. Decompression is exact: the
// stream must end where the entry says or where its own format ends, produce exactly the declared
// size, and be followed by nothing but zero padding.
//
// Every read is bounds-checked: a truncated, oversized or lying header is an ErrorCode::corrupt
// that names the offset in the input, never a read past the end. What decompression may produce is
// capped per entry and in total (ContainerLimits, ErrorCode::resource_exhausted past them), checked
// before anything is allocated, and visit_ptx_modules hands modules over one at a time, so a caller
// that does not keep them holds one entry's text at a time.

#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace d4r::compiler::ptx {

inline constexpr uint32_t k_fatbin_magic = 0xBA55ED50;
inline constexpr uint16_t k_fatbin_version = 1;
inline constexpr int64_t k_fatbin_header_bytes = 16;
// The CUDA bridge accepts container headers up to this size (the scan accepts only 16).
inline constexpr int64_t k_max_fatbin_header_bytes = 4096;
// The smallest entry header: every field we read lies in its first 64 bytes. nvcc 13 writes 64
// for ELF entries and 80 for PTX; any larger size is skipped over as the header says.
inline constexpr int64_t k_fatbin_entry_header_bytes = 64;
inline constexpr uint16_t k_fatbin_kind_ptx = 1;
inline constexpr uint16_t k_fatbin_kind_elf = 2;
inline constexpr uint64_t k_fatbin_flag_lz4 = 0x2000;
inline constexpr uint64_t k_fatbin_flag_zstd = 0x8000;
// Defaults of ContainerLimits: the bridge's limit for one PTX entry, and a total that a DLSS DLL
// (a few dozen modules of at most a few MiB) stays far below.
inline constexpr int64_t k_max_decompressed_bytes = 256LL << 20;
inline constexpr int64_t k_max_decompressed_total_bytes = 1LL << 30;

struct ContainerLimits {
  int64_t max_entry_bytes = k_max_decompressed_bytes;        // PTX text of one fatbin entry
  int64_t max_total_bytes = k_max_decompressed_total_bytes;  // all fatbin entries of one input
};

enum class FatbinCompression { none, lz4, zstd };

[[nodiscard]] const char* to_string(FatbinCompression compression);

// One fatbin entry as its header describes it.
struct FatbinEntry {
  int64_t offset = 0;        // of the entry header, in the input
  int64_t fatbin_offset = 0; // of its fatbin, in the input
  uint16_t kind = 0;         // k_fatbin_kind_ptx, k_fatbin_kind_elf, or another the reader skips
  uint32_t arch = 0;         // the sm number at +28 (86 for sm_86 and compute_86)
  int64_t header_size = 0;
  int64_t payload_size = 0;
  int64_t decompressed_size = 0; // as declared at +56; 0 when stored
  int64_t stream_size = 0;       // the compressed stream's own size at +16; 0: not given
  uint64_t flags = 0;
  FatbinCompression compression = FatbinCompression::none;
};

[[nodiscard]] const char* kind_name(uint16_t kind); // "ptx", "elf" or "other"

struct PtxModule {
  std::string text; // decompressed, trailing NULs removed
  int64_t size = 0; // bytes of text, kept when a visitor drops the text
  uint64_t fnv1a64 = 0;
  Sha256 sha256{};
  std::vector<std::string> entries; // `.entry` names, in order of appearance
  int64_t container_offset = -1;    // where its fatbin entry starts in the input (-1: plain text)
  int64_t fatbin_offset = -1;       // where its fatbin starts in the input (-1: none)
  uint32_t arch = 0;                // from the entry header (0: plain text)
  FatbinCompression compression = FatbinCompression::none;
};

// What the reader hands over, in input order. on_module may move the module away or keep it; an
// error from it stops the walk and is returned. on_skipped (optional) sees each non-PTX entry.
struct ContainerVisitor {
  std::function<Expected<void>(PtxModule&&)> on_module;
  std::function<void(const FatbinEntry&)> on_skipped;
};

// Decides what `input` is and visits its modules: a fatbin (the magic at offset 0; more fatbins
// after it, as in a .nv_fatbin section, are found by the scan), a binary with embedded fatbins
// (a PE such as a DLL, an ELF executable or object nvcc linked), or PTX text (hashed up to its first NUL, at most 64 MiB, as the bridge does for
// a non-fatbin image; the limits do not apply to it). A PE or ELF file without any fatbin, or an
// empty text, is ErrorCode::not_found.
[[nodiscard]] Expected<void> visit_ptx_modules(std::span<const std::byte> input,
                                               const ContainerVisitor& visitor,
                                               const ContainerLimits& limits = {});

// The same, every module kept (so the total limit bounds what is held).
[[nodiscard]] Expected<std::vector<PtxModule>> read_ptx_modules(std::span<const std::byte> input,
                                                                const ContainerLimits& limits = {});

// Every PTX entry of the fatbin that starts at fatbin[0]; other entries are skipped. `base_offset`
// is where the fatbin sits in the original input, so that offsets and error messages refer to it.
[[nodiscard]] Expected<std::vector<PtxModule>> read_fatbin(std::span<const std::byte> fatbin,
                                                           int64_t base_offset = 0,
                                                           const ContainerLimits& limits = {});

struct FatbinHit {
  int64_t offset = 0;
  int64_t size = 0; // header plus files_size
};

// The DLL scan rule: the magic at any byte offset, accepted when version is 1, the header size 16
// and the whole container fits; the scan then resumes after the container (after the magic when
// rejected).
[[nodiscard]] std::vector<FatbinHit> scan_for_fatbins(std::span<const std::byte> image);

} // namespace d4r::compiler::ptx
