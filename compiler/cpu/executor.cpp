#include "compiler/cpu/executor.hpp"
// Executor::create JIT-compiles a host translation with ORC's LLJIT: the d4r_rt_* runtime of
// translate/host_abi.hpp is defined as absolute symbols in the main JITDylib and the process's own
// symbols (libm, libc) resolve the rest. launch() checks the shape and parameters, then spreads
// the grid's blocks over OS threads; each block runs as fibers under SimtBlock's scheduler.

#include "compiler/cpu/simt_block.hpp"
#include "compiler/translate/host_abi.hpp"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace d4r::compiler::cpu {
namespace {

// The float mode of a kernel that runs with f32 denormals flushed (KernelSignature::
// flushes_f32_denormals), on the calling thread while it runs the kernel's blocks: MXCSR's
// flush-to-zero and denormals-are-zero bits, as an AMDGPU kernel descriptor's FLOAT_DENORM_MODE_32
// = 0 flushes. The fibers a block makes start with the thread's MXCSR (fiber.cpp).
class FlushedDenormals {
public:
  explicit FlushedDenormals(bool flush)
  {
#if defined(__x86_64__)
    if (flush) {
      m_saved = _mm_getcsr();
      _mm_setcsr(m_saved | k_flush_to_zero | k_denormals_are_zero);
      m_set = true;
    }
#else
    (void)flush;
#endif
  }
  ~FlushedDenormals()
  {
#if defined(__x86_64__)
    if (m_set) {
      _mm_setcsr(m_saved);
    }
#endif
  }
  FlushedDenormals(const FlushedDenormals&) = delete;
  FlushedDenormals& operator=(const FlushedDenormals&) = delete;

private:
  static constexpr unsigned k_flush_to_zero = 0x8000;
  static constexpr unsigned k_denormals_are_zero = 0x0040;
  unsigned m_saved = 0;
  bool m_set = false;
};

constexpr int64_t k_max_block_threads = 1024;
constexpr int64_t k_max_shared_bytes = 64 * 1024;
constexpr int64_t k_min_stack_bytes = 16 * 1024;

struct Kernel {
  translate::KernelSignature signature;
  KernelFunction function = nullptr;
};

// A module variable the host may write (translator: externally initialised, defined here).
struct GlobalVariable {
  std::string name;
  int64_t size = 0;
  std::byte* address = nullptr;
};

// The runtime entry points the IR may call, by name.
struct RuntimeSymbol {
  const char* name;
  void* address;
};

const std::vector<RuntimeSymbol>& runtime_symbols()
{
  static const std::vector<RuntimeSymbol> symbols = {
      {"d4r_rt_barrier", reinterpret_cast<void*>(&d4r_rt_barrier)},
      {"d4r_rt_barrier_reduce", reinterpret_cast<void*>(&d4r_rt_barrier_reduce)},
      {"d4r_rt_barrier_arrive", reinterpret_cast<void*>(&d4r_rt_barrier_arrive)},
      {"d4r_rt_warp_exchange", reinterpret_cast<void*>(&d4r_rt_warp_exchange)},
      {"d4r_rt_warp_ballot", reinterpret_cast<void*>(&d4r_rt_warp_ballot)},
      {"d4r_rt_warp_sync", reinterpret_cast<void*>(&d4r_rt_warp_sync)},
      {"d4r_rt_warp_gather", reinterpret_cast<void*>(&d4r_rt_warp_gather)},
      {"d4r_rt_tex_2d_f32", reinterpret_cast<void*>(&d4r_rt_tex_2d_f32)},
      {"d4r_rt_tex_a2d_f32", reinterpret_cast<void*>(&d4r_rt_tex_a2d_f32)},
      {"d4r_rt_tex_int", reinterpret_cast<void*>(&d4r_rt_tex_int)},
      {"d4r_rt_sust_b_2d", reinterpret_cast<void*>(&d4r_rt_sust_b_2d)},
      {"d4r_rt_sust_p_2d", reinterpret_cast<void*>(&d4r_rt_sust_p_2d)},
      {"d4r_rt_suld_b_2d", reinterpret_cast<void*>(&d4r_rt_suld_b_2d)},
      {"d4r_rt_tex", reinterpret_cast<void*>(&d4r_rt_tex)},
      {"d4r_rt_image_query", reinterpret_cast<void*>(&d4r_rt_image_query)},
      {"d4r_rt_suld_b", reinterpret_cast<void*>(&d4r_rt_suld_b)},
      {"d4r_rt_sust_b", reinterpret_cast<void*>(&d4r_rt_sust_b)},
      {"d4r_rt_sust_p", reinterpret_cast<void*>(&d4r_rt_sust_p)},
      {"d4r_rt_sured", reinterpret_cast<void*>(&d4r_rt_sured)},
      {"d4r_rt_yield", reinterpret_cast<void*>(&d4r_rt_yield)},
      {"d4r_rt_trap", reinterpret_cast<void*>(&d4r_rt_trap)},
      {"d4r_rt_is_local", reinterpret_cast<void*>(&d4r_rt_is_local)},
  };
  return symbols;
}

std::string to_message(llvm::Error error)
{
  return llvm::toString(std::move(error));
}

void initialise_native_target()
{
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::string shape_text(const std::array<uint32_t, 3>& xyz)
{
  return std::to_string(xyz[0]) + "x" + std::to_string(xyz[1]) + "x" + std::to_string(xyz[2]);
}

// One OS thread's reusable state: its fiber stacks and block scheduler.
struct Worker {
  explicit Worker(int64_t stack_bytes) : block(stack_bytes) {}
  SimtBlock block;
  BlockCounters counters;
};

class JitExecutor final : public Executor {
public:
  JitExecutor(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<Kernel> kernels,
              std::vector<GlobalVariable> globals, const ExecutorOptions& options)
      : m_jit(std::move(jit)), m_kernels(std::move(kernels)), m_globals(std::move(globals)),
        m_options(options)
  {
  }

  Expected<LaunchStats> launch(std::string_view kernel, const LaunchShape& shape,
                               std::span<const std::byte> params) override;
  const translate::KernelSignature* signature(std::string_view kernel) const override;
  Expected<std::span<std::byte>> global(std::string_view name) const override;

private:
  const Kernel* find(std::string_view name) const;
  Expected<void> check(const Kernel& kernel, const LaunchShape& shape,
                       std::span<const std::byte> params) const;
  Expected<void> run_grid(const Kernel& kernel, const LaunchShape& shape, const uint8_t* params,
                          uint32_t shared_bytes, LaunchStats& stats);

  std::unique_ptr<llvm::orc::LLJIT> m_jit;
  std::vector<Kernel> m_kernels;
  std::vector<GlobalVariable> m_globals;
  ExecutorOptions m_options;
  std::mutex m_launch_mutex; // one launch at a time: workers are reused
  std::vector<std::unique_ptr<Worker>> m_workers;
};

const Kernel* JitExecutor::find(std::string_view name) const
{
  for (const Kernel& k : m_kernels) {
    if (k.signature.name == name) {
      return &k;
    }
  }
  return nullptr;
}

const translate::KernelSignature* JitExecutor::signature(std::string_view kernel) const
{
  const Kernel* k = find(kernel);
  return k != nullptr ? &k->signature : nullptr;
}

Expected<std::span<std::byte>> JitExecutor::global(std::string_view name) const
{
  for (const GlobalVariable& variable : m_globals) {
    if (variable.name == name) {
      return std::span<std::byte>(variable.address, static_cast<size_t>(variable.size));
    }
  }
  return make_error(ErrorCode::not_found,
                    "executor: no module variable " + std::string(name) + " in the translation");
}

Expected<void> JitExecutor::check(const Kernel& kernel, const LaunchShape& shape,
                                  std::span<const std::byte> params) const
{
  const std::string prefix = "executor: kernel " + kernel.signature.name + ": ";
  if (static_cast<int64_t>(params.size()) != kernel.signature.param_bytes) {
    return make_error(ErrorCode::invalid_argument,
                      prefix + "params are " + std::to_string(params.size()) +
                          " bytes, the kernel takes " +
                          std::to_string(kernel.signature.param_bytes));
  }
  const int64_t block_threads = int64_t{shape.block[0]} * shape.block[1] * shape.block[2];
  const int64_t blocks = int64_t{shape.grid[0]} * shape.grid[1] * shape.grid[2];
  if (block_threads == 0 || blocks == 0) {
    return make_error(ErrorCode::invalid_argument, prefix + "empty launch: grid " +
                                                       shape_text(shape.grid) + ", block " +
                                                       shape_text(shape.block));
  }
  if (block_threads > k_max_block_threads || shape.block[2] > 64) {
    return make_error(ErrorCode::invalid_argument,
                      prefix + "block " + shape_text(shape.block) + " exceeds 1024 threads (z <= 64)");
  }
  const int64_t shared = kernel.signature.static_shared_bytes + shape.dynamic_shared_bytes;
  if (shared > k_max_shared_bytes) {
    return make_error(ErrorCode::resource_exhausted,
                      prefix + "shared memory " + std::to_string(shared) + " bytes (" +
                          std::to_string(kernel.signature.static_shared_bytes) + " static + " +
                          std::to_string(shape.dynamic_shared_bytes) +
                          " dynamic) exceeds 65536");
  }
  return {};
}

Expected<LaunchStats> JitExecutor::launch(std::string_view kernel, const LaunchShape& shape,
                                          std::span<const std::byte> params)
{
  const Kernel* k = find(kernel);
  if (k == nullptr) {
    return make_error(ErrorCode::not_found,
                      "executor: kernel " + std::string(kernel) + ": not in the translation");
  }
  TRY(check(*k, shape, params));
  const auto start = std::chrono::steady_clock::now();
  // An aligned copy: the IR loads .u64 params at their natural alignment.
  std::vector<uint64_t> param_copy((params.size() + 7) / 8 + 1, 0);
  if (!params.empty()) {
    std::memcpy(param_copy.data(), params.data(), params.size());
  }
  const auto shared = static_cast<uint32_t>(k->signature.static_shared_bytes + shape.dynamic_shared_bytes);
  LaunchStats stats;
  std::lock_guard<std::mutex> lock(m_launch_mutex);
  TRY(run_grid(*k, shape, reinterpret_cast<const uint8_t*>(param_copy.data()), shared, stats));
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

Expected<void> JitExecutor::run_grid(const Kernel& kernel, const LaunchShape& shape,
                                     const uint8_t* params, uint32_t shared_bytes,
                                     LaunchStats& stats)
{
  const int64_t blocks = int64_t{shape.grid[0]} * shape.grid[1] * shape.grid[2];
  int64_t threads = m_options.threads > 0 ? m_options.threads
                                          : std::max<int64_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, blocks);
  while (static_cast<int64_t>(m_workers.size()) < threads) {
    m_workers.push_back(
        std::make_unique<Worker>(std::max(m_options.fiber_stack_bytes, k_min_stack_bytes)));
  }
  // Blocks are claimed in increasing order; the error reported is that of the lowest failing
  // block, which does not depend on timing (every lower block was claimed and ran to its end).
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  int64_t error_block = std::numeric_limits<int64_t>::max();
  Error error;
  auto work = [&](Worker& worker) {
    FlushedDenormals mode(kernel.signature.flushes_f32_denormals);
    for (;;) {
      const int64_t b = next.fetch_add(1);
      if (b >= blocks || failed.load()) {
        return;
      }
      const std::array<uint32_t, 3> ctaid = {
          static_cast<uint32_t>(b % shape.grid[0]),
          static_cast<uint32_t>(b / shape.grid[0] % shape.grid[1]),
          static_cast<uint32_t>(b / (int64_t{shape.grid[0]} * shape.grid[1]))};
      Expected<void> result =
          worker.block.run(kernel.function, params, shape, shared_bytes, ctaid, worker.counters);
      if (!result) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (b < error_block) {
          error_block = b;
          error = result.error();
        }
        failed.store(true);
      }
    }
  };
  for (int64_t i = 0; i < threads; ++i) {
    m_workers[static_cast<size_t>(i)]->counters = BlockCounters{};
  }
  {
    std::vector<std::jthread> helpers;
    for (int64_t i = 1; i < threads; ++i) {
      helpers.emplace_back(work, std::ref(*m_workers[static_cast<size_t>(i)]));
    }
    work(*m_workers[0]);
  }
  for (int64_t i = 0; i < threads; ++i) {
    stats.threads_run += m_workers[static_cast<size_t>(i)]->counters.threads_run;
    stats.fiber_switches += m_workers[static_cast<size_t>(i)]->counters.fiber_switches;
  }
  if (failed.load()) {
    error.message = "executor: kernel " + kernel.signature.name + ": " + error.message;
    return std::unexpected(std::move(error));
  }
  return {};
}

Expected<void> check_module(const translate::Translation& translation)
{
  if (!translation.context || !translation.module) {
    return make_error(ErrorCode::invalid_argument, "executor: the translation has no module");
  }
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*translation.module, &stream)) {
    stream.flush();
    return make_error(ErrorCode::invalid_argument,
                      "executor: module " + translation.module->getModuleIdentifier() +
                          " does not verify: " + problems);
  }
  for (const translate::KernelSignature& k : translation.kernels) {
    const llvm::Function* f = translation.module->getFunction(k.name);
    if (f == nullptr || f->isDeclaration()) {
      return make_error(ErrorCode::invalid_argument,
                        "executor: kernel " + k.name + ": no definition in the module");
    }
  }
  return {};
}

Expected<void> define_runtime(llvm::orc::LLJIT& jit)
{
  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& s : runtime_symbols()) {
    symbols[jit.mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                            llvm::JITSymbolFlags::Exported |
                                                llvm::JITSymbolFlags::Callable};
  }
  llvm::orc::JITDylib& main = jit.getMainJITDylib();
  if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    return make_error(ErrorCode::internal, "executor: runtime symbols: " + to_message(std::move(e)));
  }
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.getDataLayout().getGlobalPrefix());
  if (!generator) {
    return make_error(ErrorCode::internal,
                      "executor: process symbols: " + to_message(generator.takeError()));
  }
  main.addGenerator(std::move(*generator));
  return {};
}

// The host-writable module variables (the translator marks them externally initialised), before
// the module moves into the JIT; their addresses are looked up once it has them.
std::vector<GlobalVariable> host_variables(const llvm::Module& module)
{
  std::vector<GlobalVariable> globals;
  const llvm::DataLayout& layout = module.getDataLayout();
  for (const llvm::GlobalVariable& global : module.globals()) {
    if (global.isExternallyInitialized() && !global.isDeclaration() && global.hasName()) {
      const auto size = static_cast<int64_t>(layout.getTypeAllocSize(global.getValueType()));
      globals.push_back(GlobalVariable{global.getName().str(), size, nullptr});
    }
  }
  return globals;
}

Expected<void> locate(llvm::orc::LLJIT& jit, std::vector<GlobalVariable>& globals)
{
  for (GlobalVariable& variable : globals) {
    auto address = jit.lookup(variable.name);
    if (!address) {
      return make_error(ErrorCode::internal, "executor: module variable " + variable.name + ": " +
                                                 to_message(address.takeError()));
    }
    variable.address = address->toPtr<std::byte*>();
  }
  return {};
}

} // namespace

Expected<std::unique_ptr<Executor>> Executor::create(translate::Translation translation,
                                                    const ExecutorOptions& options)
{
  TRY(check_module(translation));
  initialise_native_target();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    return make_error(ErrorCode::internal, "executor: lljit: " + to_message(jit.takeError()));
  }
  llvm::Module& module = *translation.module;
  module.setDataLayout((*jit)->getDataLayout());
  if (module.getTargetTriple().empty()) {
    module.setTargetTriple((*jit)->getTargetTriple().str());
  }
  // ORC reports why materialisation failed (say, a missing symbol) to the session, not to the
  // lookup; keep those messages for the error.
  auto session_errors = std::make_shared<std::string>();
  (*jit)->getExecutionSession().setErrorReporter([session_errors](llvm::Error e) {
    *session_errors += (session_errors->empty() ? "" : "; ") + to_message(std::move(e));
  });
  TRY(define_runtime(**jit));
  std::vector<GlobalVariable> globals = host_variables(module);
  llvm::orc::ThreadSafeModule tsm(std::move(translation.module),
                                  llvm::orc::ThreadSafeContext(std::move(translation.context)));
  if (llvm::Error e = (*jit)->addIRModule(std::move(tsm))) {
    return make_error(ErrorCode::internal, "executor: adding the module: " + to_message(std::move(e)));
  }
  std::vector<Kernel> kernels;
  for (translate::KernelSignature& signature : translation.kernels) {
    auto address = (*jit)->lookup(signature.name);
    if (!address) {
      std::string message = to_message(address.takeError());
      if (!session_errors->empty()) {
        message = *session_errors + " (" + message + ")";
      }
      return make_error(ErrorCode::not_found, "executor: kernel " + signature.name + ": " + message);
    }
    kernels.push_back(Kernel{std::move(signature), address->toPtr<KernelFunction>()});
  }
  TRY(locate(**jit, globals));
  return std::make_unique<JitExecutor>(std::move(*jit), std::move(kernels), std::move(globals),
                                       options);
}

Expected<void> write_case_globals(const Executor& executor, const LaunchCase& launch_case)
{
  for (const GlobalSpec& spec : launch_case.globals) {
    TRY_ASSIGN(std::span<std::byte> memory, executor.global(spec.name));
    const std::vector<std::byte> data = generate_fill(spec.fill, spec.type, spec.count);
    if (data.size() > memory.size()) {
      return make_error(ErrorCode::invalid_argument,
                        "golden case " + launch_case.name + ": global " + spec.name + " is " +
                            std::to_string(memory.size()) + " bytes, the case writes " +
                            std::to_string(data.size()));
    }
    std::copy(data.begin(), data.end(), memory.begin());
  }
  return {};
}

Expected<void> write_case_texrefs(const Executor& executor, const LaunchCase& launch_case, const HostLaunch& host)
{
  for (size_t i = 0; i < launch_case.texrefs.size(); ++i) {
    TRY_ASSIGN(std::span<std::byte> memory, executor.global(launch_case.texrefs[i].name));
    const uint64_t handle = host.texref_handle(i);
    if (memory.size() != sizeof(handle)) {
      return make_error(ErrorCode::invalid_argument, "golden case " + launch_case.name + ": texref " +
                                                         launch_case.texrefs[i].name + " is " +
                                                         std::to_string(memory.size()) + " bytes, not 8");
    }
    std::memcpy(memory.data(), &handle, sizeof(handle));
  }
  return {};
}

} // namespace d4r::compiler::cpu
