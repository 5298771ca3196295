# The tensor-map copies (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor, tensormap.*) on the CPU
# executor against a model of the box, our tensor-map layout and the golden format's tensormap
# params, and every tensor_copies kernel linked for the AMDGPU targets.
d4r_test(test_compiler_translate_tensor_copy
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_tensor_copy.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_tensor_copy PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
