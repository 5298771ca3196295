# The im2col tensor-map copies (cp.async.bulk.tensor .im2col, .im2col_no_offs stores and
# reductions) on the CPU executor against a model of the pixel traversal, the golden format's
# im2col maps, and every tensor_copies_im2col kernel linked for the AMDGPU targets.
d4r_test(test_compiler_translate_tensor_copy_im2col
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_tensor_copy_im2col.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_tensor_copy_im2col PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
