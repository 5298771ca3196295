#include "compiler/backends/backend_factory.hpp"

namespace d4r::compiler {

Expected<std::unique_ptr<Backend>> make_backend(std::string_view name,
                                                const BackendOptions& options)
{
  if (name == "llvm") {
    return make_llvm_backend(options);
  }
  if (name == "clang") {
    return make_clang_backend(options);
  }
  if (name == "comgr") {
    return make_comgr_backend(options);
  }
  return make_error(ErrorCode::invalid_argument,
                    "backend " + std::string(name) + ": unknown (llvm, clang or comgr)");
}

std::unique_ptr<Backend> choose_backend(std::string_view target, const BackendOptions& options)
{
  Expected<std::unique_ptr<Backend>> comgr = make_comgr_backend(options);
  if (comgr && (*comgr)->supports(target)) {
    return std::move(*comgr);
  }
  return make_llvm_backend(options);
}

} // namespace d4r::compiler
