# A code object translated from a kernel that reads tensor maps says so in its launch metadata
# (the d4r_tensor_maps symbol, read_launch_meta); an ordinary kernel's does not.
d4r_test(test_compiler_tensor_map_meta
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_tensor_map_meta.cpp
  LIBS d4r_compiler d4r_translate d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_tensor_map_meta PRIVATE
  D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
