#pragma once
// What the build server's named clients asked for, counted per client name (the token file's),
// the TCP calls refused for their token, by why, and the calls a client limit refused, by limit: `d4r-kernel status` and the metrics scrape
// read it (fill_remote_stats). The names are the token file's, so the table stays as small as it.
//
// Thread-safe: gRPC's threads record, Status reads.

#include "daemon/client_limits.hpp"
#include "daemon/token_store.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::daemon {

struct RemoteClientCounts {
  std::string name;
  int64_t requests = 0;       // calls that passed the token check
  int64_t failed = 0;         // of those, answered with a status other than OK
  int64_t refused = 0;        // calls refused for this client's revoked token
  int64_t last_seen_unix = 0; // seconds
  std::map<std::string, int64_t, std::less<>> rejected; // calls refused by a limit, by reason
};

struct RemoteSnapshot {
  std::string listen; // HOST:PORT as bound; empty when not listening on TCP
  bool mutual_tls = false;
  int64_t unauthenticated_missing = 0;
  int64_t unauthenticated_unknown = 0;
  int64_t unauthenticated_revoked = 0;
  std::vector<RemoteClientCounts> clients; // by name
};

class RemoteClients {
public:
  void set_listening(std::string listen, bool mutual_tls);
  void record_call(std::string_view client, bool ok);
  void record_refusal(const TokenCheck& check);
  void record_rejection(std::string_view client, LimitReason reason);
  [[nodiscard]] RemoteSnapshot snapshot() const;

private:
  mutable std::mutex m_mutex;
  std::string m_listen;
  bool m_mutual_tls = false;
  int64_t m_missing = 0;
  int64_t m_unknown = 0;
  int64_t m_revoked = 0;
  RemoteClientCounts& client(std::string_view name); // m_mutex held
  std::map<std::string, RemoteClientCounts, std::less<>> m_clients;
};

void fill_remote_stats(const RemoteSnapshot& snapshot, ::d4r::kernel::v1::RemoteStats& out);

} // namespace d4r::daemon
