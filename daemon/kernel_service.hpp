#pragma once
// The gRPC service: thin callback handlers (STYLE.md rule 10). Each converts its request
// (wire.cpp), queues one core call on the pool, and finishes with one status. Nothing here
// blocks a gRPC thread: the one core call made on it, a warm Resolve (answer_inline), waits for
// nothing longer than a millisecond, as the hop to the pool cost more than the answer.

#include "daemon/compiled_store.hpp"
#include "daemon/kernel_core.hpp"
#include "daemon/remote_clients.hpp"
#include "daemon/task_pool.hpp"
#include "daemon/warm_jobs.hpp"
#include "daemon/warm_queries.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <functional>

namespace d4r::daemon {

namespace pb = ::d4r::kernel::v1;

class KernelService final : public pb::KernelService::CallbackService {
public:
  KernelService(KernelCore& core, TaskPool& pool)
      : m_core(core), m_pool(pool), m_compiled(core.cache(), core.counters()),
        m_warm_jobs(core, core.build_threads())
  {
  }

  grpc::ServerUnaryReactor* Prepare(grpc::CallbackServerContext* context,
                                    const pb::PrepareRequest* request,
                                    pb::PrepareReply* reply) override;
  grpc::ServerUnaryReactor* PutModule(grpc::CallbackServerContext* context,
                                      const pb::PutModuleRequest* request,
                                      pb::PutModuleReply* reply) override;
  grpc::ServerUnaryReactor* Resolve(grpc::CallbackServerContext* context,
                                    const pb::ResolveRequest* request,
                                    pb::ResolveReply* reply) override;
  grpc::ServerUnaryReactor* Build(grpc::CallbackServerContext* context,
                                  const pb::BuildRequest* request,
                                  pb::ResolveReply* reply) override;
  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* context,
                                   const pb::StatusRequest* request,
                                   pb::StatusReply* reply) override;
  grpc::ServerUnaryReactor* Import(grpc::CallbackServerContext* context,
                                   const pb::ImportRequest* request,
                                   pb::ImportReply* reply) override;
  grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* context,
                                 const pb::ListRequest* request, pb::ListReply* reply) override;
  grpc::ServerUnaryReactor* Purge(grpc::CallbackServerContext* context,
                                  const pb::PurgeRequest* request,
                                  pb::PurgeReply* reply) override;
  // `d4r-kernel export`, `pin` / `unpin`: release_service.cpp.
  grpc::ServerUnaryReactor* Export(grpc::CallbackServerContext* context,
                                   const pb::ExportRequest* request,
                                   pb::ExportReply* reply) override;
  grpc::ServerUnaryReactor* Pin(grpc::CallbackServerContext* context,
                                const pb::PinRequest* request, pb::PinReply* reply) override;
  // `d4r-kernel warm` (warm_jobs.hpp): warm_service.cpp.
  grpc::ServerUnaryReactor* Warm(grpc::CallbackServerContext* context,
                                 const pb::WarmRequest* request, pb::WarmReply* reply) override;
  grpc::ServerUnaryReactor* WarmStatus(grpc::CallbackServerContext* context,
                                       const pb::WarmStatusRequest* request,
                                       pb::WarmStatusReply* reply) override;
  // Status as Prometheus text (metrics_text.hpp).
  grpc::ServerUnaryReactor* Metrics(grpc::CallbackServerContext* context,
                                    const pb::MetricsRequest* request,
                                    pb::MetricsReply* reply) override;
  // The hook's own compiled modules: compiled_service.cpp.
  grpc::ServerUnaryReactor* StoreCompiled(grpc::CallbackServerContext* context,
                                          const pb::StoreCompiledRequest* request,
                                          pb::StoreCompiledReply* reply) override;
  grpc::ServerUnaryReactor* LookupCompiled(grpc::CallbackServerContext* context,
                                           const pb::LookupCompiledRequest* request,
                                           pb::LookupCompiledReply* reply) override;
  // Another daemon's upstream tier asks for a stored object by key (upstream_tier.hpp).
  grpc::ServerUnaryReactor* FetchObject(grpc::CallbackServerContext* context,
                                        const pb::FetchObjectRequest* request,
                                        pb::FetchObjectReply* reply) override;

  // The build server's clients, shown by Status and Metrics (remote_server.hpp); null: none.
  void set_remote_clients(const RemoteClients* clients) { m_remote_clients = clients; }

private:
  // Queues `work` and finishes the reactor with its status; a request whose deadline passed in
  // the queue is finished without running it. Past the queue's bound the request is refused at
  // once: `rejectable` (Resolve, Build) answers REJECTED, any other RESOURCE_EXHAUSTED.
  grpc::ServerUnaryReactor* run(grpc::CallbackServerContext* context, Priority priority,
                                std::function<grpc::Status()> work,
                                pb::ResolveReply* rejectable = nullptr);
  grpc::ServerUnaryReactor* fail(grpc::CallbackServerContext* context, const Error& error);
  grpc::ServerUnaryReactor* answer_inline(grpc::CallbackServerContext* context,
                                          const ResolveQuery& query, const std::string& warm_key,
                                          pb::ResolveReply* reply);
  grpc::ServerUnaryReactor* answer_kept(grpc::CallbackServerContext* context,
                                        const std::string& warm_key, std::string_view game,
                                        pb::ResolveReply* reply);
  // Notes a Resolve's answer for its request bytes (warm_queries.hpp), keeping the reply when it
  // came with a ReadyCheck.
  void note_answer(const std::string& warm_key, bool ready, std::shared_ptr<const ReadyCheck> check,
                   const pb::ResolveReply& reply);
  void warm_in_background(const PrepareQuery& query, const std::vector<std::string>& entries);

  KernelCore& m_core;
  TaskPool& m_pool;
  WarmQueries m_warm; // Resolve requests answered inline (warm_queries.hpp)
  CompiledStore m_compiled; // the hook's own compiled modules, in m_core's cache
  const RemoteClients* m_remote_clients = nullptr;
  WarmJobs m_warm_jobs; // last: its drivers stop before anything they use goes
};

} // namespace d4r::daemon
