# Issue 11's missing families (redux.sync, match.sync, bmsk, cvt.pack.sat, nanosleep, the video
# instructions): their forms translate for the host, gfx1100 and gfx1201, the rest are
# "unsupported", and the warp forms run on the CPU executor with partial masks.
d4r_test(test_compiler_translate_new_forms
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_new_forms.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_new_forms PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
