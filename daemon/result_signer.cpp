#include "daemon/result_signer.hpp"

#include "trust/key_file.hpp"

#include <spdlog/spdlog.h>

namespace d4r::daemon {

Expected<const trust::SigningKey*> ResultSigner::key()
{
  // call_once: concurrent first requests wait for one read of the file, and none sees it half set.
  std::call_once(m_once, [this] {
    Expected<trust::LoadedKey> loaded = trust::load_or_create_key_file(m_key_file);
    if (!loaded) {
      spdlog::error("{}; results for other machines cannot be signed and are refused",
                    loaded.error().message);
      m_key.emplace(std::unexpected(loaded.error()));
      return;
    }
    for (const std::string& warning : loaded->warnings) {
      spdlog::warn("{}", warning);
    }
    std::string public_key = trust::to_text(loaded->key.public_key());
    if (loaded->created) {
      spdlog::info("signing key {} created; clients pin {}", m_key_file.string(), public_key);
    } else {
      spdlog::info("signing key {} ({})", m_key_file.string(), public_key);
    }
    m_key.emplace(std::move(loaded->key));
  });
  if (!*m_key) {
    return std::unexpected(m_key->error());
  }
  return &**m_key;
}

Expected<trust::ObjectSignature> ResultSigner::sign(const trust::SignedFields& fields)
{
  TRY_ASSIGN(const trust::SigningKey* signing_key, key());
  return trust::sign_object(*signing_key, fields);
}

Expected<trust::PublicKey> ResultSigner::public_key()
{
  TRY_ASSIGN(const trust::SigningKey* signing_key, key());
  return signing_key->public_key();
}

} // namespace d4r::daemon
