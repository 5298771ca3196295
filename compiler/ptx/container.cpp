#include "compiler/ptx/container.hpp"

#include "compiler/ptx/decompress.hpp"

#include "util/ptx_identity.hpp"

#include <cstring>
#include <string_view>

// Fatbin layout (little endian; ../shared/reference/d4r-contract.md, section 1, and what nvcc 13
// writes, tests/fixtures/fatbin/README.md):
//   container header: u32 magic, u16 version (1), u16 header_size (16..4096), u64 files_size;
//   entries from header_size while offset + 64 <= header_size + files_size:
//     u16 kind (1 PTX, 2 ELF) at +0, u32 header size at +4 (>= 64; nvcc: 80 for PTX, 64 for ELF),
//     u64 payload size at +8, u32 compressed stream size at +16 (0: none given), u32 sm number at
//     +28, u64 flags at +40 (0x2000 LZ4, 0x8000 ZSTD), u64 decompressed size at +56; the payload
//     at offset + header size, the next entry after the payload.
// Where we depart from the contract: a PTX entry flagged LZ4 (or ZSTD) with a decompressed size of
// 0 is corrupt, not stored text (the bridge hashed such bytes as PTX; no writer makes them, and
// hashing compressed bytes is the silent wrong answer this reader exists to prevent); both flags at
// once are corrupt too. Limits (ContainerLimits) count every PTX entry's text, stored or not.
// All arithmetic on sizes read from the input is done after comparing them against what is left,
// so that no lying field can overflow an offset or steer a read out of the span.

namespace d4r::compiler::ptx {

namespace {

uint64_t read_le(std::span<const std::byte> bytes, size_t at, size_t width)
{
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(std::to_integer<uint8_t>(bytes[at + i])) << (8 * i);
  }
  return value;
}

std::string where(int64_t fatbin_offset)
{
  return "ptx: fatbin at offset " + std::to_string(fatbin_offset);
}

std::string where(const FatbinEntry& entry)
{
  return where(entry.fatbin_offset) + ": entry at offset " + std::to_string(entry.offset);
}

std::unexpected<Error> corrupt(std::string message)
{
  return make_error(ErrorCode::corrupt, std::move(message));
}

std::string mib(int64_t bytes)
{
  if (bytes % (1LL << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  return std::to_string(bytes) + " bytes";
}

PtxModule make_module(std::string text)
{
  PtxModule module;
  size_t end = text.find_last_not_of('\0');
  text.resize(end == std::string::npos ? 0 : end + 1);
  module.size = static_cast<int64_t>(text.size());
  module.fnv1a64 = ptx_module_hash(text);
  module.sha256 = sha256(text);
  module.entries = scan_entry_names(text);
  module.text = std::move(text);
  return module;
}

// What one read may still produce: both limits, charged before anything is allocated.
struct Budget {
  ContainerLimits limits;
  int64_t used = 0;
};

Expected<void> charge(Budget& budget, const FatbinEntry& entry, int64_t bytes)
{
  if (bytes > budget.limits.max_entry_bytes) {
    return make_error(ErrorCode::resource_exhausted,
                      where(entry) + ": " + std::to_string(bytes) + " bytes of PTX (" +
                          to_string(entry.compression) + ") are over the " +
                          mib(budget.limits.max_entry_bytes) + " limit for one entry");
  }
  if (bytes > budget.limits.max_total_bytes - budget.used) {
    return make_error(ErrorCode::resource_exhausted,
                      where(entry) + ": its " + std::to_string(bytes) + " bytes of PTX would take " +
                          "the input past the " + mib(budget.limits.max_total_bytes) +
                          " limit on decompressed PTX in all (" + std::to_string(budget.used) +
                          " bytes so far)");
  }
  budget.used += bytes;
  return {};
}

// Only a PTX entry is decompressed, so only its flags have to make sense.
Expected<FatbinCompression> compression_of(const FatbinEntry& entry)
{
  bool lz4 = (entry.flags & k_fatbin_flag_lz4) != 0;
  bool zstd = (entry.flags & k_fatbin_flag_zstd) != 0;
  FatbinCompression compression =
      zstd ? FatbinCompression::zstd : lz4 ? FatbinCompression::lz4 : FatbinCompression::none;
  if (entry.kind != k_fatbin_kind_ptx) {
    return compression;
  }
  if (lz4 && zstd) {
    return corrupt(where(entry) + ": flags 0x" + hash_to_hex(entry.flags) +
                   " ask for both LZ4 and ZSTD");
  }
  if (compression != FatbinCompression::none && entry.decompressed_size == 0) {
    return corrupt(where(entry) + ": a " + (lz4 ? "LZ4" : "ZSTD") +
                   "-compressed entry that states no decompressed size");
  }
  return compression;
}

// The entry header at `at` (relative to the fatbin), checked so that its payload lies before `end`.
Expected<FatbinEntry> read_entry_header(std::span<const std::byte> fatbin, size_t at, size_t end,
                                        int64_t base_offset)
{
  FatbinEntry entry;
  entry.offset = base_offset + static_cast<int64_t>(at);
  entry.fatbin_offset = base_offset;
  entry.kind = static_cast<uint16_t>(read_le(fatbin, at, 2));
  uint64_t header_size = read_le(fatbin, at + 4, 4);
  uint64_t payload_size = read_le(fatbin, at + 8, 8);
  entry.stream_size = static_cast<int64_t>(read_le(fatbin, at + 16, 4));
  entry.arch = static_cast<uint32_t>(read_le(fatbin, at + 28, 4));
  entry.flags = read_le(fatbin, at + 40, 8);
  uint64_t decompressed_size = read_le(fatbin, at + 56, 8);
  size_t left = end - at;
  if (header_size < static_cast<uint64_t>(k_fatbin_entry_header_bytes) || header_size > left) {
    return corrupt(where(entry) + ": header size " + std::to_string(header_size) +
                   " is below 64 or runs past the container (" + std::to_string(left) +
                   " bytes left)");
  }
  if (payload_size > left - header_size) {
    return corrupt(where(entry) + ": payload of " + std::to_string(payload_size) +
                   " bytes runs past the container (" + std::to_string(left - header_size) +
                   " bytes left)");
  }
  if (decompressed_size > static_cast<uint64_t>(INT64_MAX)) {
    return corrupt(where(entry) + ": decompressed size " + std::to_string(decompressed_size) +
                   " is not a size");
  }
  entry.header_size = static_cast<int64_t>(header_size);
  entry.payload_size = static_cast<int64_t>(payload_size);
  entry.decompressed_size = static_cast<int64_t>(decompressed_size);
  TRY_ASSIGN(entry.compression, compression_of(entry));
  return entry;
}

// The PTX module of one entry whose header has been checked.
Expected<PtxModule> read_ptx_entry(std::span<const std::byte> fatbin, const FatbinEntry& entry,
                                   Budget& budget)
{
  size_t payload_at = static_cast<size_t>(entry.offset - entry.fatbin_offset + entry.header_size);
  std::span<const std::byte> payload =
      fatbin.subspan(payload_at, static_cast<size_t>(entry.payload_size));
  std::string text;
  if (entry.compression == FatbinCompression::none) {
    TRY(charge(budget, entry, entry.payload_size));
    text.assign(reinterpret_cast<const char*>(payload.data()), payload.size());
  } else {
    TRY(charge(budget, entry, entry.decompressed_size));
    CompressedPayload compressed{payload, entry.compression,
                                 static_cast<uint64_t>(entry.decompressed_size),
                                 static_cast<uint64_t>(entry.stream_size),
                                 entry.offset + entry.header_size};
    TRY_ASSIGN(text, decompress_payload(compressed, where(entry)));
  }
  PtxModule module = make_module(std::move(text));
  module.container_offset = entry.offset;
  module.fatbin_offset = entry.fatbin_offset;
  module.arch = entry.arch;
  module.compression = entry.compression;
  return module;
}

// The end of the container that starts at fatbin[0], checked against the span.
Expected<size_t> read_container_header(std::span<const std::byte> fatbin, int64_t base_offset)
{
  if (fatbin.size() < static_cast<size_t>(k_fatbin_header_bytes)) {
    return corrupt(where(base_offset) + ": truncated header (" + std::to_string(fatbin.size()) +
                   " of 16 bytes)");
  }
  if (read_le(fatbin, 0, 4) != k_fatbin_magic) {
    return corrupt(where(base_offset) + ": bad magic (not 0xba55ed50)");
  }
  uint64_t version = read_le(fatbin, 4, 2);
  if (version != k_fatbin_version) {
    return corrupt(where(base_offset) + ": unsupported version " + std::to_string(version));
  }
  uint64_t header_size = read_le(fatbin, 6, 2);
  uint64_t files_size = read_le(fatbin, 8, 8);
  if (header_size < static_cast<uint64_t>(k_fatbin_header_bytes) ||
      header_size > static_cast<uint64_t>(k_max_fatbin_header_bytes) ||
      header_size > fatbin.size()) {
    return corrupt(where(base_offset) + ": header size " + std::to_string(header_size) +
                   " is outside 16..4096 or past the end (" + std::to_string(fatbin.size()) +
                   " bytes)");
  }
  if (files_size > fatbin.size() - header_size) {
    return corrupt(where(base_offset) + ": files size " + std::to_string(files_size) +
                   " runs past the end (" + std::to_string(fatbin.size() - header_size) +
                   " bytes left)");
  }
  return static_cast<size_t>(header_size + files_size);
}

// Every entry of the fatbin at fatbin[0], one at a time: PTX to on_module, the rest to on_skipped.
Expected<void> visit_fatbin(std::span<const std::byte> fatbin, int64_t base_offset,
                            const ContainerVisitor& visitor, Budget& budget)
{
  TRY_ASSIGN(size_t end, read_container_header(fatbin, base_offset));
  size_t at = static_cast<size_t>(read_le(fatbin, 6, 2));
  while (end - at >= static_cast<size_t>(k_fatbin_entry_header_bytes)) {
    TRY_ASSIGN(FatbinEntry entry, read_entry_header(fatbin, at, end, base_offset));
    if (entry.kind == k_fatbin_kind_ptx) {
      TRY_ASSIGN(PtxModule module, read_ptx_entry(fatbin, entry, budget));
      TRY(visitor.on_module(std::move(module)));
    } else if (visitor.on_skipped) {
      visitor.on_skipped(entry);
    }
    at += static_cast<size_t>(entry.header_size + entry.payload_size);
  }
  return {};
}

bool starts_with(std::span<const std::byte> input, std::string_view prefix)
{
  return input.size() >= prefix.size() &&
         std::memcmp(input.data(), prefix.data(), prefix.size()) == 0;
}

ContainerVisitor collect_into(std::vector<PtxModule>& modules)
{
  return {[&modules](PtxModule&& module) -> Expected<void> {
            modules.push_back(std::move(module));
            return {};
          },
          {}};
}

} // namespace

const char* to_string(FatbinCompression compression)
{
  switch (compression) {
  case FatbinCompression::none:
    return "none";
  case FatbinCompression::lz4:
    return "lz4";
  case FatbinCompression::zstd:
    return "zstd";
  }
  D4R_UNREACHABLE("every FatbinCompression is named");
}

const char* kind_name(uint16_t kind)
{
  if (kind == k_fatbin_kind_ptx) {
    return "ptx";
  }
  return kind == k_fatbin_kind_elf ? "elf" : "other";
}

Expected<std::vector<PtxModule>> read_fatbin(std::span<const std::byte> fatbin, int64_t base_offset,
                                             const ContainerLimits& limits)
{
  std::vector<PtxModule> modules;
  Budget budget{limits};
  TRY(visit_fatbin(fatbin, base_offset, collect_into(modules), budget));
  return modules;
}

std::vector<FatbinHit> scan_for_fatbins(std::span<const std::byte> image)
{
  static constexpr unsigned char k_magic[] = {0x50, 0xED, 0x55, 0xBA};
  std::vector<FatbinHit> hits;
  size_t at = 0;
  while (image.size() - at >= static_cast<size_t>(k_fatbin_header_bytes)) {
    const void* found = memmem(image.data() + at, image.size() - at, k_magic, sizeof k_magic);
    if (found == nullptr) {
      break;
    }
    at = static_cast<size_t>(static_cast<const std::byte*>(found) - image.data());
    if (image.size() - at < static_cast<size_t>(k_fatbin_header_bytes)) {
      break;
    }
    uint64_t version = read_le(image, at + 4, 2);
    uint64_t header_size = read_le(image, at + 6, 2);
    uint64_t files_size = read_le(image, at + 8, 8);
    size_t left = image.size() - at - static_cast<size_t>(k_fatbin_header_bytes);
    if (version != k_fatbin_version ||
        header_size != static_cast<uint64_t>(k_fatbin_header_bytes) || files_size > left) {
      at += sizeof k_magic;
      continue;
    }
    int64_t size = k_fatbin_header_bytes + static_cast<int64_t>(files_size);
    hits.push_back({static_cast<int64_t>(at), size});
    at += static_cast<size_t>(size);
  }
  return hits;
}

Expected<void> visit_ptx_modules(std::span<const std::byte> input, const ContainerVisitor& visitor,
                                 const ContainerLimits& limits)
{
  Budget budget{limits};
  // A fatbin at offset 0 is read as one, strictly; what follows it (a .nv_fatbin section holds
  // one container per object file, back to back) is scanned like any binary.
  int64_t scan_from = 0;
  if (input.size() >= 4 && read_le(input, 0, 4) == k_fatbin_magic) {
    TRY(visit_fatbin(input, 0, visitor, budget));
    // visit_fatbin checked that header and files fit in the input.
    scan_from = static_cast<int64_t>(read_le(input, 6, 2) + read_le(input, 8, 8));
  }
  std::vector<FatbinHit> hits = scan_for_fatbins(input.subspan(static_cast<size_t>(scan_from)));
  for (const FatbinHit& hit : hits) {
    std::span<const std::byte> fatbin = input.subspan(static_cast<size_t>(scan_from + hit.offset),
                                                      static_cast<size_t>(hit.size));
    TRY(visit_fatbin(fatbin, scan_from + hit.offset, visitor, budget));
  }
  if (scan_from > 0 || !hits.empty()) {
    return {};
  }
  if (starts_with(input, "MZ") || starts_with(input, "\x7f"
                                                     "ELF")) {
    return make_error(ErrorCode::not_found, "ptx: the binary holds no fatbin");
  }
  std::string_view text = ptx_text_of_image(input);
  if (text.empty()) {
    return make_error(ErrorCode::not_found, "ptx: the input holds no PTX text");
  }
  return visitor.on_module(make_module(std::string(text)));
}

Expected<std::vector<PtxModule>> read_ptx_modules(std::span<const std::byte> input,
                                                  const ContainerLimits& limits)
{
  std::vector<PtxModule> modules;
  TRY(visit_ptx_modules(input, collect_into(modules), limits));
  return modules;
}

} // namespace d4r::compiler::ptx
