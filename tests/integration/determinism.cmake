# Builds are deterministic: two daemons (separate caches, recipe paths, TMPDIR), two runs each,
# a HIP recipe and a PTX translation give byte-identical code objects.
d4r_test(test_integration_determinism
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_determinism.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 600)
add_dependencies(test_integration_determinism d4r-kerneld d4r-kernel-worker d4r-test-counters)
