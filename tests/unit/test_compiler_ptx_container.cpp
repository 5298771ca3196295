#include "compiler/ptx/container.hpp"

#include "tests/support/read_file.hpp"

#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

namespace d4r::compiler::ptx {
namespace {

// Independently computed (tests/ptx/README.md, a Python loop over the file bytes).
constexpr const char* k_sr_fnv = "8baeb925f177af87";
constexpr const char* k_sr_sha256 =
    "2494466885b810b12c616b284b338d101fcbe14bca06ef004d21052650471410";
constexpr const char* k_rr_fnv = "26332c9543501ce9";
constexpr const char* k_rr_sha256 =
    "61c785501166158aa5ab2cd1745ed5fd6a95e2161d51eac839d1efda2e3ac175";

using Bytes = std::vector<std::byte>;

using d4r::testing::read_file;

std::string sr_text()
{
  return read_file(D4R_TEST_SOURCE_DIR "/ptx/sr_module.ptx");
}

std::string rr_text()
{
  return read_file(D4R_TEST_SOURCE_DIR "/ptx/rr_module.ptx");
}

void put_le(Bytes& out, size_t at, uint64_t value, size_t width)
{
  for (size_t i = 0; i < width; ++i) {
    out[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
  }
}

void append(Bytes& out, std::string_view text)
{
  const std::byte* data = reinterpret_cast<const std::byte*>(text.data());
  out.insert(out.end(), data, data + text.size());
}

constexpr FatbinCompression k_none = FatbinCompression::none;
constexpr FatbinCompression k_lz4 = FatbinCompression::lz4;
constexpr FatbinCompression k_zstd = FatbinCompression::zstd;

struct TestEntry {
  uint16_t kind = k_fatbin_kind_ptx;
  std::string text;
  FatbinCompression compression = k_none;
  int64_t header_size = 64;
  // As nvcc 13 writes a compressed entry: the stream's size at +16, then zeros up to a multiple
  // of 8. Without it, the payload is the bare stream (d4r's layout).
  bool nvcc_padding = false;
  uint32_t arch = 0;
};

std::string compress(const std::string& text, FatbinCompression compression)
{
  if (compression == k_lz4) {
    std::string packed(static_cast<size_t>(LZ4_compressBound(static_cast<int>(text.size()))), '\0');
    int size = LZ4_compress_default(text.data(), packed.data(), static_cast<int>(text.size()),
                                    static_cast<int>(packed.size()));
    packed.resize(static_cast<size_t>(size));
    return packed;
  }
  std::string packed(ZSTD_compressBound(text.size()), '\0');
  size_t size = ZSTD_compress(packed.data(), packed.size(), text.data(), text.size(), 3);
  packed.resize(size);
  return packed;
}

// Our own writer for the contract layout and nvcc's (the corpus tool d4r-make-fatbin writes the
// former). Uncompressed payloads are padded with NULs to 16 bytes, as real fatbins are.
Bytes make_fatbin(const std::vector<TestEntry>& entries)
{
  Bytes out(16);
  for (const TestEntry& entry : entries) {
    std::string payload = entry.text;
    uint64_t stream_size = 0;
    if (entry.compression != k_none) {
      payload = compress(entry.text, entry.compression);
      if (entry.nvcc_padding) {
        stream_size = payload.size();
        payload.append((8 - payload.size() % 8) % 8, '\0');
      }
    } else {
      payload.append((16 - payload.size() % 16) % 16, '\0');
    }
    size_t at = out.size();
    out.resize(at + static_cast<size_t>(entry.header_size));
    put_le(out, at, entry.kind, 2);
    put_le(out, at + 4, static_cast<uint64_t>(entry.header_size), 4);
    put_le(out, at + 8, payload.size(), 8);
    put_le(out, at + 16, stream_size, 4);
    put_le(out, at + 28, entry.arch, 4);
    uint64_t flags = entry.compression == k_lz4    ? k_fatbin_flag_lz4
                     : entry.compression == k_zstd ? k_fatbin_flag_zstd
                                                   : 0;
    put_le(out, at + 40, flags, 8);
    put_le(out, at + 56, entry.compression != k_none ? entry.text.size() : 0, 8);
    append(out, payload);
  }
  put_le(out, 0, k_fatbin_magic, 4);
  put_le(out, 4, 1, 2);
  put_le(out, 6, 16, 2);
  put_le(out, 8, out.size() - 16, 8);
  return out;
}

// sr uncompressed, a cubin-kind entry that must be skipped, rr compressed.
Bytes two_module_fatbin()
{
  return make_fatbin({{k_fatbin_kind_ptx, sr_text(), k_none},
                      {2, std::string(40, 'x'), k_none},
                      {k_fatbin_kind_ptx, rr_text(), k_lz4}});
}

// Entry offsets of two_module_fatbin(), in order.
size_t first_entry_at()
{
  return 16;
}

size_t rr_entry_at()
{
  size_t cubin_at = first_entry_at() + 64 + (sr_text().size() + 15) / 16 * 16;
  return cubin_at + 64 + 48; // the cubin's 40 bytes, padded to 48
}

void expect_error(const Expected<std::vector<PtxModule>>& result, ErrorCode code,
                  const std::string& needle)
{
  ASSERT_FALSE(result.has_value()) << "expected an error containing '" << needle << "'";
  EXPECT_EQ(result.error().code, code) << result.error().message;
  EXPECT_NE(result.error().message.find(needle), std::string::npos) << result.error().message;
}

void expect_corrupt(const Expected<std::vector<PtxModule>>& result, const std::string& needle)
{
  expect_error(result, ErrorCode::corrupt, needle);
}

TEST(PtxContainer, PlainTextIsOneModule)
{
  std::string text = sr_text();
  ASSERT_FALSE(text.empty());
  Expected<std::vector<PtxModule>> modules =
      read_ptx_modules({reinterpret_cast<const std::byte*>(text.data()), text.size()});
  ASSERT_TRUE(modules.has_value()) << modules.error().message;
  ASSERT_EQ(modules->size(), 1u);
  const PtxModule& module = modules->front();
  EXPECT_EQ(hash_to_hex(module.fnv1a64), k_sr_fnv);
  EXPECT_EQ(to_hex(module.sha256), k_sr_sha256);
  EXPECT_EQ(module.entries,
            (std::vector<std::string>{"d4r_test_layer", "d4r_test_simple", "rrlite_enc1_4x4",
                                      "rrlite_enc2_4x4", "dl4rt_input_kernel"}));
  EXPECT_EQ(module.container_offset, -1);
  EXPECT_EQ(module.fatbin_offset, -1);
  EXPECT_EQ(module.compression, k_none);
  EXPECT_EQ(module.arch, 0u);
  EXPECT_EQ(module.text, text);
  EXPECT_EQ(module.size, static_cast<int64_t>(text.size()));
}

TEST(PtxContainer, TextIsHashedUpToItsFirstNul)
{
  std::string image = rr_text() + std::string("\0garbage after the module", 25);
  Expected<std::vector<PtxModule>> modules =
      read_ptx_modules({reinterpret_cast<const std::byte*>(image.data()), image.size()});
  ASSERT_TRUE(modules.has_value()) << modules.error().message;
  ASSERT_EQ(modules->size(), 1u);
  EXPECT_EQ(hash_to_hex(modules->front().fnv1a64), k_rr_fnv);
}

TEST(PtxContainer, ReadsPlainAndLz4EntriesAndSkipsCubins)
{
  Bytes fatbin = two_module_fatbin();
  Expected<std::vector<PtxModule>> modules = read_ptx_modules(fatbin);
  ASSERT_TRUE(modules.has_value()) << modules.error().message;
  ASSERT_EQ(modules->size(), 2u);
  const PtxModule& sr = (*modules)[0];
  const PtxModule& rr = (*modules)[1];
  EXPECT_EQ(hash_to_hex(sr.fnv1a64), k_sr_fnv); // the NUL padding is not hashed
  EXPECT_EQ(to_hex(sr.sha256), k_sr_sha256);
  EXPECT_EQ(sr.compression, k_none);
  EXPECT_EQ(sr.container_offset, static_cast<int64_t>(first_entry_at()));
  EXPECT_EQ(sr.fatbin_offset, 0);
  EXPECT_EQ(sr.entries.size(), 5u);
  EXPECT_EQ(hash_to_hex(rr.fnv1a64), k_rr_fnv);
  EXPECT_EQ(to_hex(rr.sha256), k_rr_sha256);
  EXPECT_EQ(rr.compression, k_lz4);
  EXPECT_EQ(rr.container_offset, static_cast<int64_t>(rr_entry_at()));
  EXPECT_EQ(rr.entries,
            (std::vector<std::string>{"cuda_dldn_engine_test_kernel", "dl4rt_input_kernel"}));
  EXPECT_EQ(rr.text, rr_text());
}

TEST(PtxContainer, BaseOffsetShiftsOffsetsAndMessages)
{
  Bytes fatbin = make_fatbin({{k_fatbin_kind_ptx, rr_text(), k_lz4}});
  Expected<std::vector<PtxModule>> modules = read_fatbin(fatbin, 1001);
  ASSERT_TRUE(modules.has_value()) << modules.error().message;
  EXPECT_EQ(modules->front().fatbin_offset, 1001);
  EXPECT_EQ(modules->front().container_offset, 1017);
  put_le(fatbin, 16 + 8, fatbin.size(), 8); // payload size past the end
  expect_corrupt(read_fatbin(fatbin, 1001), "fatbin at offset 1001: entry at offset 1017");
}

// Every prefix of a valid fatbin, in a buffer of exactly that size (so that a sanitizer build
// catches any read past it): the container header then claims more than is there.
TEST(PtxContainer, EveryTruncationIsCorrupt)
{
  Bytes fatbin =
      make_fatbin({{k_fatbin_kind_ptx, "ab", k_none}, {k_fatbin_kind_ptx, rr_text(), k_lz4}});
  for (size_t length = 0; length < fatbin.size(); ++length) {
    std::unique_ptr<std::byte[]> copy(new std::byte[length + 1]);
    std::memcpy(copy.get(), fatbin.data(), length);
    Expected<std::vector<PtxModule>> result = read_fatbin({copy.get(), length});
    ASSERT_FALSE(result.has_value()) << "a prefix of " << length << " bytes was accepted";
    EXPECT_EQ(result.error().code, ErrorCode::corrupt) << length;
  }
}

// The same prefixes with files_size rewritten to match: now the entries themselves are cut, and
// each result is either an error or only modules that are whole.
TEST(PtxContainer, EveryTruncationWithAConsistentHeaderStaysInBounds)
{
  std::string rr = rr_text();
  Bytes fatbin = make_fatbin({{k_fatbin_kind_ptx, "ab", k_none}, {k_fatbin_kind_ptx, rr, k_lz4}});
  int64_t errors = 0;
  for (size_t length = 16; length < fatbin.size(); ++length) {
    Bytes copy(fatbin.begin(), fatbin.begin() + static_cast<std::ptrdiff_t>(length));
    put_le(copy, 8, length - 16, 8);
    Expected<std::vector<PtxModule>> result = read_fatbin(copy);
    if (!result) {
      EXPECT_EQ(result.error().code, ErrorCode::corrupt) << length;
      ++errors;
      continue;
    }
    for (const PtxModule& module : *result) {
      EXPECT_TRUE(module.text == "ab" || module.text == rr) << length;
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(PtxContainer, WrongMagicAndVersion)
{
  Bytes fatbin = two_module_fatbin();
  Bytes bad_magic = fatbin;
  bad_magic[0] = std::byte{0x51};
  expect_corrupt(read_fatbin(bad_magic), "bad magic");
  Bytes bad_version = fatbin;
  put_le(bad_version, 4, 2, 2);
  expect_corrupt(read_fatbin(bad_version), "unsupported version 2");
  // The fatbin magic at offset 0 decides the kind: a bad version is not read as text.
  expect_corrupt(read_ptx_modules(bad_version), "fatbin at offset 0");
}

TEST(PtxContainer, ContainerHeaderSizeLies)
{
  Bytes fatbin = two_module_fatbin();
  for (uint64_t header_size : {0u, 8u, 15u, 4097u, 65535u}) {
    Bytes copy = fatbin;
    put_le(copy, 6, header_size, 2);
    expect_corrupt(read_fatbin(copy), "header size " + std::to_string(header_size));
  }
  Bytes tiny = make_fatbin({});
  put_le(tiny, 6, 64, 2); // within 16..4096, but past the 16 bytes there are
  expect_corrupt(read_fatbin(tiny), "header size 64");
}

TEST(PtxContainer, EntryHeaderSizeLies)
{
  Bytes fatbin = two_module_fatbin();
  for (uint64_t header_size : {0ull, 32ull, 63ull, 1ull << 31, 0xffffffffull}) {
    Bytes copy = fatbin;
    put_le(copy, first_entry_at() + 4, header_size, 4);
    expect_corrupt(read_fatbin(copy), "entry at offset 16: header size");
  }
}

TEST(PtxContainer, PayloadSizePastTheEnd)
{
  Bytes fatbin = two_module_fatbin();
  size_t rr_at = rr_entry_at();
  for (uint64_t payload_size : {uint64_t{fatbin.size()}, uint64_t{1} << 40, ~uint64_t{0}}) {
    Bytes copy = fatbin;
    put_le(copy, rr_at + 8, payload_size, 8);
    expect_corrupt(read_fatbin(copy), "entry at offset " + std::to_string(rr_at) + ": payload of");
  }
}

TEST(PtxContainer, DecompressedSizeOverTheLimit)
{
  Bytes fatbin = two_module_fatbin();
  Bytes copy = fatbin;
  put_le(copy, rr_entry_at() + 56, (256ull << 20) + 1, 8);
  expect_error(read_fatbin(copy), ErrorCode::resource_exhausted,
               "entry at offset " + std::to_string(rr_entry_at()) + ": 268435457 bytes of PTX (lz4) " +
                   "are over the 256 MiB limit for one entry");
}

TEST(PtxContainer, Lz4GarbageAndWrongDecompressedSize)
{
  Bytes fatbin = two_module_fatbin();
  size_t rr_at = rr_entry_at();
  Bytes garbage = fatbin;
  for (size_t i = rr_at + 64; i < garbage.size(); ++i) {
    garbage[i] = std::byte{0xff};
  }
  expect_corrupt(read_fatbin(garbage), "LZ4 block does not end after the");
  Bytes too_long = fatbin;
  put_le(too_long, rr_at + 56, rr_text().size() + 1, 8);
  expect_corrupt(read_fatbin(too_long), "LZ4 block does not end after the");
  Bytes too_short = fatbin;
  put_le(too_short, rr_at + 56, rr_text().size() - 1, 8);
  expect_corrupt(read_fatbin(too_short), "LZ4 block does not end after the");
}

// A PE-looking blob: "MZ", junk, a decoy magic with a bad version, two fatbins at odd offsets.
Bytes pe_like_blob(size_t& first_at, size_t& second_at)
{
  Bytes blob(1001, std::byte{0x90});
  blob[0] = std::byte{'M'};
  blob[1] = std::byte{'Z'};
  put_le(blob, 501, k_fatbin_magic, 4); // decoy: version 0
  first_at = blob.size();
  Bytes first = make_fatbin({{k_fatbin_kind_ptx, sr_text(), k_lz4}});
  blob.insert(blob.end(), first.begin(), first.end());
  blob.resize(4099, std::byte{0x00});
  second_at = blob.size();
  Bytes second = make_fatbin({{k_fatbin_kind_ptx, rr_text(), k_none}});
  blob.insert(blob.end(), second.begin(), second.end());
  blob.resize(blob.size() + 333, std::byte{0xcc});
  return blob;
}

TEST(PtxContainer, FindsFatbinsInsideABinary)
{
  size_t first_at = 0;
  size_t second_at = 0;
  Bytes blob = pe_like_blob(first_at, second_at);
  std::vector<FatbinHit> hits = scan_for_fatbins(blob);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].offset, static_cast<int64_t>(first_at));
  EXPECT_EQ(hits[1].offset, static_cast<int64_t>(second_at));
  Expected<std::vector<PtxModule>> modules = read_ptx_modules(blob);
  ASSERT_TRUE(modules.has_value()) << modules.error().message;
  ASSERT_EQ(modules->size(), 2u);
  EXPECT_EQ(hash_to_hex((*modules)[0].fnv1a64), k_sr_fnv);
  EXPECT_EQ((*modules)[0].compression, k_lz4);
  EXPECT_EQ((*modules)[0].fatbin_offset, static_cast<int64_t>(first_at));
  EXPECT_EQ((*modules)[0].container_offset, static_cast<int64_t>(first_at + 16));
  EXPECT_EQ(hash_to_hex((*modules)[1].fnv1a64), k_rr_fnv);
  EXPECT_EQ((*modules)[1].compression, k_none);
  EXPECT_EQ((*modules)[1].fatbin_offset, static_cast<int64_t>(second_at));
}

TEST(PtxContainer, ABrokenEmbeddedFatbinNamesItsOffset)
{
  size_t first_at = 0;
  size_t second_at = 0;
  Bytes blob = pe_like_blob(first_at, second_at);
  put_le(blob, second_at + 16 + 4, 32, 4); // entry header size below 64
  expect_corrupt(read_ptx_modules(blob), "fatbin at offset " + std::to_string(second_at));
}

TEST(PtxContainer, ScanSkipsMagicsThatDoNotFit)
{
  Bytes blob(100, std::byte{0});
  put_le(blob, 3, k_fatbin_magic, 4);
  put_le(blob, 7, 1, 2);
  put_le(blob, 9, 16, 2);
  put_le(blob, 11, 100, 8); // 16 + 100 bytes do not fit in what is left
  put_le(blob, 40, k_fatbin_magic, 4);
  put_le(blob, 44, 1, 2);
  put_le(blob, 46, 32, 2); // header size 32: the scan accepts only 16
  EXPECT_TRUE(scan_for_fatbins(blob).empty());
  put_le(blob, 11, 100 - 3 - 16, 8); // now it ends exactly at the end of the blob
  std::vector<FatbinHit> hits = scan_for_fatbins(blob);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].offset, 3);
  EXPECT_EQ(hits[0].size, 97);
}

TEST(PtxContainer, BinaryWithoutFatbinOrEmptyInputIsNotFound)
{
  Bytes pe(200, std::byte{0x41});
  pe[0] = std::byte{'M'};
  pe[1] = std::byte{'Z'};
  Expected<std::vector<PtxModule>> result = read_ptx_modules(pe);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::not_found);
  Bytes empty;
  result = read_ptx_modules(empty);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::not_found);
}

} // namespace
} // namespace d4r::compiler::ptx

namespace d4r::compiler::ptx {
namespace {

// The reader against the corpus helper's independent writers: the synthetic DLL built at build
// time (tests/tools/make_pe.cpp) holds three fatbins at odd offsets, decoy magics included, and
// 13 PTX modules in all (4 plain, 4 LZ4, 5 in the mixed one around two cubins).
TEST(PtxContainerFixtures, SyntheticDllYieldsEveryCorpusModule)
{
  std::ifstream in(D4R_BINARY_DIR "/fixtures/ptx/game.dll", std::ios::binary);
  std::string dll((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(dll.empty());
  Expected<std::vector<PtxModule>> modules =
      read_ptx_modules({reinterpret_cast<const std::byte*>(dll.data()), dll.size()});
  ASSERT_TRUE(modules) << modules.error().message;
  ASSERT_EQ(modules->size(), 13u);
  std::vector<int64_t> fatbins;
  for (const PtxModule& module : *modules) {
    if (fatbins.empty() || fatbins.back() != module.fatbin_offset) {
      fatbins.push_back(module.fatbin_offset);
    }
    EXPECT_EQ(module.fnv1a64, ptx_module_hash(module.text));
    EXPECT_EQ(module.sha256, sha256(std::string_view(module.text)));
    EXPECT_FALSE(module.entries.empty());
  }
  std::vector<int64_t> expected = {5139, 30453, 159495}; // build/fixtures/ptx/game.dll.map
  EXPECT_EQ(fatbins, expected);
  // The plain fatbin's last module is sr_module.ptx, the mixed one's third is rr_module.ptx.
  EXPECT_EQ(hash_to_hex((*modules)[3].fnv1a64), "8baeb925f177af87");
  EXPECT_EQ(hash_to_hex((*modules)[10].fnv1a64), "26332c9543501ce9");
  EXPECT_EQ((*modules)[3].compression, k_none);
  EXPECT_EQ((*modules)[4].compression, k_lz4);
}

} // namespace
} // namespace d4r::compiler::ptx

namespace d4r::compiler::ptx {
namespace {

// Fatbins that nvcc 13 wrote from our own tests/fixtures/fatbin/fatbin_kernels.cu
// (regenerate.sh there); the hashes were computed independently by a Python loop over the
// decompressed bytes (tests/fixtures/fatbin/README.md).
constexpr const char* k_kernels_fnv = "82ae23aab5d00154";
constexpr const char* k_kernels_sha256 =
    "260124e3664525141759f673b5bb9ed354d186e379b67bed68c8cffa03d0477e";
constexpr const char* k_short_sm80_fnv = "499dc26a793a24d4";
constexpr const char* k_short_sm90_fnv = "f66045ac7d23f1e3";

std::string nvcc_fixture_path(const std::string& name)
{
  return D4R_TEST_SOURCE_DIR "/fixtures/fatbin/" + name;
}

Bytes nvcc_fixture(const std::string& name)
{
  std::string text = read_file(nvcc_fixture_path(name));
  const std::byte* data = reinterpret_cast<const std::byte*>(text.data());
  return Bytes(data, data + text.size());
}

// What fatbinary does to `nvcc -ptx`'s text before it stores it (seen on every fixture): each
// line loses its `//` comment, runs of blanks become one space, and leading and trailing blanks
// go; the lines themselves stay.
std::string fatbinary_text(const std::string& ptx)
{
  std::string out;
  std::istringstream lines(ptx);
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find("//"));
    std::string packed;
    for (char c : line) {
      bool blank = c == ' ' || c == '\t';
      if (!blank) {
        packed += c;
      } else if (!packed.empty() && packed.back() != ' ') {
        packed += ' ';
      }
    }
    if (!packed.empty() && packed.back() == ' ') {
      packed.pop_back();
    }
    out += (first ? "" : "\n") + packed;
    first = false;
  }
  return out + (ptx.ends_with('\n') ? "\n" : "");
}

struct Visited {
  std::vector<PtxModule> modules;
  std::vector<FatbinEntry> skipped;
};

Expected<Visited> visit_all(std::span<const std::byte> input, const ContainerLimits& limits = {})
{
  Visited visited;
  ContainerVisitor visitor{[&visited](PtxModule&& module) -> Expected<void> {
                             visited.modules.push_back(std::move(module));
                             return {};
                           },
                           [&visited](const FatbinEntry& entry) {
                             visited.skipped.push_back(entry);
                           }};
  TRY(visit_ptx_modules(input, visitor, limits));
  return visited;
}

TEST(PtxContainerNvcc, EveryCompressionModeYieldsTheUncompressedModule)
{
  const std::string nvcc_ptx = read_file(nvcc_fixture_path("fatbin_kernels.sm_86.ptx"));
  ASSERT_FALSE(nvcc_ptx.empty());
  const std::vector<std::string> entries = scan_entry_names(nvcc_ptx);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].size(), 1527u);
  const std::pair<const char*, FatbinCompression> modes[] = {
      {"none", k_none}, {"default", k_zstd}, {"size", k_zstd}, {"balance", k_zstd}, {"speed", k_lz4}};
  for (const auto& [mode, compression] : modes) {
    Bytes fatbin = nvcc_fixture(std::string("fatbin_kernels.") + mode + ".fatbin");
    Expected<Visited> visited = visit_all(fatbin);
    ASSERT_TRUE(visited) << mode << ": " << visited.error().message;
    ASSERT_EQ(visited->modules.size(), 1u) << mode;
    EXPECT_TRUE(visited->skipped.empty()) << mode;
    const PtxModule& module = visited->modules.front();
    EXPECT_EQ(module.compression, compression) << mode;
    EXPECT_EQ(module.arch, 86u) << mode;
    EXPECT_EQ(module.container_offset, 16) << mode;
    EXPECT_EQ(hash_to_hex(module.fnv1a64), k_kernels_fnv) << mode;
    EXPECT_EQ(to_hex(module.sha256), k_kernels_sha256) << mode;
    EXPECT_EQ(module.text, fatbinary_text(nvcc_ptx)) << mode;
    EXPECT_EQ(module.entries, entries) << mode;
    // nvcc's own layout, which the reader must take: an 80-byte PTX entry header.
    EXPECT_EQ(std::to_integer<int>(fatbin[20]), 80) << mode;
  }
}

// --compress-mode=speed pads its LZ4 block: the payload is longer than the stream at +16.
TEST(PtxContainerNvcc, TheLz4FixtureIsPadded)
{
  Bytes fatbin = nvcc_fixture("fatbin_kernels.speed.fatbin");
  ASSERT_GE(fatbin.size(), 96u);
  uint64_t payload = 0;
  uint64_t stream = 0;
  for (size_t i = 0; i < 4; ++i) {
    payload |= std::to_integer<uint64_t>(fatbin[24 + i]) << (8 * i);
    stream |= std::to_integer<uint64_t>(fatbin[32 + i]) << (8 * i);
  }
  EXPECT_GT(payload, stream);
  EXPECT_EQ(payload % 8, 0u);
}

TEST(PtxContainerNvcc, SeveralArchitecturesPtxReadAndCubinsListed)
{
  const std::string sm80 = fatbinary_text(read_file(nvcc_fixture_path("short_names.sm_80.ptx")));
  const std::string sm90 = fatbinary_text(read_file(nvcc_fixture_path("short_names.sm_90.ptx")));
  const std::pair<const char*, FatbinCompression> files[] = {{"multi_arch.fatbin", k_none},
                                                             {"multi_arch_all.fatbin", k_zstd}};
  for (const auto& [file, cubin_compression] : files) {
    Expected<Visited> visited = visit_all(nvcc_fixture(file));
    ASSERT_TRUE(visited) << file << ": " << visited.error().message;
    ASSERT_EQ(visited->modules.size(), 2u) << file;
    const PtxModule& first = visited->modules[0];
    const PtxModule& second = visited->modules[1];
    EXPECT_EQ(first.arch, 80u) << file;
    EXPECT_EQ(second.arch, 90u) << file;
    EXPECT_EQ(first.compression, k_zstd) << file;
    EXPECT_EQ(first.text, sm80) << file;
    EXPECT_EQ(second.text, sm90) << file;
    EXPECT_EQ(hash_to_hex(first.fnv1a64), k_short_sm80_fnv) << file;
    EXPECT_EQ(hash_to_hex(second.fnv1a64), k_short_sm90_fnv) << file;
    EXPECT_EQ(first.entries, (std::vector<std::string>{"fatbin_scale", "fatbin_prefix_sum"}));
    std::vector<uint32_t> archs;
    for (const FatbinEntry& entry : visited->skipped) {
      EXPECT_EQ(entry.kind, k_fatbin_kind_elf) << file;
      EXPECT_EQ(entry.header_size, 64) << file;
      EXPECT_EQ(entry.compression, cubin_compression) << file;
      archs.push_back(entry.arch);
    }
    EXPECT_EQ(archs, (std::vector<uint32_t>{80, 86, 89, 90})) << file;
  }
  // The first file's layout, as a Python dump of the headers lists it (README.md there).
  Expected<Visited> plain = visit_all(nvcc_fixture("multi_arch.fatbin"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->modules[0].container_offset, 6192);
  EXPECT_EQ(plain->modules[1].container_offset, 26672);
  EXPECT_EQ(plain->skipped[0].offset, 16);
  EXPECT_EQ(plain->skipped[3].offset, 19472);
}

// The seven nvcc fatbins inside the synthetic PE (d4r-make-pe, at odd offsets, between decoys):
// each reads as it does on its own, its offsets shifted by where it sits.
TEST(PtxContainerNvcc, TheSameFatbinsInsideASyntheticPe)
{
  std::string dll = read_file(D4R_BINARY_DIR "/fixtures/fatbin/nvcc_fatbins.dll");
  std::ifstream map(D4R_BINARY_DIR "/fixtures/fatbin/nvcc_fatbins.dll.map");
  ASSERT_FALSE(dll.empty());
  Expected<Visited> in_pe = visit_all({reinterpret_cast<const std::byte*>(dll.data()), dll.size()});
  ASSERT_TRUE(in_pe) << in_pe.error().message;
  size_t module_at = 0;
  size_t skipped_at = 0;
  int64_t fatbins = 0;
  std::string kind;
  while (map >> kind && kind == "fatbin") {
    int64_t offset = 0;
    int64_t size = 0;
    std::string path;
    map >> offset >> size >> path;
    ++fatbins;
    Expected<Visited> alone = visit_all(nvcc_fixture(path.substr(path.rfind('/') + 1)));
    ASSERT_TRUE(alone) << path;
    for (const PtxModule& module : alone->modules) {
      ASSERT_LT(module_at, in_pe->modules.size()) << path;
      const PtxModule& found = in_pe->modules[module_at++];
      EXPECT_EQ(found.fatbin_offset, offset) << path;
      EXPECT_EQ(found.container_offset, module.container_offset + offset) << path;
      EXPECT_EQ(found.fnv1a64, module.fnv1a64) << path;
      EXPECT_EQ(found.sha256, module.sha256) << path;
      EXPECT_EQ(found.entries, module.entries) << path;
      EXPECT_EQ(found.compression, module.compression) << path;
    }
    for (const FatbinEntry& entry : alone->skipped) {
      ASSERT_LT(skipped_at, in_pe->skipped.size()) << path;
      EXPECT_EQ(in_pe->skipped[skipped_at++].offset, entry.offset + offset) << path;
    }
  }
  EXPECT_EQ(fatbins, 7);
  EXPECT_EQ(module_at, in_pe->modules.size());
  EXPECT_EQ(module_at, 9u);
  EXPECT_EQ(skipped_at, 8u);
}

// Breaking a real ZSTD frame: its magic, its content size, a block header. Each is a corrupt
// error naming the entry and the payload's offset (96: the 16-byte header, the 80-byte entry's).
TEST(PtxContainerNvcc, CorruptZstdNamesTheOffset)
{
  Bytes fatbin = nvcc_fixture("fatbin_kernels.default.fatbin");
  ASSERT_EQ(std::to_integer<int>(fatbin[96]), 0x28); // the ZSTD magic, 28 b5 2f fd
  Bytes magic = fatbin;
  magic[96] = std::byte{0};
  expect_corrupt(read_fatbin(magic), "fatbin at offset 0: entry at offset 16: ZSTD frame at offset 96");
  Bytes content = fatbin;
  content[101] = std::byte{static_cast<unsigned char>(std::to_integer<int>(content[101]) ^ 1)};
  expect_corrupt(read_fatbin(content), "ZSTD frame at offset 96 holds");
  Bytes block = fatbin;
  block[103] = std::byte{0xff}; // the first block header: block type 3 is reserved
  block[104] = std::byte{0xff};
  block[105] = std::byte{0xff};
  expect_corrupt(read_fatbin(block), "entry at offset 16: ZSTD frame at offset 96: ");
}

TEST(PtxContainerNvcc, CorruptLz4NamesTheOffset)
{
  Bytes fatbin = nvcc_fixture("fatbin_kernels.speed.fatbin");
  // The first sequence: one literal, then a match at offset 1 (bytes 98-99): point it before the
  // start of the output.
  ASSERT_EQ(std::to_integer<int>(fatbin[98]), 1);
  Bytes offset = fatbin;
  offset[98] = std::byte{0xff};
  offset[99] = std::byte{0xff};
  expect_corrupt(read_fatbin(offset), "entry at offset 16: LZ4 block at offset 96 does not decompress");
  Bytes stream_size = fatbin;
  put_le(stream_size, 32, 1000, 4);
  expect_corrupt(read_fatbin(stream_size), "the entry says its lz4 stream is 1000 bytes");
  Bytes padding = fatbin;
  padding.back() = std::byte{7};
  expect_corrupt(read_fatbin(padding), "byte at offset " + std::to_string(padding.size() - 1) +
                                           " after the lz4 stream");
}

// Containers back to back, as a .nv_fatbin section holds them (one per object file): the first is
// read as a fatbin, the rest are found by the scan.
TEST(PtxContainerNvcc, FatbinsBackToBack)
{
  Bytes both = nvcc_fixture("fatbin_kernels.default.fatbin");
  Bytes speed = nvcc_fixture("fatbin_kernels.speed.fatbin");
  Bytes multi = nvcc_fixture("multi_arch_all.fatbin");
  const auto first_size = static_cast<int64_t>(both.size());
  both.insert(both.end(), speed.begin(), speed.end());
  both.insert(both.end(), multi.begin(), multi.end());
  Expected<Visited> visited = visit_all(both);
  ASSERT_TRUE(visited) << visited.error().message;
  ASSERT_EQ(visited->modules.size(), 4u);
  EXPECT_EQ(visited->modules[0].compression, k_zstd);
  EXPECT_EQ(visited->modules[1].compression, k_lz4);
  EXPECT_EQ(visited->modules[1].fatbin_offset, first_size);
  EXPECT_EQ(visited->modules[0].fnv1a64, visited->modules[1].fnv1a64);
  EXPECT_EQ(hash_to_hex(visited->modules[3].fnv1a64), k_short_sm90_fnv);
  EXPECT_EQ(visited->skipped.size(), 4u);
  // A broken second container is an error that names it, not a silent stop.
  put_le(both, static_cast<size_t>(first_size) + 16 + 4, 32, 4);
  expect_corrupt(read_ptx_modules(both), "fatbin at offset " + std::to_string(first_size) + ": entry");
}

TEST(PtxContainer, Lz4AndZstdPaddedAsNvccWritesThem)
{
  for (FatbinCompression compression : {k_lz4, k_zstd}) {
    for (bool nvcc_padding : {false, true}) {
      Bytes fatbin = make_fatbin({{k_fatbin_kind_ptx, rr_text() + '\0', compression, 80, nvcc_padding, 90}});
      Expected<std::vector<PtxModule>> modules = read_fatbin(fatbin);
      ASSERT_TRUE(modules) << to_string(compression) << ": " << modules.error().message;
      ASSERT_EQ(modules->size(), 1u);
      EXPECT_EQ(modules->front().text, rr_text());
      EXPECT_EQ(hash_to_hex(modules->front().fnv1a64), k_rr_fnv);
      EXPECT_EQ(modules->front().compression, compression);
      EXPECT_EQ(modules->front().arch, 90u);
    }
  }
  // Zero padding without the stream size at +16: the LZ4 block's own end is found.
  Bytes bare = make_fatbin({{k_fatbin_kind_ptx, rr_text() + '\0', k_lz4, 64, false, 0}});
  Bytes padded = bare;
  padded.resize(bare.size() + 5, std::byte{0});
  put_le(padded, 8, padded.size() - 16, 8);
  put_le(padded, 24, padded.size() - 16 - 64, 8); // the entry's payload size
  Expected<std::vector<PtxModule>> modules = read_fatbin(padded);
  ASSERT_TRUE(modules) << modules.error().message;
  EXPECT_EQ(modules->front().text, rr_text());
  // Bytes after the stream that are not zero are not padding.
  padded.back() = std::byte{1};
  expect_corrupt(read_fatbin(padded), "after the lz4 stream");
}

TEST(PtxContainer, AnyEntryHeaderSize)
{
  for (int64_t header_size : {64, 80, 112, 4000}) {
    Bytes fatbin = make_fatbin({{k_fatbin_kind_ptx, sr_text(), k_zstd, header_size, true, 86},
                                {k_fatbin_kind_elf, std::string(40, 'x'), k_none, header_size, false, 86},
                                {k_fatbin_kind_ptx, rr_text(), k_lz4, header_size, true, 86}});
    Expected<Visited> visited = visit_all(fatbin);
    ASSERT_TRUE(visited) << header_size << ": " << visited.error().message;
    ASSERT_EQ(visited->modules.size(), 2u);
    EXPECT_EQ(hash_to_hex(visited->modules[0].fnv1a64), k_sr_fnv) << header_size;
    EXPECT_EQ(hash_to_hex(visited->modules[1].fnv1a64), k_rr_fnv) << header_size;
    ASSERT_EQ(visited->skipped.size(), 1u);
    EXPECT_EQ(visited->skipped[0].header_size, header_size);
  }
}

// A cubin is listed from its header and never decompressed: flags that say ZSTD, a payload that is
// not ZSTD and a decompressed size far past every limit do not matter.
TEST(PtxContainer, CubinEntriesAreListedNotRead)
{
  Bytes fatbin = make_fatbin({{k_fatbin_kind_elf, std::string(48, 'x'), k_none, 64, false, 89},
                              {k_fatbin_kind_ptx, rr_text(), k_none, 80, false, 89},
                              {0x10, std::string(16, 'y'), k_none, 64, false, 120}});
  put_le(fatbin, 16 + 40, k_fatbin_flag_zstd, 8);
  put_le(fatbin, 16 + 56, 1ull << 40, 8);
  Expected<Visited> visited = visit_all(fatbin);
  ASSERT_TRUE(visited) << visited.error().message;
  ASSERT_EQ(visited->modules.size(), 1u);
  ASSERT_EQ(visited->skipped.size(), 2u);
  const FatbinEntry& cubin = visited->skipped[0];
  EXPECT_EQ(cubin.offset, 16);
  EXPECT_EQ(cubin.kind, k_fatbin_kind_elf);
  EXPECT_EQ(cubin.arch, 89u);
  EXPECT_EQ(cubin.payload_size, 48);
  EXPECT_EQ(cubin.compression, k_zstd);
  EXPECT_STREQ(kind_name(cubin.kind), "elf");
  EXPECT_STREQ(kind_name(visited->skipped[1].kind), "other");
  EXPECT_EQ(visited->skipped[1].arch, 120u);
}

TEST(PtxContainer, CompressionFlagsThatCannotBeRead)
{
  Bytes both = make_fatbin({{k_fatbin_kind_ptx, rr_text(), k_lz4}});
  put_le(both, 16 + 40, k_fatbin_flag_lz4 | k_fatbin_flag_zstd, 8);
  expect_corrupt(read_fatbin(both), "ask for both LZ4 and ZSTD");
  Bytes no_size = make_fatbin({{k_fatbin_kind_ptx, rr_text(), k_zstd}});
  put_le(no_size, 16 + 56, 0, 8);
  expect_corrupt(read_fatbin(no_size), "ZSTD-compressed entry that states no decompressed size");
}

// A PTX entry of `size` bytes: a one-line kernel, then blanks; compressed, it is a few KiB.
std::string filler_ptx(int64_t size, int number)
{
  std::string text = ".version 8.0\n.target sm_86\n.address_size 64\n.visible .entry filler_" +
                     std::to_string(number) + "()\n{\nret;\n}\n";
  text.resize(static_cast<size_t>(size), '\n');
  return text;
}

// Entries that claim 255 MiB: with a payload that cannot produce it, the LZ4 walk or the ZSTD
// frame header says so before any allocation; past a configured limit, nothing is decompressed.
TEST(PtxContainer, LyingSizesAndLimitsFailBeforeAllocating)
{
  constexpr uint64_t k_claim = 255ull << 20;
  for (FatbinCompression compression : {k_lz4, k_zstd}) {
    std::vector<TestEntry> entries(4, TestEntry{k_fatbin_kind_ptx, rr_text(), compression});
    Bytes fatbin = make_fatbin(entries);
    size_t at = 16;
    for (int i = 0; i < 4; ++i) {
      put_le(fatbin, at + 56, k_claim, 8);
      uint64_t payload = 0;
      for (size_t b = 0; b < 8; ++b) {
        payload |= std::to_integer<uint64_t>(fatbin[at + 8 + b]) << (8 * b);
      }
      at += 64 + payload;
    }
    expect_corrupt(read_fatbin(fatbin), compression == k_lz4
                                            ? "LZ4 block does not end after the 267386880 bytes"
                                            : "ZSTD frame at offset 80 holds");
    ContainerLimits small{1 << 20, 4 << 20};
    expect_error(read_fatbin(fatbin, 0, small), ErrorCode::resource_exhausted,
                 "entry at offset 16: 267386880 bytes of PTX (" + std::string(to_string(compression)) +
                     ") are over the 1 MiB limit for one entry");
  }
}

// The limit in all, met on the third of four entries that really expand to 600 KiB each: the
// first two have been handed over by then, one at a time, the third was never decompressed.
TEST(PtxContainer, TheLimitInAllStopsTheWalk)
{
  std::vector<TestEntry> entries;
  for (int i = 0; i < 4; ++i) {
    entries.push_back({k_fatbin_kind_ptx, filler_ptx(600 << 10, i), i % 2 ? k_zstd : k_lz4, 80, true});
  }
  Bytes fatbin = make_fatbin(entries);
  ASSERT_LT(fatbin.size(), 64u << 10);
  std::vector<std::string> seen;
  ContainerVisitor visitor{[&seen](PtxModule&& module) -> Expected<void> {
                             seen.push_back(module.entries.at(0));
                             return {};
                           },
                           {}};
  ContainerLimits limits{1 << 20, (3 << 20) / 2};
  Expected<void> result = visit_ptx_modules(fatbin, visitor, limits);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::resource_exhausted);
  EXPECT_NE(result.error().message.find("limit on decompressed PTX in all (1228800 bytes so far)"),
            std::string::npos)
      << result.error().message;
  EXPECT_EQ(seen, (std::vector<std::string>{"filler_0", "filler_1"}));
  // Within the default limits, all four.
  seen.clear();
  EXPECT_TRUE(visit_ptx_modules(fatbin, visitor));
  EXPECT_EQ(seen.size(), 4u);
}

TEST(PtxContainer, AVisitorErrorStopsTheWalk)
{
  Bytes fatbin = two_module_fatbin();
  int calls = 0;
  ContainerVisitor visitor{[&calls](PtxModule&&) -> Expected<void> {
                             ++calls;
                             return make_error(ErrorCode::rejected, "enough");
                           },
                           {}};
  Expected<void> result = visit_ptx_modules(fatbin, visitor);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "enough");
  EXPECT_EQ(calls, 1);
}

} // namespace
} // namespace d4r::compiler::ptx
