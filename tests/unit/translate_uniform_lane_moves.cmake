# compiler/translate/uniform_lane_moves.hpp: which lane moves the AMDGPU translation keeps (values
# that differ between lanes) and drops (values every lane holds alike), through the translator.
d4r_test(test_compiler_uniform_lane_moves
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_uniform_lane_moves.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm)
target_compile_definitions(test_compiler_uniform_lane_moves PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
