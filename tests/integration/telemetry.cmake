# Telemetry through the real daemon: every miss reason provoked and read from `d4r-kernel status
# --json`, per-game counts from client processes of different names, `d4r-kernel metrics`.
d4r_test(test_integration_telemetry
  SOURCES ${D4R_INTEGRATION}/test_integration_telemetry.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 900)
add_dependencies(test_integration_telemetry d4r-kerneld d4r-kernel d4r-kernel-worker d4r-test-resolve
                 d4r_release_fixture)
