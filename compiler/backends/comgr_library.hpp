#pragma once
// The user's ROCm comgr (libamd_comgr.so.3 or .so.2), loaded with dlopen at run time: we never
// link it, so the daemon runs on machines without ROCm. Only the functions the comgr backend
// calls are resolved; a library lacking one of them is skipped.

#include "util/error.hpp"

#include <amd_comgr.h>

#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler {

struct ComgrLibrary {
  ComgrLibrary() = default;
  ComgrLibrary(const ComgrLibrary&) = delete;
  ComgrLibrary& operator=(const ComgrLibrary&) = delete;
  ~ComgrLibrary();

  void* handle = nullptr;
  std::string soname;            // the name that loaded: "libamd_comgr.so.2"
  std::string version;           // "2.4", from amd_comgr_get_version
  std::vector<std::string> isas; // "amdgcn-amd-amdhsa--gfx1030", from the ISA probe

  decltype(&amd_comgr_get_version) get_version = nullptr;
  decltype(&amd_comgr_get_isa_count) get_isa_count = nullptr;
  decltype(&amd_comgr_get_isa_name) get_isa_name = nullptr;
  decltype(&amd_comgr_status_string) status_string = nullptr;
  decltype(&amd_comgr_create_data) create_data = nullptr;
  decltype(&amd_comgr_release_data) release_data = nullptr;
  decltype(&amd_comgr_set_data) set_data = nullptr;
  decltype(&amd_comgr_set_data_name) set_data_name = nullptr;
  decltype(&amd_comgr_get_data) get_data = nullptr;
  decltype(&amd_comgr_create_data_set) create_data_set = nullptr;
  decltype(&amd_comgr_destroy_data_set) destroy_data_set = nullptr;
  decltype(&amd_comgr_data_set_add) data_set_add = nullptr;
  decltype(&amd_comgr_action_data_count) action_data_count = nullptr;
  decltype(&amd_comgr_action_data_get_data) action_data_get_data = nullptr;
  decltype(&amd_comgr_create_action_info) create_action_info = nullptr;
  decltype(&amd_comgr_destroy_action_info) destroy_action_info = nullptr;
  decltype(&amd_comgr_action_info_set_isa_name) action_info_set_isa_name = nullptr;
  decltype(&amd_comgr_action_info_set_language) action_info_set_language = nullptr;
  decltype(&amd_comgr_action_info_set_option_list) action_info_set_option_list = nullptr;
  decltype(&amd_comgr_action_info_set_logging) action_info_set_logging = nullptr;
  decltype(&amd_comgr_do_action) do_action = nullptr;
};

// The first of `sonames` that loads with every function, its version and ISAs probed. not_found
// names each library tried and why it did not do.
[[nodiscard]] Expected<std::unique_ptr<ComgrLibrary>>
load_comgr_library(const std::vector<std::string>& sonames);

} // namespace d4r::compiler
