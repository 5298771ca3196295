# The build server's TCP side (d4r-kerneld --listen): real TLS with a CA and certificates the test
# makes with the openssl tool, real bearer tokens, the real daemon, loopback only.
d4r_test(test_integration_remote
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_remote.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 120)
add_dependencies(test_integration_remote d4r-kerneld d4r-kernel d4r_release_fixture)
