#pragma once
// The daemon's listening Unix socket: taken from systemd (socket activation) when started that
// way, else bound by us in a folder only the user can enter (0700) with the socket at 0600.
// Connections are accepted here, not by gRPC, so that every peer's uid is checked (SO_PEERCRED)
// before gRPC sees a byte.

#include "util/error.hpp"
#include "util/file_descriptor.hpp"

#include <sys/types.h>

#include <filesystem>

namespace d4r::daemon {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

class Listener {
public:
  // LISTEN_FDS from systemd when present (one stream socket expected), else binds socket_path.
  // A live daemon already on socket_path is an error; a stale socket file is replaced.
  [[nodiscard]] static Expected<Listener> open(const std::filesystem::path& socket_path);

  Listener(Listener&& other) noexcept;
  Listener& operator=(Listener&&) = delete;
  Listener(const Listener&) = delete;
  ~Listener();

  [[nodiscard]] int fd() const { return m_fd; }
  [[nodiscard]] bool from_systemd() const { return m_from_systemd; }
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  // One pending connection (non-blocking listener: unavailable when none is waiting).
  [[nodiscard]] Expected<int> accept_connection() const;

private:
  Listener(int fd, bool from_systemd, std::filesystem::path path, FileDescriptor lock = FileDescriptor());
  int m_fd = -1;
  bool m_from_systemd = false;
  std::filesystem::path m_path; // unlinked at destruction when we bound it
  FileDescriptor m_lock;         // <socket>.lock, held while we listen on a socket we bound
};

[[nodiscard]] Expected<PeerCredentials> peer_credentials(int connection_fd);

} // namespace d4r::daemon
