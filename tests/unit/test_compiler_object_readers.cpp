// compiler/elf_image and compiler/msgpack_reader, the LLVM-free readers under read_launch_meta:
// every code object of the release fixture (clang-19 built them) read by our reader and by
// llvm-readelf-19 must agree on each kernel's resources, the target and the host variables; and
// the msgpack decoder on hand-made encodings of every format, hostile counts and deep nesting.

#include "compiler/elf_image.hpp"
#include "compiler/launch_meta.hpp"
#include "compiler/msgpack_reader.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace msgpack = d4r::compiler::msgpack;
using d4r::ErrorCode;

const fs::path k_release = D4R_RELEASE_FIXTURE_DIR;

std::vector<std::byte> read_bytes(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::string run(const std::string& command)
{
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  EXPECT_NE(pipe, nullptr) << command;
  std::string out;
  std::array<char, 4096> buffer{};
  while (pipe && std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) {
    out += buffer.data();
  }
  return out;
}

// What llvm-readelf --notes prints of the metadata: each kernel's top-level keys (4 spaces in),
// by kernel name, and amdhsa.target.
struct ReadelfNotes {
  std::string target;
  std::map<std::string, std::map<std::string, std::string>> kernels;
};

ReadelfNotes readelf_notes(const fs::path& object)
{
  std::istringstream lines(run("llvm-readelf-19 --notes '" + object.string() + "'"));
  const std::regex key(R"(^(  - |    )(\.[a-z_]+):\s*(.*)$)");
  const std::regex target(R"(^amdhsa\.target:\s*(\S+))");
  ReadelfNotes notes;
  std::vector<std::map<std::string, std::string>> kernels;
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, target)) {
      notes.target = match[1];
    } else if (std::regex_match(line, match, key)) {
      if (match[1] == "  - ") {
        kernels.emplace_back();
      }
      if (!kernels.empty()) {
        kernels.back()[match[2]] = match[3];
      }
    }
  }
  for (auto& kernel : kernels) {
    notes.kernels[kernel[".name"]] = kernel;
  }
  return notes;
}

// The host variables by llvm-readelf's dynamic symbol table: defined OBJECTs, global or weak,
// default or protected, other than the contract's, kernel descriptors and clang's cuid.
std::vector<std::pair<std::string, uint64_t>> readelf_host_variables(const fs::path& object)
{
  std::istringstream lines(run("llvm-readelf-19 --dyn-syms -W '" + object.string() + "'"));
  const std::regex symbol(
      R"(^\s*\d+:\s+[0-9a-f]+\s+(\d+)\s+OBJECT\s+(GLOBAL|WEAK)\s+(DEFAULT|PROTECTED)\s+(\d+)\s+(\S+)$)");
  std::vector<std::pair<std::string, uint64_t>> variables;
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, symbol)) {
      continue;
    }
    std::string name = match[5];
    if (name.starts_with("d4r_") || name.ends_with(".kd") || name.starts_with("__hip_cuid_")) {
      continue;
    }
    variables.emplace_back(name, std::stoull(match[1]));
  }
  std::sort(variables.begin(), variables.end());
  return variables;
}

void expect_resources(const d4r::compiler::KernelResources& ours,
                      const std::map<std::string, std::string>& theirs, const std::string& where)
{
  const std::array<std::pair<const char*, uint32_t>, 8> fields{{
      {".kernarg_segment_size", ours.kernarg_size},
      {".kernarg_segment_align", ours.kernarg_align},
      {".wavefront_size", ours.wave_size},
      {".sgpr_count", ours.sgpr_count},
      {".vgpr_count", ours.vgpr_count},
      {".group_segment_fixed_size", ours.lds_bytes},
      {".private_segment_fixed_size", ours.scratch_bytes},
      {".max_flat_workgroup_size", ours.max_workgroup_size},
  }};
  for (const auto& [key, value] : fields) {
    auto found = theirs.find(key);
    ASSERT_NE(found, theirs.end()) << where << " " << key;
    EXPECT_EQ(std::to_string(value), found->second) << where << " " << key;
  }
}

TEST(ObjectReaders, EveryFixtureObjectAgreesWithLlvmReadelf)
{
  int objects = 0;
  int kernels = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(k_release)) {
    if (entry.path().extension() != ".hsaco") {
      continue;
    }
    ++objects;
    std::vector<std::byte> bytes = read_bytes(entry.path());
    ReadelfNotes notes = readelf_notes(entry.path());
    ASSERT_FALSE(notes.kernels.empty()) << entry.path();
    auto host_variables = readelf_host_variables(entry.path());
    for (const auto& [name, fields] : notes.kernels) {
      d4r::Expected<d4r::compiler::LaunchMeta> meta = d4r::compiler::read_launch_meta(bytes, name);
      if (!meta && meta.error().code == ErrorCode::rejected) {
        continue; // a fixture that breaks the contract on purpose (tested in launch_meta)
      }
      ASSERT_TRUE(meta) << entry.path() << " " << name << ": " << meta.error().message;
      ++kernels;
      std::string where = entry.path().string() + " " + name;
      EXPECT_EQ(meta->amdhsa_target, notes.target) << where;
      EXPECT_EQ(meta->main.name, name);
      expect_resources(meta->main, fields, where);
      if (meta->prep) {
        expect_resources(*meta->prep, notes.kernels.at(name + "_prep"), where + " prep");
      }
      std::vector<std::pair<std::string, uint64_t>> ours;
      for (const d4r::compiler::HostVariable& variable : meta->host_variables) {
        ours.emplace_back(variable.name, variable.size);
      }
      EXPECT_EQ(ours, host_variables) << where;
    }
  }
  EXPECT_GE(objects, 40);
  EXPECT_GE(kernels, objects);
  RecordProperty("objects", objects);
  RecordProperty("kernels", kernels);
}

TEST(ObjectReaders, ElfSectionsAndNotesOfAFixture)
{
  std::vector<std::byte> bytes = read_bytes(k_release / "gfx1201" / "d4r_test_layer.hsaco");
  d4r::Expected<d4r::compiler::elf::Image> image = d4r::compiler::elf::Image::open(bytes);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->machine(), d4r::compiler::elf::k_em_amdgpu);
  std::string headers = run("llvm-readelf-19 -S -W '" +
                            (k_release / "gfx1201" / "d4r_test_layer.hsaco").string() + "'");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(headers, match, std::regex(R"(There are (\d+) section headers)")));
  EXPECT_EQ(image->sections().size(), std::stoul(match[1]));
  int notes = 0;
  for (const d4r::compiler::elf::Section& section : image->sections()) {
    if (section.type == d4r::compiler::elf::k_sht_note) {
      d4r::Expected<std::vector<d4r::compiler::elf::Note>> found = image->notes(section);
      ASSERT_TRUE(found) << found.error().message;
      for (const d4r::compiler::elf::Note& note : *found) {
        notes += note.name == "AMDGPU" && note.type == 32 ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(notes, 1);
}

std::vector<std::byte> bytes_of(std::initializer_list<int> values)
{
  std::vector<std::byte> bytes;
  for (int value : values) {
    bytes.push_back(static_cast<std::byte>(value));
  }
  return bytes;
}

TEST(Msgpack, EveryScalarFormat)
{
  struct Case {
    std::vector<std::byte> bytes;
    msgpack::Kind kind;
    uint64_t unsigned_value;
    int64_t signed_value;
  };
  const std::vector<Case> cases = {
      {bytes_of({0x05}), msgpack::Kind::unsigned_int, 5, 0},
      {bytes_of({0xcc, 0xff}), msgpack::Kind::unsigned_int, 255, 0},
      {bytes_of({0xcd, 0x01, 0x00}), msgpack::Kind::unsigned_int, 256, 0},
      {bytes_of({0xce, 0x00, 0x01, 0x00, 0x00}), msgpack::Kind::unsigned_int, 65536, 0},
      {bytes_of({0xcf, 0x80, 0, 0, 0, 0, 0, 0, 1}), msgpack::Kind::unsigned_int,
       0x8000000000000001ULL, 0},
      {bytes_of({0xff}), msgpack::Kind::signed_int, 0, -1},
      {bytes_of({0xd0, 0x80}), msgpack::Kind::signed_int, 0, -128},
      {bytes_of({0xd1, 0xff, 0x7f}), msgpack::Kind::signed_int, 0, -129},
      {bytes_of({0xd2, 0x00, 0x00, 0x00, 0x07}), msgpack::Kind::signed_int, 0, 7},
      {bytes_of({0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}), msgpack::Kind::signed_int,
       0, -2},
      {bytes_of({0xc0}), msgpack::Kind::nil, 0, 0},
      {bytes_of({0xc3}), msgpack::Kind::boolean, 1, 0},
  };
  for (const Case& c : cases) {
    d4r::Expected<msgpack::Value> value = msgpack::decode(c.bytes);
    ASSERT_TRUE(value) << value.error().message;
    EXPECT_EQ(value->kind, c.kind);
    EXPECT_EQ(value->unsigned_value, c.unsigned_value);
    EXPECT_EQ(value->signed_value, c.signed_value);
  }
  d4r::Expected<msgpack::Value> half = msgpack::decode(bytes_of({0xca, 0x3f, 0xc0, 0, 0}));
  ASSERT_TRUE(half);
  EXPECT_EQ(half->float_value, 1.5);
}

TEST(Msgpack, StringsContainersAndExtensions)
{
  // {"ab": [1, "c"], str8 "xyz": bin8 0x01 0x02, "e": fixext1, "f": ext8 of 2}
  std::vector<std::byte> bytes = bytes_of({0x84, 0xa2, 'a', 'b', 0x92, 0x01, 0xa1, 'c', 0xd9, 3, 'x',
                                           'y', 'z', 0xc4, 2, 1, 2, 0xa1, 'e', 0xd4, 7, 9, 0xa1,
                                           'f', 0xc7, 2, 5, 1, 2});
  d4r::Expected<msgpack::Value> root = msgpack::decode(bytes);
  ASSERT_TRUE(root) << root.error().message;
  ASSERT_EQ(root->kind, msgpack::Kind::map);
  const msgpack::Value* list = root->find("ab");
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->kind, msgpack::Kind::array);
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].text, "c");
  const msgpack::Value* binary = root->find("xyz");
  ASSERT_NE(binary, nullptr);
  EXPECT_EQ(binary->kind, msgpack::Kind::binary);
  EXPECT_EQ(binary->text.size(), 2u);
  ASSERT_NE(root->find("e"), nullptr);
  EXPECT_EQ(root->find("e")->kind, msgpack::Kind::extension);
  ASSERT_NE(root->find("f"), nullptr);
  EXPECT_EQ(root->find("f")->text.size(), 2u);
  EXPECT_EQ(root->find("missing"), nullptr);
}

TEST(Msgpack, HostileInputIsCorruptNotACrash)
{
  // A map32 claiming 2^32 - 1 entries in six bytes, an array32 likewise, a str32 past the end.
  for (const std::vector<std::byte>& bytes :
       {bytes_of({0xdf, 0xff, 0xff, 0xff, 0xff, 0x01}), bytes_of({0xdd, 0xff, 0xff, 0xff, 0xff}),
        bytes_of({0xdb, 0x00, 0x00, 0x10, 0x00, 'a'}), bytes_of({0xc1}), bytes_of({}),
        bytes_of({0xcf, 0x01}), bytes_of({0x81, 0xa1, 'k'})}) {
    d4r::Expected<msgpack::Value> value = msgpack::decode(bytes);
    ASSERT_FALSE(value);
    EXPECT_EQ(value.error().code, ErrorCode::corrupt);
  }
  // Nesting: k_max_depth levels of one-element arrays decode; one more does not.
  std::vector<std::byte> deep(msgpack::k_max_depth, std::byte{0x91});
  deep.push_back(std::byte{0x01});
  EXPECT_TRUE(msgpack::decode(deep));
  deep.insert(deep.begin(), std::byte{0x91});
  d4r::Expected<msgpack::Value> deeper = msgpack::decode(deep);
  ASSERT_FALSE(deeper);
  EXPECT_NE(deeper.error().message.find("nested deeper"), std::string::npos);
}

TEST(ElfImage, HostileHeadersAreCorrupt)
{
  std::vector<std::byte> bytes = read_bytes(k_release / "gfx1201" / "d4r_test_layer.hsaco");
  ASSERT_GT(bytes.size(), 64u);
  auto corrupt_after = [&](size_t at, std::initializer_list<int> values) {
    std::vector<std::byte> copy = bytes;
    size_t i = at;
    for (int value : values) {
      copy[i++] = static_cast<std::byte>(value);
    }
    d4r::Expected<d4r::compiler::LaunchMeta> meta =
        d4r::compiler::read_launch_meta(copy, "d4r_test_layer");
    EXPECT_FALSE(meta) << "offset " << at;
    if (!meta) {
      EXPECT_EQ(meta.error().code, ErrorCode::corrupt) << meta.error().message;
    }
  };
  corrupt_after(40, {0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}); // e_shoff near 2^64
  corrupt_after(58, {0x20, 0x00});                                     // e_shentsize 32
  corrupt_after(60, {0xff, 0xff});                                     // e_shnum 65535
  corrupt_after(4, {1});                                               // ELFCLASS32
  corrupt_after(5, {2});                                               // big-endian
}

} // namespace
