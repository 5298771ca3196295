#include "compiler/elf_image.hpp"

#include <string>
#include <utility>

namespace d4r::compiler::elf {

namespace {

constexpr size_t k_header_bytes = 64;
constexpr size_t k_section_header_bytes = 64;
constexpr size_t k_symbol_bytes = 24;
constexpr size_t k_note_header_bytes = 12;

std::unexpected<Error> corrupt(std::string message)
{
  return make_error(ErrorCode::corrupt, std::move(message));
}

// Little-endian fields, read byte by byte: the file's order whatever the host's.
uint64_t read_le(std::span<const std::byte> bytes, size_t at, size_t width)
{
  uint64_t value = 0;
  for (size_t i = width; i > 0; --i) {
    value = (value << 8) | std::to_integer<uint64_t>(bytes[at + i - 1]);
  }
  return value;
}

uint16_t u16(std::span<const std::byte> bytes, size_t at)
{
  return static_cast<uint16_t>(read_le(bytes, at, 2));
}

uint32_t u32(std::span<const std::byte> bytes, size_t at)
{
  return static_cast<uint32_t>(read_le(bytes, at, 4));
}

uint64_t u64(std::span<const std::byte> bytes, size_t at)
{
  return read_le(bytes, at, 8);
}

// Whether [offset, offset + size) lies within `total`, without wrapping.
bool fits(uint64_t offset, uint64_t size, uint64_t total)
{
  return offset <= total && size <= total - offset;
}

Section parse_section(std::span<const std::byte> header)
{
  Section section;
  section.type = u32(header, 4);
  section.address = u64(header, 16);
  section.offset = u64(header, 24);
  section.size = u64(header, 32);
  section.link = u32(header, 40);
  section.align = u64(header, 48);
  section.entry_size = u64(header, 56);
  return section;
}

uint64_t align_up(uint64_t value, uint64_t align)
{
  return (value + align - 1) / align * align;
}

} // namespace

Expected<Image> Image::open(std::span<const std::byte> bytes)
{
  if (bytes.size() < k_header_bytes) {
    return corrupt("not an ELF file: " + std::to_string(bytes.size()) + " bytes");
  }
  if (u32(bytes, 0) != 0x464c457f) { // "\x7fELF"
    return corrupt("not an ELF file: no ELF magic");
  }
  if (std::to_integer<int>(bytes[4]) != 2 || std::to_integer<int>(bytes[5]) != 1) {
    return corrupt("not a 64-bit little-endian ELF file");
  }
  Image image(bytes);
  image.m_machine = u16(bytes, 18);
  uint64_t table = u64(bytes, 40);
  uint16_t entry_size = u16(bytes, 58);
  uint64_t count = u16(bytes, 60);
  if (table == 0) {
    return image; // no section header table
  }
  if (entry_size != k_section_header_bytes) {
    return corrupt("invalid e_shentsize " + std::to_string(entry_size));
  }
  if (!fits(table, k_section_header_bytes, bytes.size())) {
    return corrupt("the section header table lies outside the file");
  }
  if (count == 0) {
    count = u64(bytes, table + 32); // more than 0xff00 sections: section 0's sh_size says
  }
  if (count > (bytes.size() - table) / k_section_header_bytes) {
    return corrupt("the section header table lies outside the file");
  }
  image.m_sections.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    image.m_sections.push_back(
        parse_section(bytes.subspan(table + i * k_section_header_bytes, k_section_header_bytes)));
  }
  return image;
}

Expected<std::span<const std::byte>> Image::contents(const Section& section) const
{
  if (section.type == k_sht_nobits) {
    return std::span<const std::byte>();
  }
  if (!fits(section.offset, section.size, m_bytes.size())) {
    return corrupt("a section (offset " + std::to_string(section.offset) +
                                   ", size " + std::to_string(section.size) +
                                   ") lies outside the file");
  }
  return m_bytes.subspan(section.offset, section.size);
}

Expected<std::vector<Symbol>> Image::symbols(const Section& table) const
{
  if (table.entry_size != k_symbol_bytes || table.size % k_symbol_bytes != 0) {
    return corrupt("a symbol table has entries of " +
                                   std::to_string(table.entry_size) + " bytes");
  }
  if (table.link >= m_sections.size() || m_sections[table.link].type != k_sht_strtab) {
    return corrupt("a symbol table's sh_link is not a string table");
  }
  TRY_ASSIGN(std::span<const std::byte> entries, contents(table));
  TRY_ASSIGN(std::span<const std::byte> strings, contents(m_sections[table.link]));
  if (strings.empty() || strings.back() != std::byte{0}) {
    return corrupt("a string table is not NUL-terminated");
  }
  const std::string_view text(reinterpret_cast<const char*>(strings.data()), strings.size());
  std::vector<Symbol> symbols;
  symbols.reserve(entries.size() / k_symbol_bytes);
  for (size_t at = 0; at < entries.size(); at += k_symbol_bytes) {
    uint32_t name = u32(entries, at);
    if (name >= text.size()) {
      return corrupt("a symbol's st_name " + std::to_string(name) +
                                     " lies outside its string table");
    }
    Symbol symbol;
    symbol.name = std::string_view(text.data() + name); // the table ends in a NUL
    symbol.info = std::to_integer<uint8_t>(entries[at + 4]);
    symbol.other = std::to_integer<uint8_t>(entries[at + 5]);
    symbol.section_index = u16(entries, at + 6);
    symbol.value = u64(entries, at + 8);
    symbol.size = u64(entries, at + 16);
    symbols.push_back(symbol);
  }
  return symbols;
}

Expected<std::vector<Note>> Image::notes(const Section& section) const
{
  TRY_ASSIGN(std::span<const std::byte> bytes, contents(section));
  // Notes are 4-byte aligned, or 8 in a section of that alignment (gABI "Note Section").
  const uint64_t align = section.align == 8 ? 8 : 4;
  std::vector<Note> notes;
  uint64_t at = 0;
  while (at < bytes.size()) {
    if (!fits(at, k_note_header_bytes, bytes.size())) {
      return corrupt("a note header overflows its section");
    }
    uint64_t name_size = u32(bytes, at);
    uint64_t desc_size = u32(bytes, at + 4);
    uint64_t name_at = at + k_note_header_bytes;
    uint64_t desc_at = align_up(name_at + name_size, align);
    if (!fits(name_at, name_size, bytes.size()) || !fits(desc_at, desc_size, bytes.size())) {
      return corrupt("a note overflows its section");
    }
    Note note;
    note.type = u32(bytes, at + 8);
    note.name = std::string_view(reinterpret_cast<const char*>(bytes.data() + name_at), name_size);
    if (!note.name.empty() && note.name.back() == '\0') {
      note.name.remove_suffix(1);
    }
    note.desc = bytes.subspan(desc_at, desc_size);
    notes.push_back(note);
    at = align_up(desc_at + desc_size, align);
  }
  return notes;
}

} // namespace d4r::compiler::elf
