#include "daemon/listener.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace d4r::daemon {

namespace {

std::string errno_text(int error)
{
  return std::strerror(error);
}

// The socket folder must be ours and closed to others: a folder another user can write to would
// let them replace the socket. A folder we make is 0700; one that exists is checked, never
// changed (`--socket ~/k.sock` must not chmod the home folder).
Expected<void> prepare_socket_folder(const std::filesystem::path& folder)
{
  std::error_code ec;
  if (!std::filesystem::exists(folder, ec)) {
    std::filesystem::create_directories(folder.parent_path(), ec);
    if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
      return make_error(ErrorCode::io, "socket folder " + folder.string() + ": " + errno_text(errno));
    }
  }
  struct stat info {};
  if (lstat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return make_error(ErrorCode::io, "socket folder " + folder.string() + " is not a folder");
  }
  if (info.st_uid != geteuid()) {
    return make_error(ErrorCode::permission_denied,
                      "socket folder " + folder.string() + " belongs to uid " +
                          std::to_string(info.st_uid) + ", not to us");
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(info.st_mode & 07777));
    return make_error(ErrorCode::permission_denied,
                      "socket folder " + folder.string() + " is writable by others (mode " + mode +
                          "): give the socket a folder of its own");
  }
  return {};
}

// Held for as long as the daemon listens, so that two daemons started at once cannot both take
// one socket path between the stale-socket probe and the bind (the second would unlink the
// first's socket and serve the same cache beside it). Never unlinked: that would race too.
Expected<FileDescriptor> lock_socket_path(const std::filesystem::path& path)
{
  std::filesystem::path lock_path = path.string() + ".lock";
  FileDescriptor lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (lock.get() < 0) {
    return make_error(ErrorCode::io, "socket lock " + lock_path.string() + ": " + errno_text(errno));
  }
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return make_error(ErrorCode::unavailable, "another d4r-kerneld is already listening on " +
                                                    path.string() + " (it holds " +
                                                    lock_path.string() + ")");
    }
    return make_error(ErrorCode::io, "socket lock " + lock_path.string() + ": " + errno_text(errno));
  }
  return lock;
}

Expected<sockaddr_un> unix_address(const std::filesystem::path& path)
{
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.native().size() >= sizeof(address.sun_path)) {
    return make_error(ErrorCode::invalid_argument,
                      "socket path " + path.string() + " is longer than " +
                          std::to_string(sizeof(address.sun_path) - 1) + " bytes");
  }
  std::memcpy(address.sun_path, path.c_str(), path.native().size() + 1);
  return address;
}

// A socket file nobody answers on is left over from a crash; one that answers is a live daemon.
Expected<void> remove_stale_socket(const std::filesystem::path& path, const sockaddr_un& address)
{
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) {
    return {};
  }
  if (!S_ISSOCK(info.st_mode)) {
    return make_error(ErrorCode::io, path.string() + " exists and is not a socket");
  }
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool alive = probe >= 0 &&
               connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  if (probe >= 0) {
    close(probe);
  }
  if (alive) {
    return make_error(ErrorCode::unavailable,
                      "another d4r-kerneld is already listening on " + path.string());
  }
  unlink(path.c_str());
  return {};
}

// Called with the folder prepared and the path's lock held (lock_socket_path).
Expected<int> bind_socket(const std::filesystem::path& path)
{
  TRY_ASSIGN(sockaddr_un address, unix_address(path));
  TRY(remove_stale_socket(path, address));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    return make_error(ErrorCode::io, "socket: " + errno_text(errno));
  }
  // The umask makes the socket 0600 from its first moment; chmod would leave a window.
  mode_t old_mask = umask(0177);
  int bound = bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  int bind_errno = errno;
  umask(old_mask);
  if (bound != 0 || listen(fd, 128) != 0) {
    int error = bound != 0 ? bind_errno : errno;
    close(fd);
    return make_error(ErrorCode::io, "cannot listen on " + path.string() + ": " + errno_text(error));
  }
  return fd;
}

} // namespace

Listener::Listener(int fd, bool from_systemd, std::filesystem::path path, FileDescriptor lock)
    : m_fd(fd), m_from_systemd(from_systemd), m_path(std::move(path)), m_lock(std::move(lock))
{
}

Listener::Listener(Listener&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_from_systemd(other.m_from_systemd),
      m_path(std::move(other.m_path)), m_lock(std::move(other.m_lock))
{
}

Listener::~Listener()
{
  if (m_fd < 0) {
    return;
  }
  close(m_fd);
  if (!m_from_systemd && !m_path.empty()) {
    unlink(m_path.c_str());
  }
}

Expected<Listener> Listener::open(const std::filesystem::path& socket_path)
{
  int count = sd_listen_fds(1);
  if (count > 1) {
    return make_error(ErrorCode::invalid_argument,
                      "systemd passed " + std::to_string(count) + " sockets; expected one");
  }
  if (count == 1) {
    int fd = SD_LISTEN_FDS_START;
    if (sd_is_socket(fd, AF_UNIX, SOCK_STREAM, 1) <= 0) {
      return make_error(ErrorCode::invalid_argument,
                        "the socket systemd passed is not a listening Unix stream socket");
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return Listener(fd, true, socket_path);
  }
  TRY(unix_address(socket_path)); // a path too long fails before anything is made
  TRY(prepare_socket_folder(socket_path.parent_path()));
  TRY_ASSIGN(FileDescriptor lock, lock_socket_path(socket_path));
  TRY_ASSIGN(int fd, bind_socket(socket_path));
  return Listener(fd, false, socket_path, std::move(lock));
}

Expected<int> Listener::accept_connection() const
{
  // gRPC drives the connection from its event engine, which expects a non-blocking socket.
  int connection = accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (connection < 0) {
    ErrorCode code = (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                         ? ErrorCode::unavailable
                         : ErrorCode::io;
    return make_error(code, "accept: " + errno_text(errno));
  }
  return connection;
}

Expected<PeerCredentials> peer_credentials(int connection_fd)
{
  ucred credentials{};
  socklen_t length = sizeof(credentials);
  if (getsockopt(connection_fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
    return make_error(ErrorCode::io, "SO_PEERCRED: " + errno_text(errno));
  }
  return PeerCredentials{credentials.pid, credentials.uid, credentials.gid};
}

} // namespace d4r::daemon
