# bar.red, bar.arrive and the half-precision atomics for the host and all six AMDGPU targets, and
# their host runtime paths on the CPU executor.
d4r_test(test_compiler_translate_sync_extras
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_sync_extras.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_sync_extras PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
