# The hook's own compiled modules (client/zluda_compiles.md) through the real daemon, called from
# C by d4r-test-compiled as a ZLUDA patch would, one process storing and another looking up.
add_executable(d4r-test-compiled ${CMAKE_CURRENT_LIST_DIR}/compiled_c.c)
target_link_libraries(d4r-test-compiled PRIVATE d4r_kernel_client)
target_include_directories(d4r-test-compiled PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_options(d4r-test-compiled PRIVATE -Wall -Wextra -Werror -std=c11)
set_target_properties(d4r-test-compiled PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

d4r_test(test_integration_compiled_store
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_compiled_store.cpp
  LIBS d4r_test_harness d4r_kernel_client d4r_util
  TIMEOUT 180)
add_dependencies(test_integration_compiled_store d4r-kerneld d4r-kernel d4r-test-compiled d4r-test-counters
                 d4r_release_fixture)
