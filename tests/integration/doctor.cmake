# `d4r-kernel doctor` on a healthy setup (the real daemon, its units, a release, the worker) and on
# broken ones (socket, cache, index, environment, manifest, markers, KFD, units).
d4r_test(test_integration_doctor
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_doctor.cpp
  LIBS d4r_test_harness d4r_cli_lib
  TIMEOUT 300)
target_compile_definitions(test_integration_doctor PRIVATE D4R_TEST_VERSION="${PROJECT_VERSION}")
add_dependencies(test_integration_doctor d4r-kerneld d4r-kernel d4r-kernel-worker d4r_release_fixture)
