d4r_test(test_util
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_util_digest.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_util_ptx_identity.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_util_kernel_identity.cpp
  LIBS d4r_util)
