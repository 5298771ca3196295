# The build server's TCP side (d4r-kerneld --listen): real TLS with a CA and certificates the test
# makes with the openssl tool, real bearer tokens, the real daemon, loopback only. Its client
# limits build a never-ending recipe (warm_support's slow recipes).
d4r_test(test_integration_remote
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_remote.cpp ${CMAKE_CURRENT_LIST_DIR}/warm_support.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 180)
target_compile_definitions(test_integration_remote PRIVATE
  D4R_CLI_PATH="$<TARGET_FILE:d4r-kernel>" D4R_MAKE_PE="$<TARGET_FILE:d4r-make-pe>")
add_dependencies(test_integration_remote d4r-kerneld d4r-kernel d4r-kernel-worker d4r-make-pe
  d4r_release_fixture)
