d4r_test(test_cli
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_options.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_json_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_output.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_status_compiled.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_code_object_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_exit_code.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_commands.cpp
  LIBS d4r_cli_lib)

# The built binary without a daemon: exit statuses, stdout/stderr and --json documents.
add_test(NAME cli_basics
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/cli_basics.sh $<TARGET_FILE:d4r-kernel>)
set_tests_properties(cli_basics PROPERTIES TIMEOUT 60)
