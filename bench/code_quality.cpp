// Generated-code quality of the PTX translator: the static instruction count of each translated
// corpus kernel (tests/ptx/*.ptx, tests/ptx/isa/*.ptx) against the same kernel compiled natively
// from its CUDA source as HIP by clang-19 (bench/hip/cuda_shim.h), for gfx1100 and gfx1201, and
// the geometric mean of the ratios. Both sides are one kernel per code object, built by the same
// in-process codegen and lld link (compiler/backends/llvm_codegen.hpp): the translated one by
// build_ptx_code_object (the daemon's path), the native one from clang's -O3 bitcode.
// Each row also names the cross-lane shuffles of both sides (ds_bpermute, ds_permute,
// v_permlane*: the MMA lowering's operand remaps), totalled per target, and the v_wmma of both.
// A kernel that multiplies matrices is compared only with a native twin that does so too
// (tests/ptx/wmma_twins.cuh, checked against the PTX by test_native_mma_twins). Prints figures;
// asserts nothing.
//   build-*/bench/d4r-bench-code-quality [--keep DIR] [--mode fast|accuracy] [--only NAME]
// --mode: the set translated (default fast, the daemon's default); they differ only in the .ftz
// kernels with f32 matrix products, which the fast set runs with denormals flushed by the mode.
// --only: the modules whose file name contains NAME (the geometric means are then theirs).

#include "bench/hip/native_build.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"
#include "compiler/ptx_build.hpp"

#include <llvm/Support/FileSystem.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace {

namespace fs = std::filesystem;
using d4r::Expected;
using d4r::bench::InstructionCount;
using d4r::bench::NativeKernel;
using d4r::bench::NativeSource;

const char* const k_targets[] = {"gfx1100", "gfx1201"};

struct Totals {
  double log_sum = 0.0;
  int64_t compared = 0;
  int64_t not_compared = 0;
  int64_t translated_shuffles = 0; // over the compared kernels
  int64_t native_shuffles = 0;
};

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> corpus_modules()
{
  std::vector<fs::path> modules;
  for (const fs::path& dir : {fs::path(D4R_PTX_CORPUS_DIR), fs::path(D4R_PTX_CORPUS_DIR) / "isa"}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".ptx") {
        modules.push_back(entry.path());
      }
    }
  }
  std::sort(modules.begin(), modules.end());
  return modules;
}

std::vector<std::string> entries_of(const d4r::compiler::ptx::Module& module)
{
  std::vector<std::string> names;
  for (const d4r::compiler::ptx::Item& item : module.items) {
    const auto* function = std::get_if<d4r::compiler::ptx::Function>(&item.value);
    if (function != nullptr && function->is_entry && function->body) {
      names.push_back(function->name);
    }
  }
  return names;
}

// The PTX of one entry (and the .funcs), to see which idioms it holds.
std::string entry_text(const std::string& text, const std::string& entry)
{
  d4r::compiler::PtxBuild build;
  build.entry = entry;
  std::string log;
  Expected<d4r::compiler::ptx::Module> module = d4r::compiler::rewrite_ptx(text, build, log);
  return module ? d4r::compiler::ptx::print_module(*module) : std::string();
}

std::string first_line(const std::string& message, size_t limit = 90)
{
  std::string line = message.substr(0, message.find('\n'));
  return line.size() > limit ? line.substr(0, limit) + "..." : line;
}

// The translated kernel's count, or why there is none ("unsupported: ...").
Expected<InstructionCount> translated_count(const std::string& text, const std::string& entry,
                                            const std::string& target, d4r::Mode mode,
                                            const fs::path& object)
{
  Expected<std::string> built = d4r::bench::run_isolated([&]() -> Expected<std::string> {
    d4r::compiler::PtxBuild build;
    build.target = target;
    build.entry = entry;
    build.float_policy = d4r::compiler::float_policy_for(mode);
    std::string log;
    TRY_ASSIGN(std::vector<std::byte> bytes, d4r::compiler::build_ptx_code_object(text, build, log));
    std::ofstream out(object, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return std::string("ok");
  });
  if (!built) {
    return std::unexpected(built.error());
  }
  return d4r::bench::count_instructions(object, target, entry);
}

// Whether the entry's PTX multiplies matrices (mma.sync, mma.sp, wmma.mma, wgmma): its native
// twin must then do so too (tests/ptx/wmma_twins.cuh) or it measures nothing.
bool multiplies_matrices(const std::string& ptx)
{
  for (const char* opcode : {"mma.sync", "mma.sp", "wmma.mma", "wgmma.mma_async"}) {
    if (ptx.find(opcode) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Notes on what the two sides compute, from the entry's PTX.
std::string caveats(const std::string& ptx)
{
  std::string note;
  if (ptx.find("tex.2d") != std::string::npos || ptx.find("sust.") != std::string::npos) {
    note += " native images: inline asm;";
  }
  return note;
}

std::string count_text(const InstructionCount& count)
{
  std::string text = std::to_string(count.total);
  if (count.functions > 1) {
    text += "*";
  }
  return text;
}

void report_row(const std::string& module, const std::string& entry, const std::string& target,
                const Expected<InstructionCount>& translated, const NativeKernel* native,
                bool needs_wmma, const std::string& note, Totals& totals)
{
  std::string display = entry.size() > 34 ? entry.substr(0, 31) + "..." : entry;
  std::printf("%-27s %-34s %-7s ", module.c_str(), display.c_str(), target.c_str());
  if (!translated) {
    std::printf("%10s %8s %7s  unsupported (%s)\n", "-", native && native->built ? count_text(native->count).c_str() : "-",
                "-", first_line(translated.error().message).c_str());
    ++totals.not_compared;
    return;
  }
  if (native == nullptr || !native->built) {
    std::printf("%10s %8s %7s  native n/a (%s)\n", count_text(*translated).c_str(), "-", "-",
                native == nullptr ? "no such kernel in the HIP build" : native->why_not.c_str());
    ++totals.not_compared;
    return;
  }
  if (needs_wmma && native->count.wmma == 0) {
    std::printf("%10s %8s %7s  native n/a (no v_wmma: the twin computes no matrix product)\n",
                count_text(*translated).c_str(), count_text(native->count).c_str(), "-");
    ++totals.not_compared;
    return;
  }
  double ratio = static_cast<double>(translated->total) / static_cast<double>(native->count.total);
  totals.log_sum += std::log(ratio);
  ++totals.compared;
  totals.translated_shuffles += translated->shuffles;
  totals.native_shuffles += native->count.shuffles;
  std::string shuffles;
  if (translated->shuffles + native->count.shuffles > 0) {
    shuffles = " shuffles " + std::to_string(translated->shuffles) + " / " +
               std::to_string(native->count.shuffles) + ";";
  }
  if (translated->wmma + native->count.wmma > 0) {
    shuffles += " v_wmma " + std::to_string(translated->wmma) + " / " + std::to_string(native->count.wmma) + ";";
  }
  std::printf("%10s %8s %7.2f%s%s\n", count_text(*translated).c_str(),
              count_text(native->count).c_str(), ratio, shuffles.c_str(), note.c_str());
}

} // namespace

constexpr const char* k_usage =
    "usage: d4r-bench-code-quality [--keep DIR] [--mode fast|accuracy] [--only NAME]\n"
    "  --keep DIR   keep the code objects, disassembly and native sources in DIR\n"
    "  --mode M     the set translated (default fast)\n"
    "  --only NAME  only the corpus modules whose file name contains NAME\n";

int main(int argc, char** argv)
{
  fs::path work;
  d4r::Mode mode = d4r::Mode::fast;
  std::string only;
  for (int i = 1; i < argc; i += 2) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(k_usage, stdout);
      return 0;
    }
    if (has_value && std::strcmp(argv[i], "--keep") == 0) {
      work = argv[i + 1];
      fs::create_directories(work);
    } else if (has_value && std::strcmp(argv[i], "--only") == 0) {
      only = argv[i + 1];
    } else if (Expected<d4r::Mode> parsed = d4r::parse_mode(has_value ? argv[i + 1] : "");
               has_value && std::strcmp(argv[i], "--mode") == 0 && parsed) {
      mode = *parsed;
    } else {
      std::fputs(k_usage, stderr);
      return 2;
    }
  }
  if (work.empty()) {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("d4r-bench-code-quality", path)) {
      std::fprintf(stderr, "d4r-bench-code-quality: cannot create a temporary folder\n");
      return 1;
    }
    work = std::string(path.str());
  }
  std::printf("%s set; ", d4r::to_string(mode));
  std::printf("static instructions of one kernel's code object, translated (build_ptx_code_object) vs "
              "native (clang-19 -x hip -O3 + cuda_shim.h);\ncounts are all of .text (s_code_end "
              "padding excluded); '*': the object holds more than the kernel (non-inlined callees)\n\n");
  std::printf("%-27s %-34s %-7s %10s %8s %7s  note\n", "module", "kernel", "gfx", "translated",
              "native", "ratio");
  std::map<std::string, Totals> totals;
  std::map<std::tuple<std::string, int, bool, std::string>, Expected<std::map<std::string, NativeKernel>>> natives;
  for (const fs::path& path : corpus_modules()) {
    if (path.filename().string().find(only) == std::string::npos) {
      continue;
    }
    const std::string text = read_text(path);
    Expected<d4r::compiler::ptx::Module> parsed = d4r::compiler::ptx::parse_module(text);
    if (!parsed) {
      std::printf("%-27s parse error: %s\n", path.filename().c_str(), parsed.error().message.c_str());
      continue;
    }
    Expected<NativeSource> source = d4r::bench::native_source_of(path);
    const std::string module = path.filename().string();
    for (const std::string target : k_targets) {
      const Expected<std::map<std::string, NativeKernel>>* native = nullptr;
      if (source) {
        auto key = std::make_tuple(source->cu.string(), source->cuda_arch, source->flush_denormals, target);
        auto found = natives.find(key);
        if (found == natives.end()) {
          fs::path dir = work / (source->cu.stem().string() + "." + std::to_string(source->cuda_arch) +
                                 (source->flush_denormals ? ".ftz" : "") + "." + target);
          fs::create_directories(dir);
          found = natives.emplace(key, d4r::bench::build_native(*source, target, dir)).first;
        }
        native = &found->second;
      }
      for (const std::string& entry : entries_of(*parsed)) {
        fs::path object = work / (module + "." + entry + "." + target + ".hsaco");
        Expected<InstructionCount> translated = translated_count(text, entry, target, mode, object);
        NativeKernel missing;
        const NativeKernel* kernel = nullptr;
        if (native == nullptr || !*native) {
          missing.why_not = native == nullptr ? source.error().message
                                              : "clang: " + first_line((*native).error().message);
          kernel = &missing;
        } else if (auto it = (*native)->find(entry); it != (*native)->end()) {
          kernel = &it->second;
        }
        const std::string ptx = entry_text(text, entry);
        report_row(module, entry, target, translated, kernel, multiplies_matrices(ptx), caveats(ptx),
                   totals[target]);
      }
    }
  }
  std::printf("\n");
  double log_all = 0.0;
  int64_t compared_all = 0;
  for (const auto& [target, t] : totals) {
    std::printf("%s: geometric mean of translated/native %.3f over %lld kernels (%lld not compared); "
                "cross-lane shuffles (ds_bpermute, ds_permute, v_permlane*) %lld translated, %lld native\n",
                target.c_str(), t.compared > 0 ? std::exp(t.log_sum / static_cast<double>(t.compared)) : 0.0,
                static_cast<long long>(t.compared), static_cast<long long>(t.not_compared),
                static_cast<long long>(t.translated_shuffles), static_cast<long long>(t.native_shuffles));
    log_all += t.log_sum;
    compared_all += t.compared;
  }
  if (compared_all > 0) {
    std::printf("both: geometric mean %.3f over %lld kernel builds\n",
                std::exp(log_all / static_cast<double>(compared_all)), static_cast<long long>(compared_all));
  }
  std::printf("caveats: the native side takes the sources' C++ fallbacks (no inline PTX), and for matrix "
              "products the WMMA twins of tests/ptx/wmma_twins.cuh (a kernel whose twin has no v_wmma is "
              "not compared); its images are "
              "AMDGPU inline assembly (clang-19 has no image builtins) that waits for each sample; "
              "directed rounding has no native form (n/a).\n");
  if (argc <= 2) {
    std::error_code ignored;
    fs::remove_all(work, ignored);
  }
  return 0;
}
