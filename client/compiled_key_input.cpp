#include "client/compiled_key_input.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <algorithm>
#include <cstring>

namespace d4r::client {

namespace pb = d4r::kernel::v1;

namespace {

Error invalid(const std::string& what)
{
  return Error{ErrorCode::invalid_argument, "compiled module: " + what};
}

// As client_options.cpp copies d4rk_options: a field ending past struct_size stays zero.
d4rk_compiled_key copy_sized(const d4rk_compiled_key& given)
{
  d4rk_compiled_key key{};
  std::memcpy(&key, &given, std::min<size_t>(given.struct_size, sizeof(d4rk_compiled_key)));
  return key;
}

} // namespace

Expected<CompiledKey> read_compiled_key(const d4rk_compiled_key* given, Mode client_mode)
{
  if (!given || given->struct_size == 0) {
    return std::unexpected(invalid(given ? "key struct_size is 0" : "no key"));
  }
  const d4rk_compiled_key key = copy_sized(*given);
  if (!key.module_sha256_hex || !key.compiler_identity || !key.target) {
    return std::unexpected(invalid("the key's module sha256, compiler identity or target is NULL"));
  }
  std::optional<Sha256> module = parse_sha256_hex(key.module_sha256_hex);
  if (!module) {
    return std::unexpected(invalid("module sha256 is not 64 hex digits"));
  }
  if (key.mode < D4RK_MODE_FROM_ENVIRONMENT || key.mode > D4RK_MODE_ACCURACY) {
    return std::unexpected(invalid("unknown mode " + std::to_string(key.mode)));
  }
  if (key.option_count > 0 && !key.options) {
    return std::unexpected(invalid("options is NULL with an option count"));
  }
  if (key.option_count > k_max_compile_options) {
    return std::unexpected(invalid(std::to_string(key.option_count) + " options (at most " +
                                   std::to_string(k_max_compile_options) + ")"));
  }
  std::vector<std::string> options;
  for (uint32_t i = 0; i < key.option_count; ++i) {
    if (!key.options[i]) {
      return std::unexpected(invalid("option " + std::to_string(i) + " is NULL"));
    }
    options.emplace_back(key.options[i], strnlen(key.options[i], k_max_compile_option + 1));
  }
  const Mode mode = key.mode == D4RK_MODE_ACCURACY ? Mode::accuracy
                    : key.mode == D4RK_MODE_FAST   ? Mode::fast
                                                   : client_mode;
  return make_compiled_key(*module,
                           std::string_view(key.compiler_identity,
                                            strnlen(key.compiler_identity, k_max_compiler_identity + 1)),
                           std::string_view(key.target, strnlen(key.target, k_max_compiled_target + 1)),
                           std::move(options), mode);
}

void fill_compiled_key(const CompiledKey& key, pb::CompiledKey& to)
{
  to.set_module_sha256(key.module_sha256.data(), key.module_sha256.size());
  to.set_compiler_identity(key.compiler_identity);
  to.set_target(key.target);
  for (const std::string& option : key.options) {
    to.add_options(option);
  }
  to.set_mode(key.mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST);
}

} // namespace d4r::client
