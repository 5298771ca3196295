#include "daemon/object_checks.hpp"

namespace d4r::daemon {

std::string processor_of(std::string_view amdhsa_target)
{
  size_t dashes = amdhsa_target.rfind("--");
  std::string_view processor =
      dashes == std::string_view::npos ? amdhsa_target : amdhsa_target.substr(dashes + 2);
  return std::string(processor.substr(0, processor.find(':')));
}

Expected<compiler::LaunchMeta> checked_launch_meta(std::span<const std::byte> object,
                                                   std::string_view kernel, std::string_view arch)
{
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(object, kernel);
  if (!meta) {
    return make_error(ErrorCode::rejected, meta.error().message);
  }
  if (!arch.empty() && processor_of(meta->amdhsa_target) != arch) {
    return make_error(ErrorCode::rejected, "kernel " + std::string(kernel) + ": code object is for '" +
                                               meta->amdhsa_target + "', not " + std::string(arch));
  }
  return meta;
}

} // namespace d4r::daemon
