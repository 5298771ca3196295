# mbarrier, the bulk asynchronous copies, st.async/red.async and the sm_90 atom forms for the host
# and the AMDGPU targets, and the CPU executor's spin-wait scheduling (simt_block.cpp rule 5).
d4r_test(test_compiler_translate_mbarrier
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_mbarrier.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_mbarrier PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
