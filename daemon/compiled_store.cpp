#include "daemon/compiled_store.hpp"

#include <spdlog/spdlog.h>

#include <set>

namespace d4r::daemon {

namespace {

constexpr const char* k_source = "hook:zluda-compiled";

std::string describe(const CompiledKey& key)
{
  return "compiled module (ptx sha256 " + to_hex(key.module_sha256).substr(0, 16) + "..., " +
         key.target + ", " + to_string(key.mode) + ")";
}

CompiledLookup not_found(std::string reason)
{
  CompiledLookup answer;
  answer.reason = std::move(reason);
  return answer;
}

} // namespace

cache::CacheKey CompiledStore::cache_key_of(const CompiledKey& key)
{
  cache::CacheKey cache_key;
  cache_key.module_hash = 0; // the manifests' FNV-1a means nothing here: the SHA-256 is the kernel
  cache_key.kernel = "zluda_" + to_hex(key.module_sha256); // a valid kernel name, as the store asks
  cache_key.target = key.target;
  cache_key.variant = canonical_options_text(key);
  cache_key.toolchain = key.compiler_identity;
  cache_key.recipe = k_compiled_recipe;
  return cache_key;
}

Expected<CompiledStats> CompiledStore::stats(Mode mode)
{
  TRY_ASSIGN(std::vector<cache::Entry> entries, m_cache.list(mode));
  TRY_ASSIGN(cache::StoreStats store, m_cache.stats(mode));
  CompiledStats stats{mode, 0, 0, store.max_bytes};
  std::set<Sha256> objects; // one object may serve several keys (options that change nothing)
  for (const cache::Entry& entry : entries) {
    if (entry.key.recipe != k_compiled_recipe) {
      continue;
    }
    ++stats.entries;
    if (objects.insert(entry.digest).second) {
      stats.bytes += entry.size;
    }
  }
  return stats;
}

Expected<void> CompiledStore::check_size(int64_t size) const
{
  if (size <= 0) {
    return make_error(ErrorCode::invalid_argument, "compiled module: no object bytes");
  }
  if (size > m_max_object_bytes) {
    return make_error(ErrorCode::resource_exhausted,
                      "compiled module: object of " + std::to_string(size) +
                          " bytes is larger than the cap of " +
                          std::to_string(m_max_object_bytes) + " bytes; not stored");
  }
  return {};
}

Expected<int64_t> CompiledStore::store(const CompiledKey& key, std::span<const std::byte> object,
                                       const Sha256& claimed)
{
  if (Expected<void> size = check_size(static_cast<int64_t>(object.size())); !size) {
    m_counters.add(Counter::compiled_rejected);
    return std::unexpected(size.error());
  }
  if (sha256(object) != claimed) {
    m_counters.add(Counter::compiled_rejected);
    return make_error(ErrorCode::invalid_argument,
                      describe(key) + ": object bytes do not match their sha256; not stored");
  }
  Expected<cache::Hit> hit = m_cache.insert(key.mode, cache_key_of(key), object, "", k_source);
  if (!hit) {
    spdlog::warn("{}: not stored: {}", describe(key), hit.error().message);
    return std::unexpected(hit.error());
  }
  m_counters.add(Counter::compiled_stored);
  return hit->size;
}

CompiledLookup CompiledStore::lookup(const CompiledKey& key, bool accept_path,
                                     const std::optional<Sha256>& damaged)
{
  Expected<std::optional<cache::Hit>> hit = m_cache.lookup(key.mode, cache_key_of(key));
  if (hit && *hit && damaged && (*hit)->digest == *damaged) {
    m_counters.add(Counter::compiled_damage_report);
    if (Expected<void> verified = m_cache.verify_object(key.mode, **hit); !verified) {
      spdlog::warn("{}: a client found object {} damaged: {}", describe(key), to_hex(*damaged),
                   verified.error().message);
      m_counters.add(Counter::compiled_miss);
      return not_found(describe(key) + ": object damaged on disk, quarantined: " +
                       verified.error().message);
    }
  }
  if (!hit || !*hit) {
    m_counters.add(Counter::compiled_miss);
    return not_found(hit ? describe(key) + ": not stored"
                         : describe(key) + ": " + hit.error().message);
  }
  CompiledLookup answer;
  answer.found = true;
  answer.mode = key.mode;
  answer.digest = (*hit)->digest;
  answer.size = (*hit)->size;
  if (accept_path) {
    answer.object_path = (*hit)->object_path; // the client verifies the digest as it reads
  } else {
    Expected<std::vector<std::byte>> bytes = m_cache.read_object(key.mode, **hit);
    if (!bytes) {
      m_counters.add(Counter::compiled_miss);
      return not_found(describe(key) + ": " + bytes.error().message);
    }
    answer.object_bytes = std::move(*bytes);
  }
  m_counters.add(Counter::compiled_hit);
  return answer;
}

} // namespace d4r::daemon
