# compiler/passes/splice: a native tail spliced at a checked cut point, and each refusal.
d4r_test(test_compiler_pass_splice
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_pass_splice.cpp
  LIBS d4r_compiler d4r_util)
