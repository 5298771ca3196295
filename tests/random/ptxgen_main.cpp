// d4r-ptxgen: writes the module of the programs of seeds FIRST .. FIRST+COUNT-1 (tests/random/README.md).
//   d4r-ptxgen [--first N] [--count N] [--min-ops N] [--max-ops N] [--version N] > module.ptx
//   d4r-ptxgen --seed N --slots     one program's slots: index, type, sources, instruction

#include "tests/random/ptxgen.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
  uint64_t first = 1;
  int64_t count = 1;
  bool slots = false;
  d4r::ptxgen::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if ((arg == "--first" || arg == "--seed") && has_value) {
      first = std::strtoull(argv[++i], nullptr, 0);
    } else if (arg == "--count" && has_value) {
      count = std::strtoll(argv[++i], nullptr, 0);
    } else if (arg == "--min-ops" && has_value) {
      options.min_ops = std::atoi(argv[++i]);
    } else if (arg == "--max-ops" && has_value) {
      options.max_ops = std::atoi(argv[++i]);
    } else if (arg == "--version" && has_value) {
      options.version = std::atoi(argv[++i]);
    } else if (arg == "--slots") {
      slots = true;
    } else {
      std::fprintf(stderr, "usage: d4r-ptxgen [--first N] [--count N] [--min-ops N] [--max-ops N] [--version N] [--slots]\n");
      return 2;
    }
  }
  std::vector<d4r::ptxgen::Program> programs;
  for (int64_t i = 0; i < count; ++i) {
    programs.push_back(d4r::ptxgen::generate(first + static_cast<uint64_t>(i), options));
  }
  if (slots) {
    for (const d4r::ptxgen::Program& program : programs) {
      for (size_t s = 0; s < program.slots.size(); ++s) {
        const d4r::ptxgen::Slot& slot = program.slots[s];
        std::string sources;
        for (int source : slot.sources) {
          sources += (sources.empty() ? "" : ",") + std::to_string(source);
        }
        std::printf("%s %zu %s [%s] %s\n", program.name.c_str(), s, d4r::ptxgen::to_string(slot.type), sources.c_str(),
                    slot.text.c_str());
      }
    }
    return 0;
  }
  const std::string text = d4r::ptxgen::module_text(programs);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
