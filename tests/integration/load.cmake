# Load and bounds (issue 12): d4r-load runs client threads of the real C client against the real
# daemon while d4r-load-agitator (a second process, with the generated protocol the client's
# process must not link twice) purges, builds and uploads. CTest runs a bounded load (8 threads x
# 500 resolves) that asserts no errors and no RSS growth past 32 MiB; scripts/load.sh runs the full
# one (64 x 10 000) and prints its figures.
add_executable(d4r-load-agitator ${CMAKE_CURRENT_LIST_DIR}/load_agitator.cpp)
target_link_libraries(d4r-load-agitator PRIVATE d4r_proto d4r_util)
target_include_directories(d4r-load-agitator PRIVATE ${PROJECT_SOURCE_DIR})
d4r_warnings(d4r-load-agitator)
set_target_properties(d4r-load-agitator PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

add_executable(d4r-load ${CMAKE_CURRENT_LIST_DIR}/load_run.cpp)
target_link_libraries(d4r-load PRIVATE d4r_test_harness d4r_kernel_client d4r_util)
d4r_warnings(d4r-load)
set_target_properties(d4r-load PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_dependencies(d4r-load d4r-load-agitator d4r-kerneld d4r-kernel-worker d4r-test-counters
                 d4r_release_fixture)

add_test(NAME test_integration_load
  COMMAND d4r-load --threads 8 --resolves 500 --period-ms 500 --sample-ms 200 --max-rss-growth-mib 32)
set_tests_properties(test_integration_load PROPERTIES TIMEOUT 600)

d4r_test(test_integration_bounds
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_bounds.cpp
  LIBS d4r_test_harness d4r_proto d4r_util
  TIMEOUT 180)
add_dependencies(test_integration_bounds d4r-kerneld d4r-test-counters d4r_release_fixture)
