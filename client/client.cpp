#include "client/client.hpp"

#include "client/game_name.hpp"
#include "client/upload_retry.hpp"
#include "util/ptx_identity.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <grpcpp/grpcpp.h>

namespace d4r::client {

namespace pb = d4r::kernel::v1;

namespace {

// A daemon that misses a deadline is left alone for this long (a restarted one is found after it).
constexpr int64_t k_quiet_after_timeout_ms = 1000;
// An upload runs outside the game's budget, but not for ever; and a game that loads many modules
// while the daemon is slow does not pile up their texts.
constexpr auto k_upload_timeout = std::chrono::seconds(30);
constexpr size_t k_max_queued_uploads = 8;
// Code objects come as bytes to remote clients; PTX modules go up to 64 MiB.
constexpr int k_max_message_bytes = 256 << 20;

int64_t steady_now_ms()
{
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& socket_path)
{
  grpc::ChannelArguments args;
  // Reconnect quickly: a daemon started (or socket-activated) after the game is found within a
  // second, and a call never waits for a connection past its own deadline (no wait_for_ready).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  // Each client owns its connection: two clients in one process never share a broken one.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(k_max_message_bytes);
  args.SetMaxSendMessageSize(k_max_message_bytes);
  return grpc::CreateCustomChannel("unix:" + socket_path, grpc::InsecureChannelCredentials(), args);
}

void fill_selection(const Selection& from, pb::Selection& to)
{
  to.set_target(from.target);
  to.set_mode(from.mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST);
  to.set_fp8_native(from.fp8_native);
  to.set_native_swin_encoders(from.native_swin_encoders);
}

void set_deadline(grpc::ClientContext& context, std::chrono::system_clock::time_point deadline)
{
  context.set_deadline(deadline);
  context.set_wait_for_ready(false);
}

std::string describe(const grpc::Status& status)
{
  std::string text = "status " + std::to_string(static_cast<int>(status.error_code())) + ": " +
                     status.error_message();
  // gRPC's own words for its resource quota say nothing of the daemon's setting.
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
      status.error_message().find("RST_STREAM with error code 11") != std::string::npos) {
    text += " (the daemon's transport memory was full: --transport-memory)";
  }
  return text;
}

} // namespace

Client::Client(ClientOptions options)
    : m_options(std::move(options)), m_channel(make_channel(m_options.socket_path)),
      m_stub(pb::KernelService::NewStub(m_channel))
{
}

Client::~Client()
{
  {
    std::lock_guard lock(m_upload_mutex);
    m_closing = true;
    if (m_upload_in_flight) {
      m_upload_in_flight->TryCancel();
    }
  }
  m_upload_ready.notify_all();
  if (m_uploader.joinable()) {
    m_uploader.join();
  }
}

ModuleIdentity Client::identify(std::span<const std::byte> image)
{
  ModuleIdentity module;
  module.text = ptx_text_of_image(image);
  module.hash = ptx_module_hash(module.text);
  module.sha256 = sha256(module.text);
  module.entries = scan_entry_names(module.text);
  return module;
}

void Client::prepare(const ModuleIdentity& module)
{
  if (module.entries.empty() || quiet()) {
    return;
  }
  auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(m_options.budget_ms);
  pb::PrepareRequest request;
  request.mutable_module()->set_fnv1a64(module.hash);
  request.mutable_module()->set_sha256(module.sha256.data(), module.sha256.size());
  for (const std::string& entry : module.entries) {
    request.add_entries(entry);
  }
  fill_selection(m_options.selection, *request.mutable_selection());
  request.set_game(this_game());
  grpc::ClientContext context;
  set_deadline(context, deadline);
  pb::PrepareReply reply;
  grpc::Status status = m_stub->Prepare(&context, request, &reply);
  if (!status.ok()) {
    note_rpc_failure("prepare module " + hash_to_hex(module.hash) + ": " + describe(status),
                     status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
    return;
  }
  if (!reply.need_module_bytes()) {
    return;
  }
  pb::PutModuleRequest put;
  *put.mutable_module() = request.module();
  put.set_ptx(module.text.data(), module.text.size());
  std::lock_guard lock(m_upload_mutex);
  if (m_closing || m_upload_queue.size() >= k_max_queued_uploads) {
    return; // offered again the next time a game loads the module
  }
  m_upload_queue.push_back(std::move(put));
  if (!m_uploader.joinable()) {
    m_uploader = std::thread([this] { upload_loop(); });
  }
  m_upload_ready.notify_one();
}

void Client::upload_loop()
{
  std::unique_lock lock(m_upload_mutex);
  for (;;) {
    m_upload_ready.wait(lock, [this] { return m_closing || !m_upload_queue.empty(); });
    if (m_closing) {
      return;
    }
    pb::PutModuleRequest put = std::move(m_upload_queue.front());
    m_upload_queue.pop_front();
    // Called with the lock held; each attempt releases it while the call runs.
    auto attempt = [&] {
      grpc::ClientContext context;
      set_deadline(context, std::chrono::system_clock::now() + k_upload_timeout);
      m_upload_in_flight = &context;
      lock.unlock();
      pb::PutModuleReply reply;
      grpc::Status status = m_stub->PutModule(&context, put, &reply);
      lock.lock();
      m_upload_in_flight = nullptr;
      return status;
    };
    // The transport refuses uploads at random when its memory is spent (upload_retry.hpp).
    auto wait = [&](std::chrono::milliseconds delay) {
      return !m_closing && !m_upload_ready.wait_for(lock, delay, [this] { return m_closing; });
    };
    UploadOutcome outcome = upload_with_retry(UploadRetryPolicy{}, attempt, wait);
    if (!outcome.status.ok() && !m_closing) {
      // Not note_rpc_failure: a slow upload says nothing about how fast resolves are answered.
      log_once(Problem::upload, "upload module " + hash_to_hex(put.module().fnv1a64()) + ": " +
                                    describe_upload_failure(outcome) +
                                    " (in the background; further not logged)");
    }
  }
}

ResolveResult Client::resolve(uint64_t module_hash, std::string_view kernel_name)
{
  if (Expected<void> valid = validate_kernel_name(kernel_name); !valid) {
    return {D4RK_REJECTED, valid.error().message, nullptr};
  }
  if (m_options.memo) {
    if (std::shared_ptr<const KernelAnswer> known = memo_find(module_hash, kernel_name)) {
      return {D4RK_READY, "", std::move(known)};
    }
  }
  if (quiet()) {
    return {D4RK_NOT_FOUND, "daemon timed out recently, not asked", nullptr};
  }
  const auto steady_deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(m_options.budget_ms);
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(m_options.budget_ms);
  // Only for messages: a warm resolve never builds it.
  auto what = [&] {
    return "resolve kernel " + std::string(kernel_name) + " (ptx " + hash_to_hex(module_hash) + ")";
  };
  pb::ResolveRequest request;
  request.set_module_hash(module_hash);
  request.set_kernel(kernel_name.data(), kernel_name.size());
  fill_selection(m_options.selection, *request.mutable_selection());
  // The daemon answers PENDING before the client's deadline, so that a slow build reads as
  // PENDING and not as a transport failure.
  request.set_wait_budget_ms(static_cast<uint32_t>(std::max<int64_t>(1, m_options.budget_ms * 3 / 4)));
  request.set_accept_path(true);
  request.set_mirrors_host_variables(m_options.mirrors_host_variables);
  request.set_writes_d4r_tensor_maps(m_options.writes_d4r_tensor_maps);
  request.set_game(this_game());
  // A second request only when the object named did not read back as its digest: the daemon
  // checks it again and answers anew, within what is left of the budget.
  std::optional<std::string> damaged;
  for (;;) {
    if (damaged) {
      request.set_damaged_sha256(*damaged);
    }
    grpc::ClientContext context;
    set_deadline(context, deadline);
    pb::ResolveReply reply;
    grpc::Status status = m_stub->Resolve(&context, request, &reply);
    if (!status.ok()) {
      note_rpc_failure(what() + ": " + describe(status),
                       status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
      return {D4RK_NOT_FOUND, what() + ": " + describe(status), nullptr};
    }
    if (reply.outcome() == pb::ResolveReply::NOT_FOUND) {
      return {D4RK_NOT_FOUND, reply.reason(), nullptr};
    }
    if (reply.outcome() == pb::ResolveReply::PENDING) {
      return {D4RK_PENDING, reply.reason(), nullptr};
    }
    if (reply.outcome() == pb::ResolveReply::REJECTED) {
      // A refusal (a full queue, a broken contract) is worth one line; its reason says which.
      log_once(Problem::rejected, what() + ": rejected by the daemon: " + reply.reason() +
                                      " (further refusals not logged)");
      return {D4RK_REJECTED, reply.reason(), nullptr};
    }
    if (reply.outcome() != pb::ResolveReply::READY) {
      log_once(Problem::bad_reply, what() + ": malformed reply: unknown outcome");
      return {D4RK_NOT_FOUND, "malformed reply: unknown outcome", nullptr};
    }
    const bool by_path = reply.object().has_path();
    std::string digest = reply.object().sha256();
    Expected<std::shared_ptr<const KernelAnswer>> answer =
        KernelAnswer::from_reply(reply, kernel_name, m_options.selection.mode,
                                 m_options.mirrors_host_variables, steady_deadline);
    if (!answer && answer.error().code == ErrorCode::corrupt && by_path && !damaged) {
      log_once(Problem::damaged_object, what() + ": " + answer.error().message +
                                            "; told the daemon (further damage not logged)");
      damaged = std::move(digest);
      continue;
    }
    if (!answer) {
      log_once(Problem::bad_reply, answer.error().message);
      return {D4RK_NOT_FOUND, answer.error().message, nullptr};
    }
    if (!m_options.memo) {
      return {D4RK_READY, "", std::move(*answer)};
    }
    return {D4RK_READY, "", memo_insert(module_hash, kernel_name, std::move(*answer))};
  }
}

bool Client::quiet() const
{
  return steady_now_ms() < m_quiet_until_ms.load(std::memory_order_relaxed);
}

void Client::note_rpc_failure(const std::string& what, bool deadline_exceeded)
{
  if (deadline_exceeded) {
    m_quiet_until_ms.store(steady_now_ms() + k_quiet_after_timeout_ms, std::memory_order_relaxed);
  }
  log_once(Problem::transport,
           "daemon at " + m_options.socket_path + ": " + what +
               " (serving nothing from the daemon; further problems not logged)");
}

void Client::log_once(Problem problem, const std::string& message)
{
  if (m_logged[static_cast<size_t>(problem)].exchange(true)) {
    return;
  }
  if (m_options.log_fn) {
    m_options.log_fn(m_options.log_user_data, message.c_str());
    return;
  }
  std::fprintf(stderr, "d4r-kernel-client: %s\n", message.c_str());
}

std::shared_ptr<const KernelAnswer> Client::memo_find(uint64_t module_hash,
                                                      std::string_view kernel_name)
{
  std::lock_guard lock(m_memo_mutex);
  auto found = m_memo.find(std::pair<uint64_t, std::string_view>(module_hash, kernel_name));
  return found == m_memo.end() ? nullptr : found->second;
}

std::shared_ptr<const KernelAnswer> Client::memo_insert(uint64_t module_hash,
                                                        std::string_view kernel_name,
                                                        std::shared_ptr<const KernelAnswer> answer)
{
  // Two threads may both miss and ask; the first answer stored is the one everyone shares.
  std::lock_guard lock(m_memo_mutex);
  auto [entry, inserted] = m_memo.try_emplace(
      std::pair<uint64_t, std::string>(module_hash, kernel_name), std::move(answer));
  return entry->second;
}

} // namespace d4r::client
