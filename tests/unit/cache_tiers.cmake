# The cache's key type, tiers and their chain, the launch-metadata encoding and its migration.
# protobuf only to write the old rows' metadata as the old daemon did (cache/ itself links none).
d4r_test(test_cache_tiers
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_cache_key.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_launch_metadata.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_metadata_migration.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_tier_chain.cpp
  LIBS d4r_cache d4r_proto SQLite::SQLite3)
