# Two daemons share builds through a real redis-server (--redis): one build for requests on both,
# a killed host's build taken over by the other; with Redis gone they build locally. Skipped only
# when redis-server is not installed.
d4r_test(test_integration_redis_tier
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_integration_redis_tier.cpp
  LIBS d4r_test_harness d4r_cache_redis d4r_proto d4r_util
  TIMEOUT 400)
add_dependencies(test_integration_redis_tier d4r-kerneld d4r-kernel-worker)
