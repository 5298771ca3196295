#pragma once
// The client's settings in C++ form: the C options struct read field by field (up to its
// struct_size), with the game's environment and then the user's config file filling what the
// caller left to it (util/settings.hpp: the same reading as the daemon's and the CLI's; the
// variables as d4r's CUDA bridge names them, ../shared/reference/d4r-contract.md, section 2).

#include "client/d4r_kernel_client.h"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <string>

namespace d4r::client {

// The switches of the requesting game that change the answer (proto Selection).
struct Selection {
  std::string target; // empty: the daemon's detected GPU
  Mode mode = Mode::fast;
  bool fp8_native = true;
  bool native_swin_encoders = true;
};

struct ClientOptions {
  std::string socket_path;
  int64_t budget_ms = D4RK_DEFAULT_BUDGET_MS;
  Selection selection;
  d4rk_log_fn log_fn = nullptr;
  void* log_user_data = nullptr;
  bool memo = true; // false with D4RK_FLAG_NO_MEMO
  bool mirrors_host_variables = false; // D4RK_FLAG_MIRRORS_HOST_VARIABLES
  bool writes_d4r_tensor_maps = false; // D4RK_FLAG_WRITES_D4R_TENSOR_MAPS
};

// NULL options: every default. Refuses a struct_size of 0 (the caller forgot to set it).
[[nodiscard]] Expected<ClientOptions> read_options(const d4rk_options* options);

// This process's socket rule (util/socket_path.hpp): $XDG_RUNTIME_DIR/d4r-kerneld/socket, or
// /run/user/<uid>/d4r-kerneld/socket without it.
[[nodiscard]] std::string default_socket_path();

} // namespace d4r::client
