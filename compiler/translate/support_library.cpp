#include "compiler/translate/support_library.hpp"

// The two bitcode files are pulled in by the assembler's .incbin (paths from
// support_library.cmake, which also makes this file depend on them, so an edit of a kernels/support
// source rebuilds it; ccache declines to cache sources that contain .incbin).

#ifndef D4R_SUPPORT_AMDGPU_BC
#error "D4R_SUPPORT_AMDGPU_BC must name the amdgpu support bitcode (support_library.cmake)"
#endif
#ifndef D4R_SUPPORT_HOST_BC
#error "D4R_SUPPORT_HOST_BC must name the host support bitcode (support_library.cmake)"
#endif

#define D4R_EMBED(name, path)                                                                      \
  asm(".pushsection .rodata.d4r_support,\"a\",@progbits\n"                                         \
      ".balign 16\n"                                                                               \
      ".globl " #name "_begin\n"                                                                   \
      ".hidden " #name "_begin\n" #name "_begin:\n"                                                \
      ".incbin \"" path "\"\n"                                                                     \
      ".globl " #name "_end\n"                                                                     \
      ".hidden " #name "_end\n" #name "_end:\n"                                                    \
      ".byte 0\n"                                                                                  \
      ".popsection\n")

D4R_EMBED(d4r_support_amdgpu, D4R_SUPPORT_AMDGPU_BC);
D4R_EMBED(d4r_support_host, D4R_SUPPORT_HOST_BC);

extern "C" {
extern const unsigned char d4r_support_amdgpu_begin[];
extern const unsigned char d4r_support_amdgpu_end[];
extern const unsigned char d4r_support_host_begin[];
extern const unsigned char d4r_support_host_end[];
}

namespace d4r::compiler::translate {

namespace {

std::span<const std::byte> bytes_between(const unsigned char* begin, const unsigned char* end)
{
  return {reinterpret_cast<const std::byte*>(begin), static_cast<size_t>(end - begin)};
}

} // namespace

std::span<const std::byte> support_bitcode(TargetKind kind)
{
  switch (kind) {
  case TargetKind::amdgpu:
    return bytes_between(d4r_support_amdgpu_begin, d4r_support_amdgpu_end);
  case TargetKind::host:
    return bytes_between(d4r_support_host_begin, d4r_support_host_end);
  }
  return {};
}

} // namespace d4r::compiler::translate
