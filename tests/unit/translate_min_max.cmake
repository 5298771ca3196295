# min/max.f32 without the support library: against constants on the CPU executor, the rewrite of
# minnum/maxnum against a zero (min_max_zeros.hpp) through LLVM's constant folder, and the AMDGPU
# hardware's min/max in the disassembly.
d4r_test(test_compiler_min_max
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_min_max.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_min_max PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
