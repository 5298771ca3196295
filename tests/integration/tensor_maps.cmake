# The real daemon and C client with a module whose kernel reads tensor maps
# (tests/ptx/isa/tensor_copies): served only to a client that writes d4r's tensor map layout.
d4r_test(test_integration_tensor_maps
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_tensor_maps.cpp
  LIBS d4r_test_harness d4r_kernel_client d4r_compiler d4r_util
  TIMEOUT 300)
add_dependencies(test_integration_tensor_maps d4r-kerneld d4r-kernel-worker d4r-test-counters)
