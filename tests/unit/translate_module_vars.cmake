# compiler/translate/ module-scope variables: kept as symbols of the host translation and of the
# AMDGPU code object, never folded, listed by read_launch_meta. The H200 side is the golden cases
# module_vars_* (test_golden_vectors).
d4r_test(test_compiler_translate_module_vars
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_module_vars.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_module_vars PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
  D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
