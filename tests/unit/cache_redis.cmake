# The Redis tier against a real redis-server each test starts (tests/unit/test_cache_redis_support.hpp).
d4r_test(test_cache_redis
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_connection.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_objects.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_lock.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_jobs.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_presence.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_tier.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_redis_chain.cpp
  LIBS d4r_cache_redis
  TIMEOUT 60)
