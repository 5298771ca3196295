# compiler/passes/roundf_idiom: the roundf rewrite on corpus kernels, and its exactness argument
# checked bit for bit on the host. -frounding-math keeps the compiler from folding the
# round-toward-zero additions the test makes under fesetround(FE_TOWARDZERO).
d4r_test(test_compiler_pass_roundf
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_pass_roundf.cpp
  LIBS d4r_compiler d4r_util)
target_compile_options(test_compiler_pass_roundf PRIVATE -frounding-math)
