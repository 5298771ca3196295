# compiler/translate/ integer extras (dp4a, dp2a, mul24, mad24, carry chains): every form for the
# host and all six AMDGPU targets, folded values, and the malformed forms. The semantics against
# an H200 are the golden cases int_dot_* and int_carry_* (test_golden_vectors).
d4r_test(test_compiler_translate_int_extras
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_int_extras.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_int_extras PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
