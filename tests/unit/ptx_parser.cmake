# compiler/ptx: lexer, parser and printer (round trip over every tests/ptx/*.ptx found at test
# time, error positions, each construct, a generated 5 MB module).
d4r_test(test_compiler_ptx_parser
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_ptx_parser.cpp
  LIBS d4r_compiler d4r_util)
