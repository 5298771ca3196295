# daemon/config: the --redis and --redis-budget-ms flags.
d4r_test(test_daemon_redis_config
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_redis_config.cpp
  LIBS d4r_daemon_core d4r_util)
