#include "trust/rebuild_check.hpp"

#include <algorithm>

namespace d4r::trust {

namespace {

std::string short_digest(const Sha256& digest)
{
  return to_hex(digest).substr(0, 16);
}

int64_t first_difference(std::span<const std::byte> a, std::span<const std::byte> b)
{
  auto [left, right] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (left == a.end() && right == b.end()) {
    return -1;
  }
  return static_cast<int64_t>(left - a.begin());
}

} // namespace

std::string_view to_string(RebuildVerdict verdict)
{
  switch (verdict) {
  case RebuildVerdict::match:
    return "match";
  case RebuildVerdict::mismatch:
    return "mismatch";
  case RebuildVerdict::local_failed:
    return "local_failed";
  }
  D4R_UNREACHABLE("every verdict is named");
}

RebuildReport compare_rebuild(std::string_view upstream, std::string_view key_text,
                              std::span<const std::byte> remote,
                              const Expected<std::vector<std::byte>>& local)
{
  RebuildReport report;
  report.upstream = std::string(upstream);
  report.key_text = std::string(key_text);
  report.remote_digest = sha256(remote);
  report.remote_bytes = static_cast<int64_t>(remote.size());
  // `upstream` is the tier's own name ("upstream:HOST:PORT", "redis:..."), as the chain logs it.
  std::string prefix = "tier " + report.upstream + ": kernel " + report.key_text + ": ";
  if (!local) {
    report.verdict = RebuildVerdict::local_failed;
    report.message = prefix + "sampled for a local rebuild, which failed (" +
                     local.error().message + "); the remote object stays unverified";
    return report;
  }
  report.local_digest = sha256(std::span<const std::byte>(*local));
  report.local_bytes = static_cast<int64_t>(local->size());
  report.first_difference = first_difference(remote, *local);
  if (report.first_difference < 0) {
    report.verdict = RebuildVerdict::match;
    report.message = prefix + "local rebuild matches (sha256 " +
                     short_digest(report.remote_digest) + ", " +
                     std::to_string(report.remote_bytes) + " bytes)";
    return report;
  }
  report.verdict = RebuildVerdict::mismatch;
  report.message = prefix + "local rebuild differs: remote sha256 " +
                   to_hex(report.remote_digest) + " (" + std::to_string(report.remote_bytes) +
                   " bytes), local sha256 " + to_hex(*report.local_digest) + " (" +
                   std::to_string(report.local_bytes) + " bytes), first difference at byte " +
                   std::to_string(report.first_difference) +
                   "; the tier is distrusted, the local object is served";
  return report;
}

bool UpstreamTrust::record(const RebuildReport& report)
{
  std::lock_guard<std::mutex> lock(m_mutex);
  ++m_stats.checked;
  switch (report.verdict) {
  case RebuildVerdict::match:
    ++m_stats.matched;
    return false;
  case RebuildVerdict::local_failed:
    ++m_stats.local_failed;
    return false;
  case RebuildVerdict::mismatch:
    ++m_stats.mismatched;
    if (m_distrust_reason) {
      return false;
    }
    m_distrust_reason = report.message;
    return true;
  }
  D4R_UNREACHABLE("every verdict is handled");
}

bool UpstreamTrust::trusted() const
{
  std::lock_guard<std::mutex> lock(m_mutex);
  return !m_distrust_reason;
}

std::optional<std::string> UpstreamTrust::distrust_reason() const
{
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_distrust_reason;
}

RebuildStats UpstreamTrust::stats() const
{
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_stats;
}

} // namespace d4r::trust
