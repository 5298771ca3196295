#include "util/kernel_identity.hpp"

#include <algorithm>

namespace d4r {

const char* to_string(Mode mode)
{
  switch (mode) {
  case Mode::fast:
    return "fast";
  case Mode::accuracy:
    return "accuracy";
  }
  return "unknown";
}

Expected<Mode> parse_mode(std::string_view text)
{
  if (text == "fast") {
    return Mode::fast;
  }
  if (text == "accuracy") {
    return Mode::accuracy;
  }
  return make_error(ErrorCode::invalid_argument,
                    "unknown accuracy mode '" + std::string(text.substr(0, 32)) +
                        "' (expected fast or accuracy)");
}

bool is_known_target(std::string_view arch)
{
  return std::find(k_known_targets.begin(), k_known_targets.end(), arch) != k_known_targets.end();
}

Expected<std::string> validate_target(std::string_view arch)
{
  if (!is_known_target(arch)) {
    return make_error(ErrorCode::invalid_argument,
                      "unknown gpu target '" + std::string(arch.substr(0, 32)) +
                          "' (expected one of gfx1100-gfx1103, gfx1200, gfx1201)");
  }
  return std::string(arch);
}

bool target_has_native_fp8(std::string_view arch)
{
  return arch.starts_with("gfx12");
}

Expected<void> validate_kernel_name(std::string_view name)
{
  if (name.empty()) {
    return make_error(ErrorCode::invalid_argument, "kernel name is empty");
  }
  if (name.size() > k_max_kernel_name) {
    return make_error(ErrorCode::invalid_argument,
                      "kernel name is " + std::to_string(name.size()) + " bytes (at most " +
                          std::to_string(k_max_kernel_name) + ")");
  }
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$';
    if (!ok) {
      return make_error(ErrorCode::invalid_argument,
                        "kernel name has a byte 0x" + std::string(1, "0123456789abcdef"[c >> 4]) +
                            std::string(1, "0123456789abcdef"[c & 15]) + " at offset " +
                            std::to_string(i) + " (only [A-Za-z0-9_$] are allowed)");
    }
  }
  return {};
}

bool is_ray_reconstruction_kernel(std::string_view name)
{
  return name.starts_with("cuda_dldn_engine_");
}

} // namespace d4r
