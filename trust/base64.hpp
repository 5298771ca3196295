#pragma once
// Standard base64 (RFC 4648 section 4, with padding) through OpenSSL's EVP encoder: the text form
// of public keys and signatures that a user copies and pins.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::trust {

[[nodiscard]] std::string base64_encode(std::span<const uint8_t> bytes);

// Only the one canonical spelling of some bytes is accepted (padding as written by the encoder, no
// whitespace, no trailing bits set), so a pinned text compares as a string; nullopt otherwise.
[[nodiscard]] std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

} // namespace d4r::trust
