#include "compiler/backends/comgr_library.hpp"

#include <dlfcn.h>

namespace d4r::compiler {

namespace {

// Resolves `name` into `function`; false (with `missing` set) when the library lacks it.
template <typename Function>
bool resolve(void* handle, const char* name, Function& function, std::string& missing)
{
  function = reinterpret_cast<Function>(::dlsym(handle, name));
  if (function == nullptr && missing.empty()) {
    missing = name;
  }
  return function != nullptr;
}

#define D4R_COMGR_RESOLVE(field_, symbol_) resolve(lib.handle, #symbol_, lib.field_, missing)

std::string resolve_all(ComgrLibrary& lib)
{
  std::string missing;
  D4R_COMGR_RESOLVE(get_version, amd_comgr_get_version);
  D4R_COMGR_RESOLVE(get_isa_count, amd_comgr_get_isa_count);
  D4R_COMGR_RESOLVE(get_isa_name, amd_comgr_get_isa_name);
  D4R_COMGR_RESOLVE(status_string, amd_comgr_status_string);
  D4R_COMGR_RESOLVE(create_data, amd_comgr_create_data);
  D4R_COMGR_RESOLVE(release_data, amd_comgr_release_data);
  D4R_COMGR_RESOLVE(set_data, amd_comgr_set_data);
  D4R_COMGR_RESOLVE(set_data_name, amd_comgr_set_data_name);
  D4R_COMGR_RESOLVE(get_data, amd_comgr_get_data);
  D4R_COMGR_RESOLVE(create_data_set, amd_comgr_create_data_set);
  D4R_COMGR_RESOLVE(destroy_data_set, amd_comgr_destroy_data_set);
  D4R_COMGR_RESOLVE(data_set_add, amd_comgr_data_set_add);
  D4R_COMGR_RESOLVE(action_data_count, amd_comgr_action_data_count);
  D4R_COMGR_RESOLVE(action_data_get_data, amd_comgr_action_data_get_data);
  D4R_COMGR_RESOLVE(create_action_info, amd_comgr_create_action_info);
  D4R_COMGR_RESOLVE(destroy_action_info, amd_comgr_destroy_action_info);
  D4R_COMGR_RESOLVE(action_info_set_isa_name, amd_comgr_action_info_set_isa_name);
  D4R_COMGR_RESOLVE(action_info_set_language, amd_comgr_action_info_set_language);
  D4R_COMGR_RESOLVE(action_info_set_option_list, amd_comgr_action_info_set_option_list);
  D4R_COMGR_RESOLVE(action_info_set_logging, amd_comgr_action_info_set_logging);
  D4R_COMGR_RESOLVE(do_action, amd_comgr_do_action);
  return missing;
}

#undef D4R_COMGR_RESOLVE

bool probe(ComgrLibrary& lib)
{
  size_t major = 0;
  size_t minor = 0;
  lib.get_version(&major, &minor);
  lib.version = std::to_string(major) + "." + std::to_string(minor);
  size_t count = 0;
  if (lib.get_isa_count(&count) != AMD_COMGR_STATUS_SUCCESS) {
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    if (lib.get_isa_name(i, &name) == AMD_COMGR_STATUS_SUCCESS && name != nullptr) {
      lib.isas.emplace_back(name);
    }
  }
  return true;
}

} // namespace

// Drops our reference; the library stays mapped (RTLD_NODELETE), as it must.
ComgrLibrary::~ComgrLibrary()
{
  if (handle != nullptr) {
    ::dlclose(handle);
  }
}

Expected<std::unique_ptr<ComgrLibrary>> load_comgr_library(const std::vector<std::string>& sonames)
{
  std::string tried;
  for (const std::string& soname : sonames) {
    auto lib = std::make_unique<ComgrLibrary>();
    // NODELETE: comgr 2.4 carries its own clang, whose command-line options register in
    // libLLVM-15 (which stays loaded); unloading and loading comgr again registers them twice
    // and LLVM aborts ("Option 'disassemble' registered more than once!").
    lib->handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    std::string why;
    if (lib->handle == nullptr) {
      const char* error = ::dlerror();
      why = error != nullptr ? error : "cannot load";
    } else if (std::string missing = resolve_all(*lib); !missing.empty()) {
      why = "lacks " + missing;
    } else if (!probe(*lib)) {
      why = "ISA probe failed";
    } else {
      lib->soname = soname;
      return lib;
    }
    tried += (tried.empty() ? "" : "; ") + soname + ": " + why;
  }
  return make_error(ErrorCode::not_found,
                    "comgr: no library loads" + (tried.empty() ? "" : " (" + tried + ")"));
}

} // namespace d4r::compiler
