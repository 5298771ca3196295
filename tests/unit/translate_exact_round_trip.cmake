# compiler/translate/exact_round_trip.hpp: which f32 -> f16 -> f32 round trips of the hardware's
# FP8 decode the translator drops, on hand-written LLVM IR, and that every FP8 number is exact in f16.
d4r_test(test_compiler_exact_round_trip
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_exact_round_trip.cpp
  LIBS d4r_translate d4r_util d4r_llvm)
