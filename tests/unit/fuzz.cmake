# libFuzzer targets for the PTX parser and the container reader, built by clang-19 and run for a
# bounded time as tests (tests/fuzz/CMakeLists.txt).
include(${PROJECT_SOURCE_DIR}/tests/fuzz/CMakeLists.txt)
# The daemon's gRPC handlers (tests/fuzz/fuzz_handlers.cmake: a CMake target built by clang-19).
include(${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_handlers.cmake)
