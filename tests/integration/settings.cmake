# A game's switches end to end (util/settings.hpp): the real daemon, a fresh client process per
# spelling of D4R_PREFER_ACCURACY and per config file, the object the daemon served.
d4r_test(test_integration_settings
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_settings.cpp
  LIBS d4r_test_harness d4r_util
  TIMEOUT 180)
add_dependencies(test_integration_settings d4r-kerneld d4r-kernel d4r-test-resolve d4r_release_fixture)
