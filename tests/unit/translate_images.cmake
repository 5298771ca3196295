# compiler/translate/ stages 4 and 5: tex/suld/sust and FP8 cvt for the host and all six AMDGPU
# targets (image instructions in the disassembly; hardware FP8 on gfx12 only), the rewrite passes'
# helper calls, and the forms that are unsupported.
d4r_test(test_compiler_translate_image
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_image.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_image PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
