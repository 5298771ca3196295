// d4r-kernel-worker JOB_FILE: one compile in a process of its own, so that an LLVM abort ("Cannot
// select"), a hang or a runaway allocation costs this process and never the daemon. The daemon
// (daemon/worker_runner.cpp) writes the job file, sets the CPU, memory and wall limits, and reads
// the exit code (compiler/worker/job_file.hpp, WorkerExit) and stderr.
//
// d4r-kernel-worker --toolchains [--backend NAME] [--clang PATH]: prints which backend builds each
// known target and its fingerprint (compiler/worker/toolchains.hpp), so that the daemon need not
// load LLVM or comgr to know its cache keys.

#include "compiler/backends/backend_factory.hpp"
#include "compiler/worker/job_file.hpp"
#include "compiler/worker/toolchains.hpp"
#include "compiler/worker/worker_sandbox.hpp"
#include "util/kernel_identity.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

using d4r::compiler::WorkerExit;
using d4r::compiler::WorkerJob;

int exit_code(WorkerExit code)
{
  return static_cast<int>(code);
}

void print_error(const std::string& message)
{
  std::fprintf(stderr, "d4r-kernel-worker: %s\n", message.c_str());
}

bool faults_enabled()
{
  const char* value = std::getenv(std::string(d4r::compiler::k_worker_faults_env).c_str());
  return value != nullptr && std::strcmp(value, "1") == 0;
}

[[noreturn]] void busy_loop()
{
  volatile uint64_t counter = 0;
  while (true) {
    counter = counter + 1;
  }
}

// A child in the same process group sleeps too, so that the test sees the whole group killed.
[[noreturn]] void sleep_forever()
{
  (void)fork();
  while (true) {
    pause();
  }
}

// Allocates and touches memory until an allocation fails; main catches the std::bad_alloc.
[[noreturn]] void exhaust_memory()
{
  constexpr size_t k_chunk = size_t{16} << 20;
  std::vector<std::unique_ptr<char[]>> chunks;
  while (true) {
    chunks.push_back(std::make_unique_for_overwrite<char[]>(k_chunk));
    std::memset(chunks.back().get(), 0x5a, k_chunk);
  }
}

// Test-only faults (job_file.hpp): never returns when a fault is set.
void inject_fault(const std::string& fault)
{
  if (fault == "crash") {
    std::abort();
  }
  if (fault == "hang") {
    busy_loop();
  }
  if (fault == "sleep") {
    sleep_forever();
  }
  if (fault == "memory") {
    exhaust_memory();
  }
}

// Temporary file then rename: a reader never sees half an object.
bool write_output(const std::filesystem::path& output, const std::vector<std::byte>& bytes)
{
  std::filesystem::path temporary = output;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      print_error("output " + temporary.string() + ": write failed");
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, output, error);
  if (error) {
    print_error("output " + output.string() + ": " + error.message());
    return false;
  }
  return true;
}

int compile(const WorkerJob& job)
{
  d4r::compiler::BackendOptions options;
  if (!job.clang.empty()) {
    options.clang = job.clang;
  }
  d4r::Expected<std::unique_ptr<d4r::compiler::Backend>> backend =
      d4r::compiler::make_backend(job.backend, options);
  if (!backend) {
    print_error(backend.error().message); // names the backend
    return exit_code(WorkerExit::backend_unavailable);
  }
  if (!(*backend)->supports(job.compile.target)) {
    print_error("backend " + job.backend + " does not support " + job.compile.target);
    return exit_code(WorkerExit::compile_error);
  }
  d4r::Expected<d4r::compiler::CompileOutput> output = (*backend)->compile(job.compile);
  if (!output) {
    print_error(job.compile.source.string() + " for " + job.compile.target + ": " +
                output.error().message);
    // A file the compile could not write (a full disk) is no verdict on the source.
    return exit_code(output.error().code == d4r::ErrorCode::io ? WorkerExit::io_error
                                                                : WorkerExit::compile_error);
  }
  if (!output->log.empty()) {
    std::fprintf(stderr, "%s\n", output->log.c_str());
  }
  if (!write_output(job.output, output->code_object)) {
    return exit_code(WorkerExit::io_error);
  }
  return exit_code(WorkerExit::ok);
}

// Each backend is made once (comgr's ISA probe and clang --version cost tens of milliseconds); a
// target gets comgr where comgr knows its ISA, else llvm, unless a backend is named.
int print_toolchains(const std::string& named_backend, const std::string& clang)
{
  d4r::compiler::BackendOptions options;
  if (!clang.empty()) {
    options.clang = clang;
  }
  std::map<std::string, std::string> fingerprint_of_backend;
  auto fingerprint = [&](const std::string& name) {
    auto [it, inserted] = fingerprint_of_backend.try_emplace(name);
    if (inserted) {
      d4r::Expected<std::unique_ptr<d4r::compiler::Backend>> backend =
          d4r::compiler::make_backend(name, options);
      it->second = backend ? (*backend)->fingerprint() : "unavailable:" + name;
    }
    return it->second;
  };
  d4r::Expected<std::unique_ptr<d4r::compiler::Backend>> comgr =
      named_backend.empty() ? d4r::compiler::make_comgr_backend(options)
                            : d4r::make_error(d4r::ErrorCode::not_found, "a backend was named");
  std::vector<d4r::compiler::TargetToolchain> toolchains;
  for (std::string_view target : d4r::k_known_targets) {
    std::string name = named_backend;
    if (name.empty()) {
      name = comgr && (*comgr)->supports(target) ? "comgr" : "llvm";
    }
    toolchains.push_back({std::string(target), name, fingerprint(name)});
  }
  std::string text = d4r::compiler::format_toolchains(toolchains);
  bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  return std::fflush(stdout) == 0 && written ? exit_code(WorkerExit::ok)
                                             : exit_code(WorkerExit::io_error);
}

int run_toolchains(int argc, char** argv)
{
  std::string backend;
  std::string clang;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--backend") {
      backend = argv[i + 1];
    } else if (flag == "--clang") {
      clang = argv[i + 1];
    } else {
      print_error("--toolchains: unknown option " + flag);
      return exit_code(WorkerExit::bad_job);
    }
  }
  if (argc % 2 != 0) {
    print_error("--toolchains: an option without its value");
    return exit_code(WorkerExit::bad_job);
  }
  return print_toolchains(backend, clang);
}

int run(int argc, char** argv)
{
  if (argc >= 2 && argv[1] == d4r::compiler::k_toolchains_flag) {
    return run_toolchains(argc, argv);
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: d4r-kernel-worker JOB_FILE\n");
    return exit_code(WorkerExit::bad_job);
  }
  d4r::Expected<WorkerJob> job = d4r::compiler::read_worker_job(argv[1]);
  if (!job) {
    print_error(job.error().message);
    return exit_code(WorkerExit::bad_job);
  }
  // Before any input is parsed (compiler/worker/worker_sandbox.hpp).
  if (d4r::Expected<void> confined = d4r::compiler::confine_in_process_job(*job); !confined) {
    print_error(confined.error().message);
    return exit_code(WorkerExit::bad_job);
  }
  if (!job->fault.empty()) {
    if (!faults_enabled()) {
      print_error("job file " + std::string(argv[1]) + ": fault injection is disabled");
      return exit_code(WorkerExit::bad_job);
    }
    if (std::optional<int> code = d4r::compiler::run_sandbox_fault(*job)) {
      return *code;
    }
    inject_fault(job->fault);
  }
  return compile(*job);
}

} // namespace

int main(int argc, char** argv)
{
  // Under RLIMIT_AS an allocation fails rather than the kernel's OOM killer striking: say so in
  // words the runner looks for (k_worker_oom_marker) and leave with a code of its own.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s\n", std::string(d4r::compiler::k_worker_oom_marker).c_str());
    return exit_code(WorkerExit::out_of_memory);
  }
}
