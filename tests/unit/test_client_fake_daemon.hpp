#pragma once
// A fake d4r-kerneld for the client's unit tests: a gRPC server on a temporary Unix socket whose
// answers each test sets, counting the calls and keeping the last requests it saw.

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace d4r::test {

namespace pb = d4r::kernel::v1;

inline std::string fresh_temp_dir()
{
  std::string pattern = "/tmp/d4rk-test-XXXXXX";
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

class FakeKernelService final : public pb::KernelService::Service {
public:
  using ResolveFn = std::function<void(const pb::ResolveRequest&, pb::ResolveReply&)>;

  grpc::Status Prepare(grpc::ServerContext*, const pb::PrepareRequest* request,
                       pb::PrepareReply* reply) override
  {
    ++prepare_calls;
    std::lock_guard lock(mutex);
    last_prepare = *request;
    reply->set_need_module_bytes(need_module_bytes);
    return grpc::Status::OK;
  }

  grpc::Status PutModule(grpc::ServerContext* context, const pb::PutModuleRequest* request,
                         pb::PutModuleReply* reply) override
  {
    ++put_calls;
    if (hang_uploads) {
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!context->IsCancelled() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "fake daemon hung on the upload");
    }
    std::lock_guard lock(mutex);
    last_put = *request;
    reply->set_stored_bytes(static_cast<int64_t>(request->ptx().size()));
    return grpc::Status::OK;
  }

  grpc::Status Resolve(grpc::ServerContext* context, const pb::ResolveRequest* request,
                       pb::ResolveReply* reply) override
  {
    ++resolve_calls;
    {
      std::lock_guard lock(mutex);
      last_resolve = *request;
    }
    if (hang) {
      // Never answers: holds the call until the client gives up (bounded, so shutdown is quick).
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!context->IsCancelled() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "fake daemon hung");
    }
    std::lock_guard lock(mutex);
    if (on_resolve) {
      on_resolve(*request, *reply);
    } else {
      reply->set_outcome(pb::ResolveReply::NOT_FOUND);
      reply->set_reason("fake: nothing");
    }
    return grpc::Status::OK;
  }

  pb::ResolveRequest resolve_request()
  {
    std::lock_guard lock(mutex);
    return last_resolve;
  }

  std::atomic<int> prepare_calls{0};
  std::atomic<int> put_calls{0};
  std::atomic<int> resolve_calls{0};
  std::atomic<bool> hang{false};         // Resolve never answers
  std::atomic<bool> hang_uploads{false}; // PutModule never answers
  bool need_module_bytes = false;
  std::mutex mutex;
  ResolveFn on_resolve; // under mutex
  pb::PrepareRequest last_prepare;
  pb::PutModuleRequest last_put;
  pb::ResolveRequest last_resolve;
};

class FakeDaemon {
public:
  explicit FakeDaemon(const std::string& socket_path) : m_socket_path(socket_path) {}
  ~FakeDaemon() { stop(); }

  void start()
  {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + m_socket_path, grpc::InsecureServerCredentials());
    builder.RegisterService(&service);
    builder.SetMaxReceiveMessageSize(256 << 20);
    m_server = builder.BuildAndStart();
    ASSERT_NE(m_server, nullptr) << "fake daemon on " << m_socket_path;
  }

  void stop()
  {
    if (m_server) {
      service.hang = false;
      m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
      m_server.reset();
    }
  }

  FakeKernelService service;

private:
  std::string m_socket_path;
  std::unique_ptr<grpc::Server> m_server;
};

} // namespace d4r::test
