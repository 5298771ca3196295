#pragma once
// A bounds-checked view of a 64-bit little-endian ELF file: its sections, the symbols of a symbol
// table and the notes of a note section. Just what reading a code object's launch metadata needs
// (launch_meta.cpp), without LLVM: the daemon reads metadata and must not map libLLVM for it
// (its resident size is the daemon's largest part). Every offset and size the file states is
// checked against the buffer before a byte is read, so a truncated or hostile file is an error
// (ErrorCode::corrupt), never an out-of-bounds read.
//
// Layouts: the System V gABI, https://www.sco.com/developers/gabi/latest/contents.html (ELF
// header, section header, symbol table, note section).

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace d4r::compiler::elf {

inline constexpr uint32_t k_sht_symtab = 2;
inline constexpr uint32_t k_sht_strtab = 3;
inline constexpr uint32_t k_sht_note = 7;
inline constexpr uint32_t k_sht_nobits = 8;
inline constexpr uint32_t k_sht_dynsym = 11;
inline constexpr uint16_t k_shn_undef = 0;
inline constexpr uint16_t k_em_amdgpu = 224;
inline constexpr uint8_t k_stt_object = 1;
inline constexpr uint8_t k_stb_global = 1;
inline constexpr uint8_t k_stb_weak = 2;
inline constexpr uint8_t k_stv_internal = 1;
inline constexpr uint8_t k_stv_hidden = 2;

struct Section {
  uint32_t type = 0;
  uint64_t address = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint64_t align = 0;
  uint64_t entry_size = 0;
};

struct Symbol {
  std::string_view name; // points into the image's bytes
  uint8_t info = 0;
  uint8_t other = 0;
  uint16_t section_index = 0;
  uint64_t value = 0;
  uint64_t size = 0;

  [[nodiscard]] uint8_t type() const { return info & 0xf; }
  [[nodiscard]] uint8_t binding() const { return info >> 4; }
  [[nodiscard]] uint8_t visibility() const { return other & 0x3; }
};

struct Note {
  std::string_view name; // without its terminating NUL
  uint32_t type = 0;
  std::span<const std::byte> desc;
};

class Image {
public:
  // Checks the identification (magic, 64-bit, little-endian) and reads the section header table.
  [[nodiscard]] static Expected<Image> open(std::span<const std::byte> bytes);

  [[nodiscard]] uint16_t machine() const { return m_machine; }
  [[nodiscard]] const std::vector<Section>& sections() const { return m_sections; }
  // The section's bytes (empty for SHT_NOBITS).
  [[nodiscard]] Expected<std::span<const std::byte>> contents(const Section& section) const;
  // Every entry of a SHT_SYMTAB or SHT_DYNSYM section, the null symbol first, named through the
  // string table its sh_link names.
  [[nodiscard]] Expected<std::vector<Symbol>> symbols(const Section& table) const;
  // Every note of a SHT_NOTE section, in order.
  [[nodiscard]] Expected<std::vector<Note>> notes(const Section& section) const;

private:
  explicit Image(std::span<const std::byte> bytes) : m_bytes(bytes) {}

  std::span<const std::byte> m_bytes;
  uint16_t m_machine = 0;
  std::vector<Section> m_sections;
};

} // namespace d4r::compiler::elf
