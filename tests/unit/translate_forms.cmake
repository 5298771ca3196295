# The modifier audit: implemented forms translate for the host and gfx1201, unimplemented ones are
# "unsupported", and the forms the audit implemented run on the CPU executor.
d4r_test(test_compiler_translate_forms
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_forms.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_forms PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
