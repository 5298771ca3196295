# `d4r-kernel warm`: the build pool's priority classes (daemon/build_pool.hpp) and the CLI's local
# parts (options, inputs, progress bar). The daemon end to end: tests/integration/warm.cmake.
d4r_test(test_warm_units
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_build_pool.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_warm.cpp
  LIBS d4r_daemon_core d4r_cli_lib)
