// Container extraction throughput: read_ptx_modules (scan, entry headers, LZ4, FNV-1a 64, SHA-256
// and the .entry scan of every module) on the fixture DLL and fatbins that d4r_ptx_fixtures
// writes, repeated for about a second each. Prints MB/s of input read and of PTX produced.
// Figures only; test_compiler_ptx_container asserts what the reader returns.
// usage: d4r-bench-fatbin [SECONDS=1]

#include "compiler/ptx/container.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
namespace ptx = d4r::compiler::ptx;

std::string read_file(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "d4r-bench-fatbin: %s: cannot open (build d4r_ptx_fixtures)\n",
                 path.c_str());
    std::exit(1);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void measure(const fs::path& path, double seconds)
{
  std::string bytes = read_file(path);
  std::span<const std::byte> input = std::as_bytes(std::span(bytes.data(), bytes.size()));
  d4r::Expected<std::vector<ptx::PtxModule>> first = ptx::read_ptx_modules(input);
  if (!first) {
    std::fprintf(stderr, "d4r-bench-fatbin: %s: %s\n", path.c_str(), first.error().message.c_str());
    std::exit(1);
  }
  int64_t ptx_bytes = 0;
  for (const ptx::PtxModule& module : *first) {
    ptx_bytes += static_cast<int64_t>(module.text.size());
  }
  int64_t runs = 0;
  Clock::time_point start = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    d4r::Expected<std::vector<ptx::PtxModule>> modules = ptx::read_ptx_modules(input);
    if (!modules || modules->size() != first->size()) {
      std::fprintf(stderr, "d4r-bench-fatbin: %s: result changed between runs\n", path.c_str());
      std::exit(1);
    }
    ++runs;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  double per_run = elapsed / static_cast<double>(runs);
  double in_mb = static_cast<double>(bytes.size()) / 1e6;
  double out_mb = static_cast<double>(ptx_bytes) / 1e6;
  std::printf("%-14s %8.3f MB in  %2zu modules %8.3f MB PTX  %8.3f ms/run  %8.1f MB/s in  "
              "%8.1f MB/s PTX  (%lld runs)\n",
              path.filename().c_str(), in_mb, first->size(), out_mb, per_run * 1e3,
              in_mb / per_run, out_mb / per_run, static_cast<long long>(runs));
}

} // namespace

int main(int argc, char** argv)
{
  double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  if (seconds <= 0) {
    std::fprintf(stderr, "usage: d4r-bench-fatbin [SECONDS=1]\n");
    return 2;
  }
  fs::path fixtures = fs::path(D4R_BINARY_DIR) / "fixtures" / "ptx";
  for (const char* name : {"game.dll", "lz4.fatbin", "plain.fatbin"}) {
    measure(fixtures / name, seconds);
  }
  return 0;
}
