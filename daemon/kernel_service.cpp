#include "daemon/kernel_service.hpp"

#include "daemon/compiled_wire.hpp"
#include "daemon/metrics_text.hpp"
#include "daemon/release_wire.hpp"
#include "daemon/wire.hpp"

#include <algorithm>
#include <chrono>

namespace d4r::daemon {

grpc::ServerUnaryReactor* KernelService::run(grpc::CallbackServerContext* context,
                                             Priority priority, std::function<grpc::Status()> work,
                                             pb::ResolveReply* rejectable)
{
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  std::chrono::system_clock::time_point deadline = context->deadline();
  Admission admission = m_pool.admit(priority, [reactor, deadline, work = std::move(work)] {
    if (std::chrono::system_clock::now() > deadline) {
      reactor->Finish({grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed while queued"});
      return;
    }
    reactor->Finish(work());
  });
  if (admission == Admission::full) {
    // Refused at once: the client falls back now instead of waiting out its budget in a queue.
    m_core.counters().add(Counter::rejected_request_queue_full);
    std::string reason = "request queue full: " + std::to_string(m_pool.queued()) +
                         " requests wait for a thread (--max-queued-requests)";
    if (rejectable == nullptr) {
      reactor->Finish({grpc::StatusCode::RESOURCE_EXHAUSTED, reason});
      return reactor;
    }
    rejectable->set_outcome(pb::ResolveReply::REJECTED);
    rejectable->set_reason(reason);
    reactor->Finish(grpc::Status::OK);
  } else if (admission == Admission::stopping) {
    reactor->Finish({grpc::StatusCode::UNAVAILABLE, "d4r-kerneld is shutting down"});
  }
  return reactor;
}

grpc::ServerUnaryReactor* KernelService::fail(grpc::CallbackServerContext* context,
                                              const Error& error)
{
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(wire::to_grpc_status(error));
  return reactor;
}

namespace {

// A request that cannot be answered as asked (a budget over its limit, a bad digest) gets a
// REJECTED answer with the reason, which the client logs, rather than a transport error.
grpc::ServerUnaryReactor* reject(grpc::CallbackServerContext* context, const Error& error,
                                 pb::ResolveReply* reply)
{
  reply->set_outcome(pb::ResolveReply::REJECTED);
  reply->set_reason(error.message);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

// An inline answer (answer_inline) waits at most this long for anything.
constexpr auto k_inline_wait = std::chrono::milliseconds(1);

// The caller's deadline on the steady clock, on which waits are timed, and its cancellation: a
// wait for a build or another request ends when the caller is gone.
void bind_caller(grpc::CallbackServerContext* context, ResolveQuery& query)
{
  std::chrono::system_clock::duration left = context->deadline() - std::chrono::system_clock::now();
  if (context->deadline() != std::chrono::system_clock::time_point::max() && left < std::chrono::hours(24)) {
    query.deadline = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(left);
  }
  query.cancelled = [context] { return context->IsCancelled(); };
}

} // namespace

grpc::ServerUnaryReactor* KernelService::Resolve(grpc::CallbackServerContext* context,
                                                 const pb::ResolveRequest* request,
                                                 pb::ResolveReply* reply)
{
  // A damage report is checked again on the pool, never inline (it hashes the object). Any other
  // request is known by its bytes: a kept reply answered these very bytes, checked then.
  std::string warm_key =
      request->damaged_sha256().empty() ? request->SerializeAsString() : std::string();
  if (grpc::ServerUnaryReactor* answered = answer_kept(context, warm_key, request->game(), reply)) {
    return answered;
  }
  Expected<ResolveQuery> query = wire::to_resolve_query(*request);
  if (!query) {
    return reject(context, query.error(), reply);
  }
  bind_caller(context, *query);
  if (grpc::ServerUnaryReactor* answered = answer_inline(context, *query, warm_key, reply)) {
    return answered;
  }
  return run(
      context, Priority::interactive,
      [this, query = std::move(*query), reply, warm_key = std::move(warm_key)] {
        ResolveAnswer answer = m_core.resolve(query);
        std::shared_ptr<const ReadyCheck> check = answer.check;
        const bool ready = answer.outcome == Outcome::ready;
        wire::fill_resolve_reply(std::move(answer), *reply);
        note_answer(warm_key, ready, std::move(check), *reply);
        return grpc::Status::OK;
      },
      reply);
}

// The reply kept for these request bytes, sent again while its ReadyCheck holds (the release
// files and the cache row as they were): no parse, no core call, no copy of the answer but the
// reply's. Null: nothing kept, or it no longer holds (then forgotten).
grpc::ServerUnaryReactor* KernelService::answer_kept(grpc::CallbackServerContext* context,
                                                     const std::string& warm_key,
                                                     std::string_view game, pb::ResolveReply* reply)
{
  if (warm_key.empty()) {
    return nullptr;
  }
  std::shared_ptr<const WarmAnswer> kept = m_warm.answer(warm_key);
  if (!kept) {
    return nullptr;
  }
  if (!m_core.still_ready(*kept->check, game)) {
    m_warm.note(warm_key, true); // still worth answering inline; the core looks again
    return nullptr;
  }
  *reply = kept->reply;
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

void KernelService::note_answer(const std::string& warm_key, bool ready,
                                std::shared_ptr<const ReadyCheck> check,
                                const pb::ResolveReply& reply)
{
  if (warm_key.empty()) {
    return;
  }
  std::shared_ptr<const WarmAnswer> kept;
  if (ready && check) {
    kept = std::make_shared<const WarmAnswer>(WarmAnswer{reply, std::move(check)});
  }
  m_warm.note(warm_key, ready, std::move(kept));
}

// A request whose last answer was READY is answered here, on the gRPC thread, with every wait
// bounded to a millisecond (the caller's deadline as the core sees it): a warm hit never waits,
// and one that would (another request's flight, a rebuild after a purge) answers PENDING, which
// is dropped for a run on the pool with the request's own budget. READY, NOT_FOUND and REJECTED
// do not depend on the budget and are sent as they are. Null: not answered here.
grpc::ServerUnaryReactor* KernelService::answer_inline(grpc::CallbackServerContext* context,
                                                       const ResolveQuery& query,
                                                       const std::string& warm_key,
                                                       pb::ResolveReply* reply)
{
  if (warm_key.empty() || !m_warm.contains(warm_key)) {
    return nullptr;
  }
  ResolveQuery bounded = query;
  bounded.deadline = std::min(query.deadline, std::chrono::steady_clock::now() + k_inline_wait);
  ResolveAnswer answer = m_core.resolve(bounded);
  if (answer.outcome == Outcome::pending) {
    m_warm.note(warm_key, false);
    return nullptr;
  }
  std::shared_ptr<const ReadyCheck> check = answer.check;
  const bool ready = answer.outcome == Outcome::ready;
  wire::fill_resolve_reply(std::move(answer), *reply);
  note_answer(warm_key, ready, std::move(check), *reply);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* KernelService::Build(grpc::CallbackServerContext* context,
                                               const pb::BuildRequest* request,
                                               pb::ResolveReply* reply)
{
  Expected<ResolveQuery> query = wire::to_build_query(*request);
  if (!query) {
    return reject(context, query.error(), reply);
  }
  bind_caller(context, *query);
  return run(
      context, Priority::interactive,
      [this, query = std::move(*query), reply] {
        wire::fill_resolve_reply(m_core.build(query), *reply);
        return grpc::Status::OK;
      },
      reply);
}

grpc::ServerUnaryReactor* KernelService::Prepare(grpc::CallbackServerContext* context,
                                                 const pb::PrepareRequest* request,
                                                 pb::PrepareReply* reply)
{
  Expected<PrepareQuery> query = wire::to_prepare_query(*request);
  if (!query) {
    return fail(context, query.error());
  }
  return run(context, Priority::interactive, [this, query = std::move(*query), reply] {
    Expected<PrepareAnswer> answer = m_core.prepare(query);
    if (!answer) {
      return wire::to_grpc_status(answer.error());
    }
    wire::fill_prepare_reply(*answer, *reply);
    warm_in_background(query, answer->servable_entries);
    return grpc::Status::OK;
  });
}

// Builds start when the module loads, so that the Resolve of each kernel finds them ready.
void KernelService::warm_in_background(const PrepareQuery& query,
                                       const std::vector<std::string>& entries)
{
  for (const std::string& entry : entries) {
    ResolveQuery warm;
    warm.module_hash = query.module_hash;
    warm.kernel = entry;
    warm.selection = query.selection;
    warm.accept_path = true;
    warm.wait_budget = std::chrono::milliseconds(1);
    warm.background = true;
    warm.game = query.game;
    bool queued = m_pool.submit(Priority::background, [this, warm = std::move(warm)] {
      static_cast<void>(m_core.resolve(warm));
    });
    if (!queued) {
      m_core.counters().add(Counter::warmup_dropped); // the Resolve builds it when it comes
    }
  }
}

grpc::ServerUnaryReactor* KernelService::PutModule(grpc::CallbackServerContext* context,
                                                   const pb::PutModuleRequest* request,
                                                   pb::PutModuleReply* reply)
{
  Expected<Sha256> digest = wire::to_sha256(request->module().sha256());
  if (!digest) {
    return fail(context, digest.error());
  }
  Expected<std::shared_ptr<UploadBudget::Lease>> lease =
      m_core.admit_upload(static_cast<int64_t>(request->ptx().size()));
  if (!lease) {
    return fail(context, lease.error());
  }
  // The lease goes with the task, after the body is stored.
  return run(context, Priority::background, [this, request, reply, digest = *digest, lease = *lease] {
    Expected<int64_t> stored = m_core.put_module(request->module().fnv1a64(), digest, request->ptx());
    if (!stored) {
      return wire::to_grpc_status(stored.error());
    }
    reply->set_stored_bytes(*stored);
    // The Prepare that asked for it warmed nothing it needed: now it can.
    if (auto warmup = m_core.take_awaited_warmup(request->module().fnv1a64())) {
      warm_in_background(warmup->first, warmup->second);
    }
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::Status(grpc::CallbackServerContext* context,
                                                const pb::StatusRequest* /*request*/,
                                                pb::StatusReply* reply)
{
  return run(context, Priority::interactive, [this, reply] {
    wire::fill_status_reply(m_core.status(), *reply);
    wire::fill_compiled_stats(m_compiled, *reply);
    if (m_remote_clients != nullptr) {
      fill_remote_stats(m_remote_clients->snapshot(), *reply->mutable_remote());
    }
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::Metrics(grpc::CallbackServerContext* context,
                                                 const pb::MetricsRequest* /*request*/,
                                                 pb::MetricsReply* reply)
{
  return run(context, Priority::interactive, [this, reply] {
    pb::StatusReply status;
    wire::fill_status_reply(m_core.status(), status);
    if (m_remote_clients != nullptr) {
      fill_remote_stats(m_remote_clients->snapshot(), *status.mutable_remote());
    }
    reply->set_text(metrics_text(status));
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::Import(grpc::CallbackServerContext* context,
                                                const pb::ImportRequest* request,
                                                pb::ImportReply* reply)
{
  std::optional<std::filesystem::path> directory = m_core.config().native_dir;
  if (!request->directory().empty()) {
    directory = request->directory();
  }
  if (!directory) {
    return fail(context, Error{ErrorCode::invalid_argument,
                               "import: no directory given and no --native-dir configured"});
  }
  return run(context, Priority::background, [this, directory = *directory, reply] {
    Expected<ImportSummary> summary = m_core.import_release(directory);
    if (!summary) {
      return wire::to_grpc_status(summary.error());
    }
    wire::fill_import_reply(*summary, *reply);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::List(grpc::CallbackServerContext* context,
                                              const pb::ListRequest* request, pb::ListReply* reply)
{
  Expected<std::optional<Mode>> mode = wire::to_mode(request->mode());
  if (!mode) {
    return fail(context, mode.error());
  }
  return run(context, Priority::interactive, [this, mode = *mode, reply] {
    Expected<std::vector<std::pair<Mode, cache::Entry>>> entries = m_core.list(mode);
    if (!entries) {
      return wire::to_grpc_status(entries.error());
    }
    wire::fill_list_reply(*entries, *reply);
    return grpc::Status::OK;
  });
}

// A game's Resolve on the asking machine waits for this answer: interactive, like Resolve.
grpc::ServerUnaryReactor* KernelService::FetchObject(grpc::CallbackServerContext* context,
                                                     const pb::FetchObjectRequest* request,
                                                     pb::FetchObjectReply* reply)
{
  return run(context, Priority::interactive, [this, key = request->key(), reply] {
    Expected<std::optional<SignedObject>> found = m_core.fetch_signed(key);
    if (!found) {
      return wire::to_grpc_status(found.error());
    }
    wire::fill_fetch_object_reply(std::move(*found), *reply);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KernelService::Purge(grpc::CallbackServerContext* context,
                                               const pb::PurgeRequest* request,
                                               pb::PurgeReply* reply)
{
  Expected<wire::PurgeCall> call = wire::to_purge_call(*request);
  if (!call) {
    return fail(context, call.error());
  }
  return run(context, Priority::interactive, [this, call = *call, reply] {
    Expected<cache::PurgeResult> result = m_core.purge_where(call.mode, call.filter);
    if (!result) {
      return wire::to_grpc_status(result.error());
    }
    wire::fill_purge_reply(*result, *reply);
    return grpc::Status::OK;
  });
}

} // namespace d4r::daemon
