# util/'s shared policy (switch spellings, environment, socket rule, config file, the D4R_* table
# and the precedence flag > environment > file > default): one test binary.
d4r_test(test_util_settings
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_util_boolean_spelling.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_util_config_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_util_settings.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_util_socket_path.cpp
  LIBS d4r_util)
