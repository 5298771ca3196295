#pragma once
// A read-only mapping of a code object in the daemon's cache, verified as it is mapped: the local
// zero-copy path (the daemon sends a path and a digest instead of the bytes).

#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace d4r::client {

class MappedFile {
public:
  // Maps `path` and checks that it is a regular file of exactly `size` bytes whose SHA-256 is
  // `digest`. The daemon replaces cache files by rename and never rewrites one in place, so the
  // verified mapping stays what was verified.
  [[nodiscard]] static Expected<std::unique_ptr<MappedFile>>
  map_verified(const std::string& path, int64_t size, const Sha256& digest);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  [[nodiscard]] std::span<const std::byte> bytes() const { return {m_data, m_size}; }

private:
  MappedFile(const std::byte* data, size_t size) : m_data(data), m_size(size) {}

  const std::byte* m_data;
  size_t m_size;
};

} // namespace d4r::client
