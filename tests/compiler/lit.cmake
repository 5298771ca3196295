# tests/compiler: the passes' and the translator's RUN/CHECK files (lit.cfg.py), one CTest test
# running all of them with LLVM 19's lit and FileCheck.
set(D4R_LLVM_TOOLS /usr/lib/llvm-19)
find_program(D4R_LIT lit.py PATHS ${D4R_LLVM_TOOLS}/build/utils/lit NO_DEFAULT_PATH REQUIRED)
find_program(D4R_FILECHECK FileCheck PATHS ${D4R_LLVM_TOOLS}/bin NO_DEFAULT_PATH REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME lit_compiler
  COMMAND ${Python3_EXECUTABLE} ${D4R_LIT} -sv
    --param d4r_kernel=$<TARGET_FILE:d4r-kernel>
    --param llvm_bin=${D4R_LLVM_TOOLS}/bin
    --param exec_root=${CMAKE_CURRENT_BINARY_DIR}/compiler-lit
    ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(lit_compiler PROPERTIES TIMEOUT 300)
