// d4r-make-fatbin: writes a CUDA fatbin in the layout d4r's bridge reads
// (../shared/reference/d4r-contract.md, section 1), from our own PTX, so that the container reader
// is tested on inputs that no NVIDIA tool made.
//
//   d4r-make-fatbin OUT [--lz4 | --plain | --cubin N | --huge N | PTX]...
//
// Arguments are read in order: --lz4 compresses the PTX files that follow (LZ4_compress_default),
// --plain stops compressing, --cubin N adds a kind-2 (ELF) entry of N filler bytes that a PTX reader
// must skip, --huge N adds a PTX entry of N bytes (a one-line kernel `huge_K`, K counting from 1,
// then newlines) laid out as nvcc 13 writes LZ4 with --compress-mode=speed: an 80-byte header, the
// block's size at +16, the block padded with zeros to a multiple of 8; it is how the limits test
// makes entries that really expand to hundreds of MiB from a file of a few MiB. Otherwise the layout
// written, all little endian:
//   header (16 bytes): u32 magic 0xBA55ED50, u16 version 1, u16 header size 16, u64 size of the
//   entries that follow;
//   each entry: a 64-byte header, then the payload. Header fields: u16 kind (1 PTX, 2 ELF) at +0,
//   u16 1 at +2, u32 header size 64 at +4, u64 payload size at +8, u16 PTX minor / major version at
//   +24 / +26, u32 sm number at +28 (from `.target sm_XX`), u64 flags at +40 (0x1 = 64-bit, plus
//   0x2000 when LZ4-compressed), u64 decompressed size at +56 (0 when not compressed).
//   PTX payload, plain: the text, a NUL, then NULs up to a multiple of 8 bytes (the trailing NULs
//   that the module hash removes). PTX payload, compressed: one raw LZ4 block of the text and its
//   NUL, with no padding, so that payload size is the exact compressed size; the decompressed size is
//   the text length plus one.

#include "tests/tools/fixture_bytes.hpp"

#include <lz4.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

namespace {

using d4r::fixture::Bytes;

constexpr uint32_t k_fatbin_magic = 0xBA55ED50u;
constexpr int64_t k_fatbin_header_size = 16;
constexpr int64_t k_entry_header_size = 64;
constexpr uint64_t k_flag_64bit = 0x1;
constexpr uint64_t k_flag_lz4 = 0x2000;
constexpr uint16_t k_kind_ptx = 1;
constexpr uint16_t k_kind_elf = 2;

struct PtxVersion {
  uint16_t major = 0;
  uint16_t minor = 0;
  uint32_t sm = 0;
};

// Reads `.version X.Y` and `.target sm_NN` for the informational header fields.
PtxVersion ptx_version_of(std::string_view text)
{
  PtxVersion version;
  if (size_t at = text.find(".version "); at != std::string_view::npos) {
    unsigned major = 0;
    unsigned minor = 0;
    if (std::sscanf(std::string(text.substr(at + 9, 8)).c_str(), "%u.%u", &major, &minor) == 2) {
      version.major = static_cast<uint16_t>(major);
      version.minor = static_cast<uint16_t>(minor);
    }
  }
  if (size_t at = text.find(".target sm_"); at != std::string_view::npos) {
    unsigned sm = 0;
    if (std::sscanf(std::string(text.substr(at + 11, 8)).c_str(), "%u", &sm) == 1) {
      version.sm = sm;
    }
  }
  return version;
}

void append_entry(Bytes& out, uint16_t kind, const PtxVersion& version, uint64_t flags,
                  uint64_t decompressed_size, const Bytes& payload,
                  int64_t header_size = k_entry_header_size, uint64_t stream_size = 0)
{
  const int64_t at = static_cast<int64_t>(out.size());
  out.resize(out.size() + static_cast<size_t>(header_size));
  d4r::fixture::put_le(out, at + 0, kind, 2);
  d4r::fixture::put_le(out, at + 2, 1, 2);
  d4r::fixture::put_le(out, at + 4, static_cast<uint64_t>(header_size), 4);
  d4r::fixture::put_le(out, at + 8, payload.size(), 8);
  d4r::fixture::put_le(out, at + 16, stream_size, 4);
  d4r::fixture::put_le(out, at + 24, version.minor, 2);
  d4r::fixture::put_le(out, at + 26, version.major, 2);
  d4r::fixture::put_le(out, at + 28, version.sm, 4);
  d4r::fixture::put_le(out, at + 40, flags, 8);
  d4r::fixture::put_le(out, at + 56, decompressed_size, 8);
  out.insert(out.end(), payload.begin(), payload.end());
}

d4r::Expected<Bytes> lz4_block(const Bytes& text)
{
  const int bound = LZ4_compressBound(static_cast<int>(text.size()));
  Bytes packed(static_cast<size_t>(bound));
  const int packed_size =
      LZ4_compress_default(reinterpret_cast<const char*>(text.data()),
                           reinterpret_cast<char*>(packed.data()), static_cast<int>(text.size()), bound);
  if (packed_size <= 0) {
    return d4r::make_error(d4r::ErrorCode::internal, "make-fatbin: lz4 compression failed");
  }
  packed.resize(static_cast<size_t>(packed_size));
  return packed;
}

// --huge N: N bytes of PTX (its NUL included) in nvcc's padded LZ4 layout.
d4r::Expected<void> append_huge(Bytes& out, int64_t size, int number)
{
  const std::string head = ".version 8.0\n.target sm_86\n.address_size 64\n.visible .entry huge_" +
                           std::to_string(number) + "()\n{\nret;\n}\n";
  if (size < static_cast<int64_t>(head.size()) + 1 || size > (1LL << 30)) {
    return d4r::make_error(d4r::ErrorCode::invalid_argument, "make-fatbin: --huge size out of range");
  }
  Bytes text(static_cast<size_t>(size), '\n');
  std::copy(head.begin(), head.end(), text.begin());
  text.back() = 0;
  TRY_ASSIGN(Bytes block, lz4_block(text));
  const uint64_t stream_size = block.size();
  block.resize((block.size() + 7) / 8 * 8, 0);
  append_entry(out, k_kind_ptx, PtxVersion{8, 0, 86}, k_flag_64bit | k_flag_lz4, text.size(), block,
               80, stream_size);
  return {};
}

d4r::Expected<void> append_ptx(Bytes& out, const std::string& path, bool compress)
{
  TRY_ASSIGN(Bytes text, d4r::fixture::read_file(path));
  const PtxVersion version = ptx_version_of(
      std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  text.push_back(0);
  if (!compress) {
    text.resize((text.size() + 7) / 8 * 8, 0);
    append_entry(out, k_kind_ptx, version, k_flag_64bit, 0, text);
    return {};
  }
  TRY_ASSIGN(Bytes packed, lz4_block(text));
  append_entry(out, k_kind_ptx, version, k_flag_64bit | k_flag_lz4, text.size(), packed);
  return {};
}

// A stand-in for an SASS entry: "\x7fELF" and filler a PTX reader must skip.
void append_cubin(Bytes& out, int64_t size)
{
  Bytes payload(static_cast<size_t>(size), 0x5a);
  const char elf[4] = {0x7f, 'E', 'L', 'F'};
  for (int64_t i = 0; i < size && i < 4; ++i) {
    payload[static_cast<size_t>(i)] = static_cast<unsigned char>(elf[i]);
  }
  append_entry(out, k_kind_elf, PtxVersion{0, 0, 86}, k_flag_64bit, 0, payload);
}

d4r::Expected<Bytes> build(int argc, char** argv)
{
  Bytes out(static_cast<size_t>(k_fatbin_header_size), 0);
  bool compress = false;
  int huge_count = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--lz4" || arg == "--plain") {
      compress = arg == "--lz4";
    } else if ((arg == "--cubin" || arg == "--huge") && i + 1 < argc) {
      const std::string_view count = argv[++i];
      int64_t size = 0;
      const std::from_chars_result parsed = std::from_chars(count.data(), count.data() + count.size(), size);
      if (parsed.ec != std::errc() || parsed.ptr != count.data() + count.size() || size < 0) {
        return d4r::make_error(d4r::ErrorCode::invalid_argument,
                               "make-fatbin: bad " + std::string(arg) + " size " + std::string(count));
      }
      if (arg == "--cubin") {
        append_cubin(out, size);
      } else {
        TRY(append_huge(out, size, ++huge_count));
      }
    } else if (arg.starts_with("-")) {
      return d4r::make_error(d4r::ErrorCode::invalid_argument, "make-fatbin: unknown option " + std::string(arg));
    } else {
      TRY(append_ptx(out, std::string(arg), compress));
    }
  }
  d4r::fixture::put_le(out, 0, k_fatbin_magic, 4);
  d4r::fixture::put_le(out, 4, 1, 2);
  d4r::fixture::put_le(out, 6, k_fatbin_header_size, 2);
  d4r::fixture::put_le(out, 8, out.size() - static_cast<size_t>(k_fatbin_header_size), 8);
  return out;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 3) {
    std::fprintf(stderr, "usage: d4r-make-fatbin OUT [--lz4 | --plain | --cubin N | --huge N | PTX]...\n");
    return 2;
  }
  d4r::Expected<Bytes> fatbin = build(argc, argv);
  if (!fatbin) {
    std::fprintf(stderr, "%s\n", fatbin.error().message.c_str());
    return 1;
  }
  if (d4r::Expected<void> written = d4r::fixture::write_file(argv[1], *fatbin); !written) {
    std::fprintf(stderr, "make-fatbin: %s\n", written.error().message.c_str());
    return 1;
  }
  return 0;
}
