// PTX front-end throughput: lex, parse (lex included) and print in MB/s, on the largest module in
// tests/ptx/ and on a generated module of about 5 MB in nvcc's layout. Figures only; the
// correctness of the same round trip is asserted by test_compiler_ptx_parser.
// usage: d4r-bench-ptx-parse [REPEATS=5]

#include "compiler/ptx/lexer.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace d4r::compiler::ptx;

// Same shape as the generator in tests/unit/test_compiler_ptx_parser.cpp.
std::string generated_module(size_t bytes)
{
  std::string text = ".version 8.0\n.target sm_89\n.address_size 64\n";
  for (int function = 0; text.size() < bytes; ++function) {
    std::string name = "k" + std::to_string(function);
    text += ".visible .entry " + name + "(\n\t.param .u64 " + name + "_p0\n)\n{\n"
            "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<64>;\n\t.reg .f32 \t%f<64>;\n"
            "\t.reg .b64 \t%rd<16>;\n\tld.param.u64 \t%rd1, [" + name + "_p0];\n";
    for (int i = 0; i < 40; ++i) {
      std::string n = std::to_string(i % 60 + 1);
      std::string label = "$L__BB" + std::to_string(function) + "_" + std::to_string(i);
      text += "\t.loc 1 " + std::to_string(i + 10) + " 3\n\tmad.lo.s32 \t%r" + n +
              ", %r2, %r3, %r4;\n\tsetp.ge.s32 \t%p1, %r" + n + ", 17;\n\t@!%p1 bra \t" + label +
              ";\n\tfma.rn.f32 \t%f" + n + ", %f1, 0f3F800000, %f2;\n"
              "\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1+16];\n"
              "\tsust.b.2d.v4.b16.zero \t[%rd2, {%r1, %r2}], {%rs1, %rs2, %rs3, %rs4};\n" +
              label + ":\n\tst.shared.f32 \t[tile+-4], %f" + n + "; // spill\n";
    }
    text += "\tret;\n}\n";
  }
  return text;
}

double best_seconds(int repeats, const auto& work)
{
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    Clock::time_point start = Clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

void measure(const std::string& what, const std::string& text, int repeats)
{
  double megabytes = static_cast<double>(text.size()) / 1e6;
  d4r::Expected<Module> module = parse_module(text);
  if (!module) {
    std::fprintf(stderr, "d4r-bench-ptx-parse: %s: %s\n", what.c_str(), module.error().message.c_str());
    std::exit(1);
  }
  double lex_s = best_seconds(repeats, [&] { (void)lex(text); });
  double parse_s = best_seconds(repeats, [&] { (void)parse_module(text); });
  double print_s = best_seconds(repeats, [&] { (void)print_module(*module); });
  std::printf("%-28s %7.2f MB  lex %7.1f MB/s  parse %7.1f MB/s (%6.1f ms)  print %7.1f MB/s\n",
              what.c_str(), megabytes, megabytes / lex_s, megabytes / parse_s, parse_s * 1e3,
              megabytes / print_s);
}

std::string largest_corpus_module(fs::path& path)
{
  uintmax_t largest = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(D4R_PTX_CORPUS_DIR))) {
    if (entry.path().extension() == ".ptx" && entry.file_size() > largest) {
      largest = entry.file_size();
      path = entry.path();
    }
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

int main(int argc, char** argv)
{
  int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  fs::path path;
  std::string corpus = largest_corpus_module(path);
  if (!corpus.empty()) {
    measure(path.filename().string(), corpus, repeats * 20);
  }
  measure("generated", generated_module(5u << 20), repeats);
  return 0;
}
