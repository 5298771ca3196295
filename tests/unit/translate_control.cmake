# The control-flow and module rows of COVERAGE.md: shfl without .sync, exit in a .func, indirect
# calls with .callprototype, .alias, alloca/stacksave/stackrestore, address initialisers and
# AMDGPU's counted barriers, run on the CPU executor and translated and linked for gfx1100 and
# gfx1201, with nvcc's and clang's PTX of tests/ptx/isa/control_more.cu.
d4r_test(test_compiler_translate_control_more
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_control_more.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_control_more PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")

# brx.idx, isspacep and brkpt (tests/ptx/isa/control_more.cu's control_more_branch and
# control_more_brkpt parts).
d4r_test(test_compiler_translate_branch_space
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_branch_space.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_branch_space PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
