// Client's calls for the hook's own compiled modules: LookupCompiled and StoreCompiled, fail-open
// and budgeted as resolve is (the same budget, the same quiet window after a timeout, the same
// once-per-problem log), in a file of their own.

#include "client/client.hpp"

#include "client/compiled_key_input.hpp"

#include <grpcpp/grpcpp.h>

namespace d4r::client {

namespace pb = d4r::kernel::v1;

namespace {

// Past the budget, what reading and hashing an object from the cache may take: a 20 MiB module
// read at a slow 100 MB/s. A miss costs the game a compile of seconds; a hit must still be bounded.
constexpr int64_t k_read_ms_per_mib = 10;

std::string describe_status(const grpc::Status& status)
{
  return "status " + std::to_string(static_cast<int>(status.error_code())) + ": " +
         status.error_message();
}

std::string describe(const CompiledKey& key)
{
  return "compiled module (ptx sha256 " + to_hex(key.module_sha256).substr(0, 16) + "..., " +
         key.target + ", " + to_string(key.mode) + ")";
}

} // namespace

CompiledLookupResult Client::lookup_compiled(const CompiledKey& key)
{
  if (quiet()) {
    return {D4RK_NOT_FOUND, "daemon timed out recently, not asked", nullptr};
  }
  const auto started = std::chrono::steady_clock::now();
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(m_options.budget_ms);
  pb::LookupCompiledRequest request;
  fill_compiled_key(key, *request.mutable_key());
  request.set_accept_path(true);
  std::string damage; // the first object's problem, once reported
  for (;;) {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    context.set_wait_for_ready(false);
    pb::LookupCompiledReply reply;
    grpc::Status status = m_stub->LookupCompiled(&context, request, &reply);
    if (!status.ok()) {
      const std::string what = "lookup " + describe(key) + ": " + describe_status(status);
      note_rpc_failure(what, status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
      return {D4RK_NOT_FOUND, damage.empty() ? what : damage + "; " + what, nullptr};
    }
    if (!reply.found()) {
      return {D4RK_NOT_FOUND,
              damage.empty() ? reply.reason() : damage + "; the daemon: " + reply.reason(), nullptr};
    }
    const bool by_path = reply.object().has_path();
    std::string digest = reply.object().sha256();
    const auto read_deadline =
        started + std::chrono::milliseconds(m_options.budget_ms +
                                            k_read_ms_per_mib * (reply.object().size() >> 20));
    Expected<std::unique_ptr<CompiledAnswer>> answer =
        CompiledAnswer::from_reply(reply, key.mode, read_deadline);
    if (answer) {
      return {D4RK_READY, "", std::move(*answer)};
    }
    if (answer.error().code == ErrorCode::corrupt && by_path && damage.empty()) {
      damage = describe(key) + ": " + answer.error().message + "; reported to the daemon";
      log_once(Problem::damaged_object, damage + " (further damage not logged)");
      request.set_damaged_sha256(std::move(digest));
      continue;
    }
    log_once(Problem::bad_reply, describe(key) + ": " + answer.error().message);
    return {D4RK_NOT_FOUND, damage.empty() ? answer.error().message : damage, nullptr};
  }
}

CompiledStoreResult Client::store_compiled(const CompiledKey& key,
                                           std::span<const std::byte> object, bool wait)
{
  pb::StoreCompiledRequest request;
  fill_compiled_key(key, *request.mutable_key());
  request.set_object(object.data(), object.size());
  if (!wait) {
    std::lock_guard lock(m_compiled_mutex);
    if (!m_compiled_sender) {
      m_compiled_sender = std::make_unique<CompiledSender>(
          [this](grpc::ClientContext& context, const pb::StoreCompiledRequest& sent,
                 pb::StoreCompiledReply& reply) {
            return m_stub->StoreCompiled(&context, sent, &reply);
          },
          [this](const std::string& message) { log_once(Problem::compiled, message); });
    }
    std::string why;
    if (!m_compiled_sender->enqueue(std::move(request), why)) {
      return {D4RK_NOT_STORED, why};
    }
    return {D4RK_OK, ""};
  }
  if (quiet()) {
    return {D4RK_NOT_STORED, "daemon timed out recently, not asked"};
  }
  const Sha256 digest = sha256(object);
  request.set_sha256(digest.data(), digest.size());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(m_options.budget_ms));
  context.set_wait_for_ready(false);
  pb::StoreCompiledReply reply;
  grpc::Status status = m_stub->StoreCompiled(&context, request, &reply);
  if (!status.ok()) {
    const std::string what = "store " + describe(key) + ": " + describe_status(status);
    // A refusal (too large, bad bytes) says nothing about how fast the daemon answers.
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
        status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      note_rpc_failure(what, status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
    } else {
      log_once(Problem::compiled, what);
    }
    return {D4RK_NOT_STORED, what};
  }
  return {D4RK_OK, ""};
}

} // namespace d4r::client
