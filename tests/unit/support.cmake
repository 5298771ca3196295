# kernels/support/ (the PTX support library): its C sources compiled natively into the test
# (gcc, the same flags that matter as the bitcode build: no FP contraction, no errno for sqrt) and
# checked exhaustively where the input space allows; the embedded bitcode checked with LLVM.
# The tests set the host rounding mode (fesetround) around oracle operations, hence
# -frounding-math on the C++ side only: the library itself must not depend on the mode.
file(GLOB d4r_ptx_support_c_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/support/*.c)
add_library(d4r_ptx_support_native OBJECT ${d4r_ptx_support_c_sources})
set_target_properties(d4r_ptx_support_native PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_compile_options(d4r_ptx_support_native PRIVATE
  -O2 -ffp-contract=off -fno-math-errno -Wall -Wextra -Wshadow -Wdouble-promotion -Werror)

d4r_test(test_kernels_ptx_support
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_kernels_ptx_support_rounding.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_kernels_ptx_support_convert.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_kernels_ptx_support_fp8.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_kernels_ptx_support_warp.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_kernels_ptx_support_approx.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_kernels_ptx_support_bitcode.cpp
    $<TARGET_OBJECTS:d4r_ptx_support_native>
  LIBS d4r_translate d4r_llvm
  TIMEOUT 300)
target_compile_options(test_kernels_ptx_support PRIVATE -frounding-math -ffp-contract=off)
