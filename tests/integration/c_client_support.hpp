#pragma once
// The C client (client/d4r_kernel_client.h) as integration tests drive it: an owning handle, a
// client for one target in fast mode, and a resolve repeated while the daemon answers PENDING
// (the client's background upload, then the build, are on their way).

#include "client/d4r_kernel_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

namespace d4r::testing {

struct ClientDeleter {
  void operator()(d4rk_client* client) const { d4rk_client_destroy(client); }
};
using ClientPtr = std::unique_ptr<d4rk_client, ClientDeleter>;

inline ClientPtr make_c_client(const std::filesystem::path& socket, uint32_t flags)
{
  d4rk_options options;
  d4rk_options_init(&options);
  std::string path = socket.string();
  options.socket_path = path.c_str();
  options.budget_ms = 8000;
  options.mode = D4RK_MODE_FAST;
  options.target = "gfx1201";
  options.flags = flags;
  d4rk_client* client = nullptr;
  EXPECT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  return ClientPtr(client);
}

// Resolves `kernel` until the answer is not PENDING, for at most `limit`; the last outcome. A
// count of quick attempts ran out before the upload landed on a loaded machine.
inline int resolve_until_built(d4rk_client* client, uint64_t hash, const char* kernel, d4rk_kernel** out,
                               std::chrono::seconds limit)
{
  const auto give_up = std::chrono::steady_clock::now() + limit;
  int outcome = d4rk_resolve(client, hash, kernel, out);
  while (outcome == D4RK_PENDING && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    outcome = d4rk_resolve(client, hash, kernel, out);
  }
  return outcome;
}

} // namespace d4r::testing
