# tests/random/: differential random testing against an NVIDIA GPU (tests/random/README.md).
# d4r_ptxgen is the generator (standard library only: the GPU runner, gpu_runner.cpp, is built
# from the same files with plain g++ on the GPU machine); d4r-ptxgen writes its modules;
# d4r-ptxgen-check runs them on the CPU executor, compares with a GPU's results and translates
# them for AMDGPU targets; test_random_programs replays the checked-in batch and a fresh one.
add_library(d4r_ptxgen STATIC
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_values.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_int.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_float.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_misc.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_mma.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_more.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_tensor.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_async.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_ops_video.cpp
  ${PROJECT_SOURCE_DIR}/tests/random/results.cpp)
target_include_directories(d4r_ptxgen PUBLIC ${PROJECT_SOURCE_DIR})
d4r_warnings(d4r_ptxgen)
add_executable(d4r-ptxgen ${PROJECT_SOURCE_DIR}/tests/random/ptxgen_main.cpp)
target_link_libraries(d4r-ptxgen PRIVATE d4r_ptxgen)
d4r_warnings(d4r-ptxgen)
add_library(d4r_ptxgen_check STATIC ${PROJECT_SOURCE_DIR}/tests/random/random_check.cpp)
target_link_libraries(d4r_ptxgen_check PUBLIC d4r_ptxgen d4r_cpu d4r_translate d4r_compiler d4r_util PRIVATE d4r_llvm)
d4r_warnings(d4r_ptxgen_check)
add_executable(d4r-ptxgen-check ${PROJECT_SOURCE_DIR}/tests/random/check_main.cpp)
target_link_libraries(d4r-ptxgen-check PRIVATE d4r_ptxgen_check)
d4r_warnings(d4r-ptxgen-check)
# The checked-in H200 batch replayed on the executor, and a fresh batch run and built for
# gfx1100/gfx1201 (through d4r-ptxgen-check --amdgpu-child, so that a crash is counted, not fatal).
d4r_test(test_random_programs
  TIMEOUT 240
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_random_programs.cpp
  LIBS d4r_ptxgen_check)
add_dependencies(test_random_programs d4r-ptxgen-check)
