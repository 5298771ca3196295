# The client's reading of a game's switches and socket through util/settings (the fake daemon sees
# what it sends): every spelling, the config file, the precedence, the warnings.
d4r_test(test_client_settings
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_settings.cpp
  LIBS d4r_kernel_client_static d4r_proto d4r_util)
