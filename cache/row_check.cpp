#include "cache/row_check.hpp"

#include <span>

namespace d4r::cache {

std::string row_check_of(const CacheKey& key, const Sha256& digest, int64_t size,
                         std::string_view metadata, std::string_view source)
{
  Sha256Hasher hasher;
  auto add = [&hasher](std::string_view field) {
    const uint64_t length = field.size();
    hasher.update(std::as_bytes(std::span<const uint64_t>(&length, 1)));
    hasher.update(std::as_bytes(std::span<const char>(field.data(), field.size())));
  };
  const std::string hash_text = hash_to_hex(key.module_hash);
  const std::string size_text = std::to_string(size);
  for (std::string_view field : {std::string_view(hash_text), std::string_view(key.kernel),
                                 std::string_view(key.target), std::string_view(key.variant),
                                 std::string_view(key.toolchain), std::string_view(key.recipe),
                                 std::string_view(size_text), metadata, source}) {
    add(field);
  }
  add(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  const Sha256 check = hasher.finish();
  return std::string(reinterpret_cast<const char*>(check.data()), 16);
}

} // namespace d4r::cache
