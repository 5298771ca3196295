#pragma once
// Little-endian byte writing and whole-file I/O shared by the fixture tools (d4r-make-fatbin,
// d4r-make-pe). Kept beside the tools: they are test inputs, not part of any library.

#include "util/error.hpp"

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace d4r::fixture {

using Bytes = std::vector<unsigned char>;

inline void put_le(Bytes& out, int64_t offset, uint64_t value, int width)
{
  for (int i = 0; i < width; ++i) {
    out[static_cast<size_t>(offset + i)] = static_cast<unsigned char>(value >> (8 * i));
  }
}

inline void append_le(Bytes& out, uint64_t value, int width)
{
  out.resize(out.size() + static_cast<size_t>(width));
  put_le(out, static_cast<int64_t>(out.size()) - width, value, width);
}

[[nodiscard]] inline Expected<Bytes> read_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::io, path + ": cannot open");
  }
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

[[nodiscard]] inline Expected<void> write_file(const std::string& path, const Bytes& bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return make_error(ErrorCode::io, path + ": cannot write");
  }
  return {};
}

} // namespace d4r::fixture
