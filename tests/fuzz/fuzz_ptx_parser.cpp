// libFuzzer target for the PTX parser and printer (compiler/ptx/parser, printer): any input either
// fails to parse with an error, or parses; what parses is printed, and the printed text must
// parse again and print to the same text (printer.hpp: parse(print(m)) == m). A crash, a
// sanitizer report or a printed text that does not re-parse is a finding.

#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail)
{
  std::fprintf(stderr, "fuzz_ptx_parser: %s\n%s\n", what, detail.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  namespace ptx = d4r::compiler::ptx;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  d4r::Expected<ptx::Module> module = ptx::parse_module(text);
  if (!module) {
    return 0;
  }
  std::string printed = ptx::print_module(*module);
  d4r::Expected<ptx::Module> again = ptx::parse_module(printed);
  if (!again) {
    fail("printed module does not re-parse", again.error().message + "\n--- printed ---\n" + printed);
  }
  std::string reprinted = ptx::print_module(*again);
  if (reprinted != printed) {
    fail("re-parsed module prints differently",
         "--- first ---\n" + printed + "\n--- second ---\n" + reprinted);
  }
  // The statement entry point passes use for PTX written as text.
  (void)ptx::parse_statements(text);
  return 0;
}
