# cvt.rXi float -> integer through the translator on the CPU executor, against the C library's
# rounding in every mode and width.
d4r_test(test_compiler_translate_float_to_int
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_float_to_int.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_float_to_int PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
