# The real daemon and C client with a module whose kernel reads host-written module variables
# (tests/ptx/isa/module_vars): served only to a client that mirrors them.
d4r_test(test_integration_host_variables
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_host_variables.cpp
  LIBS d4r_test_harness d4r_kernel_client d4r_compiler d4r_util
  TIMEOUT 300)
add_dependencies(test_integration_host_variables d4r-kerneld d4r-kernel-worker d4r-test-counters)
