# Integration tests: the real d4r-kerneld on a temporary socket and cache, the real C client,
# real SQLite, the code objects clang-19 built from kernels/. Tests that use the C client do not
# link d4r_proto: the client library carries its own copy of the generated protocol, and protobuf
# refuses to register one .proto twice in a process.
set(D4R_INTEGRATION ${CMAKE_CURRENT_LIST_DIR})

add_executable(d4r-test-resolve ${D4R_INTEGRATION}/resolve_c.c)
target_link_libraries(d4r-test-resolve PRIVATE d4r_kernel_client)
target_include_directories(d4r-test-resolve PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_options(d4r-test-resolve PRIVATE -Wall -Wextra -Werror -std=c11)
set_target_properties(d4r-test-resolve PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

add_executable(d4r-test-counters ${D4R_INTEGRATION}/status_counters.cpp)
target_link_libraries(d4r-test-counters PRIVATE d4r_proto)
d4r_warnings(d4r-test-counters)
set_target_properties(d4r-test-counters PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

# The real daemon as a child process (also used by bench/); free of protobuf.
add_library(d4r_test_harness STATIC ${D4R_INTEGRATION}/daemon_process.cpp
  ${D4R_INTEGRATION}/tls_loopback.cpp
  ${D4R_TEST_SOURCE_DIR}/support/tool_run.cpp)
target_include_directories(d4r_test_harness PUBLIC ${D4R_INTEGRATION} ${PROJECT_SOURCE_DIR})
target_compile_definitions(d4r_test_harness PUBLIC
  D4R_TEST_SOURCE_DIR="${D4R_TEST_SOURCE_DIR}" D4R_BINARY_DIR="${PROJECT_BINARY_DIR}")
target_link_libraries(d4r_test_harness PUBLIC d4r_util)
d4r_warnings(d4r_test_harness)

d4r_test(test_integration_client
  SOURCES ${D4R_INTEGRATION}/test_integration_client.cpp
  LIBS d4r_test_harness d4r_kernel_client d4r_compiler d4r_util
  TIMEOUT 180)
add_dependencies(test_integration_client d4r-kerneld d4r-test-resolve d4r-test-counters d4r_release_fixture)

d4r_test(test_integration_daemon
  SOURCES ${D4R_INTEGRATION}/test_integration_daemon.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 180)
add_dependencies(test_integration_daemon d4r-kerneld d4r-test-counters d4r_release_fixture)

# A warm Resolve's kept reply against purges, another process's index writes, removed objects and
# release changes (SQLite itself, to write the index as another process would).
d4r_test(test_integration_warm_answers
  SOURCES ${D4R_INTEGRATION}/test_integration_warm_answers.cpp
  LIBS d4r_test_harness d4r_proto d4r_util SQLite::SQLite3
  TIMEOUT 120)
add_dependencies(test_integration_warm_answers d4r-kerneld d4r_release_fixture)

# kill -9 of the daemon during builds (D4R_FAULT_TRIALS kills; a bounded sample here).
d4r_test(test_integration_faults
  SOURCES ${D4R_INTEGRATION}/test_integration_faults.cpp
  LIBS d4r_test_harness d4r_daemon_core d4r_proto d4r_compiler d4r_util SQLite::SQLite3
  TIMEOUT 600)
add_dependencies(test_integration_faults d4r-kerneld d4r-kernel-worker)

d4r_test(test_integration_builds
  SOURCES ${D4R_INTEGRATION}/test_integration_builds.cpp
  LIBS d4r_test_harness d4r_proto d4r_compiler d4r_util
  TIMEOUT 900)
target_compile_definitions(test_integration_builds PRIVATE D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")
add_dependencies(test_integration_builds d4r-kerneld d4r-kernel-worker d4r-test-counters)

# The gRPC transport's own bounds: memory for bodies being received, connections, idle peers.
d4r_test(test_integration_transport
  SOURCES ${D4R_INTEGRATION}/test_integration_transport.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 120)
add_dependencies(test_integration_transport d4r-kerneld d4r-test-counters d4r_release_fixture)

# export of the cache as a release, served and imported by a second daemon; pins and purge
# --older-than (SQLite itself, to set last-use times as the index would hold them).
d4r_test(test_integration_release_export
  SOURCES ${D4R_INTEGRATION}/test_integration_release_export.cpp
  LIBS d4r_test_harness d4r_proto d4r_util SQLite::SQLite3
  TIMEOUT 180)
add_dependencies(test_integration_release_export d4r-kerneld d4r_release_fixture)
