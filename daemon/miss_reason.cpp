#include "daemon/miss_reason.hpp"

#include "util/digest.hpp"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace d4r::daemon {

namespace {

size_t index_of(Mode mode)
{
  return mode == Mode::accuracy ? 1 : 0;
}

// The same kernel under other fingerprints: which of them differs.
MissReason stale_reason(const cache::CacheKey& was, const cache::CacheKey& now)
{
  return was.toolchain != now.toolchain ? MissReason::stale_toolchain : MissReason::stale_translator;
}

bool same_kernel(const cache::CacheKey& a, const cache::CacheKey& b)
{
  return a.kernel_only() == b.kernel_only();
}

} // namespace

const char* to_string(MissReason reason)
{
  switch (reason) {
  case MissReason::new_kernel:
    return "new";
  case MissReason::evicted:
    return "evicted";
  case MissReason::stale_toolchain:
    return "stale_toolchain";
  case MissReason::stale_translator:
    return "stale_translator";
  case MissReason::corrupt:
    return "corrupt";
  case MissReason::unlisted_hash:
    return "unlisted_hash";
  case MissReason::rejected:
    return "rejected";
  case MissReason::unsupported_instruction:
    return "unsupported_instruction";
  case MissReason::build_failed:
    return "build_failed";
  case MissReason::host_variables:
    return "host_variables";
  case MissReason::tensor_maps:
    return "tensor_maps";
  case MissReason::no_replacement:
    return "no_replacement";
  case MissReason::no_module:
    return "no_module";
  case MissReason::busy:
    return "busy";
  case MissReason::in_flight:
    return "in_flight";
  case MissReason::error:
    return "error";
  case MissReason::count_:
    break;
  }
  return "unknown";
}

MissReason miss_reason_of(Counter counter, std::string_view reason,
                          std::optional<MissReason> cache_miss)
{
  // Not a switch: Counter grows with every new event the daemon counts, and most of them are no
  // Resolve answer; those fall to "error" below rather than break this file's build.
  auto is = [counter](std::initializer_list<Counter> any) {
    return std::find(any.begin(), any.end(), counter) != any.end();
  };
  if (counter == Counter::resolve_ready) {
    return cache_miss.value_or(MissReason::error); // a READY answer without one is a hit
  }
  if (counter == Counter::pending) {
    return cache_miss.value_or(MissReason::in_flight);
  }
  if (is({Counter::not_found_no_release_dir, Counter::not_found_no_folder,
          Counter::not_found_switched_off, Counter::not_found_no_recipe})) {
    return MissReason::no_replacement;
  }
  if (is({Counter::not_found_not_listed, Counter::not_found_hash_mismatch})) {
    return MissReason::unlisted_hash;
  }
  if (counter == Counter::not_found_build_failed) {
    // The translator's diagnostic (compiler/translate: "unsupported: OPCODE at line N").
    return reason.find("unsupported: ") != std::string_view::npos
               ? MissReason::unsupported_instruction
               : MissReason::build_failed;
  }
  if (counter == Counter::not_found_no_module) {
    return MissReason::no_module;
  }
  if (counter == Counter::not_found_host_variables) {
    return MissReason::host_variables;
  }
  if (counter == Counter::not_found_tensor_maps) {
    return MissReason::tensor_maps;
  }
  if (is({Counter::rejected_wrong_origin, Counter::rejected_broken_contract,
          Counter::rejected_invalid_request})) {
    return MissReason::rejected;
  }
  if (is({Counter::rejected_request_queue_full, Counter::rejected_build_queue_full,
          Counter::rejected_upload_memory, Counter::rejected_transport_memory,
          Counter::rejected_connection_limit})) {
    return MissReason::busy;
  }
  if (counter == Counter::cache_corrupt_object) {
    return MissReason::corrupt;
  }
  // not_found.error, not_found.missing_object: corrupt when a check failed (finish() says).
  return cache_miss.value_or(MissReason::error);
}

void MissClassifier::note_present(Mode mode, const cache::CacheKey& key)
{
  std::lock_guard lock(m_mutex);
  std::map<std::string, Present>& present = m_present[index_of(mode)];
  if (present.size() >= k_max_remembered) {
    std::vector<uint64_t> sequences;
    sequences.reserve(present.size());
    for (const auto& [identity, seen] : present) {
      sequences.push_back(seen.sequence);
    }
    std::nth_element(sequences.begin(), sequences.begin() + sequences.size() / 2, sequences.end());
    const uint64_t median = sequences[sequences.size() / 2];
    std::erase_if(present, [median](const auto& seen) { return seen.second.sequence < median; });
  }
  present[key.kernel_only().to_text(mode)] = Present{key, ++m_sequence};
  m_decided[index_of(mode)].erase(key.to_text(mode));
}

MissReason MissClassifier::classify(Mode mode, const cache::CacheKey& key, cache::Cache& cache)
{
  const std::string text = key.to_text(mode);
  {
    std::lock_guard lock(m_mutex);
    std::map<std::string, MissReason>& decided = m_decided[index_of(mode)];
    if (auto found = decided.find(text); found != decided.end()) {
      return found->second;
    }
    std::map<std::string, Present>& present = m_present[index_of(mode)];
    if (auto seen = present.find(key.kernel_only().to_text(mode)); seen != present.end()) {
      const MissReason reason = seen->second.key == key
                                    ? MissReason::evicted
                                    : stale_reason(seen->second.key, key);
      decide(mode, text, reason);
      return reason;
    }
  }
  // Not seen by this process (a restart after an update is the usual case): an object of the
  // kernel under other fingerprints in the index says what changed.
  // One built by this very toolchain means the recipe's inputs changed since; only others mean
  // the toolchain did.
  MissReason reason = MissReason::new_kernel;
  if (Expected<std::vector<cache::Entry>> entries = cache.list(mode)) {
    for (const cache::Entry& entry : *entries) {
      if (same_kernel(entry.key, key) && entry.key != key) {
        reason = stale_reason(entry.key, key);
        if (reason == MissReason::stale_translator) {
          break;
        }
      }
    }
  }
  std::lock_guard lock(m_mutex);
  if (auto found = m_decided[index_of(mode)].find(text); found != m_decided[index_of(mode)].end()) {
    return found->second; // decided meanwhile (note_corrupt, another request)
  }
  decide(mode, text, reason);
  return reason;
}

void MissClassifier::note_corrupt(Mode mode, const cache::CacheKey& key)
{
  std::lock_guard lock(m_mutex);
  decide(mode, key.to_text(mode), MissReason::corrupt);
}

void MissClassifier::decide(Mode mode, const std::string& text, MissReason reason)
{
  std::map<std::string, MissReason>& decided = m_decided[index_of(mode)];
  if (decided.size() >= k_max_remembered) {
    decided.clear(); // misses of keys never built since: classified again, at one index read each
  }
  decided[text] = reason;
}

void MissClassifier::forget(std::optional<Mode> mode)
{
  std::lock_guard lock(m_mutex);
  for (Mode each : {Mode::fast, Mode::accuracy}) {
    if (!mode || *mode == each) {
      m_present[index_of(each)].clear();
      m_decided[index_of(each)].clear();
    }
  }
}

} // namespace d4r::daemon
