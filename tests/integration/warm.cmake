# `d4r-kernel warm` against the real daemon: a synthetic DLL (d4r-make-pe, nvcc fatbins inside),
# the progress bar under a pty, Ctrl-C and resume, a game's Resolve during warm builds.
d4r_test(test_integration_warm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_warm.cpp ${CMAKE_CURRENT_LIST_DIR}/warm_support.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 900)
target_compile_definitions(test_integration_warm PRIVATE
  D4R_CLI_PATH="$<TARGET_FILE:d4r-kernel>" D4R_MAKE_PE="$<TARGET_FILE:d4r-make-pe>")
add_dependencies(test_integration_warm d4r-kerneld d4r-kernel d4r-kernel-worker d4r-make-pe)
