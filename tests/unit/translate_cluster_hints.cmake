# Hints and no-ops, ld/st .b128, cvta.param, clusters of one CTA, elect.sync and
# %dynamic_smem_size (lower_hints.cpp, lower_cluster.cpp, lower_memory.cpp): every target
# translates them, the executor computes what the ISA says, bigger clusters stay unsupported.
d4r_test(test_compiler_translate_cluster_hints
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_cluster_hints.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_cluster_hints PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
