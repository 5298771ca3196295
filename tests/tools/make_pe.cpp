// d4r-make-pe: writes a file shaped like a Windows DLL with CUDA fatbins inside it, the way an
// upscaler DLL carries its kernels, so that the fatbin scan (d4r-contract.md section 1, "DLL scan")
// is tested on a file no NVIDIA tool made.
//
//   d4r-make-pe OUT FATBIN...
//
// Layout (offsets in bytes; every fatbin lands at an odd offset, never 4- or 8-aligned):
//   0x0000  DOS header: "MZ", e_lfanew = 0x80 at 0x3c, a DOS-stub string at 0x40;
//   0x0080  "PE\0\0", COFF header (machine 0x8664, 2 sections, optional header 0xf0 bytes),
//           PE32+ optional header (magic 0x20b, otherwise zero), section table (.text, .nv_fatb);
//   0x0400  .text: 0x1000 bytes of filler with two decoy fatbin headers that the scan must reject:
//           0x0801 magic with version 2, 0x0a03 magic, version 1, header 16 and a size that does not
//           fit in the file;
//   0x1400  .nv_fatb: the first fatbin at 0x1413; fatbin i+1 starts at (end of fatbin i + 0x40)
//           rounded up to 16, plus 5 + 2*i (so at 5, 7, 9, ... modulo 16);
//   then    0x31 filler bytes and a truncated header (the magic and a version, 6 bytes) that ends
//           the file.
// Filler is pseudo-random (fixed seed) with the byte 0xba left out, so that it never spells the
// magic by chance. OUT.map lists what was placed, one line each, offsets and sizes in decimal:
// `fatbin OFFSET SIZE PATH` and `decoy OFFSET REASON`.

#include "tests/tools/fixture_bytes.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using d4r::fixture::Bytes;

constexpr uint32_t k_fatbin_magic = 0xBA55ED50u;
constexpr int64_t k_pe_offset = 0x80;
constexpr int64_t k_text_offset = 0x400;
constexpr int64_t k_text_size = 0x1000;
constexpr int64_t k_fatb_offset = k_text_offset + k_text_size;
constexpr int64_t k_first_fatbin = k_fatb_offset + 0x13;
constexpr int64_t k_decoy_version = 0x801;
constexpr int64_t k_decoy_size = 0xa03;
constexpr int64_t k_tail_gap = 0x31;

class Filler {
public:
  unsigned char next()
  {
    m_state ^= m_state << 13;
    m_state ^= m_state >> 7;
    m_state ^= m_state << 17;
    const auto byte = static_cast<unsigned char>(m_state >> 24);
    return byte == 0xba ? 0xbb : byte;
  }

private:
  uint64_t m_state = 0x9e3779b97f4a7c15ull;
};

void fill(Bytes& out, int64_t from, int64_t to, Filler& filler)
{
  for (int64_t i = from; i < to; ++i) {
    out[static_cast<size_t>(i)] = filler.next();
  }
}

void write_section(Bytes& out, int64_t at, const char* name, int64_t offset, int64_t size)
{
  for (int i = 0; i < 8 && name[i] != 0; ++i) {
    out[static_cast<size_t>(at + i)] = static_cast<unsigned char>(name[i]);
  }
  d4r::fixture::put_le(out, at + 8, static_cast<uint64_t>(size), 4);    // virtual size
  d4r::fixture::put_le(out, at + 12, static_cast<uint64_t>(offset), 4); // virtual address
  d4r::fixture::put_le(out, at + 16, static_cast<uint64_t>(size), 4);   // size of raw data
  d4r::fixture::put_le(out, at + 20, static_cast<uint64_t>(offset), 4); // pointer to raw data
  d4r::fixture::put_le(out, at + 36, 0x40000040u, 4);                   // initialised, readable
}

void write_headers(Bytes& out, int64_t fatb_size)
{
  out[0] = 'M';
  out[1] = 'Z';
  d4r::fixture::put_le(out, 0x3c, k_pe_offset, 4);
  const std::string stub = "This file was made by d4r-make-pe.\r\r\n$";
  std::copy(stub.begin(), stub.end(), out.begin() + 0x40);
  const char signature[4] = {'P', 'E', 0, 0};
  std::copy(signature, signature + 4, out.begin() + k_pe_offset);
  const int64_t coff = k_pe_offset + 4;
  d4r::fixture::put_le(out, coff + 0, 0x8664, 2);   // machine: x86-64
  d4r::fixture::put_le(out, coff + 2, 2, 2);        // number of sections
  d4r::fixture::put_le(out, coff + 16, 0xf0, 2);    // size of the optional header
  d4r::fixture::put_le(out, coff + 18, 0x2022, 2);  // DLL, executable, large addresses
  const int64_t optional = coff + 20;
  d4r::fixture::put_le(out, optional, 0x20b, 2);    // PE32+
  const int64_t sections = optional + 0xf0;
  write_section(out, sections, ".text", k_text_offset, k_text_size);
  write_section(out, sections + 40, ".nv_fatb", k_fatb_offset, fatb_size);
}

void write_decoy(Bytes& out, int64_t at, uint16_t version, uint64_t size)
{
  d4r::fixture::put_le(out, at, k_fatbin_magic, 4);
  d4r::fixture::put_le(out, at + 4, version, 2);
  d4r::fixture::put_le(out, at + 6, 16, 2);
  d4r::fixture::put_le(out, at + 8, size, 8);
}

struct Placed {
  int64_t offset = 0;
  int64_t size = 0;
  std::string path;
};

d4r::Expected<Bytes> build(const std::vector<std::string>& paths, std::vector<Placed>& placed)
{
  std::vector<Bytes> fatbins;
  int64_t cursor = k_first_fatbin;
  for (size_t i = 0; i < paths.size(); ++i) {
    TRY_ASSIGN(Bytes fatbin, d4r::fixture::read_file(paths[i]));
    const auto size = static_cast<int64_t>(fatbin.size());
    placed.push_back(Placed{cursor, size, paths[i]});
    cursor = (cursor + size + 0x40 + 15) / 16 * 16 + 5 + 2 * static_cast<int64_t>(i);
    fatbins.push_back(std::move(fatbin));
  }
  const int64_t fatb_end = placed.empty() ? k_first_fatbin : placed.back().offset + placed.back().size;
  const int64_t tail = fatb_end + k_tail_gap;
  Bytes out(static_cast<size_t>(tail + 6), 0);
  Filler filler;
  fill(out, k_text_offset, tail, filler);
  write_headers(out, fatb_end - k_fatb_offset);
  write_decoy(out, k_decoy_version, 2, 0);
  write_decoy(out, k_decoy_size, 1, 0x7fffffffull);
  for (size_t i = 0; i < fatbins.size(); ++i) {
    std::copy(fatbins[i].begin(), fatbins[i].end(), out.begin() + placed[i].offset);
  }
  d4r::fixture::put_le(out, tail, k_fatbin_magic, 4);
  d4r::fixture::put_le(out, tail + 4, 1, 2);
  return out;
}

d4r::Expected<void> write_map(const std::string& path, const std::vector<Placed>& placed, int64_t file_size)
{
  std::ofstream map(path, std::ios::trunc);
  for (const Placed& p : placed) {
    map << "fatbin " << p.offset << ' ' << p.size << ' ' << p.path << '\n';
  }
  map << "decoy " << k_decoy_version << " version\n";
  map << "decoy " << k_decoy_size << " size\n";
  map << "decoy " << file_size - 6 << " truncated\n";
  map.close();
  if (!map) {
    return d4r::make_error(d4r::ErrorCode::io, path + ": cannot write");
  }
  return {};
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 3) {
    std::fprintf(stderr, "usage: d4r-make-pe OUT FATBIN...\n");
    return 2;
  }
  const std::string out_path = argv[1];
  std::vector<Placed> placed;
  d4r::Expected<Bytes> image = build(std::vector<std::string>(argv + 2, argv + argc), placed);
  if (!image) {
    std::fprintf(stderr, "make-pe: %s\n", image.error().message.c_str());
    return 1;
  }
  d4r::Expected<void> written = d4r::fixture::write_file(out_path, *image);
  if (written) {
    written = write_map(out_path + ".map", placed, static_cast<int64_t>(image->size()));
  }
  if (!written) {
    std::fprintf(stderr, "make-pe: %s\n", written.error().message.c_str());
    return 1;
  }
  return 0;
}
