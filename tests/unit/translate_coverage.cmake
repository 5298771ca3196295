# compiler/translate/COVERAGE.md, the coverage table of the PTX ISA (issue 11), checked against
# the lowering table, the golden cases it names and one probe kernel per instruction row.
d4r_test(test_compiler_translate_coverage
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_coverage.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_coverage PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
