# st.async and red.async in clusters of one CTA (lower_async_copy.cpp): the CPU executor, both
# AMDGPU targets, and the kernels and forms that stay unsupported.
d4r_test(test_compiler_translate_st_async
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_st_async.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_st_async PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
