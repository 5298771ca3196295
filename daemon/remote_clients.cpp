#include "daemon/remote_clients.hpp"

#include <chrono>

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

void RemoteClients::record_call(std::string_view client, bool ok)
{
  std::lock_guard lock(m_mutex);
  auto found = m_clients.find(client);
  if (found == m_clients.end()) {
    found = m_clients.emplace(std::string(client), RemoteClientCounts{std::string(client)}).first;
  }
  ++found->second.requests;
  found->second.failed += ok ? 0 : 1;
  found->second.last_seen_unix = now_unix();
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
    auto found = m_clients.find(check.client);
    if (found == m_clients.end()) {
      found = m_clients.emplace(check.client, RemoteClientCounts{check.client}).first;
    }
    ++found->second.refused;
    found->second.last_seen_unix = now_unix();
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
  }
}

} // namespace d4r::daemon
