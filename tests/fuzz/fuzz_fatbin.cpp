// libFuzzer target for the container reader (compiler/ptx/container): any bytes, as a fatbin, a
// binary with fatbins inside or PTX text, give modules or an error, never a read out of bounds.
// Each module returned must be consistent: its text has no trailing NUL and its hash is the hash
// of its text.

#include "compiler/ptx/container.hpp"

#include "util/digest.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  namespace ptx = d4r::compiler::ptx;
  std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  d4r::Expected<std::vector<ptx::PtxModule>> modules = ptx::read_ptx_modules(input);
  if (!modules) {
    return 0;
  }
  for (const ptx::PtxModule& module : *modules) {
    if (!module.text.empty() && module.text.back() == '\0') {
      std::fprintf(stderr, "fuzz_fatbin: module text keeps a trailing NUL\n");
      std::abort();
    }
    if (module.fnv1a64 != d4r::fnv1a64(module.text)) {
      std::fprintf(stderr, "fuzz_fatbin: module hash is not the hash of its text\n");
      std::abort();
    }
  }
  // The raw paths the bridge and the DLL scan use, over the same bytes.
  (void)ptx::read_fatbin(input);
  for (const ptx::FatbinHit& hit : ptx::scan_for_fatbins(input)) {
    if (hit.offset < 0 || hit.size < 0 || hit.offset + hit.size > static_cast<int64_t>(size)) {
      std::fprintf(stderr, "fuzz_fatbin: scan hit out of bounds\n");
      std::abort();
    }
  }
  return 0;
}
