# tests/golden/: the golden-vector case format and input generator (compiler/cpu/launch_case.cpp,
# compiled in directly so this test needs neither LLVM nor the executor), and the checked-in cases
# against their recorded outputs. test_golden_vectors (golden_vectors.cmake) runs the cases on the
# CPU executor.
d4r_test(test_compiler_cpu_launch_case
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_cpu_launch_case.cpp
    ${PROJECT_SOURCE_DIR}/compiler/cpu/launch_case.cpp
    ${PROJECT_SOURCE_DIR}/compiler/cpu/launch_image.cpp
    ${PROJECT_SOURCE_DIR}/compiler/cpu/host_launch.cpp
    ${PROJECT_SOURCE_DIR}/compiler/cpu/expected_output.cpp
  LIBS d4r_util zstd)
