# compiler/passes: "sust" (surface stores -> d4r_sust_* calls), "fp8-cvt" (cvt.rn.f16x2.e4m3x2 ->
# d4r_dec_e4m3x2) and the registry, on the tests/ptx corpus.
d4r_test(test_compiler_pass_sust
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_pass_sust.cpp
  LIBS d4r_compiler d4r_util)
d4r_test(test_compiler_pass_fp8_convert
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_pass_fp8_convert.cpp
  LIBS d4r_compiler d4r_util)
