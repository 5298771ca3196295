# tests/ptx/clang/: the corpus as clang 19's NVPTX backend writes it (tests/ptx/regenerate_clang.sh).
# Every module round-trips through the parser and printer; every entry translates for the host,
# gfx1100 and gfx1201 and links with the kernargs of the nvcc build. tests/ptx/clang/share.sh runs the
# disabled ShareOfKernels (both producers, all targets) for the figures.
d4r_test(test_ptx_corpus_clang
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ptx_corpus_clang.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 600)
target_compile_definitions(test_ptx_corpus_clang PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
  D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
