// ptxgen-gpu: runs generated programs on an NVIDIA GPU (CUDA driver API), the reference side of
// the differential test (tests/random/README.md). Not part of the CMake build (CI has no GPU);
// run_gpu.sh builds it on the GPU machine with g++ and -lcuda.
//
//   ptxgen-gpu --first N --count N --out RESULTS [--min-ops N --max-ops N] [--version N]
//
// Generates the programs of the seed range (the same generator the host checker links), loads
// them as ONE module with cuModuleLoadDataEx (if that fails, each program alone, so that one bad
// program costs only itself), launches each twice on one block of 32 threads with its inputs and
// a zeroed output buffer, and writes every output to RESULTS (results.hpp). Two launches that
// write different bytes make the record "nondeterministic". A failed launch spoils the context:
// the remaining programs are recorded as launch_failed and the exit status is 1.

#include "tests/random/ptxgen.hpp"
#include "tests/random/results.hpp"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace d4r::ptxgen;

std::string cuda_error(CUresult result, const char* what)
{
  const char* name = nullptr;
  cuGetErrorName(result, &name);
  return std::string(what) + ": " + (name != nullptr ? name : "?");
}

bool load_module(const std::string& ptx, CUmodule* module, std::string* log)
{
  static char error_log[65536];
  error_log[0] = 0;
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(sizeof(error_log))};
  const CUresult result = cuModuleLoadDataEx(module, ptx.c_str(), 2, options, values);
  if (result != CUDA_SUCCESS) {
    *log = cuda_error(result, "cuModuleLoadDataEx") + "\n" + error_log;
    return false;
  }
  return true;
}

// One launch: inputs in, zeroed outputs, 1 block of the program's threads; false if the launch
// failed. A kernel with .reqnctapercluster is launched in clusters by the driver itself.
bool launch(CUfunction function, const Program& program, std::vector<unsigned char>& output, std::string* log)
{
  const size_t in_bytes = program.inputs.size() * 8;
  const size_t out_bytes = static_cast<size_t>(output_bytes(program));
  CUdeviceptr in = 0, out = 0;
  CUresult result = cuMemAlloc(&in, in_bytes);
  if (result == CUDA_SUCCESS) {
    result = cuMemAlloc(&out, out_bytes);
  }
  if (result == CUDA_SUCCESS) {
    result = cuMemcpyHtoD(in, program.inputs.data(), in_bytes);
  }
  if (result == CUDA_SUCCESS) {
    result = cuMemsetD8(out, 0, out_bytes);
  }
  void* params[] = {&in, &out};
  if (result == CUDA_SUCCESS) {
    result = cuLaunchKernel(function, 1, 1, 1, static_cast<unsigned>(program.threads), 1, 1, 0, nullptr, params, nullptr);
  }
  if (result == CUDA_SUCCESS) {
    result = cuCtxSynchronize();
  }
  output.assign(out_bytes, 0);
  if (result == CUDA_SUCCESS) {
    result = cuMemcpyDtoH(output.data(), out, out_bytes);
  }
  cuMemFree(in);
  cuMemFree(out);
  if (result != CUDA_SUCCESS) {
    *log = cuda_error(result, "launch");
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char** argv)
{
  uint64_t first = 1;
  int64_t count = 1;
  std::string out_path;
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--first") {
      first = std::strtoull(argv[i + 1], nullptr, 0);
    } else if (arg == "--count") {
      count = std::strtoll(argv[i + 1], nullptr, 0);
    } else if (arg == "--out") {
      out_path = argv[i + 1];
    } else if (arg == "--min-ops") {
      options.min_ops = std::atoi(argv[i + 1]);
    } else if (arg == "--max-ops") {
      options.max_ops = std::atoi(argv[i + 1]);
    } else if (arg == "--version") {
      options.version = std::atoi(argv[i + 1]);
    }
  }
  if (out_path.empty()) {
    std::fprintf(stderr, "usage: ptxgen-gpu --first N --count N --out RESULTS [--min-ops N --max-ops N]\n");
    return 2;
  }
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUresult result = cuInit(0);
  if (result == CUDA_SUCCESS) {
    result = cuDeviceGet(&device, 0);
  }
  if (result == CUDA_SUCCESS) {
    result = cuDevicePrimaryCtxRetain(&context, device);
  }
  if (result == CUDA_SUCCESS) {
    result = cuCtxSetCurrent(context);
  }
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "ptxgen-gpu: %s\n", cuda_error(result, "cuInit/context").c_str());
    return 1;
  }
  std::vector<Program> programs;
  for (int64_t i = 0; i < count; ++i) {
    programs.push_back(generate(first + static_cast<uint64_t>(i), options));
  }
  std::string log;
  CUmodule whole = nullptr;
  const bool whole_loaded = load_module(module_text(programs), &whole, &log);
  if (!whole_loaded) {
    std::fprintf(stderr, "ptxgen-gpu: the module of seeds %llu+%lld did not load, loading one by one\n%s\n",
                 static_cast<unsigned long long>(first), static_cast<long long>(count), log.c_str());
  }
  std::vector<RunRecord> records;
  bool spoiled = false;
  int64_t failures = 0;
  for (const Program& program : programs) {
    RunRecord record;
    record.seed = program.seed;
    record.slots = static_cast<uint32_t>(program.slots.size());
    record.threads = static_cast<uint32_t>(program.threads);
    CUmodule module = whole;
    if (!whole_loaded && !load_module(module_text(std::span<const Program>(&program, 1)), &module, &log)) {
      std::fprintf(stderr, "%s: %s\n", program.name.c_str(), log.c_str());
      record.status = RunStatus::load_failed;
      records.push_back(std::move(record));
      ++failures;
      continue;
    }
    CUfunction function = nullptr;
    std::vector<unsigned char> again;
    if (spoiled || cuModuleGetFunction(&function, module, program.name.c_str()) != CUDA_SUCCESS ||
        !launch(function, program, record.output, &log) || !launch(function, program, again, &log)) {
      if (!spoiled) {
        std::fprintf(stderr, "%s: %s\n", program.name.c_str(), log.c_str());
      }
      spoiled = true;
      record.status = RunStatus::launch_failed;
      record.output.clear();
      ++failures;
    } else if (again != record.output) {
      std::fprintf(stderr, "%s: nondeterministic\n", program.name.c_str());
      record.status = RunStatus::nondeterministic;
      record.output.clear();
      ++failures;
    } else {
      record.digest = fnv1a64(record.output);
    }
    if (!whole_loaded) {
      cuModuleUnload(module);
    }
    records.push_back(std::move(record));
  }
  if (!write_results(out_path, options.version, records)) {
    std::fprintf(stderr, "ptxgen-gpu: cannot write %s\n", out_path.c_str());
    return 1;
  }
  std::printf("ptxgen-gpu: seeds %llu..%llu: %lld programs, %lld failed\n", static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(first + static_cast<uint64_t>(count) - 1), static_cast<long long>(count),
              static_cast<long long>(failures));
  cuDevicePrimaryCtxRelease(device);
  return spoiled ? 1 : 0;
}
