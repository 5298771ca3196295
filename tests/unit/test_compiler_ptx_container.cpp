#include "compiler/ptx/container.hpp"

#include "tests/support/read_file.hpp"

#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

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

struct TestEntry {
  uint16_t kind = k_fatbin_kind_ptx;
  std::string text;
  bool lz4 = false;
};

// Our own writer for the contract layout (the corpus tool d4r-make-fatbin writes the same).
// Uncompressed payloads are padded with NULs to 16 bytes, as real fatbins are.
Bytes make_fatbin(const std::vector<TestEntry>& entries)
{
  Bytes out(16);
  for (const TestEntry& entry : entries) {
    std::string payload = entry.text;
    if (entry.lz4) {
      std::string packed(static_cast<size_t>(LZ4_compressBound(static_cast<int>(payload.size()))),
                         '\0');
      int size =
          LZ4_compress_default(payload.data(), packed.data(), static_cast<int>(payload.size()),
                               static_cast<int>(packed.size()));
      packed.resize(static_cast<size_t>(size));
      payload = packed;
    } else {
      payload.append((16 - payload.size() % 16) % 16, '\0');
    }
    size_t at = out.size();
    out.resize(at + 64);
    put_le(out, at, entry.kind, 2);
    put_le(out, at + 4, 64, 4);
    put_le(out, at + 8, payload.size(), 8);
    put_le(out, at + 40, entry.lz4 ? k_fatbin_flag_lz4 : 0, 8);
    put_le(out, at + 56, entry.lz4 ? entry.text.size() : 0, 8);
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
  return make_fatbin({{k_fatbin_kind_ptx, sr_text(), false},
                      {2, std::string(40, 'x'), false},
                      {k_fatbin_kind_ptx, rr_text(), true}});
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

void expect_corrupt(const Expected<std::vector<PtxModule>>& result, const std::string& needle)
{
  ASSERT_FALSE(result.has_value()) << "expected an error containing '" << needle << "'";
  EXPECT_EQ(result.error().code, ErrorCode::corrupt) << result.error().message;
  EXPECT_NE(result.error().message.find(needle), std::string::npos) << result.error().message;
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
  EXPECT_FALSE(module.compressed);
  EXPECT_EQ(module.text, text);
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
  EXPECT_FALSE(sr.compressed);
  EXPECT_EQ(sr.container_offset, static_cast<int64_t>(first_entry_at()));
  EXPECT_EQ(sr.fatbin_offset, 0);
  EXPECT_EQ(sr.entries.size(), 5u);
  EXPECT_EQ(hash_to_hex(rr.fnv1a64), k_rr_fnv);
  EXPECT_EQ(to_hex(rr.sha256), k_rr_sha256);
  EXPECT_TRUE(rr.compressed);
  EXPECT_EQ(rr.container_offset, static_cast<int64_t>(rr_entry_at()));
  EXPECT_EQ(rr.entries,
            (std::vector<std::string>{"cuda_dldn_engine_test_kernel", "dl4rt_input_kernel"}));
  EXPECT_EQ(rr.text, rr_text());
}

TEST(PtxContainer, BaseOffsetShiftsOffsetsAndMessages)
{
  Bytes fatbin = make_fatbin({{k_fatbin_kind_ptx, rr_text(), true}});
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
      make_fatbin({{k_fatbin_kind_ptx, "ab", false}, {k_fatbin_kind_ptx, rr_text(), true}});
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
  Bytes fatbin = make_fatbin({{k_fatbin_kind_ptx, "ab", false}, {k_fatbin_kind_ptx, rr, true}});
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
  expect_corrupt(read_fatbin(copy), "over the 256 MiB limit");
}

TEST(PtxContainer, Lz4GarbageAndWrongDecompressedSize)
{
  Bytes fatbin = two_module_fatbin();
  size_t rr_at = rr_entry_at();
  Bytes garbage = fatbin;
  for (size_t i = rr_at + 64; i < garbage.size(); ++i) {
    garbage[i] = std::byte{0xff};
  }
  expect_corrupt(read_fatbin(garbage), "LZ4 payload does not decompress");
  Bytes too_long = fatbin;
  put_le(too_long, rr_at + 56, rr_text().size() + 1, 8);
  expect_corrupt(read_fatbin(too_long), "LZ4 payload does not decompress");
  Bytes too_short = fatbin;
  put_le(too_short, rr_at + 56, rr_text().size() - 1, 8);
  expect_corrupt(read_fatbin(too_short), "LZ4 payload does not decompress");
}

// A PE-looking blob: "MZ", junk, a decoy magic with a bad version, two fatbins at odd offsets.
Bytes pe_like_blob(size_t& first_at, size_t& second_at)
{
  Bytes blob(1001, std::byte{0x90});
  blob[0] = std::byte{'M'};
  blob[1] = std::byte{'Z'};
  put_le(blob, 501, k_fatbin_magic, 4); // decoy: version 0
  first_at = blob.size();
  Bytes first = make_fatbin({{k_fatbin_kind_ptx, sr_text(), true}});
  blob.insert(blob.end(), first.begin(), first.end());
  blob.resize(4099, std::byte{0x00});
  second_at = blob.size();
  Bytes second = make_fatbin({{k_fatbin_kind_ptx, rr_text(), false}});
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
  EXPECT_TRUE((*modules)[0].compressed);
  EXPECT_EQ((*modules)[0].fatbin_offset, static_cast<int64_t>(first_at));
  EXPECT_EQ((*modules)[0].container_offset, static_cast<int64_t>(first_at + 16));
  EXPECT_EQ(hash_to_hex((*modules)[1].fnv1a64), k_rr_fnv);
  EXPECT_FALSE((*modules)[1].compressed);
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
  std::vector<int64_t> expected = {5139, 32837, 162775}; // build/fixtures/ptx/game.dll.map
  EXPECT_EQ(fatbins, expected);
  // The plain fatbin's last module is sr_module.ptx, the mixed one's third is rr_module.ptx.
  EXPECT_EQ(hash_to_hex((*modules)[3].fnv1a64), "8baeb925f177af87");
  EXPECT_EQ(hash_to_hex((*modules)[10].fnv1a64), "26332c9543501ce9");
  EXPECT_FALSE((*modules)[3].compressed);
  EXPECT_TRUE((*modules)[4].compressed);
}

} // namespace
} // namespace d4r::compiler::ptx
