d4r_test(test_cli
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_options.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_json_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_output.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_code_object_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_exit_code.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_commands.cpp
  LIBS d4r_cli_lib)
