#include "compiler/launch_meta.hpp"

// Reads a native replacement's launch metadata the way the patched ZLUDA loader sees it: the u32
// contract symbols and the other module variables (host variables) through the dynamic symbol
// table (hipModuleGetGlobal resolves names there) and the kernels through the NT_AMDGPU_METADATA note (AMDGPU code object v3+ format, msgpack; see
// https://llvm.org/docs/AMDGPUUsage.html#code-object-v3-metadata).
//
// Every access goes through ELFFile's bounds-checked accessors, the note's map keys are checked
// before msgpack::Document sees them and every node's kind is checked before use, so a truncated
// or hostile object is an error, never an out-of-bounds read or a trap (FlippedBytesNeverCrash).
// Inside this file failures are llvm::Error: a ContractError for a broken contract (rejected),
// anything else LLVM reports for an unreadable object (corrupt). read_launch_meta converts once.

// g++ 12 reports a "potential null pointer dereference" inside LLVM's own ErrorList::join (inlined
// from every handleAllErrors): a false positive in a system header that -Werror would turn fatal.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <llvm/ADT/StringMap.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/BinaryFormat/MsgPackReader.h>
#include <llvm/Object/Binary.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBufferRef.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace d4r::compiler {

namespace {

using Elf = llvm::object::ELF64LE;
using ElfFile = llvm::object::ELFFile<Elf>;
using ElfSym = Elf::Sym;

constexpr int k_max_posts = 8;

// A code object that is readable but breaks the override-hook contract.
class ContractError : public llvm::ErrorInfo<ContractError> {
public:
  static char ID;
  explicit ContractError(std::string message) : m_message(std::move(message)) {}
  void log(llvm::raw_ostream& os) const override { os << m_message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string m_message;
};
char ContractError::ID = 0;

llvm::Error contract_error(std::string message)
{
  return llvm::make_error<ContractError>(std::move(message));
}

llvm::Error corrupt_error(const std::string& message)
{
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// What the metadata note says: the target and every kernel.
struct NoteMeta {
  std::string target;
  std::vector<KernelResources> kernels;
};

const KernelResources* find_kernel(const NoteMeta& note, std::string_view name)
{
  for (const KernelResources& kernel : note.kernels) {
    if (kernel.name == name) {
      return &kernel;
    }
  }
  return nullptr;
}

llvm::Expected<uint32_t> read_u32_field(llvm::msgpack::MapDocNode& map, llvm::StringRef key)
{
  auto it = map.find(key);
  if (it == map.end()) {
    return corrupt_error("kernel metadata lacks " + key.str());
  }
  const llvm::msgpack::DocNode& node = it->second;
  uint64_t value = 0;
  if (node.getKind() == llvm::msgpack::Type::UInt) {
    value = node.getUInt();
  } else if (node.getKind() == llvm::msgpack::Type::Int && node.getInt() >= 0) {
    value = static_cast<uint64_t>(node.getInt());
  } else {
    return corrupt_error("kernel metadata " + key.str() + " is not an unsigned integer");
  }
  if (value > UINT32_MAX) {
    return corrupt_error("kernel metadata " + key.str() + " = " + std::to_string(value) +
                         " is out of range");
  }
  return static_cast<uint32_t>(value);
}

llvm::Expected<KernelResources> parse_kernel(llvm::msgpack::DocNode& node)
{
  if (!node.isMap()) {
    return corrupt_error("an amdhsa.kernels entry is not a map");
  }
  llvm::msgpack::MapDocNode& map = node.getMap();
  auto name = map.find(llvm::StringRef(".name"));
  if (name == map.end() || !name->second.isString()) {
    return corrupt_error("an amdhsa.kernels entry has no .name");
  }
  KernelResources kernel;
  kernel.name = name->second.getString().str();
  const std::array<std::pair<llvm::StringRef, uint32_t*>, 8> fields{{
      {".kernarg_segment_size", &kernel.kernarg_size},
      {".kernarg_segment_align", &kernel.kernarg_align},
      {".wavefront_size", &kernel.wave_size},
      {".sgpr_count", &kernel.sgpr_count},
      {".vgpr_count", &kernel.vgpr_count},
      {".group_segment_fixed_size", &kernel.lds_bytes},
      {".private_segment_fixed_size", &kernel.scratch_bytes},
      {".max_flat_workgroup_size", &kernel.max_workgroup_size},
  }};
  for (const auto& [key, out] : fields) {
    llvm::Expected<uint32_t> value = read_u32_field(map, key);
    if (!value) {
      return corrupt_error("kernel " + kernel.name + ": " + llvm::toString(value.takeError()));
    }
    *out = *value;
  }
  return kernel;
}

// Document::readFromBlob reaches llvm_unreachable (a trap in release builds) when a map key is a
// map or an array, which a damaged note can hold: the plain msgpack reader checks the keys first.
llvm::Error check_map_keys(llvm::StringRef blob)
{
  struct Level {
    uint64_t left; // objects still to read: 2 per map entry, 1 per array element
    bool is_map;
  };
  llvm::msgpack::Reader reader(blob);
  std::vector<Level> stack;
  do {
    llvm::msgpack::Object object;
    llvm::Expected<bool> read = reader.read(object);
    if (!read) {
      return read.takeError();
    }
    if (!*read) {
      return corrupt_error("the AMDGPU metadata note ends inside a map or array");
    }
    bool is_key = !stack.empty() && stack.back().is_map && stack.back().left % 2 == 0;
    if (!stack.empty()) {
      --stack.back().left;
    }
    bool is_map = object.Kind == llvm::msgpack::Type::Map;
    if (is_map || object.Kind == llvm::msgpack::Type::Array) {
      if (is_key) {
        return corrupt_error("the AMDGPU metadata note has a map or array as a map key");
      }
      stack.push_back(Level{is_map ? 2 * uint64_t{object.Length} : object.Length, is_map});
    }
    while (!stack.empty() && stack.back().left == 0) {
      stack.pop_back();
    }
  } while (!stack.empty());
  return llvm::Error::success();
}

llvm::Expected<NoteMeta> parse_metadata(llvm::StringRef blob)
{
  if (llvm::Error error = check_map_keys(blob)) {
    return error;
  }
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false) || !doc.getRoot().isMap()) {
    return corrupt_error("the AMDGPU metadata note is not a msgpack map");
  }
  llvm::msgpack::MapDocNode& root = doc.getRoot().getMap();
  NoteMeta note;
  auto target = root.find(llvm::StringRef("amdhsa.target"));
  if (target != root.end() && target->second.isString()) {
    note.target = target->second.getString().str();
  }
  auto kernels = root.find(llvm::StringRef("amdhsa.kernels"));
  if (kernels == root.end() || !kernels->second.isArray()) {
    return corrupt_error("the AMDGPU metadata note has no amdhsa.kernels array");
  }
  for (llvm::msgpack::DocNode& entry : kernels->second.getArray()) {
    llvm::Expected<KernelResources> kernel = parse_kernel(entry);
    if (!kernel) {
      return kernel.takeError();
    }
    note.kernels.push_back(std::move(*kernel));
  }
  return note;
}

llvm::Expected<NoteMeta> read_metadata_note(const ElfFile& elf)
{
  llvm::Expected<ElfFile::Elf_Shdr_Range> sections = elf.sections();
  if (!sections) {
    return sections.takeError();
  }
  for (const ElfFile::Elf_Shdr& section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) {
      continue;
    }
    // ELFFile checks offset + size without guarding the addition against wrapping.
    if (section.sh_offset > elf.getBufSize() ||
        section.sh_size > elf.getBufSize() - section.sh_offset) {
      return corrupt_error("a note section lies outside the file");
    }
    llvm::Error error = llvm::Error::success();
    for (const ElfFile::Elf_Note& note : elf.notes(section, error)) {
      if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA) {
        size_t align = std::max<size_t>(section.sh_addralign, 4);
        llvm::StringRef blob = note.getDescAsStringRef(align);
        llvm::cantFail(std::move(error)); // the iterator stopped on a valid note
        return parse_metadata(blob);
      }
    }
    if (error) {
      return error;
    }
  }
  return corrupt_error("no NT_AMDGPU_METADATA note");
}

// The contract's u32 symbols, as hipModuleGetGlobal finds them.
class SymbolReader {
public:
  static llvm::Expected<SymbolReader> create(const ElfFile& elf);
  llvm::Expected<uint32_t> read_u32(llvm::StringRef name) const;
  const std::vector<HostVariable>& host_variables() const { return m_host_variables; }

private:
  explicit SymbolReader(const ElfFile& elf) : m_elf(&elf) {}
  llvm::Expected<uint32_t> read_value(llvm::StringRef name, const ElfSym& symbol) const;

  const ElfFile* m_elf; // outlives the reader: both live in read_meta
  ElfFile::Elf_Shdr_Range m_sections;
  llvm::StringMap<ElfSym> m_symbols; // only the `d4r_` ones
  std::vector<HostVariable> m_host_variables;
};

// A defined, exported data symbol that is not the contract's, a kernel descriptor or clang's
// compilation-unit marker: a variable the host may write (LaunchMeta::host_variables).
bool is_host_variable(const ElfSym& symbol, llvm::StringRef name)
{
  unsigned char binding = symbol.getBinding();
  return symbol.getType() == llvm::ELF::STT_OBJECT && symbol.st_shndx != llvm::ELF::SHN_UNDEF &&
         (binding == llvm::ELF::STB_GLOBAL || binding == llvm::ELF::STB_WEAK) &&
         symbol.getVisibility() != llvm::ELF::STV_HIDDEN &&
         symbol.getVisibility() != llvm::ELF::STV_INTERNAL && !name.starts_with("d4r_") &&
         !name.ends_with(".kd") && !name.starts_with("__hip_cuid_");
}

llvm::Expected<SymbolReader> SymbolReader::create(const ElfFile& elf)
{
  SymbolReader reader(elf);
  llvm::Expected<ElfFile::Elf_Shdr_Range> sections = elf.sections();
  if (!sections) {
    return sections.takeError();
  }
  reader.m_sections = *sections;
  // The loader resolves globals through .dynsym; .symtab only when an object has no .dynsym.
  const ElfFile::Elf_Shdr* table = nullptr;
  for (const ElfFile::Elf_Shdr& section : *sections) {
    if (section.sh_type == llvm::ELF::SHT_DYNSYM) {
      table = &section;
    } else if (section.sh_type == llvm::ELF::SHT_SYMTAB && table == nullptr) {
      table = &section;
    }
  }
  if (table == nullptr) {
    return reader;
  }
  llvm::Expected<ElfFile::Elf_Sym_Range> symbols = elf.symbols(table);
  if (!symbols) {
    return symbols.takeError();
  }
  llvm::Expected<llvm::StringRef> strings = elf.getStringTableForSymtab(*table, *sections);
  if (!strings) {
    return strings.takeError();
  }
  for (const ElfSym& symbol : *symbols) {
    llvm::Expected<llvm::StringRef> name = symbol.getName(*strings);
    if (!name) {
      return name.takeError();
    }
    if (name->starts_with("d4r_") && symbol.st_shndx != llvm::ELF::SHN_UNDEF) {
      reader.m_symbols.insert({*name, symbol});
    } else if (is_host_variable(symbol, *name)) {
      reader.m_host_variables.push_back(HostVariable{name->str(), symbol.st_size});
    }
  }
  std::sort(reader.m_host_variables.begin(), reader.m_host_variables.end(),
            [](const HostVariable& a, const HostVariable& b) { return a.name < b.name; });
  return reader;
}

llvm::Expected<uint32_t> SymbolReader::read_u32(llvm::StringRef name) const
{
  auto it = m_symbols.find(name);
  if (it == m_symbols.end()) {
    return 0;
  }
  if (it->second.st_size != 4) {
    return contract_error("symbol " + name.str() + " is " +
                          std::to_string(static_cast<uint64_t>(it->second.st_size)) +
                          " bytes, the contract wants a 4-byte u32");
  }
  return read_value(name, it->second);
}

llvm::Expected<uint32_t> SymbolReader::read_value(llvm::StringRef name, const ElfSym& symbol) const
{
  if (symbol.st_shndx >= m_sections.size()) {
    return corrupt_error("symbol " + name.str() + " has an invalid section index " +
                         std::to_string(static_cast<uint32_t>(symbol.st_shndx)));
  }
  const ElfFile::Elf_Shdr& section = m_sections[symbol.st_shndx];
  if (section.sh_type == llvm::ELF::SHT_NOBITS) {
    return 0; // .bss: zero-initialised
  }
  llvm::Expected<llvm::ArrayRef<uint8_t>> contents = m_elf->getSectionContents(section);
  if (!contents) {
    return contents.takeError();
  }
  uint64_t offset = symbol.st_value - section.sh_addr;
  if (symbol.st_value < section.sh_addr || offset > contents->size() ||
      contents->size() - offset < 4) {
    return corrupt_error("symbol " + name.str() + " lies outside its section");
  }
  return llvm::support::endian::read32le(contents->data() + offset);
}

llvm::Expected<ElfFile> open_code_object(llvm::MemoryBufferRef buffer,
                                         std::unique_ptr<llvm::object::Binary>& owner)
{
  llvm::Expected<std::unique_ptr<llvm::object::Binary>> binary =
      llvm::object::createBinary(buffer);
  if (!binary) {
    return binary.takeError();
  }
  owner = std::move(*binary);
  const auto* object = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(owner.get());
  if (object == nullptr) {
    return corrupt_error("not a 64-bit little-endian ELF file");
  }
  const ElfFile& elf = object->getELFFile();
  if (elf.getHeader().e_machine != llvm::ELF::EM_AMDGPU) {
    return corrupt_error("not an AMDGPU code object (e_machine " +
                         std::to_string(static_cast<uint32_t>(elf.getHeader().e_machine)) + ")");
  }
  return elf;
}

// Fills the main launch's fields: prep blocks and key, block_z, grid_x.
llvm::Error read_main_symbols(const SymbolReader& symbols, LaunchMeta& meta)
{
  const std::array<std::pair<llvm::StringRef, uint32_t*>, 7> fields{{
      {"d4r_prep_blocks", &meta.prep_blocks},
      {"d4r_prep_key_offset", &meta.prep_key_offset},
      {"d4r_prep_key_at", &meta.prep_key_at},
      {"d4r_prep_key_slots", &meta.prep_key_slots},
      {"d4r_prep_identity_at", &meta.prep_identity_at},
      {"d4r_block_z", &meta.block_z},
      {"d4r_grid_x", &meta.grid_x},
  }};
  for (const auto& [name, out] : fields) {
    llvm::Expected<uint32_t> value = symbols.read_u32(name);
    if (!value) {
      return value.takeError();
    }
    *out = *value;
  }
  return llvm::Error::success();
}

llvm::Expected<PostKernelMeta> read_post(const SymbolReader& symbols, std::string name, int index)
{
  PostKernelMeta post;
  post.name = std::move(name);
  const std::string prefix = "d4r_post" + std::to_string(index) + "_";
  const std::array<std::tuple<std::string, uint32_t*, uint32_t>, 5> fields{{
      {prefix + "grid_x", &post.grid_x, 0},
      {prefix + "grid_y", &post.grid_y, 0},
      {prefix + "block_x", &post.block_x, 32},
      {prefix + "block_y", &post.block_y, 1},
      {prefix + "block_z", &post.block_z, 1},
  }};
  for (const auto& [symbol, out, fallback] : fields) {
    llvm::Expected<uint32_t> value = symbols.read_u32(symbol);
    if (!value) {
      return value.takeError();
    }
    *out = *value != 0 ? *value : fallback;
  }
  return post;
}

llvm::Expected<LaunchMeta> read_meta(const ElfFile& elf, const std::string& kernel_name)
{
  llvm::Expected<NoteMeta> note = read_metadata_note(elf);
  if (!note) {
    return note.takeError();
  }
  llvm::Expected<SymbolReader> symbols = SymbolReader::create(elf);
  if (!symbols) {
    return symbols.takeError();
  }
  const KernelResources* main = find_kernel(*note, kernel_name);
  if (main == nullptr) {
    return contract_error("kernel " + kernel_name + " is not in the code object");
  }
  LaunchMeta meta;
  meta.amdhsa_target = note->target;
  meta.main = *main;
  meta.host_variables = symbols->host_variables();
  if (llvm::Error error = read_main_symbols(*symbols, meta)) {
    return error;
  }
  if (const KernelResources* prep = find_kernel(*note, kernel_name + "_prep")) {
    if (meta.prep_blocks == 0) {
      return contract_error("kernel " + kernel_name +
                            "_prep is present but d4r_prep_blocks is 0");
    }
    meta.prep = *prep;
  }
  for (int index = 1; index <= k_max_posts; ++index) {
    std::string post_name = kernel_name + "_post" + std::to_string(index);
    if (find_kernel(*note, post_name) == nullptr) {
      break;
    }
    llvm::Expected<PostKernelMeta> post = read_post(*symbols, std::move(post_name), index);
    if (!post) {
      return post.takeError();
    }
    meta.posts.push_back(std::move(*post));
  }
  return meta;
}

Error to_error(llvm::Error error, std::string_view kernel_name)
{
  ErrorCode code = ErrorCode::corrupt;
  std::string reason;
  llvm::handleAllErrors(
      std::move(error),
      [&](const ContractError& contract) {
        code = ErrorCode::rejected;
        reason = contract.message();
      },
      [&](const llvm::ErrorInfoBase& other) {
        reason += reason.empty() ? other.message() : ": " + other.message();
      });
  if (code == ErrorCode::rejected) {
    return Error{code, "compiler: " + reason};
  }
  return Error{code,
               "compiler: code object for kernel " + std::string(kernel_name) + ": " + reason};
}

} // namespace

Expected<LaunchMeta> read_launch_meta(std::span<const std::byte> code_object,
                                      std::string_view kernel_name)
{
  llvm::StringRef bytes(reinterpret_cast<const char*>(code_object.data()), code_object.size());
  std::unique_ptr<llvm::object::Binary> owner;
  llvm::Expected<ElfFile> elf = open_code_object(llvm::MemoryBufferRef(bytes, kernel_name), owner);
  if (!elf) {
    return std::unexpected(to_error(elf.takeError(), kernel_name));
  }
  llvm::Expected<LaunchMeta> meta = read_meta(*elf, std::string(kernel_name));
  if (!meta) {
    return std::unexpected(to_error(meta.takeError(), kernel_name));
  }
  return std::move(*meta);
}

} // namespace d4r::compiler
