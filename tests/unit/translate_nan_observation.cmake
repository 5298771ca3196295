# compiler/translate/nan_observation.hpp: which NaN canonicalisations the translator drops, on
# hand-written LLVM IR. Exactness against the hardware is the golden cases' job.
d4r_test(test_compiler_nan_observation
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_nan_observation.cpp
  LIBS d4r_translate d4r_util d4r_llvm)
