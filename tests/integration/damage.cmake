# The damage, exhaustion and security suites (issue 12): the real daemon on a cache the tests
# damage, fill, make read-only or symlink, and peers and requests that try to get out of it.
add_library(d4r_test_damage_support STATIC ${CMAKE_CURRENT_LIST_DIR}/damage_support.cpp)
target_link_libraries(d4r_test_damage_support PUBLIC d4r_test_harness d4r_proto d4r_util GTest::gtest)
d4r_warnings(d4r_test_damage_support)

d4r_test(test_integration_damage
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_damage.cpp
  LIBS d4r_test_damage_support
  TIMEOUT 600)
# SQLite itself, to write an index as an older version of the daemon left it.
target_link_libraries(test_integration_damage PRIVATE SQLite::SQLite3)
add_dependencies(test_integration_damage d4r-kerneld d4r-test-counters d4r_release_fixture)

d4r_test(test_integration_exhaustion
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_exhaustion.cpp
  LIBS d4r_test_damage_support
  TIMEOUT 900)
add_dependencies(test_integration_exhaustion d4r-kerneld d4r-kernel-worker d4r-test-counters
  d4r_release_fixture)

d4r_test(test_integration_security
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_security.cpp
  LIBS d4r_test_damage_support
  TIMEOUT 300)
add_dependencies(test_integration_security d4r-kerneld d4r-kernel-worker d4r-test-counters
  d4r_release_fixture)

# A purge between a path answer and the client's read (the store's trash), read as the client
# library does.
d4r_test(test_integration_purge_read
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_purge_read.cpp
  LIBS d4r_test_damage_support d4r_kernel_client_static
  TIMEOUT 300)
add_dependencies(test_integration_purge_read d4r-kerneld d4r-test-counters d4r_release_fixture)
