# The cache's key type, tiers and their chain, the launch-metadata encoding and its migration.
d4r_test(test_cache_tiers
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_cache_key.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_tier_chain.cpp
  LIBS d4r_cache)
