#include "compiler/backends/clang_driver.hpp"

#include "compiler/backends/backend_support.hpp"
#include "compiler/backends/subprocess.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unistd.h>

namespace d4r::compiler {

namespace {

std::string query_version_line(const std::filesystem::path& clang)
{
  std::string unavailable = "clang unavailable (" + clang.string() + ")";
  char pattern[] = "/tmp/d4r-clang-version-XXXXXX";
  int fd = ::mkstemp(pattern);
  if (fd < 0) {
    return unavailable;
  }
  ::close(fd);
  Expected<ProcessResult> result = run_process({clang.string(), "--version"}, pattern);
  ::unlink(pattern);
  if (!result || result->signal != 0 || result->exit_code != 0) {
    return unavailable;
  }
  std::string_view output = result->output;
  return std::string(output.substr(0, output.find('\n')));
}

} // namespace

std::string clang_version_line(const std::filesystem::path& clang)
{
  static std::mutex mutex;
  static std::map<std::filesystem::path, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = versions.find(clang);
  if (found != versions.end()) {
    return found->second;
  }
  std::string line = query_version_line(clang);
  versions.emplace(clang, line);
  return line;
}

std::filesystem::path find_clang(const BackendOptions& options)
{
  if (options.clang != std::filesystem::path(std::string(k_default_clang))) {
    return options.clang;
  }
  std::vector<std::filesystem::path> candidates;
  if (const char* rocm = std::getenv("ROCM_PATH"); rocm != nullptr && *rocm != '\0') {
    candidates.push_back(std::filesystem::path(rocm) / "llvm/bin/clang++");
  }
  candidates.emplace_back("/opt/rocm/llvm/bin/clang++");
  for (const std::filesystem::path& candidate : candidates) {
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return options.clang;
}

std::vector<std::string> hip_device_command(const std::filesystem::path& clang,
                                            const CompileJob& job)
{
  // -fuse-cuid=none: clang names a __hip_cuid_<hash> symbol after the source's path, and every
  // build has its own work folder, so the same inputs gave different bytes (a device-only build
  // has no host code that would look the unit up by it).
  std::vector<std::string> argv = {
      clang.string(),          "-x",        "hip",      "--offload-arch=" + job.target,
      "--offload-device-only", "-nogpulib", "-nogpuinc", "-fuse-cuid=none"};
  if (!has_optimisation_flag(job.flags)) {
    argv.emplace_back("-O3");
  }
  argv.insert(argv.end(), job.flags.begin(), job.flags.end());
  if (job.wave64) {
    argv.emplace_back("-mwavefrontsize64");
  }
  return argv;
}

Expected<std::string> run_clang(std::string_view backend, const CompileJob& job,
                                const std::vector<std::string>& argv)
{
  Expected<ProcessResult> result = run_process(argv, job.work_dir / "clang.log");
  if (!result) {
    return make_error(result.error().code, job_label(backend, job) + ": " + result.error().message);
  }
  if (result->signal != 0) {
    return make_error(ErrorCode::rejected, job_label(backend, job) + ": clang died of signal " +
                                               std::to_string(result->signal) + " (" +
                                               strsignal(result->signal) + "):\n" +
                                               compiler_summary(result->output, k_error_lines));
  }
  if (result->exit_code != 0) {
    return make_error(ErrorCode::rejected, job_label(backend, job) + ": clang failed (exit " +
                                               std::to_string(result->exit_code) + "):\n" +
                                               compiler_summary(result->output, k_error_lines));
  }
  return std::move(result->output);
}

} // namespace d4r::compiler
