#include "compiler/ptx/container.hpp"

#include "util/ptx_identity.hpp"

#include <lz4.h>

#include <climits>
#include <cstring>
#include <string_view>

// Fatbin layout (little endian; ../shared/reference/d4r-contract.md, section 1):
//   container header: u32 magic, u16 version (1), u16 header_size (16..4096), u64 files_size;
//   entries from header_size while offset + 64 <= header_size + files_size:
//     u16 kind (1 = PTX) at +0, u32 header size at +4 (>= 64), u64 payload size at +8,
//     u64 flags at +40, u64 decompressed size at +56; payload at offset + header size.
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

std::unexpected<Error> corrupt(std::string message)
{
  return make_error(ErrorCode::corrupt, std::move(message));
}

PtxModule make_module(std::string text)
{
  PtxModule module;
  size_t end = text.find_last_not_of('\0');
  text.resize(end == std::string::npos ? 0 : end + 1);
  module.fnv1a64 = ptx_module_hash(text);
  module.sha256 = sha256(text);
  module.entries = scan_entry_names(text);
  module.text = std::move(text);
  return module;
}

struct EntryHeader {
  uint16_t kind = 0;
  uint64_t header_size = 0;
  uint64_t payload_size = 0;
  uint64_t flags = 0;
  uint64_t decompressed_size = 0;
};

// The entry header at `at`, checked so that its payload lies before `end`.
Expected<EntryHeader> read_entry_header(std::span<const std::byte> fatbin, size_t at, size_t end,
                                        int64_t base_offset)
{
  EntryHeader header;
  header.kind = static_cast<uint16_t>(read_le(fatbin, at, 2));
  header.header_size = read_le(fatbin, at + 4, 4);
  header.payload_size = read_le(fatbin, at + 8, 8);
  header.flags = read_le(fatbin, at + 40, 8);
  header.decompressed_size = read_le(fatbin, at + 56, 8);
  std::string entry = where(base_offset) + ": entry at offset " +
                      std::to_string(base_offset + static_cast<int64_t>(at));
  size_t left = end - at;
  if (header.header_size < k_fatbin_entry_header_bytes || header.header_size > left) {
    return corrupt(entry + ": header size " + std::to_string(header.header_size) +
                   " is below 64 or runs past the container (" + std::to_string(left) +
                   " bytes left)");
  }
  if (header.payload_size > left - header.header_size) {
    return corrupt(entry + ": payload of " + std::to_string(header.payload_size) +
                   " bytes runs past the container (" + std::to_string(left - header.header_size) +
                   " bytes left)");
  }
  return header;
}

Expected<std::string> decompress(std::span<const std::byte> payload, uint64_t decompressed_size,
                                 const std::string& entry)
{
  if (decompressed_size > static_cast<uint64_t>(k_max_decompressed_bytes)) {
    return corrupt(entry + ": decompressed size " + std::to_string(decompressed_size) +
                   " is over the 256 MiB limit");
  }
  if (payload.size() > static_cast<size_t>(INT_MAX)) {
    return corrupt(entry + ": LZ4 payload of " + std::to_string(payload.size()) +
                   " bytes is too large");
  }
  std::string text(decompressed_size, '\0');
  int produced =
      LZ4_decompress_safe(reinterpret_cast<const char*>(payload.data()), text.data(),
                          static_cast<int>(payload.size()), static_cast<int>(decompressed_size));
  if (produced < 0 || static_cast<uint64_t>(produced) != decompressed_size) {
    return corrupt(entry + ": LZ4 payload does not decompress to the " +
                   std::to_string(decompressed_size) + " bytes its header states");
  }
  return text;
}

// The PTX module of one entry whose header has been checked.
Expected<PtxModule> read_ptx_entry(std::span<const std::byte> fatbin, size_t at,
                                   const EntryHeader& header, int64_t base_offset)
{
  std::span<const std::byte> payload = fatbin.subspan(at + header.header_size, header.payload_size);
  bool compressed = (header.flags & k_fatbin_flag_lz4) != 0 && header.decompressed_size != 0;
  std::string text;
  if (compressed) {
    std::string entry = where(base_offset) + ": entry at offset " +
                        std::to_string(base_offset + static_cast<int64_t>(at));
    TRY_ASSIGN(text, decompress(payload, header.decompressed_size, entry));
  } else {
    text.assign(reinterpret_cast<const char*>(payload.data()), payload.size());
  }
  PtxModule module = make_module(std::move(text));
  module.container_offset = base_offset + static_cast<int64_t>(at);
  module.fatbin_offset = base_offset;
  module.compressed = compressed;
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

bool starts_with(std::span<const std::byte> input, std::string_view prefix)
{
  return input.size() >= prefix.size() &&
         std::memcmp(input.data(), prefix.data(), prefix.size()) == 0;
}

} // namespace

Expected<std::vector<PtxModule>> read_fatbin(std::span<const std::byte> fatbin, int64_t base_offset)
{
  TRY_ASSIGN(size_t end, read_container_header(fatbin, base_offset));
  std::vector<PtxModule> modules;
  size_t at = static_cast<size_t>(read_le(fatbin, 6, 2));
  while (end - at >= static_cast<size_t>(k_fatbin_entry_header_bytes)) {
    TRY_ASSIGN(EntryHeader header, read_entry_header(fatbin, at, end, base_offset));
    if (header.kind == k_fatbin_kind_ptx) {
      TRY_ASSIGN(PtxModule module, read_ptx_entry(fatbin, at, header, base_offset));
      modules.push_back(std::move(module));
    }
    at += header.header_size + header.payload_size;
  }
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

Expected<std::vector<PtxModule>> read_ptx_modules(std::span<const std::byte> input)
{
  if (input.size() >= 4 && read_le(input, 0, 4) == k_fatbin_magic) {
    return read_fatbin(input, 0);
  }
  std::vector<FatbinHit> hits = scan_for_fatbins(input);
  std::vector<PtxModule> modules;
  for (const FatbinHit& hit : hits) {
    std::span<const std::byte> fatbin =
        input.subspan(static_cast<size_t>(hit.offset), static_cast<size_t>(hit.size));
    TRY_ASSIGN(std::vector<PtxModule> found, read_fatbin(fatbin, hit.offset));
    for (PtxModule& module : found) {
      modules.push_back(std::move(module));
    }
  }
  if (!hits.empty()) {
    return modules;
  }
  if (starts_with(input, "MZ") || starts_with(input, "\x7f"
                                                     "ELF")) {
    return make_error(ErrorCode::not_found, "ptx: the binary holds no fatbin");
  }
  std::string_view text = ptx_text_of_image(input);
  if (text.empty()) {
    return make_error(ErrorCode::not_found, "ptx: the input holds no PTX text");
  }
  modules.push_back(make_module(std::string(text)));
  return modules;
}

} // namespace d4r::compiler::ptx
