# Vector registers (.reg .v2/.v4) expanded to their element registers before translation.
d4r_test(test_compiler_translate_vector_registers
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_vector_registers.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm)
target_compile_definitions(test_compiler_translate_vector_registers PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
