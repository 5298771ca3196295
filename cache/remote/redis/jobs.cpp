#include "cache/remote/redis/jobs.hpp"

#include <algorithm>
#include <array>

namespace d4r::cache::redis {

namespace {

using std::chrono::milliseconds;

constexpr std::string_view k_body_field = "job";
constexpr milliseconds k_block_margin{130};

// One stream entry: [id, [field, value, ...]]; a deleted entry may come back with a nil body.
std::optional<RedisJob> to_job(const RedisReply& entry)
{
  if (!entry.is_array() || entry.elements.size() != 2 || !entry.elements[0].is_string()) {
    return std::nullopt;
  }
  const RedisReply& fields = entry.elements[1];
  if (!fields.is_array()) {
    return std::nullopt;
  }
  for (size_t i = 0; i + 1 < fields.elements.size(); i += 2) {
    if (fields.elements[i].text == k_body_field) {
      return RedisJob{.id = entry.elements[0].text, .body = fields.elements[i + 1].text};
    }
  }
  return std::nullopt;
}

std::vector<RedisJob> to_jobs(const RedisReply& entries)
{
  std::vector<RedisJob> jobs;
  for (const RedisReply& entry : entries.elements) {
    if (std::optional<RedisJob> job = to_job(entry)) {
      jobs.push_back(std::move(*job));
    }
  }
  return jobs;
}

} // namespace

RedisJobs::RedisJobs(RedisConnection& connection, RedisKeyspace keys, std::string consumer,
                     int64_t max_length)
    : m_connection(connection), m_keys(std::move(keys)), m_consumer(std::move(consumer)),
      m_max_length(max_length)
{
  assert(!m_consumer.empty() && "a consumer names the host that holds its jobs");
}

Expected<void> RedisJobs::ensure_group(Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply, m_connection.command({"XGROUP", "CREATE", m_keys.jobs(),
                                                     m_keys.job_group(), "0", "MKSTREAM"},
                                                    deadline));
  if (reply.is_error() && !reply.text.starts_with("BUSYGROUP")) {
    return make_error(ErrorCode::rejected,
                      m_connection.name() + ": XGROUP CREATE " + m_keys.jobs() + ": " + reply.text);
  }
  return {};
}

Expected<RedisReply> RedisJobs::group_call(std::span<const std::string_view> args,
                                           Deadline deadline, milliseconds server_wait)
{
  for (int attempt = 0;; ++attempt) {
    TRY_ASSIGN(RedisReply reply, m_connection.command(args, deadline, server_wait));
    if (!reply.is_error()) {
      return reply;
    }
    // A server restarted without persistence lost the group; every host makes it again.
    if (reply.text.starts_with("NOGROUP") && attempt == 0) {
      TRY(ensure_group(deadline));
      continue;
    }
    return make_error(ErrorCode::rejected,
                      m_connection.name() + ": " + describe_command(args) + ": " + reply.text);
  }
}

Expected<std::string> RedisJobs::add(std::string_view body, Deadline deadline)
{
  std::string max_length = std::to_string(m_max_length);
  TRY_ASSIGN(RedisReply reply, m_connection.call({"XADD", m_keys.jobs(), "MAXLEN", "~", max_length,
                                                  "*", k_body_field, body},
                                                 deadline));
  if (!reply.is_string()) {
    return make_error(ErrorCode::internal, m_connection.name() + ": XADD: unexpected reply");
  }
  return std::move(reply.text);
}

Expected<std::vector<RedisJob>> RedisJobs::read(int64_t count, milliseconds block,
                                                Deadline deadline)
{
  // BLOCK 0 would wait forever, so the wait is what is left of the budget less a margin, and
  // without BLOCK the read returns at once. Redis times blocked clients out in its event loop, up
  // to 1/hz late (100 ms at the default hz of 10, measured here at about 95): the margin covers
  // that and the reply's way back, so that the server ends the wait, not our deadline (which
  // would cost the connection).
  milliseconds left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  milliseconds wait = std::min(block, left - k_block_margin);
  std::string count_text = std::to_string(count);
  std::string wait_text = std::to_string(wait.count());
  std::string stream = m_keys.jobs();
  std::string group = m_keys.job_group();
  std::vector<std::string_view> args{"XREADGROUP", "GROUP", group, m_consumer, "COUNT", count_text};
  if (wait.count() > 0) {
    args.insert(args.end(), {"BLOCK", wait_text});
  }
  args.insert(args.end(), {"STREAMS", stream, ">"});
  TRY_ASSIGN(RedisReply reply,
             group_call(args, deadline, wait.count() > 0 ? wait : milliseconds(0)));
  // nil when nothing came; otherwise [[stream, [entries]]].
  if (reply.is_nil() || !reply.is_array() || reply.elements.empty()) {
    return std::vector<RedisJob>();
  }
  const RedisReply& stream_reply = reply.elements[0];
  if (!stream_reply.is_array() || stream_reply.elements.size() != 2) {
    return make_error(ErrorCode::internal, m_connection.name() + ": XREADGROUP: unexpected reply");
  }
  return to_jobs(stream_reply.elements[1]);
}

Expected<void> RedisJobs::ack(std::string_view id, Deadline deadline)
{
  TRY(m_connection.call({"XACK", m_keys.jobs(), m_keys.job_group(), id}, deadline));
  // One group reads the stream, so an acked job is of no further use.
  TRY(m_connection.call({"XDEL", m_keys.jobs(), id}, deadline));
  return {};
}

Expected<std::vector<RedisJob>> RedisJobs::claim_stale(milliseconds min_idle, int64_t count,
                                                       Deadline deadline)
{
  std::string idle_text = std::to_string(min_idle.count());
  std::string count_text = std::to_string(count);
  std::string stream = m_keys.jobs();
  std::string group = m_keys.job_group();
  std::array<std::string_view, 8> args{"XAUTOCLAIM", stream, group,   m_consumer,
                                       idle_text,    "0-0",  "COUNT", count_text};
  TRY_ASSIGN(RedisReply reply, group_call(args, deadline, milliseconds(0)));
  // [next cursor, [entries], [IDs of entries deleted meanwhile]] (Redis 7).
  if (!reply.is_array() || reply.elements.size() < 2 || !reply.elements[1].is_array()) {
    return make_error(ErrorCode::internal, m_connection.name() + ": XAUTOCLAIM: unexpected reply");
  }
  return to_jobs(reply.elements[1]);
}

Expected<void> RedisJobs::touch(std::span<const std::string> ids, Deadline deadline)
{
  if (ids.empty()) {
    return {};
  }
  std::string stream = m_keys.jobs();
  std::string group = m_keys.job_group();
  std::vector<std::string_view> args{"XCLAIM", stream, group, m_consumer, "0"};
  args.insert(args.end(), ids.begin(), ids.end());
  args.push_back("JUSTID");
  TRY(m_connection.call(args, deadline));
  return {};
}

Expected<int64_t> RedisJobs::pending_count(Deadline deadline)
{
  TRY_ASSIGN(RedisReply reply,
             m_connection.call({"XPENDING", m_keys.jobs(), m_keys.job_group()}, deadline));
  if (!reply.is_array() || reply.elements.empty() || !reply.elements[0].is_integer()) {
    return make_error(ErrorCode::internal, m_connection.name() + ": XPENDING: unexpected reply");
  }
  return reply.elements[0].integer;
}

} // namespace d4r::cache::redis
