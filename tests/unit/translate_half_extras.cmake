# The half-precision forms of issue 11 (min/max .xorsign.abs, ex2/tanh on halves, packed setp/set,
# fma.oob, cvt to tf32 and between f16/bf16/f64): they translate for the host, gfx1100 and gfx1201,
# the forms ptxas rejects are "unsupported", and values from the ISA's rules run on the executor.
d4r_test(test_compiler_translate_half_extras
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_half_extras.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_half_extras PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
