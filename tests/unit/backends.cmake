# compiler/backends/: the llvm, clang and comgr compile backends, checked on real code objects
# (compiler::read_launch_meta and ${D4R_LLVM_OBJDUMP}). Inputs: kernels/testdata/ and tests/compiler/.
d4r_test(test_compiler_backends
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_backends.cpp
  LIBS d4r_compiler d4r_util
  TIMEOUT 300)
target_compile_definitions(test_compiler_backends PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
  D4R_KERNELS_DIR="${PROJECT_SOURCE_DIR}/kernels")
