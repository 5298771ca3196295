#include "client/compiled_sender.hpp"

#include "util/digest.hpp"

#include <grpcpp/grpcpp.h>

namespace d4r::client {

namespace pb = d4r::kernel::v1;

CompiledSender::~CompiledSender()
{
  {
    std::lock_guard lock(m_mutex);
    m_closing = true;
    if (m_in_flight) {
      m_in_flight->TryCancel();
    }
  }
  m_ready.notify_all();
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

bool CompiledSender::enqueue(pb::StoreCompiledRequest request, std::string& why)
{
  const size_t size = request.object().size();
  std::lock_guard lock(m_mutex);
  if (m_closing) {
    why = "compiled module: the client is closing";
    return false;
  }
  if (m_queued_bytes + size > k_max_queued_store_bytes) {
    why = "compiled module: " + std::to_string(m_queued_bytes) +
          " bytes wait to be sent already (at most " + std::to_string(k_max_queued_store_bytes) +
          "): not stored";
    return false;
  }
  m_queue.push_back(std::move(request));
  m_queued_bytes += size;
  if (!m_thread.joinable()) {
    m_thread = std::thread([this] { loop(); });
  }
  m_ready.notify_one();
  return true;
}

void CompiledSender::loop()
{
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_ready.wait(lock, [this] { return m_closing || !m_queue.empty(); });
    if (m_closing) {
      return;
    }
    pb::StoreCompiledRequest request = std::move(m_queue.front());
    m_queue.pop_front();
    m_queued_bytes -= request.object().size();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + k_store_timeout);
    context.set_wait_for_ready(false);
    m_in_flight = &context;
    lock.unlock();
    const Sha256 digest = sha256(request.object());
    request.set_sha256(digest.data(), digest.size());
    pb::StoreCompiledReply reply;
    grpc::Status status = m_send(context, request, reply);
    lock.lock();
    m_in_flight = nullptr;
    if (!status.ok() && !m_closing) {
      m_report("store compiled module for " + request.key().target() + ": status " +
               std::to_string(static_cast<int>(status.error_code())) + ": " +
               status.error_message() + " (in the background; further not logged)");
    }
  }
}

} // namespace d4r::client
