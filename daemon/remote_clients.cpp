#include "daemon/remote_clients.hpp"

#include <chrono>
#include <utility>

namespace d4r::daemon {

namespace {

int64_t now_unix()
{
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // namespace

void RemoteClients::set_listening(std::string listen, bool mutual_tls)
{
  std::lock_guard lock(m_mutex);
  m_listen = std::move(listen);
  m_mutual_tls = mutual_tls;
}

RemoteClientCounts& RemoteClients::client(std::string_view name)
{
  auto found = m_clients.find(name);
  if (found == m_clients.end()) {
    RemoteClientCounts counts;
    counts.name = name;
    found = m_clients.emplace(std::string(name), std::move(counts)).first;
  }
  return found->second;
}

void RemoteClients::record_call(std::string_view name, bool ok)
{
  std::lock_guard lock(m_mutex);
  RemoteClientCounts& counts = client(name);
  ++counts.requests;
  counts.failed += ok ? 0 : 1;
  counts.last_seen_unix = now_unix();
}

void RemoteClients::record_rejection(std::string_view name, LimitReason reason)
{
  std::lock_guard lock(m_mutex);
  RemoteClientCounts& counts = client(name);
  auto key = to_string(reason);
  auto found = counts.rejected.find(key);
  if (found == counts.rejected.end()) {
    found = counts.rejected.emplace(std::string(key), 0).first;
  }
  ++found->second;
}

void RemoteClients::record_refusal(const TokenCheck& check)
{
  std::lock_guard lock(m_mutex);
  switch (check.verdict) {
  case TokenVerdict::accepted:
    return;
  case TokenVerdict::missing:
    ++m_missing;
    return;
  case TokenVerdict::unknown:
    ++m_unknown;
    return;
  case TokenVerdict::revoked: {
    ++m_revoked;
    RemoteClientCounts& counts = client(check.client);
    ++counts.refused;
    counts.last_seen_unix = now_unix();
    return;
  }
  }
}

RemoteSnapshot RemoteClients::snapshot() const
{
  std::lock_guard lock(m_mutex);
  RemoteSnapshot snapshot{m_listen, m_mutual_tls, m_missing, m_unknown, m_revoked, {}};
  for (const auto& [name, counts] : m_clients) {
    snapshot.clients.push_back(counts);
  }
  return snapshot;
}

void fill_remote_stats(const RemoteSnapshot& snapshot, ::d4r::kernel::v1::RemoteStats& out)
{
  out.set_listen(snapshot.listen);
  out.set_mutual_tls(snapshot.mutual_tls);
  out.set_unauthenticated_missing(snapshot.unauthenticated_missing);
  out.set_unauthenticated_unknown(snapshot.unauthenticated_unknown);
  out.set_unauthenticated_revoked(snapshot.unauthenticated_revoked);
  for (const RemoteClientCounts& counts : snapshot.clients) {
    ::d4r::kernel::v1::RemoteClient* client = out.add_clients();
    client->set_name(counts.name);
    client->set_requests(counts.requests);
    client->set_failed(counts.failed);
    client->set_refused(counts.refused);
    client->set_last_seen_unix(counts.last_seen_unix);
    for (const auto& [reason, count] : counts.rejected) {
      (*client->mutable_rejected())[reason] = count;
    }
  }
}

} // namespace d4r::daemon
