#include "client/client_options.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <strings.h>
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

const char* environment(const char* name)
{
  const char* value = std::getenv(name);
  return value ? value : "";
}

bool switch_from_environment(const char* name, bool swin_spelling)
{
  const char* value = environment(name);
  if (std::strcmp(value, "0") == 0) {
    return false;
  }
  // d4r's NativeSwinEncoders switch also takes words; the FP8 switch is only ever 0 or 1.
  return !(swin_spelling && (strcasecmp(value, "false") == 0 || strcasecmp(value, "off") == 0));
}

bool read_switch(int32_t value, const char* variable, bool swin_spelling)
{
  if (value == D4RK_SWITCH_OFF) {
    return false;
  }
  if (value == D4RK_SWITCH_ON) {
    return true;
  }
  return switch_from_environment(variable, swin_spelling);
}

Selection read_selection(const d4rk_options& options)
{
  Selection selection;
  if (options.target) {
    selection.target = options.target;
  } else if (std::string_view arch = environment("D4R_GPU_ARCH"); arch.starts_with("gfx")) {
    selection.target = arch;
  }
  if (options.mode == D4RK_MODE_ACCURACY) {
    selection.mode = Mode::accuracy;
  } else if (options.mode == D4RK_MODE_FAST) {
    selection.mode = Mode::fast;
  } else {
    bool accuracy = std::strcmp(environment("D4R_PREFER_ACCURACY"), "1") == 0;
    selection.mode = accuracy ? Mode::accuracy : Mode::fast;
  }
  selection.fp8_native = read_switch(options.fp8_native, "D4R_ZLUDA_WMMA_FP8_NATIVE", false);
  selection.native_swin_encoders =
      read_switch(options.native_swin_encoders, "D4R_NATIVE_SWIN_ENCODERS", true);
  return selection;
}

} // namespace

std::string default_socket_path()
{
  std::string runtime_dir = environment("XDG_RUNTIME_DIR");
  if (runtime_dir.empty()) {
    runtime_dir = "/run/user/" + std::to_string(getuid());
  }
  return runtime_dir + "/d4r-kerneld/socket";
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
  ClientOptions result;
  result.socket_path =
      options.socket_path && *options.socket_path ? options.socket_path : default_socket_path();
  int64_t budget = options.budget_ms == 0 ? D4RK_DEFAULT_BUDGET_MS : options.budget_ms;
  result.budget_ms = std::min<int64_t>(budget, D4RK_MAX_BUDGET_MS);
  result.selection = read_selection(options);
  result.log_fn = options.log_fn;
  result.log_user_data = options.log_user_data;
  result.memo = (options.flags & D4RK_FLAG_NO_MEMO) == 0;
  result.mirrors_host_variables = (options.flags & D4RK_FLAG_MIRRORS_HOST_VARIABLES) != 0;
  result.writes_d4r_tensor_maps = (options.flags & D4RK_FLAG_WRITES_D4R_TENSOR_MAPS) != 0;
  return result;
}

} // namespace d4r::client
