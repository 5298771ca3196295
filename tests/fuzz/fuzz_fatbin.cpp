// libFuzzer target for the container reader (compiler/ptx/container): any bytes, as a fatbin, a
// binary with fatbins inside or PTX text, give modules or an error, never a read out of bounds, and
// never more decompressed text than the limits allow. The seeds are nvcc 13's own fatbins (ZSTD,
// padded LZ4, 80-byte headers, cubins) and ours; fuzz_fatbin.dict holds the format's magic numbers,
// so that mutations reach the ZSTD and LZ4 decoders with headers that pass. Each module returned
// must be consistent: its text has no trailing NUL, its size is its text's and its hash is the hash
// of its text; each skipped entry lies inside the input.

#include "compiler/ptx/container.hpp"

#include "util/digest.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

namespace ptx = d4r::compiler::ptx;

// Small, so that an input that really expands (a ZSTD frame of a few bytes can claim and produce
// megabytes) stays fast; the limits themselves are what is under test here.
constexpr ptx::ContainerLimits k_limits{1 << 20, 3 << 20};

[[noreturn]] void fail(const char* what)
{
  std::fprintf(stderr, "fuzz_fatbin: %s\n", what);
  std::abort();
}

void check_module(const ptx::PtxModule& module, int64_t& total)
{
  if (!module.text.empty() && module.text.back() == '\0') {
    fail("module text keeps a trailing NUL");
  }
  if (module.fnv1a64 != d4r::fnv1a64(module.text)) {
    fail("module hash is not the hash of its text");
  }
  if (module.size != static_cast<int64_t>(module.text.size())) {
    fail("module size is not its text's");
  }
  if (module.size > k_limits.max_entry_bytes) {
    fail("a module is larger than the limit for one entry");
  }
  if (module.fatbin_offset >= 0) {
    total += module.size;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  int64_t total = 0;
  ptx::ContainerVisitor visitor{[&total](ptx::PtxModule&& module) -> d4r::Expected<void> {
                                  check_module(module, total);
                                  return {};
                                },
                                [size](const ptx::FatbinEntry& entry) {
                                  if (entry.offset < 0 || entry.header_size < 64 ||
                                      entry.payload_size < 0 ||
                                      entry.offset + entry.header_size + entry.payload_size >
                                          static_cast<int64_t>(size)) {
                                    fail("skipped entry out of bounds");
                                  }
                                }};
  (void)ptx::visit_ptx_modules(input, visitor, k_limits);
  if (total > k_limits.max_total_bytes) {
    fail("more decompressed text than the limit in all");
  }
  // The collecting path and the raw paths the bridge and the DLL scan use, over the same bytes.
  if (d4r::Expected<std::vector<ptx::PtxModule>> modules = ptx::read_ptx_modules(input, k_limits)) {
    int64_t again = 0;
    for (const ptx::PtxModule& module : *modules) {
      check_module(module, again);
    }
  }
  (void)ptx::read_fatbin(input, 0, k_limits);
  for (const ptx::FatbinHit& hit : ptx::scan_for_fatbins(input)) {
    if (hit.offset < 0 || hit.size < 0 || hit.offset + hit.size > static_cast<int64_t>(size)) {
      fail("scan hit out of bounds");
    }
  }
  return 0;
}
