// The doctor's GPU checks: /dev/kfd, the KFD topology nodes and the one the daemon picks (its own
// detection, daemon/release/gpu_detection.hpp), and the toolchains the worker reports for each
// target (the daemon's probe, daemon/toolchain_probe.hpp), comgr's included.

#include "cli/doctor_checks.hpp"

#include "daemon/release/gpu_detection.hpp"
#include "daemon/toolchain_probe.hpp"
#include "daemon/worker_runner.hpp"
#include "util/kernel_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

namespace d4r::cli::doctor {

namespace {

constexpr std::chrono::milliseconds k_probe_timeout{5000}; // each of the two probes (~0.3 s)
constexpr const char* k_known_list = "gfx1100-gfx1103, gfx1200, gfx1201";

void check_device(Context& context)
{
  const std::string device =
      context.inputs.command.kfd_device.empty() ? "/dev/kfd" : context.inputs.command.kfd_device;
  struct stat info {};
  if (::stat(device.c_str(), &info) != 0) {
    context.fail("gpu", device + ": missing",
                 "load the amdgpu driver (sudo modprobe amdgpu); in a container pass --device "
                 "/dev/kfd --device /dev/dri");
    return;
  }
  if (!S_ISCHR(info.st_mode)) {
    context.warn("gpu", device + ": not a character device", "the amdgpu driver creates /dev/kfd; "
                                                             "remove what stands in its place");
    return;
  }
  if (::access(device.c_str(), R_OK | W_OK) != 0) {
    context.fail("gpu",
                 device + ": not readable and writable by you (" + permission_text(info.st_mode) +
                     ", group " + std::to_string(info.st_gid) + ")",
                 "add yourself to its group (sudo usermod -aG render,video $USER) and log in "
                 "again");
    return;
  }
  context.ok("gpu", device + ": readable and writable");
}

std::string describe(const release::KfdNode& node)
{
  return "node " + std::to_string(node.index) + " " +
         release::arch_from_gfx_target_version(static_cast<uint32_t>(node.gfx_target_version)) +
         " (gfx_target_version " + std::to_string(node.gfx_target_version) + ", " +
         std::to_string(node.simd_count) + " SIMDs)";
}

// The nodes and the pick, then the target that is served: a running daemon's word wins.
void check_topology(Context& context)
{
  const std::filesystem::path& root = context.config.topology_root;
  std::vector<release::KfdNode> nodes = release::read_kfd_nodes(root);
  std::optional<release::KfdNode> picked = release::pick_gpu_node(nodes);
  const bool overridden = context.config.gpu_arch.has_value();
  if (!picked) {
    std::string what = "no GPU node (simd_count and gfx_target_version non-zero) in " +
                       root.string() + " (" + std::to_string(nodes.size()) + " nodes read)";
    std::string todo = "the driver sees no GPU: check `dmesg | grep -i amdgpu`";
    overridden ? context.warn("gpu", what, todo + "; D4R_GPU_ARCH names the target meanwhile")
               : context.fail("gpu", what, todo);
  } else {
    std::string listed;
    for (const release::KfdNode& node : nodes) {
      if (node.simd_count != 0 && node.gfx_target_version != 0) {
        listed += (listed.empty() ? "" : ", ") + describe(node);
      }
    }
    context.ok("gpu", "KFD GPU nodes: " + listed + "; the daemon picks node " +
                          std::to_string(picked->index));
  }
  Expected<std::string> detected = release::resolve_gpu_arch(
      context.config.gpu_arch ? std::optional<std::string_view>(*context.config.gpu_arch)
                              : std::nullopt,
      root);
  context.arch = detected ? *detected : "";
  if (overridden && picked && detected) {
    std::string found =
        release::arch_from_gfx_target_version(static_cast<uint32_t>(picked->gfx_target_version));
    if (found != *detected) {
      context.warn("gpu", "D4R_GPU_ARCH=" + *detected + " overrides the detected " + found,
                   "unset D4R_GPU_ARCH unless the detection is wrong");
    }
  }
}

void check_served_target(Context& context)
{
  if (context.status && !context.status->detected_target().empty()) {
    const std::string& served = context.status->detected_target();
    if (!context.arch.empty() && served != context.arch) {
      context.warn("gpu", "the running daemon serves " + served + ", this machine's detection gives " +
                              context.arch,
                   "restart it (systemctl --user restart d4r-kerneld.service); check D4R_GPU_ARCH in "
                   "~/.config/d4r-kerneld/env");
    }
    context.arch = served;
  }
  if (context.arch.empty()) {
    return;
  }
  if (!is_known_target(context.arch)) {
    context.warn("gpu", context.arch + ": d4r has no kernels for it (it builds for " +
                            std::string(k_known_list) + ")",
                 "ZLUDA compiles every kernel itself; nothing to do unless this is the wrong GPU");
    return;
  }
  context.ok("gpu", "target " + context.arch);
}

std::optional<std::filesystem::path> find_worker(Context& context)
{
  if (!context.config.worker.empty()) {
    return context.config.worker;
  }
  Expected<std::filesystem::path> found = daemon::find_worker_binary(context.inputs.self_executable);
  if (!found) {
    context.fail("toolchain", found.error().message,
                 "install d4r-kernel-worker beside d4r-kerneld (cmake --install), or pass "
                 "--worker PATH (to the daemon and the doctor)");
    return std::nullopt;
  }
  return *found;
}

const compiler::TargetToolchain* find_target(const std::vector<compiler::TargetToolchain>& list,
                                             std::string_view target)
{
  for (const compiler::TargetToolchain& toolchain : list) {
    if (toolchain.target == target) {
      return &toolchain;
    }
  }
  return nullptr;
}

// Whether comgr loads, and which of d4r's targets it knows: the targets the default probe gives
// to comgr (the worker picks comgr exactly where comgr reports the ISA).
void check_comgr(Context& context, const std::filesystem::path& worker,
                 const std::vector<compiler::TargetToolchain>& chosen)
{
  Expected<std::vector<compiler::TargetToolchain>> comgr =
      daemon::probe_toolchains(worker, "comgr", context.config.clang, k_probe_timeout);
  if (!comgr || comgr->empty() || comgr->front().fingerprint.starts_with("unavailable:")) {
    context.warn("toolchain", "ROCm comgr not found (libamd_comgr.so.3, libamd_comgr.so.2)",
                 "builds use LLVM 19, which is fine; install ROCm's comgr to build with it");
    return;
  }
  const std::string& version = comgr->front().fingerprint;
  if (!context.config.backend.empty()) {
    context.ok("toolchain", version + " loads; --backend " + context.config.backend +
                                " decides every target");
    return;
  }
  std::string known;
  for (const compiler::TargetToolchain& toolchain : chosen) {
    if (toolchain.backend == "comgr") {
      known += (known.empty() ? "" : ", ") + toolchain.target;
    }
  }
  if (known.empty()) {
    context.warn("toolchain", version + " loads but knows none of d4r's ISAs (" +
                                  std::string(k_known_list) + ")",
                 "builds use LLVM 19; a ROCm 6 or newer comgr knows these ISAs");
    return;
  }
  context.ok("toolchain", version + " knows " + known);
}

} // namespace

void check_gpu(Context& context)
{
  check_device(context);
  check_topology(context);
  check_served_target(context);
}

void check_toolchains(Context& context)
{
  std::optional<std::filesystem::path> worker = find_worker(context);
  if (!worker) {
    return;
  }
  Expected<std::vector<compiler::TargetToolchain>> chosen = daemon::probe_toolchains(
      *worker, context.config.backend, context.config.clang, k_probe_timeout);
  if (!chosen) {
    context.fail("toolchain", chosen.error().message,
                 "run `" + worker->string() + " --toolchains` to see why; reinstall d4r-kerneld");
    return;
  }
  const compiler::TargetToolchain* served = find_target(*chosen, context.arch);
  if (served != nullptr && served->fingerprint.starts_with("unavailable:")) {
    context.fail("toolchain", context.arch + ": backend " + served->backend + " is unavailable",
                 "install clang-19 and LLVM 19 (or ROCm), or choose another --backend");
  } else if (served != nullptr) {
    context.ok("toolchain", context.arch + " builds with " + served->backend + " (" +
                                served->fingerprint + "), worker " + worker->string());
  } else {
    context.ok("toolchain", "worker " + worker->string() + " reports " +
                                std::to_string(chosen->size()) + " targets");
  }
  check_comgr(context, *worker, *chosen);
}

} // namespace d4r::cli::doctor
