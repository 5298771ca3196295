// PTX translator speed (the daemon's path, compiler/ptx_build.hpp): for every corpus module
// (tests/ptx/*.ptx, tests/ptx/isa/*.ptx) and each .entry, the median time of translate_ptx (parse,
// keep the entry, translate, link the support library, O2) and of codegen + lld link, for gfx1100
// and gfx1201; per module, the whole module translated at once in MB of PTX per second. Baselines
// from the same run: parsing the same PTX (translate/parse ratio) and clang-19 compiling the
// module's CUDA source as HIP to a code object (bench/hip/cuda_shim.h; a separate process).
// A kernel the translator rejects is reported "unsupported (reason)". Prints figures; asserts
// nothing.
//   build-*/bench/d4r-bench-translate [RUNS=3]

#include "bench/hip/native_build.hpp"
#include "compiler/backends/llvm_codegen.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx_build.hpp"

#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using d4r::Expected;

const char* const k_targets[] = {"gfx1100", "gfx1201"};

// Medians in seconds: parse, then per target translate and codegen + link.
struct Timing {
  double parse = 0.0;
  double translate[2] = {0.0, 0.0};
  double codegen[2] = {0.0, 0.0};
};

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double seconds_since(Clock::time_point start)
{
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values)
{
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// One run of translate + codegen for `target`: the two durations.
Expected<std::pair<double, double>> translate_once(const std::string& text, const std::string& entry,
                                                   const std::string& target)
{
  d4r::compiler::PtxBuild build;
  build.target = target;
  build.entry = entry;
  std::string log;
  Clock::time_point start = Clock::now();
  TRY_ASSIGN(d4r::compiler::translate::Translation translation,
             d4r::compiler::translate_ptx(text, build, d4r::compiler::translate::TargetKind::amdgpu, log));
  double translated = seconds_since(start);
  d4r::compiler::CodegenOptions options;
  options.target = target;
  options.optimise = false; // as build_ptx_code_object: translate_ptx ran O2
  start = Clock::now();
  TRY(d4r::compiler::codegen_code_object(*translation.module, options, log));
  return std::make_pair(translated, seconds_since(start));
}

// All runs of one entry (empty: the whole module), in this process; a Timing as text.
Expected<std::string> measure(const std::string& text, const std::string& entry, int runs)
{
  std::vector<double> parse;
  std::vector<double> translate[2];
  std::vector<double> codegen[2];
  for (int run = 0; run < runs; ++run) {
    Clock::time_point start = Clock::now();
    TRY(d4r::compiler::ptx::parse_module(text));
    parse.push_back(seconds_since(start));
    for (int t = 0; t < 2; ++t) {
      TRY_ASSIGN(auto pair, translate_once(text, entry, k_targets[t]));
      translate[t].push_back(pair.first);
      codegen[t].push_back(pair.second);
    }
  }
  char line[256];
  std::snprintf(line, sizeof line, "%.9f %.9f %.9f %.9f %.9f", median(parse), median(translate[0]),
                median(codegen[0]), median(translate[1]), median(codegen[1]));
  return std::string(line);
}

Expected<Timing> measure_isolated(const std::string& text, const std::string& entry, int runs)
{
  TRY_ASSIGN(std::string line,
             d4r::bench::run_isolated([&] { return measure(text, entry, runs); }));
  Timing t;
  if (std::sscanf(line.c_str(), "%lf %lf %lf %lf %lf", &t.parse, &t.translate[0], &t.codegen[0],
                  &t.translate[1], &t.codegen[1]) != 5) {
    return d4r::make_error(d4r::ErrorCode::internal, "bench: bad worker output: " + line);
  }
  return t;
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

std::vector<std::string> entries_of(const std::string& text)
{
  std::vector<std::string> names;
  Expected<d4r::compiler::ptx::Module> module = d4r::compiler::ptx::parse_module(text);
  if (module) {
    for (const d4r::compiler::ptx::Item& item : module->items) {
      const auto* function = std::get_if<d4r::compiler::ptx::Function>(&item.value);
      if (function != nullptr && function->is_entry && function->body) {
        names.push_back(function->name);
      }
    }
  }
  return names;
}

std::string short_reason(const std::string& message)
{
  std::string line = message.substr(0, message.find('\n'));
  size_t unsupported = line.find("unsupported:");
  if (unsupported != std::string::npos) {
    line = line.substr(unsupported);
  }
  return line.size() > 80 ? line.substr(0, 77) + "..." : line;
}

struct Sums {
  double parse = 0.0;
  double translate[2] = {0.0, 0.0};
  double codegen[2] = {0.0, 0.0};
  int64_t kernels = 0;
  int64_t unsupported = 0;
  int64_t bytes = 0;         // modules translated whole
  double module_translate = 0.0;
  double module_parse = 0.0;
  double module_all = 0.0;   // translate + codegen, both targets
  double clang = 0.0;        // HIP compiles of the same modules' sources (gfx1100)
  double clang_ours = 0.0;   // translate + codegen (gfx1100) of the modules that clang compiled
};

void report_kernels(const std::string& text, int runs, Sums& sums)
{
  for (const std::string& entry : entries_of(text)) {
    std::string display = entry.size() > 34 ? entry.substr(0, 31) + "..." : entry;
    Expected<Timing> t = measure_isolated(text, entry, runs);
    if (!t) {
      std::printf("  %-34s unsupported (%s)\n", display.c_str(), short_reason(t.error().message).c_str());
      ++sums.unsupported;
      continue;
    }
    std::printf("  %-34s %7.2f %8.2f %8.2f %8.2f %8.2f %7.1fx\n", display.c_str(), t->parse * 1e3,
                t->translate[0] * 1e3, t->codegen[0] * 1e3, t->translate[1] * 1e3,
                t->codegen[1] * 1e3, t->translate[0] / t->parse);
    sums.parse += t->parse;
    for (int i = 0; i < 2; ++i) {
      sums.translate[i] += t->translate[i];
      sums.codegen[i] += t->codegen[i];
    }
    ++sums.kernels;
  }
}

void report_module(const fs::path& path, int runs, const fs::path& work, Sums& sums)
{
  const std::string text = read_text(path);
  const double megabytes = static_cast<double>(text.size()) / 1e6;
  std::printf("%s (%.1f KB)\n", path.filename().c_str(), static_cast<double>(text.size()) / 1e3);
  report_kernels(text, runs, sums);
  Expected<Timing> whole = measure_isolated(text, "", runs);
  if (!whole) {
    std::printf("  whole module: unsupported (%s)\n", short_reason(whole.error().message).c_str());
    return;
  }
  std::printf("  whole module: parse %.1f MB/s; translate %.1f / %.1f s per MB (gfx1100 / gfx1201), "
              "translate+codegen %.1f / %.1f s per MB\n",
              megabytes / whole->parse, whole->translate[0] / megabytes, whole->translate[1] / megabytes,
              (whole->translate[0] + whole->codegen[0]) / megabytes,
              (whole->translate[1] + whole->codegen[1]) / megabytes);
  sums.bytes += static_cast<int64_t>(text.size());
  sums.module_parse += whole->parse;
  sums.module_translate += whole->translate[0];
  sums.module_all += whole->translate[0] + whole->codegen[0];
  Expected<d4r::bench::NativeSource> source = d4r::bench::native_source_of(path);
  if (!source) {
    return;
  }
  fs::path dir = work / path.filename();
  fs::create_directories(dir);
  std::vector<double> clang;
  for (int run = 0; run < runs; ++run) {
    Expected<double> s = d4r::bench::time_native_compile(*source, "gfx1100", dir);
    if (!s) {
      std::printf("  HIP compile of %s: n/a (some kernel needs inline PTX or a name the shim lacks: "
                  "%s)\n", source->cu.filename().c_str(), short_reason(s.error().message).c_str());
      return;
    }
    clang.push_back(*s);
  }
  const double ours = whole->translate[0] + whole->codegen[0];
  std::printf("  HIP baseline: clang-19 -x hip %s -> gfx1100 code object %.1f ms (a process); ours "
              "%.1f ms, %.2fx\n", source->cu.filename().c_str(), median(clang) * 1e3, ours * 1e3,
              ours / median(clang));
  sums.clang += median(clang);
  sums.clang_ours += ours;
}

} // namespace

int main(int argc, char** argv)
{
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createUniqueDirectory("d4r-bench-translate", path)) {
    std::fprintf(stderr, "d4r-bench-translate: cannot create a temporary folder\n");
    return 1;
  }
  const fs::path work = std::string(path.str());
  std::printf("median of %d runs, ms; translate = translate_ptx (parse, keep the entry, translate, "
              "support library, O2); codegen = codegen + lld link\n", runs);
  std::printf("  %-34s %7s %8s %8s %8s %8s %8s\n", "kernel", "parse", "tr 1100", "cg 1100",
              "tr 1201", "cg 1201", "tr/parse");
  Sums sums;
  for (const fs::path& module : corpus_modules()) {
    report_module(module, runs, work, sums);
  }
  std::printf("\ntotals over %lld translated kernels (%lld unsupported): parse %.1f ms, translate "
              "%.1f / %.1f ms, codegen+link %.1f / %.1f ms (gfx1100 / gfx1201); translate/parse %.1fx\n",
              static_cast<long long>(sums.kernels), static_cast<long long>(sums.unsupported),
              sums.parse * 1e3, sums.translate[0] * 1e3, sums.translate[1] * 1e3,
              sums.codegen[0] * 1e3, sums.codegen[1] * 1e3,
              sums.parse > 0 ? sums.translate[0] / sums.parse : 0.0);
  if (sums.bytes > 0) {
    const double megabytes = static_cast<double>(sums.bytes) / 1e6;
    std::printf("whole modules that translate (%.3f MB of PTX): parse %.1f MB/s; translate %.1f s per "
                "MB (%.1f KB/s), translate+codegen %.1f s per MB (gfx1100)\n", megabytes,
                megabytes / sums.module_parse, sums.module_translate / megabytes,
                megabytes * 1e3 / sums.module_translate, sums.module_all / megabytes);
  }
  if (sums.clang > 0) {
    std::printf("HIP baseline over the same modules: clang-19 %.1f ms, ours %.1f ms, %.2fx\n",
                sums.clang * 1e3, sums.clang_ours * 1e3, sums.clang_ours / sums.clang);
  }
  std::error_code ignored;
  fs::remove_all(work, ignored);
  return 0;
}
