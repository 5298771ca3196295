# A daemon with an upstream (--upstream): a second real daemon serves it over loopback TLS (a CA
# the test makes with the openssl tool), a bearer token and a signing key it pins.
d4r_test(test_integration_upstream
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_upstream.cpp
  LIBS d4r_test_harness d4r_cache d4r_proto d4r_util
  TIMEOUT 300)
add_dependencies(test_integration_upstream d4r-kerneld d4r-kernel d4r-kernel-worker d4r-test-counters)
