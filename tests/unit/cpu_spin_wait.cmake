# The SIMT scheduler's spin waits (compiler/cpu/simt_block.cpp rule 5), with hand-written host IR.
d4r_test(test_compiler_cpu_spin_wait
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_cpu_spin_wait.cpp
  LIBS d4r_cpu d4r_translate d4r_util d4r_llvm)
