#include "trust/base64.hpp"

#include <openssl/evp.h>

namespace d4r::trust {

std::string base64_encode(std::span<const uint8_t> bytes)
{
  std::string text(4 * ((bytes.size() + 2) / 3), '\0');
  int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  text.resize(static_cast<size_t>(written));
  return text;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text)
{
  if (text.empty() || text.size() % 4 != 0 || text.size() > (1U << 20)) {
    return std::nullopt;
  }
  std::vector<uint8_t> bytes(text.size() / 4 * 3);
  // EVP_DecodeBlock skips leading and trailing whitespace and counts padding as zero bytes:
  // the padding is taken off here, and the re-encoding check refuses every other spelling.
  int decoded = EVP_DecodeBlock(bytes.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (decoded < 0) {
    return std::nullopt;
  }
  size_t padding = text.ends_with("==") ? 2 : (text.ends_with('=') ? 1 : 0);
  bytes.resize(static_cast<size_t>(decoded) - padding);
  if (base64_encode(bytes) != text) {
    return std::nullopt;
  }
  return bytes;
}

} // namespace d4r::trust
