#include "client/client_options.hpp"

#include "util/environment.hpp"
#include "util/settings.hpp"
#include "util/socket_path.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace d4r::client {

namespace {

// Copies field by field so that a caller compiled against an older, shorter struct is read safely:
// a field that ends past struct_size stays zero, which means its default.
d4rk_options copy_sized(const d4rk_options& given)
{
  d4rk_options options{};
  size_t size = std::min<size_t>(given.struct_size, sizeof(d4rk_options));
  std::memcpy(&options, &given, size);
  return options;
}

// The C options' explicit choices: they win over the environment and the config file.
SwitchFlags flags_of(const d4rk_options& options)
{
  SwitchFlags flags;
  if (options.mode == D4RK_MODE_ACCURACY || options.mode == D4RK_MODE_FAST) {
    flags[static_cast<size_t>(Switch::prefer_accuracy)] = {options.mode == D4RK_MODE_ACCURACY,
                                                           "d4rk_options.mode"};
  }
  auto set = [&flags](Switch id, int32_t value, const char* field) {
    if (value == D4RK_SWITCH_ON || value == D4RK_SWITCH_OFF) {
      flags[static_cast<size_t>(id)] = {value == D4RK_SWITCH_ON, field};
    }
  };
  set(Switch::native_fp8, options.fp8_native, "d4rk_options.fp8_native");
  set(Switch::native_swin_encoders, options.native_swin_encoders,
      "d4rk_options.native_swin_encoders");
  return flags;
}

// A value the game's environment or config file spells in no known way is used as if unset (the
// next source serves), and said once: the game must not get the fast set silently.
void log_problem(const d4rk_options& options, const std::string& problem)
{
  const std::string message = "settings: " + problem + "; ignored";
  if (options.log_fn) {
    options.log_fn(options.log_user_data, message.c_str());
    return;
  }
  std::fprintf(stderr, "d4r-kernel-client: %s\n", message.c_str());
}

Selection read_selection(const d4rk_options& options, const EnvironmentMap& environment)
{
  Selection selection;
  if (options.target) {
    selection.target = options.target;
  } else if (std::optional<std::string> arch = gpu_arch_from_environment(environment)) {
    selection.target = *arch;
  }
  Settings settings = read_settings(flags_of(options), environment);
  for (const std::string& problem : settings.problems) {
    log_problem(options, problem);
  }
  selection.mode = settings.at(Switch::prefer_accuracy).value ? Mode::accuracy : Mode::fast;
  selection.fp8_native = settings.at(Switch::native_fp8).value;
  selection.native_swin_encoders = settings.at(Switch::native_swin_encoders).value;
  return selection;
}

} // namespace

std::string default_socket_path()
{
  return d4r::default_socket_path(environment_from_process(), static_cast<uint32_t>(getuid()));
}

Expected<ClientOptions> read_options(const d4rk_options* given)
{
  d4rk_options options{};
  if (given) {
    if (given->struct_size == 0) {
      return make_error(ErrorCode::invalid_argument, "client options: struct_size is 0");
    }
    options = copy_sized(*given);
  }
  if (options.mode < D4RK_MODE_FROM_ENVIRONMENT || options.mode > D4RK_MODE_ACCURACY) {
    return make_error(ErrorCode::invalid_argument,
                      "client options: unknown mode " + std::to_string(options.mode));
  }
  for (int32_t value : {options.fp8_native, options.native_swin_encoders}) {
    if (value < D4RK_SWITCH_FROM_ENVIRONMENT || value > D4RK_SWITCH_ON) {
      return make_error(ErrorCode::invalid_argument,
                        "client options: unknown switch value " + std::to_string(value));
    }
  }
  const EnvironmentMap environment = environment_from_process();
  ClientOptions result;
  result.socket_path = options.socket_path && *options.socket_path
                           ? std::string(options.socket_path)
                           : d4r::default_socket_path(environment, static_cast<uint32_t>(getuid()));
  int64_t budget = options.budget_ms == 0 ? D4RK_DEFAULT_BUDGET_MS : options.budget_ms;
  result.budget_ms = std::min<int64_t>(budget, D4RK_MAX_BUDGET_MS);
  result.selection = read_selection(options, environment);
  result.log_fn = options.log_fn;
  result.log_user_data = options.log_user_data;
  result.memo = (options.flags & D4RK_FLAG_NO_MEMO) == 0;
  result.mirrors_host_variables = (options.flags & D4RK_FLAG_MIRRORS_HOST_VARIABLES) != 0;
  result.writes_d4r_tensor_maps = (options.flags & D4RK_FLAG_WRITES_D4R_TENSOR_MAPS) != 0;
  return result;
}

} // namespace d4r::client
