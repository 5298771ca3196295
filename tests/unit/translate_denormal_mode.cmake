# f32 denormals flushed by the float mode: the instruction rules, which kernels and functions get
# it in each set, the AMDGPU code and descriptor, and .ftz results on the CPU executor.
d4r_test(test_compiler_translate_denormal_mode
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_denormal_mode.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_denormal_mode PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
