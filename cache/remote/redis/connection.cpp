#include "cache/remote/redis/connection.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <memory>
#include <poll.h>
#include <pthread.h>
#include <random>
#include <sys/time.h>
#include <vector>

namespace d4r::cache::redis {

namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

// hiredis writes with write(2), so a server that closed the socket raises SIGPIPE, which would
// kill the daemon. Blocking it on this thread for the call, and taking a SIGPIPE raised meanwhile,
// keeps the process's signal dispositions as the daemon set them.
class SigpipeGuard {
public:
  SigpipeGuard()
  {
    sigemptyset(&m_set);
    sigaddset(&m_set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    m_was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
  }
  ~SigpipeGuard()
  {
    sigset_t pending;
    sigpending(&pending);
    if (!m_was_pending && sigismember(&pending, SIGPIPE) == 1) {
      timespec zero{};
      while (sigtimedwait(&m_set, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

private:
  sigset_t m_set;
  sigset_t m_old;
  bool m_was_pending = false;
};

timeval to_timeval(milliseconds wait)
{
  int64_t ms = std::max<int64_t>(wait.count(), 1);
  return timeval{.tv_sec = static_cast<time_t>(ms / 1000),
                 .tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000)};
}

// Rounded up, so that a budget of 0.4 ms still polls once rather than spinning.
milliseconds left_until(Deadline until)
{
  Clock::duration left = until - Clock::now();
  if (left <= Clock::duration::zero()) {
    return milliseconds(0);
  }
  return std::chrono::ceil<milliseconds>(left);
}

// hiredis's reader builds the reply through these, straight into RedisReply: one copy of each
// value out of the read buffer, where its own redisReply tree and a conversion made two (a 1 MiB
// object cost an extra allocation, copy and the fresh pages behind them, which measured 5x the
// plain hiredis GET). Only the root is allocated; an element lives in its parent's vector, sized
// once by create_array, so that the pointer handed back stays valid.
RedisReply* place(const redisReadTask* task)
{
  if (task->parent == nullptr) {
    return new RedisReply();
  }
  auto* parent = static_cast<RedisReply*>(task->parent->obj);
  return &parent->elements[static_cast<size_t>(task->idx)];
}

void* create_string(const redisReadTask* task, char* text, size_t length)
{
  RedisReply* reply = place(task);
  reply->type = task->type == REDIS_REPLY_ERROR    ? RedisReply::Type::error
                : task->type == REDIS_REPLY_STATUS ? RedisReply::Type::status
                                                   : RedisReply::Type::string;
  reply->text.assign(text, length);
  return reply;
}

void* create_array(const redisReadTask* task, int elements)
{
  RedisReply* reply = place(task);
  reply->type = RedisReply::Type::array;
  reply->elements.resize(static_cast<size_t>(std::max(elements, 0)));
  return reply;
}

void* create_integer(const redisReadTask* task, long long value)
{
  RedisReply* reply = place(task);
  reply->type = RedisReply::Type::integer;
  reply->integer = value;
  return reply;
}

void* create_nil(const redisReadTask* task)
{
  RedisReply* reply = place(task);
  reply->type = RedisReply::Type::nil;
  return reply;
}

// hiredis frees only roots (a finished reply it still holds, or one a protocol error cut short).
void free_reply(void* reply)
{
  delete static_cast<RedisReply*>(reply);
}

constexpr size_t k_read_buffer_kept = 4 << 20;

redisReplyObjectFunctions g_reply_functions{create_string, create_array, create_integer, create_nil,
                                            free_reply};

std::string printable(std::string_view text, size_t limit)
{
  std::string out;
  for (char c : text.substr(0, limit)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > limit) {
    out += "...";
  }
  return out;
}

milliseconds backoff_for(int64_t failures, const RedisOptions& options)
{
  int64_t wait = options.backoff_initial.count();
  for (int64_t i = 1; i < failures && wait < options.backoff_max.count(); ++i) {
    wait *= 2;
  }
  wait = std::min<int64_t>(wait, options.backoff_max.count());
  thread_local std::minstd_rand random(std::random_device{}());
  std::uniform_int_distribution<int64_t> jitter(wait / 2, std::max<int64_t>(wait, 1));
  return milliseconds(jitter(random));
}

} // namespace

std::string describe_command(std::span<const std::string_view> args)
{
  std::string out = args.empty() ? std::string("(empty command)") : printable(args[0], 32);
  if (args.size() > 1) {
    out += " " + printable(args[1], 80);
  }
  return out;
}

RedisConnection::RedisConnection(RedisOptions options)
    : m_options(std::move(options)), m_name("redis " + to_string(m_options.endpoint))
{
}

RedisConnection::~RedisConnection()
{
  disconnect();
}

void RedisConnection::disconnect()
{
  if (m_context) {
    redisFree(m_context);
    m_context = nullptr;
  }
}

std::unexpected<Error> RedisConnection::fail(ErrorCode code, std::string_view what,
                                             std::string detail)
{
  disconnect();
  ++m_failures;
  m_retry_at = Clock::now() + backoff_for(m_failures, m_options);
  m_last_error = std::string(what) + ": " + detail;
  return make_error(code, m_name + ": " + m_last_error);
}

Expected<void> RedisConnection::connect(Deadline deadline)
{
  if (m_context) {
    return {};
  }
  Clock::time_point now = Clock::now();
  if (now < m_retry_at) {
    int64_t wait = duration_cast<milliseconds>(m_retry_at - now).count();
    return make_error(ErrorCode::unavailable, m_name + ": down (" + m_last_error +
                                                  "), next attempt in " + std::to_string(wait) +
                                                  " ms");
  }
  milliseconds left = left_until(deadline);
  if (left.count() == 0) {
    return make_error(ErrorCode::timeout, m_name + ": connect: no budget left");
  }
  timeval wait = to_timeval(std::min(left, m_options.connect_timeout));
  const RedisEndpoint& endpoint = m_options.endpoint;
  // hiredis resolves a host name with a blocking getaddrinfo: configure an address, not a name.
  redisContext* context =
      endpoint.is_unix()
          ? redisConnectUnixWithTimeout(endpoint.unix_path.c_str(), wait)
          : redisConnectWithTimeout(endpoint.host.c_str(), static_cast<int>(endpoint.port), wait);
  if (!context) {
    return fail(ErrorCode::resource_exhausted, "connect", "out of memory");
  }
  if (context->err) {
    std::string detail = context->errstr;
    redisFree(context);
    return fail(ErrorCode::unavailable, "connect", detail);
  }
  if (!endpoint.is_unix()) {
    redisEnableKeepAlive(context);
  }
  // Before the first byte is read: no reply exists yet that hiredis's own functions built.
  context->reader->fn = &g_reply_functions;
  // hiredis frees its read buffer whenever it holds more than 16 KiB unused, so every large
  // object regrew it by doubling (copies and fresh pages: most of a 1 MiB lookup's time). Kept up
  // to 4 MiB per connection instead, a bounded cost for a pool of a few connections.
  context->reader->maxbuf = k_read_buffer_kept;
  m_context = context;
  ++m_generation;
  return {};
}

Expected<void> RedisConnection::flush(Deadline until, std::string_view what)
{
  for (;;) {
    int done = 0;
    if (redisBufferWrite(m_context, &done) != REDIS_OK) {
      bool timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
      return fail(timed_out ? ErrorCode::timeout : ErrorCode::unavailable, what,
                  timed_out ? "write timed out" : std::string("write: ") + m_context->errstr);
    }
    if (done) {
      return {};
    }
    pollfd descriptor{.fd = m_context->fd, .events = POLLOUT, .revents = 0};
    milliseconds left = left_until(until);
    int ready = left.count() == 0 ? 0 : ::poll(&descriptor, 1, static_cast<int>(left.count()));
    if (ready == 0) {
      return fail(ErrorCode::timeout, what, "write timed out");
    }
    if (ready < 0 && errno != EINTR) {
      return fail(ErrorCode::unavailable, what, std::string("poll: ") + std::strerror(errno));
    }
  }
}

Expected<bool> RedisConnection::receive(Deadline until, std::string_view what, bool none_is_timeout,
                                        RedisReply& reply)
{
  for (;;) {
    void* raw = nullptr;
    if (redisGetReplyFromReader(m_context, &raw) != REDIS_OK) {
      return fail(ErrorCode::unavailable, what, std::string("protocol: ") + m_context->errstr);
    }
    if (raw) {
      std::unique_ptr<RedisReply> root(static_cast<RedisReply*>(raw));
      reply = std::move(*root);
      m_failures = 0;
      return true;
    }
    pollfd descriptor{.fd = m_context->fd, .events = POLLIN, .revents = 0};
    milliseconds left = left_until(until);
    int ready = left.count() == 0 ? 0 : ::poll(&descriptor, 1, static_cast<int>(left.count()));
    if (ready == 0) {
      if (!none_is_timeout) {
        return false;
      }
      // The reply may still come; the connection cannot be reused without reading it.
      return fail(ErrorCode::timeout, what, "no reply within the budget");
    }
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      return fail(ErrorCode::unavailable, what, std::string("poll: ") + std::strerror(errno));
    }
    if (redisBufferRead(m_context) != REDIS_OK) {
      std::string detail = m_context->err == REDIS_ERR_EOF
                               ? std::string("connection closed by the server")
                               : std::string(m_context->errstr);
      return fail(ErrorCode::unavailable, what, detail);
    }
  }
}

Expected<RedisReply> RedisConnection::command(std::span<const std::string_view> args,
                                              Deadline deadline, milliseconds server_wait)
{
  assert(!args.empty() && "a Redis command has a name");
  std::string what = describe_command(args);
  TRY(connect(deadline));
  Deadline until = std::min(deadline, Clock::now() + m_options.command_timeout + server_wait);
  // The socket timeouts back up poll(): a blocking write of a large value stops there too.
  redisSetTimeout(m_context, to_timeval(left_until(until)));
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (std::string_view arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  SigpipeGuard guard;
  if (redisAppendCommandArgv(m_context, static_cast<int>(args.size()), argv.data(),
                             lengths.data()) != REDIS_OK) {
    return fail(ErrorCode::resource_exhausted, what, "out of memory");
  }
  TRY(flush(until, what));
  RedisReply reply;
  TRY(receive(until, what, true, reply));
  return reply;
}

Expected<RedisReply> RedisConnection::command(std::initializer_list<std::string_view> args,
                                              Deadline deadline, milliseconds server_wait)
{
  return command(std::span<const std::string_view>(args.begin(), args.size()), deadline,
                 server_wait);
}

Expected<RedisReply> RedisConnection::call(std::span<const std::string_view> args,
                                           Deadline deadline, milliseconds server_wait)
{
  TRY_ASSIGN(RedisReply reply, command(args, deadline, server_wait));
  if (reply.is_error()) {
    return make_error(ErrorCode::rejected,
                      m_name + ": " + describe_command(args) + ": " + printable(reply.text, 200));
  }
  return reply;
}

Expected<RedisReply> RedisConnection::call(std::initializer_list<std::string_view> args,
                                           Deadline deadline, milliseconds server_wait)
{
  return call(std::span<const std::string_view>(args.begin(), args.size()), deadline, server_wait);
}

Expected<std::optional<RedisReply>> RedisConnection::read_pushed(Deadline deadline)
{
  if (!m_context) {
    return make_error(ErrorCode::unavailable, m_name + ": not connected");
  }
  SigpipeGuard guard;
  redisSetTimeout(m_context, to_timeval(left_until(deadline)));
  RedisReply reply;
  TRY_ASSIGN(bool came, receive(deadline, "read", false, reply));
  if (!came) {
    return std::optional<RedisReply>();
  }
  return std::optional<RedisReply>(std::move(reply));
}

} // namespace d4r::cache::redis
