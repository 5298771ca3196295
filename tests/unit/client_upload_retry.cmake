# client/upload_retry.hpp: the bounded, jittered retries of background uploads.
d4r_test(test_client_upload_retry
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_upload_retry.cpp
  LIBS d4r_kernel_client_static d4r_proto d4r_util)
