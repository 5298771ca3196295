#include "compiler/launch_meta.hpp"

// Reads a native replacement's launch metadata the way the patched ZLUDA loader sees it: the u32
// contract symbols and the other module variables (host variables) through the dynamic symbol
// table (hipModuleGetGlobal resolves names there) and the kernels through the NT_AMDGPU_METADATA
// note (AMDGPU code object v3+ format, msgpack; see
// https://llvm.org/docs/AMDGPUUsage.html#code-object-v3-metadata).
//
// No LLVM here: the daemon reads metadata on the serving path and stays free of libLLVM (whose
// resident pages were two thirds of its memory); compiles run in d4r-kernel-worker. The ELF and
// msgpack readers (elf_image.hpp, msgpack_reader.hpp) check every offset, count and node kind, so
// a truncated or hostile object is an error, never an out-of-bounds read or a trap
// (FlippedBytesNeverCrash). Errors: rejected for a broken contract, corrupt for an unreadable
// object.

#include "compiler/elf_image.hpp"
#include "compiler/msgpack_reader.hpp"
#include "compiler/translate/tensor_map_layout.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace d4r::compiler {

namespace {

constexpr int k_max_posts = 8;
constexpr uint32_t k_nt_amdgpu_metadata = 32;

std::unexpected<Error> contract_error(std::string message)
{
  return make_error(ErrorCode::rejected, "compiler: " + std::move(message));
}

// Messages of the object's own damage; read_launch_meta names the kernel in front.
std::unexpected<Error> corrupt_error(std::string message)
{
  return make_error(ErrorCode::corrupt, std::move(message));
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

Expected<uint32_t> read_u32_field(const msgpack::Value& map, std::string_view key)
{
  const msgpack::Value* node = map.find(key);
  if (node == nullptr) {
    return corrupt_error("kernel metadata lacks " + std::string(key));
  }
  if (!node->is_non_negative_integer()) {
    return corrupt_error("kernel metadata " + std::string(key) + " is not an unsigned integer");
  }
  uint64_t value = node->as_unsigned();
  if (value > UINT32_MAX) {
    return corrupt_error("kernel metadata " + std::string(key) + " = " + std::to_string(value) +
                         " is out of range");
  }
  return static_cast<uint32_t>(value);
}

Expected<KernelResources> parse_kernel(const msgpack::Value& map)
{
  if (map.kind != msgpack::Kind::map) {
    return corrupt_error("an amdhsa.kernels entry is not a map");
  }
  const msgpack::Value* name = map.find(".name");
  if (name == nullptr || name->kind != msgpack::Kind::string) {
    return corrupt_error("an amdhsa.kernels entry has no .name");
  }
  KernelResources kernel;
  kernel.name = std::string(name->text);
  const std::array<std::pair<std::string_view, uint32_t*>, 8> fields{{
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
    Expected<uint32_t> value = read_u32_field(map, key);
    if (!value) {
      return corrupt_error("kernel " + kernel.name + ": " + value.error().message);
    }
    *out = *value;
  }
  return kernel;
}

Expected<NoteMeta> parse_metadata(std::span<const std::byte> blob)
{
  Expected<msgpack::Value> root = msgpack::decode(blob);
  if (!root || root->kind != msgpack::Kind::map) {
    return corrupt_error("the AMDGPU metadata note is not a msgpack map" +
                         (root ? std::string() : ": " + root.error().message));
  }
  NoteMeta note;
  const msgpack::Value* target = root->find("amdhsa.target");
  if (target != nullptr && target->kind == msgpack::Kind::string) {
    note.target = std::string(target->text);
  }
  const msgpack::Value* kernels = root->find("amdhsa.kernels");
  if (kernels == nullptr || kernels->kind != msgpack::Kind::array) {
    return corrupt_error("the AMDGPU metadata note has no amdhsa.kernels array");
  }
  for (const msgpack::Value& entry : kernels->items) {
    TRY_ASSIGN(KernelResources kernel, parse_kernel(entry));
    note.kernels.push_back(std::move(kernel));
  }
  return note;
}

Expected<NoteMeta> read_metadata_note(const elf::Image& image)
{
  for (const elf::Section& section : image.sections()) {
    if (section.type != elf::k_sht_note) {
      continue;
    }
    TRY_ASSIGN(std::vector<elf::Note> notes, image.notes(section));
    for (const elf::Note& note : notes) {
      if (note.name == "AMDGPU" && note.type == k_nt_amdgpu_metadata) {
        return parse_metadata(note.desc);
      }
    }
  }
  return corrupt_error("no NT_AMDGPU_METADATA note");
}

// The contract's u32 symbols, as hipModuleGetGlobal finds them.
class SymbolReader {
public:
  static Expected<SymbolReader> create(const elf::Image& image);
  Expected<uint32_t> read_u32(const std::string& name) const;
  const std::vector<HostVariable>& host_variables() const { return m_host_variables; }

private:
  explicit SymbolReader(const elf::Image& image) : m_image(&image) {}
  Expected<uint32_t> read_value(const std::string& name, const elf::Symbol& symbol) const;

  const elf::Image* m_image; // outlives the reader: both live in read_launch_meta
  std::map<std::string, elf::Symbol, std::less<>> m_symbols; // only the `d4r_` ones
  std::vector<HostVariable> m_host_variables;
};

// A defined, exported data symbol that is not the contract's, a kernel descriptor or clang's
// compilation-unit marker: a variable the host may write (LaunchMeta::host_variables).
bool is_host_variable(const elf::Symbol& symbol)
{
  const std::string_view name = symbol.name;
  const uint8_t binding = symbol.binding();
  return symbol.type() == elf::k_stt_object && symbol.section_index != elf::k_shn_undef &&
         (binding == elf::k_stb_global || binding == elf::k_stb_weak) &&
         symbol.visibility() != elf::k_stv_hidden &&
         symbol.visibility() != elf::k_stv_internal && !name.starts_with("d4r_") &&
         !name.ends_with(".kd") && !name.starts_with("__hip_cuid_");
}

Expected<SymbolReader> SymbolReader::create(const elf::Image& image)
{
  SymbolReader reader(image);
  // The loader resolves globals through .dynsym; .symtab only when an object has no .dynsym.
  const elf::Section* table = nullptr;
  for (const elf::Section& section : image.sections()) {
    if (section.type == elf::k_sht_dynsym) {
      table = &section;
    } else if (section.type == elf::k_sht_symtab && table == nullptr) {
      table = &section;
    }
  }
  if (table == nullptr) {
    return reader;
  }
  TRY_ASSIGN(std::vector<elf::Symbol> symbols, image.symbols(*table));
  for (const elf::Symbol& symbol : symbols) {
    if (symbol.name.starts_with("d4r_") && symbol.section_index != elf::k_shn_undef) {
      reader.m_symbols.emplace(std::string(symbol.name), symbol); // the first of a name wins
    } else if (is_host_variable(symbol)) {
      reader.m_host_variables.push_back(HostVariable{std::string(symbol.name), symbol.size});
    }
  }
  std::sort(reader.m_host_variables.begin(), reader.m_host_variables.end(),
            [](const HostVariable& a, const HostVariable& b) { return a.name < b.name; });
  return reader;
}

Expected<uint32_t> SymbolReader::read_u32(const std::string& name) const
{
  auto it = m_symbols.find(name);
  if (it == m_symbols.end()) {
    return 0;
  }
  if (it->second.size != 4) {
    return contract_error("symbol " + name + " is " + std::to_string(it->second.size) +
                          " bytes, the contract wants a 4-byte u32");
  }
  return read_value(name, it->second);
}

Expected<uint32_t> SymbolReader::read_value(const std::string& name,
                                            const elf::Symbol& symbol) const
{
  const std::vector<elf::Section>& sections = m_image->sections();
  if (symbol.section_index >= sections.size()) {
    return corrupt_error("symbol " + name + " has an invalid section index " +
                         std::to_string(symbol.section_index));
  }
  const elf::Section& section = sections[symbol.section_index];
  if (section.type == elf::k_sht_nobits) {
    return 0; // .bss: zero-initialised
  }
  TRY_ASSIGN(std::span<const std::byte> contents, m_image->contents(section));
  uint64_t offset = symbol.value - section.address;
  if (symbol.value < section.address || offset > contents.size() || contents.size() - offset < 4) {
    return corrupt_error("symbol " + name + " lies outside its section");
  }
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | std::to_integer<uint32_t>(contents[offset + static_cast<size_t>(i)]);
  }
  return value;
}

Expected<elf::Image> open_code_object(std::span<const std::byte> bytes)
{
  TRY_ASSIGN(elf::Image image, elf::Image::open(bytes));
  if (image.machine() != elf::k_em_amdgpu) {
    return corrupt_error("not an AMDGPU code object (e_machine " +
                         std::to_string(image.machine()) + ")");
  }
  return image;
}

// Fills the main launch's fields: prep blocks and key, block_z, grid_x, the tensor map layout.
Expected<void> read_main_symbols(const SymbolReader& symbols, LaunchMeta& meta)
{
  const std::array<std::pair<const char*, uint32_t*>, 8> fields{{
      {"d4r_prep_blocks", &meta.prep_blocks},
      {"d4r_prep_key_offset", &meta.prep_key_offset},
      {"d4r_prep_key_at", &meta.prep_key_at},
      {"d4r_prep_key_slots", &meta.prep_key_slots},
      {"d4r_prep_identity_at", &meta.prep_identity_at},
      {"d4r_block_z", &meta.block_z},
      {"d4r_grid_x", &meta.grid_x},
      {D4R_TENSOR_MAP_SYMBOL, &meta.tensor_map_layout},
  }};
  for (const auto& [name, out] : fields) {
    TRY_ASSIGN(*out, symbols.read_u32(name));
  }
  return {};
}

Expected<PostKernelMeta> read_post(const SymbolReader& symbols, std::string name, int index)
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
    TRY_ASSIGN(uint32_t value, symbols.read_u32(symbol));
    *out = value != 0 ? value : fallback;
  }
  return post;
}

Expected<LaunchMeta> read_meta(const elf::Image& image, const std::string& kernel_name)
{
  TRY_ASSIGN(NoteMeta note, read_metadata_note(image));
  TRY_ASSIGN(SymbolReader symbols, SymbolReader::create(image));
  const KernelResources* main = find_kernel(note, kernel_name);
  if (main == nullptr) {
    return contract_error("kernel " + kernel_name + " is not in the code object");
  }
  LaunchMeta meta;
  meta.amdhsa_target = note.target;
  meta.main = *main;
  meta.host_variables = symbols.host_variables();
  TRY(read_main_symbols(symbols, meta));
  if (const KernelResources* prep = find_kernel(note, kernel_name + "_prep")) {
    if (meta.prep_blocks == 0) {
      return contract_error("kernel " + kernel_name + "_prep is present but d4r_prep_blocks is 0");
    }
    meta.prep = *prep;
  }
  for (int index = 1; index <= k_max_posts; ++index) {
    std::string post_name = kernel_name + "_post" + std::to_string(index);
    if (find_kernel(note, post_name) == nullptr) {
      break;
    }
    TRY_ASSIGN(PostKernelMeta post, read_post(symbols, std::move(post_name), index));
    meta.posts.push_back(std::move(post));
  }
  return meta;
}

} // namespace

Expected<LaunchMeta> read_launch_meta(std::span<const std::byte> code_object,
                                      std::string_view kernel_name)
{
  Expected<LaunchMeta> meta = [&]() -> Expected<LaunchMeta> {
    TRY_ASSIGN(elf::Image image, open_code_object(code_object));
    return read_meta(image, std::string(kernel_name));
  }();
  if (!meta && meta.error().code != ErrorCode::rejected) {
    return make_error(meta.error().code, "compiler: code object for kernel " +
                                             std::string(kernel_name) + ": " +
                                             meta.error().message);
  }
  return meta;
}

} // namespace d4r::compiler
