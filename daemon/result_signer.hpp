#pragma once
// The daemon's signature on results it builds for other machines (trust/object_signature.hpp).
// The key is read, or made, on first use, not at start-up: a daemon that serves only its own
// machine never needs one. What happened to the key file is logged once: made (with the public
// key to pin), a mode that was fixed, or why it cannot be used (then every signing call fails
// with that reason and the remote caller is refused, never sent an unsigned object).

#include "trust/object_signature.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <mutex>
#include <optional>

namespace d4r::daemon {

class ResultSigner {
public:
  explicit ResultSigner(std::filesystem::path key_file) : m_key_file(std::move(key_file)) {}

  [[nodiscard]] Expected<trust::ObjectSignature> sign(const trust::SignedFields& fields);
  // The public key clients pin (the key is read or made first); for status and logs.
  [[nodiscard]] Expected<trust::PublicKey> public_key();

private:
  [[nodiscard]] Expected<const trust::SigningKey*> key();

  const std::filesystem::path m_key_file;
  std::once_flag m_once;
  std::optional<Expected<trust::SigningKey>> m_key; // set once, read-only afterwards
};

} // namespace d4r::daemon
