# daemon/compiled_store: the hook's own compiled modules on a real cache, without a server.
d4r_test(test_daemon_compiled_store
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_compiled_store.cpp
  LIBS d4r_daemon_core d4r_util)
