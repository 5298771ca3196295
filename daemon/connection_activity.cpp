#include "daemon/connection_activity.hpp"

#include <grpcpp/server_context.h>

#include <charconv>

namespace d4r::daemon {
namespace {

// Lives as long as its call: counts the call on its connection from creation to destruction.
class ActivityInterceptor final : public grpc::experimental::Interceptor {
public:
  ActivityInterceptor(ConnectionActivity& activity, int fd) : m_activity(activity), m_fd(fd)
  {
    m_activity.call_started(m_fd);
  }
  ~ActivityInterceptor() override
  {
    m_activity.call_finished(m_fd, ConnectionActivity::Clock::now());
  }
  ActivityInterceptor(const ActivityInterceptor&) = delete;
  ActivityInterceptor& operator=(const ActivityInterceptor&) = delete;

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override
  {
    methods->Proceed();
  }

private:
  ConnectionActivity& m_activity;
  int m_fd;
};

class ActivityFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
public:
  explicit ActivityFactory(ConnectionActivity& activity) : m_activity(activity) {}

  grpc::experimental::Interceptor*
  CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override
  {
    int fd = ConnectionActivity::fd_of_peer(info->server_context()->peer());
    return fd < 0 ? nullptr : new ActivityInterceptor(m_activity, fd);
  }

private:
  ConnectionActivity& m_activity;
};

} // namespace

void ConnectionActivity::adopted(int fd, Clock::time_point now)
{
  std::lock_guard lock(m_mutex);
  m_entries[fd] = Entry{0, now};
}

void ConnectionActivity::call_started(int fd)
{
  std::lock_guard lock(m_mutex);
  ++m_entries[fd].calls;
}

void ConnectionActivity::call_finished(int fd, Clock::time_point now)
{
  std::lock_guard lock(m_mutex);
  auto found = m_entries.find(fd);
  if (found != m_entries.end() && found->second.calls > 0) {
    --found->second.calls;
    found->second.last = now;
  }
}

std::optional<ConnectionActivity::Clock::time_point> ConnectionActivity::idle_since(int fd) const
{
  std::lock_guard lock(m_mutex);
  auto found = m_entries.find(fd);
  if (found == m_entries.end() || found->second.calls > 0) {
    return std::nullopt;
  }
  return found->second.last;
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
ConnectionActivity::interceptor_factory()
{
  return std::make_unique<ActivityFactory>(*this);
}

int ConnectionActivity::fd_of_peer(std::string_view peer)
{
  constexpr std::string_view k_prefix = "fd:";
  if (!peer.starts_with(k_prefix)) {
    return -1;
  }
  peer.remove_prefix(k_prefix.size());
  int fd = -1;
  auto [end, error] = std::from_chars(peer.data(), peer.data() + peer.size(), fd);
  return error == std::errc() && end == peer.data() + peer.size() ? fd : -1;
}

} // namespace d4r::daemon
