# Issue 11's integer forms (packed u16x2/s16x2 add/min/max, mad.hi.sat.s32, szext, fns, lop3
# with a predicate output, vmad): they translate for the host, gfx1100 and gfx1201, the forms
# outside the ISA are "unsupported", and the executor agrees with ISA references and H200 values.
d4r_test(test_compiler_translate_int_more
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_int_more.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_int_more PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
