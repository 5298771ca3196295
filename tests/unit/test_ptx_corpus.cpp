// The PTX corpus (tests/ptx/) and the container fixtures built from it (build/fixtures/ptx/): the
// hashes in tests/ptx/README.md match the files, each file holds the DLSS idioms it is there for,
// and the fatbins and the PE file have the layout that d4r-make-fatbin and d4r-make-pe document.
// The fatbins are parsed here by hand, independently of compiler/ptx/container.

#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path k_ptx_dir = fs::path(D4R_TEST_SOURCE_DIR) / "ptx";
const fs::path k_fixture_dir = fs::path(D4R_BINARY_DIR) / "fixtures" / "ptx";
constexpr uint32_t k_magic = 0xBA55ED50u;

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint64_t le(const std::string& bytes, int64_t at, int width)
{
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes.at(static_cast<size_t>(at + i)));
  }
  return value;
}

// `add.rz.ftz.f32 D, ...` directly followed (blank lines skipped) by `cvt.rzi.f32.f32 R, D;`.
int64_t count_roundf_idioms(const std::string& text)
{
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos) {
      lines.push_back(line.substr(first));
    }
  }
  const std::regex add(R"(^add\.rz\.ftz\.f32\s+(%\w+),)");
  int64_t count = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, add)) {
      continue;
    }
    const std::regex cvt("^cvt\\.rzi\\.f32\\.f32\\s+%\\w+,\\s*" + m[1].str() + ";");
    count += std::regex_search(lines[i + 1], cvt) ? 1 : 0;
  }
  return count;
}

struct ReadmeRow {
  std::string fnv;
  std::string sha;
};

// Rows `| NAME.ptx | FNV | SHA |` of the hash table in tests/ptx/README.md.
std::map<std::string, ReadmeRow> readme_hashes()
{
  std::map<std::string, ReadmeRow> rows;
  const std::regex row(R"(^\| ([A-Za-z0-9_.]+\.ptx) \| ([0-9a-f]{16}) \| ([0-9a-f]{64}) \|$)");
  std::istringstream in(read_text(k_ptx_dir / "README.md"));
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      rows[m[1].str()] = ReadmeRow{m[2].str(), m[3].str()};
    }
  }
  return rows;
}

TEST(PtxCorpus, ReadmeListsEveryPtxFileWithItsHashes)
{
  const std::map<std::string, ReadmeRow> rows = readme_hashes();
  std::set<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_ptx_dir)) {
    if (entry.path().extension() == ".ptx") {
      files.insert(entry.path().filename().string());
    }
  }
  ASSERT_GE(files.size(), 18U);
  std::set<std::string> listed;
  for (const auto& [name, row] : rows) {
    listed.insert(name);
  }
  EXPECT_EQ(files, listed);
  for (const auto& [name, row] : rows) {
    const std::string text = read_text(k_ptx_dir / name);
    EXPECT_EQ(d4r::hash_to_hex(d4r::ptx_module_hash(text)), row.fnv) << name;
    EXPECT_EQ(d4r::to_hex(d4r::sha256(text)), row.sha) << name;
  }
  // The two older fixtures are pinned by other tests and manifests: they must never move.
  ASSERT_TRUE(rows.contains("sr_module.ptx") && rows.contains("rr_module.ptx"));
  EXPECT_EQ(rows.at("sr_module.ptx").fnv, "8baeb925f177af87");
  EXPECT_EQ(rows.at("rr_module.ptx").fnv, "26332c9543501ce9");
}

TEST(PtxCorpus, EverySourceProducesItsTargets)
{
  const std::regex archs_line(R"(// d4r-corpus-archs:((?: sm_[0-9]+)+))");
  int64_t sources = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_ptx_dir)) {
    if (entry.path().extension() != ".cu") {
      continue;
    }
    const std::string source = read_text(entry.path());
    std::smatch m;
    if (!std::regex_search(source, m, archs_line)) {
      continue; // sr_module.cu, rr_module.cu: the older fixtures, NAME.ptx
    }
    ++sources;
    std::istringstream archs(m[1].str());
    for (std::string arch; archs >> arch;) {
      const fs::path ptx = k_ptx_dir / (entry.path().stem().string() + "." + arch + ".ptx");
      ASSERT_TRUE(fs::exists(ptx)) << ptx;
      EXPECT_NE(read_text(ptx).find("\n.target " + arch + "\n"), std::string::npos) << ptx;
    }
  }
  EXPECT_EQ(sources, 5);
}

struct IdiomExpectation {
  std::string file;
  std::vector<std::string> present;
  std::vector<std::string> absent;
  int64_t min_roundf = 0;
};

const std::string k_tex = "tex.2d.v4.f32.f32";
const std::string k_v4b16 = "sust.b.2d.v4.b16.zero";
const std::string k_v2b16 = "sust.b.2d.v2.b16.zero";
const std::string k_pv4b32 = "sust.p.2d.v4.b32.zero";
const std::string k_b32 = "sust.b.2d.b32.zero";
const std::string k_fp8 = "cvt.rn.f16x2.e4m3x2";
const std::string k_mma_f16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
const std::string k_mma_e4m3 = "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32";
const std::string k_shfl = "shfl.sync.";
const std::string k_bar = "bar.sync";
const std::string k_shared = ".shared";

std::vector<IdiomExpectation> idiom_expectations()
{
  std::vector<IdiomExpectation> list;
  for (const std::string arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    const bool ada = arch == "sm_89" || arch == "sm_90";
    list.push_back({"tex_filter." + arch + ".ptx", {k_tex, k_v4b16, k_shfl, k_bar, k_shared}, {k_fp8}, 3});
    list.push_back({"surface_store." + arch + ".ptx", {k_v4b16, k_v2b16, k_pv4b32, k_b32}, {}, 0});
    if (ada) {
      list.push_back({"mma_tile." + arch + ".ptx", {k_mma_f16, k_mma_e4m3, k_shfl, k_bar, k_shared}, {}, 0});
      list.push_back({"fp8_decode." + arch + ".ptx", {k_fp8, k_v2b16, k_bar, k_shared}, {}, 0});
    } else {
      list.push_back({"mma_tile." + arch + ".ptx", {k_mma_f16, k_shfl, k_bar, k_shared}, {k_mma_e4m3, k_fp8}, 0});
    }
  }
  list.push_back({"texture_layers.sm_86.ptx", {k_tex, k_v4b16, k_mma_f16, k_shfl, k_bar, k_shared}, {k_fp8}, 8});
  list.push_back({"texture_layers.sm_89.ptx", {k_tex, k_v4b16, k_mma_f16, k_fp8, k_shfl, k_bar, k_shared}, {}, 8});
  return list;
}

TEST(PtxCorpus, EachFileHoldsItsIdioms)
{
  for (const IdiomExpectation& expect : idiom_expectations()) {
    const std::string text = read_text(k_ptx_dir / expect.file);
    ASSERT_FALSE(text.empty()) << expect.file;
    for (const std::string& idiom : expect.present) {
      EXPECT_NE(text.find(idiom), std::string::npos) << expect.file << " lacks " << idiom;
    }
    for (const std::string& idiom : expect.absent) {
      EXPECT_EQ(text.find(idiom), std::string::npos) << expect.file << " has " << idiom;
    }
    EXPECT_GE(count_roundf_idioms(text), expect.min_roundf) << expect.file;
    EXPECT_FALSE(d4r::scan_entry_names(text).empty()) << expect.file;
  }
}

TEST(PtxCorpus, RoundfCounterNeedsTheAdjacentCvtOfTheSameRegister)
{
  EXPECT_EQ(count_roundf_idioms("\tadd.rz.ftz.f32 \t%f4, %f1, %f3;\n\n\tcvt.rzi.f32.f32 \t%f5, %f4;\n"), 1);
  EXPECT_EQ(count_roundf_idioms("\tadd.rz.ftz.f32 \t%f4, %f1, %f3;\n\tcvt.rzi.f32.f32 \t%f5, %f6;\n"), 0);
  EXPECT_EQ(count_roundf_idioms("\tadd.rz.ftz.f32 \t%f4, %f1, %f3;\n\tmov.f32 %f9, %f4;\n"
                                "\tcvt.rzi.f32.f32 \t%f5, %f4;\n"),
            0);
}

// What each fixture fatbin holds, as tests/unit/ptx_corpus.cmake asks d4r-make-fatbin for it.
struct EntrySpec {
  uint16_t kind = 1;          // 1 PTX, 2 ELF
  std::string ptx;            // PTX file in tests/ptx/ (kind 1)
  bool compressed = false;
  int64_t cubin_size = 0;     // payload size (kind 2)
};

std::map<std::string, std::vector<EntrySpec>> fatbin_specs()
{
  return {
      {"plain.fatbin",
       {{1, "tex_filter.sm_86.ptx", false, 0},
        {1, "surface_store.sm_86.ptx", false, 0},
        {1, "mma_tile.sm_86.ptx", false, 0},
        {1, "sr_module.ptx", false, 0}}},
      {"lz4.fatbin",
       {{1, "fp8_decode.sm_89.ptx", true, 0},
        {1, "mma_tile.sm_89.ptx", true, 0},
        {1, "tex_filter.sm_89.ptx", true, 0},
        {1, "texture_layers.sm_89.ptx", true, 0}}},
      {"mixed.fatbin",
       {{2, "", false, 200},
        {1, "surface_store.sm_90.ptx", false, 0},
        {1, "mma_tile.sm_90.ptx", true, 0},
        {1, "rr_module.ptx", false, 0},
        {2, "", false, 37},
        {1, "fp8_decode.sm_90.ptx", true, 0},
        {1, "tex_filter.sm_90.ptx", true, 0}}},
  };
}

// Checks one entry against its spec; returns the offset of the next entry.
int64_t check_entry(const std::string& fatbin, int64_t at, const EntrySpec& spec, const std::string& where)
{
  EXPECT_EQ(le(fatbin, at, 2), spec.kind) << where;
  EXPECT_EQ(le(fatbin, at + 4, 4), 64U) << where;
  const auto payload_size = static_cast<int64_t>(le(fatbin, at + 8, 8));
  const uint64_t flags = le(fatbin, at + 40, 8);
  const uint64_t decompressed_size = le(fatbin, at + 56, 8);
  const int64_t payload_at = at + 64;
  EXPECT_LE(payload_at + payload_size, static_cast<int64_t>(fatbin.size())) << where;
  if (payload_at + payload_size > static_cast<int64_t>(fatbin.size())) {
    return static_cast<int64_t>(fatbin.size());
  }
  const std::string payload = fatbin.substr(static_cast<size_t>(payload_at), static_cast<size_t>(payload_size));
  EXPECT_EQ((flags & 0x2000) != 0, spec.compressed) << where;
  if (spec.kind == 2) {
    EXPECT_EQ(payload_size, spec.cubin_size) << where;
    EXPECT_EQ(payload.substr(0, 4), std::string("\x7f" "ELF")) << where;
    return payload_at + payload_size;
  }
  const std::string text = read_text(k_ptx_dir / spec.ptx);
  if (!spec.compressed) {
    EXPECT_EQ(decompressed_size, 0U) << where;
    EXPECT_EQ(payload_size % 8, 0) << where;
    EXPECT_GT(payload_size, static_cast<int64_t>(text.size())) << where;
    EXPECT_EQ(payload.substr(0, text.size()), text) << where;
    EXPECT_EQ(payload.find_first_not_of('\0', text.size()), std::string::npos) << where;
    return payload_at + payload_size;
  }
  EXPECT_EQ(decompressed_size, text.size() + 1) << where;
  EXPECT_LT(payload_size, static_cast<int64_t>(text.size())) << where;
  std::string plain(static_cast<size_t>(decompressed_size), '\x01');
  const int got = LZ4_decompress_safe(payload.data(), plain.data(), static_cast<int>(payload.size()),
                                      static_cast<int>(plain.size()));
  EXPECT_EQ(got, static_cast<int>(decompressed_size)) << where;
  EXPECT_EQ(plain, text + std::string(1, '\0')) << where;
  return payload_at + payload_size;
}

TEST(PtxFixtures, FatbinsHaveTheContractLayout)
{
  for (const auto& [name, entries] : fatbin_specs()) {
    const std::string fatbin = read_text(k_fixture_dir / name);
    ASSERT_GE(fatbin.size(), 16U) << name;
    EXPECT_EQ(le(fatbin, 0, 4), k_magic) << name;
    EXPECT_EQ(le(fatbin, 4, 2), 1U) << name;
    EXPECT_EQ(le(fatbin, 6, 2), 16U) << name;
    EXPECT_EQ(le(fatbin, 8, 8), fatbin.size() - 16) << name;
    int64_t at = 16;
    size_t index = 0;
    while (at + 64 <= static_cast<int64_t>(fatbin.size()) && index < entries.size()) {
      at = check_entry(fatbin, at, entries[index], name + " entry " + std::to_string(index));
      ++index;
    }
    EXPECT_EQ(index, entries.size()) << name;
    EXPECT_EQ(at, static_cast<int64_t>(fatbin.size())) << name << ": entries do not end at the end";
  }
}

TEST(PtxFixtures, PeFileHoldsTheFatbinsAtTheDocumentedOffsets)
{
  const std::string image = read_text(k_fixture_dir / "game.dll");
  ASSERT_GT(image.size(), 0x1413U);
  EXPECT_EQ(image.substr(0, 2), "MZ");
  const uint64_t pe = le(image, 0x3c, 4);
  EXPECT_EQ(pe, 0x80U);
  EXPECT_EQ(image.substr(pe, 4), std::string("PE\0\0", 4));
  EXPECT_EQ(image.substr(pe + 4 + 20 + 0xf0, 8), std::string(".text\0\0\0", 8));
  EXPECT_EQ(image.substr(pe + 4 + 20 + 0xf0 + 40, 8), ".nv_fatb");

  // The rule d4r-make-pe documents: first at 0x1413, then (end of fatbin i + 0x40) rounded up to 16,
  // plus 5 + 2*i.
  std::vector<int64_t> expected_offsets;
  std::ostringstream expected_map;
  int64_t at = 0x1413;
  int64_t end = 0;
  int64_t index = 0;
  for (const std::string name : {"plain.fatbin", "lz4.fatbin", "mixed.fatbin"}) {
    const std::string fatbin = read_text(k_fixture_dir / name);
    EXPECT_EQ(at % 2, 1) << name << " is not at an odd offset";
    EXPECT_EQ(image.substr(static_cast<size_t>(at), fatbin.size()), fatbin) << name;
    expected_offsets.push_back(at);
    expected_map << "fatbin " << at << ' ' << fatbin.size() << ' ' << (k_fixture_dir / name).string() << '\n';
    end = at + static_cast<int64_t>(fatbin.size());
    at = (end + 0x40 + 15) / 16 * 16 + 5 + 2 * index;
    ++index;
  }
  const auto tail = static_cast<int64_t>(image.size()) - 6;
  EXPECT_EQ(tail, end + 0x31);
  expected_map << "decoy " << 0x801 << " version\ndecoy " << 0xa03 << " size\ndecoy " << tail << " truncated\n";
  EXPECT_EQ(read_text(k_fixture_dir / "game.dll.map"), expected_map.str());

  // Every place the magic occurs: the three fatbins and the three documented decoys, nothing else.
  std::vector<int64_t> found;
  const std::string magic("\x50\xed\x55\xba", 4);
  for (size_t pos = image.find(magic); pos != std::string::npos; pos = image.find(magic, pos + 1)) {
    found.push_back(static_cast<int64_t>(pos));
  }
  std::vector<int64_t> expected = {0x801, 0xa03, tail};
  expected.insert(expected.end(), expected_offsets.begin(), expected_offsets.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(found, expected);
  EXPECT_EQ(le(image, 0x801 + 4, 2), 2U);
  EXPECT_EQ(le(image, 0xa03 + 4, 2), 1U);
  EXPECT_GT(le(image, 0xa03 + 8, 8), image.size());
}

} // namespace
