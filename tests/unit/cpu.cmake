# compiler/cpu/: the CPU executor (ORC JIT + SIMT fibers), tested with hand-written host IR that
# follows translate/host_abi.hpp, and with the translator's output once it translates.
d4r_test(test_compiler_cpu
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_cpu_executor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_cpu_collectives.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_cpu_images.cpp
  LIBS d4r_cpu d4r_translate d4r_util d4r_llvm)

# The translator's host output run by the executor (a separate binary, so that work in progress
# on the translator does not hold back the executor's own tests).
# Slow: it JIT-compiles every corpus module, texture_layers (447 KB of PTX) included.
d4r_test(test_compiler_cpu_translated
  TIMEOUT 900
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_cpu_translated.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
