#include "cli/warm_inputs.hpp"

#include "cli/code_object_file.hpp"
#include "compiler/ptx/container.hpp"
#include "util/kernel_identity.hpp"

#include <algorithm>
#include <set>

namespace d4r::cli {

namespace {

namespace ptx = ::d4r::compiler::ptx;

ptx::ContainerLimits limits_of(const WarmCommand& cmd)
{
  ptx::ContainerLimits limits;
  if (cmd.max_decompressed) {
    limits.max_total_bytes = *cmd.max_decompressed;
    limits.max_entry_bytes = std::min(limits.max_entry_bytes, *cmd.max_decompressed);
  }
  return limits;
}

// Visits the modules of one file; `on_skipped` counts the entries that are not PTX.
Expected<void> visit_file(const WarmCommand& cmd, const WarmFile& file,
                          const std::function<Expected<void>(ptx::PtxModule&&)>& on_module,
                          int64_t* skipped)
{
  Expected<std::string> bytes = read_whole_file(file.path);
  if (!bytes) {
    return make_error(bytes.error().code, file.path + ": " + bytes.error().message);
  }
  ptx::ContainerVisitor visitor{on_module, [skipped](const ptx::FatbinEntry&) {
                                  if (skipped != nullptr) {
                                    ++*skipped;
                                  }
                                }};
  Expected<void> read = ptx::visit_ptx_modules(
      {reinterpret_cast<const std::byte*>(bytes->data()), bytes->size()}, visitor, limits_of(cmd));
  if (!read) {
    std::string hint = read.error().code == ErrorCode::resource_exhausted
                           ? " (--max-decompressed SIZE raises the limit)"
                           : "";
    return make_error(read.error().code, file.path + ": " + read.error().message + hint);
  }
  return {};
}

} // namespace

namespace ptx = ::d4r::compiler::ptx;

bool origin_authorises(WarmOrigin origin, std::string_view name)
{
  // kernel_manifest.py's split: cuda_dldn_engine_* names take hashes only from the RR DLL, every
  // other name only from the SR DLLs (so SR's dl4rt_input_kernel cannot authorise RR's).
  return is_ray_reconstruction_kernel(name) == (origin == WarmOrigin::ray_reconstruction);
}

Expected<WarmInputs> read_warm_inputs(const WarmCommand& cmd)
{
  WarmInputs inputs;
  std::map<uint64_t, size_t> index; // hash -> position in inputs.modules
  for (const WarmFile& file : cmd.files) {
    ++inputs.files;
    TRY(visit_file(
        cmd, file,
        [&](ptx::PtxModule&& module) -> Expected<void> {
          auto [it, inserted] = index.try_emplace(module.fnv1a64, inputs.modules.size());
          if (inserted) {
            inputs.modules.push_back(
                WarmModuleInput{module.fnv1a64, module.sha256, {}, 0, module.size, file.path});
          }
          WarmModuleInput& known = inputs.modules[it->second];
          for (const std::string& entry : module.entries) {
            if (!origin_authorises(file.origin, entry)) {
              ++known.split_out;
            } else if (std::find(known.entries.begin(), known.entries.end(), entry) ==
                       known.entries.end()) {
              known.entries.push_back(entry);
            }
          }
          return {};
        },
        &inputs.skipped_entries));
  }
  return inputs;
}

Expected<void>
for_each_wanted_module(const WarmCommand& cmd, const std::vector<uint64_t>& wanted,
                       const std::function<Expected<void>(const WarmModuleInput&, std::string_view)>& put)
{
  std::set<uint64_t> left(wanted.begin(), wanted.end());
  for (const WarmFile& file : cmd.files) {
    if (left.empty()) {
      break;
    }
    TRY(visit_file(
        cmd, file,
        [&](ptx::PtxModule&& module) -> Expected<void> {
          if (left.erase(module.fnv1a64) == 0) {
            return {};
          }
          WarmModuleInput identity{module.fnv1a64, module.sha256, module.entries, 0, module.size,
                                   file.path};
          return put(identity, module.text);
        },
        nullptr));
  }
  return {};
}

} // namespace d4r::cli
