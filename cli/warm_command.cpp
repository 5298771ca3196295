#include "cli/warm_command.hpp"

#include "cli/daemon_client.hpp"
#include "cli/exit_code.hpp"
#include "cli/json_writer.hpp"
#include "cli/progress_bar.hpp"
#include "cli/warm_inputs.hpp"
#include "util/digest.hpp"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include <sys/ioctl.h>
#include <unistd.h>

namespace d4r::cli {

namespace {

// Planning reads the manifests for every module, target and mode: more than a status call.
constexpr int64_t k_plan_extra_ms = 60'000;
constexpr auto k_poll_terminal = std::chrono::milliseconds(200);
constexpr auto k_poll_plain = std::chrono::milliseconds(500);
// How soon a Ctrl-C during a poll interval reaches the daemon as a cancel.
constexpr auto k_interrupt_check = std::chrono::milliseconds(10);

volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int /*signal*/)
{
  g_interrupted = 1;
}

// SIGINT sets a flag for the wait loop while the warm runs; the previous handler comes back after.
class InterruptGuard {
public:
  InterruptGuard()
  {
    g_interrupted = 0;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &m_previous);
  }
  ~InterruptGuard() { ::sigaction(SIGINT, &m_previous, nullptr); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
  struct sigaction m_previous {};
};

// Sleeps `interval`, or less when Ctrl-C comes: the cancel must not wait for the next poll,
// while the daemon goes on starting builds that the user no longer wants.
void sleep_unless_interrupted(std::chrono::milliseconds interval)
{
  auto end = std::chrono::steady_clock::now() + interval;
  while (g_interrupted == 0 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        k_interrupt_check, end - std::chrono::steady_clock::now()));
  }
}

pb::Mode to_proto(Mode mode)
{
  switch (mode) {
  case Mode::fast:
    return pb::MODE_FAST;
  case Mode::accuracy:
    return pb::MODE_ACCURACY;
  }
  D4R_UNREACHABLE("every mode is handled");
}

const char* mode_name(pb::Mode mode)
{
  return mode == pb::MODE_ACCURACY ? "accuracy" : mode == pb::MODE_FAST ? "fast" : "default";
}

class WarmSession {
public:
  WarmSession(const GlobalOptions& global, const WarmCommand& cmd, Io& io)
      : m_global(global), m_cmd(cmd), m_io(io),
        m_stub(pb::KernelService::NewStub(grpc::CreateChannel(
            "unix:" + global.socket, grpc::InsecureChannelCredentials())))
  {
  }

  int run();

private:
  [[nodiscard]] pb::WarmRequest request_of(const WarmInputs& inputs) const;
  [[nodiscard]] Expected<pb::WarmReply> start(const pb::WarmRequest& request);
  [[nodiscard]] Expected<int64_t> upload(const std::vector<uint64_t>& wanted);
  [[nodiscard]] Expected<pb::WarmStatusReply> poll(uint64_t id, int64_t seen, bool cancel);
  int follow(uint64_t id, const WarmInputs& inputs, int64_t uploaded, int64_t total);
  void report_item(const pb::WarmItem& item, ProgressBar& bar, int64_t done, int64_t total);
  int finish(const pb::WarmStatusReply& last, bool interrupted, ProgressBar& bar);
  int fail(ExitCode code, const std::string& message);
  template <typename Fill> void event(const char* name, Fill&& fill);

  const GlobalOptions& m_global;
  const WarmCommand& m_cmd;
  Io& m_io;
  std::unique_ptr<pb::KernelService::Stub> m_stub;
};

int WarmSession::fail(ExitCode code, const std::string& message)
{
  m_io.err << "d4r-kernel: warm: " << message << "\n";
  if (m_global.json) {
    event("error", [&](JsonWriter& doc) {
      doc.key("message").string(message).key("exit_code").number(to_int(code));
    });
  }
  return to_int(code);
}

template <typename Fill> void WarmSession::event(const char* name, Fill&& fill)
{
  JsonWriter doc;
  doc.begin_object().key("event").string(name);
  fill(doc);
  doc.end_object();
  m_io.out << doc.text() << "\n" << std::flush;
}

pb::WarmRequest WarmSession::request_of(const WarmInputs& inputs) const
{
  pb::WarmRequest request;
  for (const WarmModuleInput& module : inputs.modules) {
    if (module.entries.empty()) {
      continue;
    }
    pb::WarmModule* out = request.add_modules();
    out->mutable_module()->set_fnv1a64(module.fnv1a64);
    out->mutable_module()->set_sha256(std::string(module.sha256.begin(), module.sha256.end()));
    for (const std::string& entry : module.entries) {
      out->add_entries(entry);
    }
  }
  for (const std::string& target : m_cmd.targets) {
    request.add_targets(target);
  }
  for (Mode mode : m_cmd.modes) {
    request.add_modes(to_proto(mode));
  }
  if (!m_cmd.fp8_native) {
    request.mutable_selection()->set_fp8_native(false);
  }
  if (!m_cmd.native_swin_encoders) {
    request.mutable_selection()->set_native_swin_encoders(false);
  }
  return request;
}

Expected<pb::WarmReply> WarmSession::start(const pb::WarmRequest& request)
{
  grpc::ClientContext context;
  int64_t deadline_ms = m_global.timeout_ms + k_plan_extra_ms;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  pb::WarmReply reply;
  grpc::Status status = m_stub->Warm(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(rpc_error(status, m_global.socket, "Warm", deadline_ms));
  }
  return reply;
}

Expected<int64_t> WarmSession::upload(const std::vector<uint64_t>& wanted)
{
  int64_t uploaded = 0;
  TRY(for_each_wanted_module(
      m_cmd, wanted, [&](const WarmModuleInput& module, std::string_view text) -> Expected<void> {
        pb::PutModuleRequest request;
        request.mutable_module()->set_fnv1a64(module.fnv1a64);
        request.mutable_module()->set_sha256(std::string(module.sha256.begin(), module.sha256.end()));
        request.set_ptx(std::string(text));
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::milliseconds(m_global.timeout_ms + k_plan_extra_ms));
        pb::PutModuleReply reply;
        grpc::Status status = m_stub->PutModule(&context, request, &reply);
        if (!status.ok()) {
          return std::unexpected(rpc_error(status, m_global.socket, "PutModule",
                                           m_global.timeout_ms + k_plan_extra_ms));
        }
        ++uploaded;
        return {};
      }));
  return uploaded;
}

Expected<pb::WarmStatusReply> WarmSession::poll(uint64_t id, int64_t seen, bool cancel)
{
  pb::WarmStatusRequest request;
  request.set_warm_id(id);
  request.set_items_seen(seen);
  request.set_cancel(cancel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(m_global.timeout_ms));
  pb::WarmStatusReply reply;
  grpc::Status status = m_stub->WarmStatus(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(rpc_error(status, m_global.socket, "WarmStatus", m_global.timeout_ms));
  }
  return reply;
}

int WarmSession::run()
{
  Expected<WarmInputs> inputs = read_warm_inputs(m_cmd);
  if (!inputs) {
    return fail(ExitCode::local_error, inputs.error().message);
  }
  pb::WarmRequest request = request_of(*inputs);
  Expected<pb::WarmReply> started = start(request);
  int64_t uploaded = 0;
  if (started && started->warm_id() == 0 && started->need_modules_size() > 0) {
    std::vector<uint64_t> wanted(started->need_modules().begin(), started->need_modules().end());
    Expected<int64_t> sent = upload(wanted);
    if (!sent) {
      return fail(sent.error().code == ErrorCode::unavailable || sent.error().code == ErrorCode::timeout
                      ? ExitCode::daemon
                      : ExitCode::local_error,
                  sent.error().message);
    }
    uploaded = *sent;
    started = start(request);
  }
  if (!started) {
    return fail(ExitCode::daemon, started.error().message);
  }
  if (started->warm_id() == 0) {
    return fail(ExitCode::daemon, "the daemon still lacks " +
                                      std::to_string(started->need_modules_size()) +
                                      " uploaded modules after the upload");
  }
  return follow(started->warm_id(), *inputs, uploaded, started->total());
}

int terminal_width()
{
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return 80;
}

int WarmSession::follow(uint64_t id, const WarmInputs& inputs, int64_t uploaded, int64_t total)
{
  // Redrawn only when stdout is the process's own and a terminal (tests give other streams).
  bool terminal = !m_global.json && m_io.out.rdbuf() == std::cout.rdbuf() && ::isatty(STDOUT_FILENO) == 1;
  ProgressBar bar(m_io.out, terminal, terminal ? terminal_width() : 80);
  int64_t split_out = 0;
  for (const WarmModuleInput& module : inputs.modules) {
    split_out += module.split_out;
  }
  if (m_global.json) {
    event("start", [&](JsonWriter& doc) {
      doc.key("warm_id").unsigned_number(id).key("total").number(total);
      doc.key("files").number(inputs.files).key("modules").number(static_cast<int64_t>(inputs.modules.size()));
      doc.key("uploaded").number(uploaded).key("split_out").number(split_out);
    });
  } else {
    bar.print_line("warm: " + std::to_string(total) + " kernels from " +
                   std::to_string(inputs.modules.size()) + " modules of " +
                   std::to_string(inputs.files) + " files (" + std::to_string(uploaded) +
                   " modules uploaded, " + std::to_string(split_out) +
                   " entries left out by the RR/SR split)");
  }
  int64_t seen = 0;
  bool cancel_sent = false;
  for (;;) {
    bool interrupted = g_interrupted != 0;
    Expected<pb::WarmStatusReply> reply = poll(id, seen, interrupted);
    if (!reply) {
      bar.finish();
      return fail(ExitCode::daemon, reply.error().message);
    }
    cancel_sent = cancel_sent || interrupted;
    for (const pb::WarmItem& item : reply->items()) {
      ++seen;
      report_item(item, bar, seen, reply->total());
    }
    if (static_cast<size_t>(reply->items_size()) > 0 && seen < reply->already() + reply->built() +
                                                                   reply->failed() + reply->dropped()) {
      continue; // more finished items than one answer carries: ask again at once
    }
    bar.update(ProgressCounts{reply->total(), seen, reply->already(), reply->failed(),
                              reply->running(), std::chrono::milliseconds(reply->elapsed_ms())});
    if (reply->finished() || cancel_sent) {
      return finish(*reply, cancel_sent, bar);
    }
    sleep_unless_interrupted(terminal ? k_poll_terminal : k_poll_plain);
  }
}

void WarmSession::report_item(const pb::WarmItem& item, ProgressBar& bar, int64_t done, int64_t total)
{
  if (m_global.json) {
    event("item", [&](JsonWriter& doc) {
      doc.key("kernel").string(item.kernel()).key("module_hash").string(hash_to_hex(item.module_hash()));
      doc.key("target").string(item.target()).key("mode").string(mode_name(item.mode()));
      doc.key("state").string(item.state()).key("reason").string(item.reason());
      doc.key("elapsed_ms").number(item.elapsed_ms()).key("done").number(done).key("total").number(total);
    });
    return;
  }
  // The bar counts what was in the cache; lines are for what this run did, and failures.
  bool line = item.state() == "failed" ||
              (!bar.terminal() && item.state() == "built");
  if (!line) {
    return;
  }
  std::string text = item.state() + " " + item.kernel() + " (" + hash_to_hex(item.module_hash()) +
                     ") for " + item.target() + " (" + mode_name(item.mode()) + ")";
  text += item.state() == "built" ? " in " + std::to_string(item.elapsed_ms()) + " ms" : ": " + item.reason();
  bar.print_line(text);
}

int WarmSession::finish(const pb::WarmStatusReply& last, bool interrupted, ProgressBar& bar)
{
  bar.finish();
  int code = interrupted ? k_exit_interrupted : last.failed() > 0 ? to_int(ExitCode::not_found)
                                                                  : to_int(ExitCode::success);
  if (m_global.json) {
    event("end", [&](JsonWriter& doc) {
      doc.key("total").number(last.total()).key("already").number(last.already());
      doc.key("built").number(last.built()).key("failed").number(last.failed());
      doc.key("dropped").number(last.dropped()).key("still_building").number(last.running());
      doc.key("interrupted").boolean(interrupted).key("elapsed_ms").number(last.elapsed_ms());
      doc.key("exit_code").number(code);
    });
    return code;
  }
  std::string text = std::string(interrupted ? "warm interrupted: " : "warm done: ") +
                     std::to_string(last.total()) + " kernels, " + std::to_string(last.already()) +
                     " already in the cache, " + std::to_string(last.built()) + " built, " +
                     std::to_string(last.failed()) + " failed";
  if (interrupted) {
    text += ", " + std::to_string(last.dropped()) + " dropped, " + std::to_string(last.running()) +
            " still building in the daemon (they finish and are stored; run warm again for the rest)";
  }
  text += " in " + format_duration(std::chrono::milliseconds(last.elapsed_ms()));
  m_io.out << text << "\n" << std::flush;
  return code;
}

} // namespace

int run_warm(const GlobalOptions& global, const WarmCommand& cmd, Io& io)
{
  InterruptGuard guard;
  WarmSession session(global, cmd, io);
  return session.run();
}

} // namespace d4r::cli
