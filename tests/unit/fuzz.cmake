# libFuzzer targets for the PTX parser and the container reader, built by clang-19 and run for a
# bounded time as tests (tests/fuzz/CMakeLists.txt).
include(${PROJECT_SOURCE_DIR}/tests/fuzz/CMakeLists.txt)
