# Uploads past --transport-memory through the client's retries (client/upload_retry.hpp).
d4r_test(test_integration_upload_retry
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_upload_retry.cpp
  LIBS d4r_test_harness d4r_kernel_client_static d4r_proto d4r_util
  TIMEOUT 120)
add_dependencies(test_integration_upload_retry d4r-kerneld d4r-test-counters)
