# client/: the C client. test_client links the client's objects statically together with a fake
# daemon (one copy of d4r_proto in the process); test_client_abi loads the real shared library and
# holds no protobuf code of its own, and builds the header as C.
d4r_test(test_client
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_client_resolve.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_client_object_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_client_options.cpp
  LIBS d4r_kernel_client_static d4r_proto d4r_util)

add_library(client_header_c_test OBJECT ${CMAKE_CURRENT_LIST_DIR}/client_header_c_test.c)
target_include_directories(client_header_c_test PRIVATE ${PROJECT_SOURCE_DIR}/client)
set_target_properties(client_header_c_test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
  C_EXTENSIONS OFF)
target_compile_options(client_header_c_test PRIVATE
  -Wall -Wextra -Wpedantic -Wstrict-prototypes -Wmissing-prototypes -Werror)

d4r_test(test_client_abi
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_client_abi.cpp
    $<TARGET_OBJECTS:client_header_c_test>
  LIBS d4r_kernel_client d4r_util)
target_compile_definitions(test_client_abi PRIVATE
  D4R_CLIENT_LIBRARY="$<TARGET_FILE:d4r_kernel_client>")
