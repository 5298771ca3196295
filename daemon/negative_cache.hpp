#pragma once
// Builds that failed, remembered with their reason, so that a kernel whose build crashes the
// compiler is not rebuilt on every request. Keys hold every input of the build (recipe and source
// fingerprint, toolchain, target, mode), so a change of any of them retries on its own. One small
// file per failure under <cache root>/failures/<mode>/ survives restarts; `purge` clears them.

#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace d4r::daemon {

class NegativeCache {
public:
  explicit NegativeCache(std::filesystem::path cache_root);

  [[nodiscard]] std::optional<std::string> find(Mode mode, const std::string& key) const;
  void remember(Mode mode, const std::string& key, const std::string& reason);
  void clear();

private:
  [[nodiscard]] std::filesystem::path path_of(Mode mode, const std::string& key) const;

  std::filesystem::path m_root;
  mutable std::mutex m_mutex;
  mutable std::map<std::string, std::string> m_memory; // mode|key -> reason
};

} // namespace d4r::daemon
